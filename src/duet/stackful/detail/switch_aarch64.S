/*
 * duet stackful voice: the AArch64 (AAPCS64) context switch and entry trampoline.
 * Same contract as switch_x86_64.S:
 *
 * void* duet_context_switch(void** save_sp, void* load_sp, void* transfer);
 *
 * Saved: the callee-saved x19-x28, x29 (frame pointer), x30 (link register =
 * the resume address), sp, the low halves d8-d15 of v8-v15, and FPCR (rounding
 * mode, flush-to-zero, ...), which is restored only when it differs (msr fpcr
 * synchronises, and almost every switch finds it equal).
 *
 * Frame of a suspended context (176 bytes, sp 16-byte aligned throughout):
 *
 *     save_sp + 160  FPCR | padding
 *     save_sp + 144  x29 | x30 (resume address)
 *     save_sp + 128  x27 | x28
 *     save_sp + 112  x25 | x26
 *     save_sp +  96  x23 | x24
 *     save_sp +  80  x21 | x22
 *     save_sp +  64  x19 | x20   (new context: entry function | its data)
 *     save_sp +  48  d14 | d15
 *     save_sp +  32  d12 | d13
 *     save_sp +  16  d10 | d11
 *     save_sp +   0  d8  | d9
 *
 * Resume is `br x30`, not `ret`: like x86-64's jmp, it keeps the return-address
 * predictor out of a call/return pairing that a stack switch always breaks.
 */
    .text
    .p2align 4
    .globl  duet_context_switch
    .type   duet_context_switch, %function
    .globl  duet_context_switch_local       /* hidden alias for libduet's own calls */
    .hidden duet_context_switch_local
    .type   duet_context_switch_local, %function
duet_context_switch:
duet_context_switch_local:
    .cfi_startproc
    sub     sp, sp, #176            /* room for the frame                         */
    .cfi_adjust_cfa_offset 176
    stp     d8, d9, [sp, #0]        /* save callee-saved FP registers             */
    stp     d10, d11, [sp, #16]
    stp     d12, d13, [sp, #32]
    stp     d14, d15, [sp, #48]
    stp     x19, x20, [sp, #64]     /* save callee-saved general registers        */
    stp     x21, x22, [sp, #80]
    stp     x23, x24, [sp, #96]
    stp     x25, x26, [sp, #112]
    stp     x27, x28, [sp, #128]
    stp     x29, x30, [sp, #144]    /* frame pointer and resume address           */
    mrs     x9, fpcr                /* our FPCR (x9: caller-saved scratch)        */
    str     x9, [sp, #160]
    mov     x10, sp
    str     x10, [x0]               /* *save_sp = sp: we are parked               */

    mov     sp, x1                  /* adopt the other context's stack            */
    ldr     x10, [sp, #160]         /* its FPCR                                   */
    cmp     x9, x10                 /* equal to ours?                             */
    b.eq    1f                      /* yes: skip the synchronising write          */
    msr     fpcr, x10               /* no: restore it                             */
1:  ldp     d8, d9, [sp, #0]        /* restore its FP registers                   */
    ldp     d10, d11, [sp, #16]
    ldp     d12, d13, [sp, #32]
    ldp     d14, d15, [sp, #48]
    ldp     x19, x20, [sp, #64]     /* restore its general registers              */
    ldp     x21, x22, [sp, #80]
    ldp     x23, x24, [sp, #96]
    ldp     x25, x26, [sp, #112]
    ldp     x27, x28, [sp, #128]
    ldp     x29, x30, [sp, #144]    /* its frame pointer and resume address       */
    add     sp, sp, #176            /* drop the frame                             */
    .cfi_adjust_cfa_offset -176
    mov     x0, x2                  /* it returns `transfer`                      */
    br      x30                     /* resume it                                  */
    .cfi_endproc
    .size   duet_context_switch, .-duet_context_switch
    .size   duet_context_switch_local, .-duet_context_switch_local

/*
 * duet_context_entry: the first resume address of a new context. x19 = entry
 * function, x20 = its data, x0 = the transfer value. Calls entry(data,
 * transfer), which never returns; brk traps if it ever did.
 */
    .p2align 4
    .globl  duet_context_entry
    .type   duet_context_entry, %function
duet_context_entry:
    .cfi_startproc
    .cfi_undefined x30              /* outermost frame: unwinders stop here       */
    mov     x1, x0                  /* arg 2: the transfer value                  */
    mov     x0, x20                 /* arg 1: the entry function's data           */
    blr     x19                     /* entry(data, transfer)                      */
    brk     #0                      /* unreachable: entry functions never return  */
    .cfi_endproc
    .size   duet_context_entry, .-duet_context_entry

    .section .note.GNU-stack,"",%progbits   /* no executable stack */
