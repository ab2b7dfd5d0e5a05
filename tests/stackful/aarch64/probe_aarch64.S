/*
 * void duet_test_switch_with_patterns(void** save, void* load, uint64_t out[18]);
 *   Loads patterns into x19-x28 and d8-d15, switches (transfer 0), and when
 *   resumed stores them to out[0..9] (x19-x28) and out[10..17] (d8-d15).
 * void duet_test_clobber_and_switch(void** save, void* load);
 *   Tramples x19-x28 and d8-d15, then switches. Both preserve their caller's.
 */
    .text
    .globl  duet_test_switch_with_patterns
    .type   duet_test_switch_with_patterns, %function
duet_test_switch_with_patterns:
    sub     sp, sp, #176
    stp     d8, d9, [sp, #0]
    stp     d10, d11, [sp, #16]
    stp     d12, d13, [sp, #32]
    stp     d14, d15, [sp, #48]
    stp     x19, x20, [sp, #64]
    stp     x21, x22, [sp, #80]
    stp     x23, x24, [sp, #96]
    stp     x25, x26, [sp, #112]
    stp     x27, x28, [sp, #128]
    stp     x29, x30, [sp, #144]
    str     x2, [sp, #160]
    mov     x19, #19
    mov     x20, #20
    mov     x21, #21
    mov     x22, #22
    mov     x23, #23
    mov     x24, #24
    mov     x25, #25
    mov     x26, #26
    mov     x27, #27
    mov     x28, #28
    fmov    d8, #8.0
    fmov    d9, #9.0
    fmov    d10, #10.0
    fmov    d11, #11.0
    fmov    d12, #12.0
    fmov    d13, #13.0
    fmov    d14, #14.0
    fmov    d15, #15.0
    mov     x2, #0
    bl      duet_context_switch
    ldr     x2, [sp, #160]
    stp     x19, x20, [x2, #0]
    stp     x21, x22, [x2, #16]
    stp     x23, x24, [x2, #32]
    stp     x25, x26, [x2, #48]
    stp     x27, x28, [x2, #64]
    stp     d8, d9, [x2, #80]
    stp     d10, d11, [x2, #96]
    stp     d12, d13, [x2, #112]
    stp     d14, d15, [x2, #128]
    ldp     d8, d9, [sp, #0]
    ldp     d10, d11, [sp, #16]
    ldp     d12, d13, [sp, #32]
    ldp     d14, d15, [sp, #48]
    ldp     x19, x20, [sp, #64]
    ldp     x21, x22, [sp, #80]
    ldp     x23, x24, [sp, #96]
    ldp     x25, x26, [sp, #112]
    ldp     x27, x28, [sp, #128]
    ldp     x29, x30, [sp, #144]
    add     sp, sp, #176
    ret
    .size   duet_test_switch_with_patterns, .-duet_test_switch_with_patterns

    .globl  duet_test_clobber_and_switch
    .type   duet_test_clobber_and_switch, %function
duet_test_clobber_and_switch:
    sub     sp, sp, #176
    stp     d8, d9, [sp, #0]
    stp     d10, d11, [sp, #16]
    stp     d12, d13, [sp, #32]
    stp     d14, d15, [sp, #48]
    stp     x19, x20, [sp, #64]
    stp     x21, x22, [sp, #80]
    stp     x23, x24, [sp, #96]
    stp     x25, x26, [sp, #112]
    stp     x27, x28, [sp, #128]
    stp     x29, x30, [sp, #144]
    mov     x19, #-1
    mov     x20, #-1
    mov     x21, #-1
    mov     x22, #-1
    mov     x23, #-1
    mov     x24, #-1
    mov     x25, #-1
    mov     x26, #-1
    mov     x27, #-1
    mov     x28, #-1
    fmov    d8, #-1.0
    fmov    d9, #-1.0
    fmov    d10, #-1.0
    fmov    d11, #-1.0
    fmov    d12, #-1.0
    fmov    d13, #-1.0
    fmov    d14, #-1.0
    fmov    d15, #-1.0
    mov     x2, #0
    bl      duet_context_switch
    ldp     d8, d9, [sp, #0]
    ldp     d10, d11, [sp, #16]
    ldp     d12, d13, [sp, #32]
    ldp     d14, d15, [sp, #48]
    ldp     x19, x20, [sp, #64]
    ldp     x21, x22, [sp, #80]
    ldp     x23, x24, [sp, #96]
    ldp     x25, x26, [sp, #112]
    ldp     x27, x28, [sp, #128]
    ldp     x29, x30, [sp, #144]
    add     sp, sp, #176
    ret
    .size   duet_test_clobber_and_switch, .-duet_test_clobber_and_switch

    .section .note.GNU-stack,"",%progbits
