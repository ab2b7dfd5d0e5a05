/*
 * Test helpers for "callee-saved registers survive switches".
 *
 * void duet_test_switch_with_patterns(void** save, void* load, uint64_t out[6]);
 *   Loads known patterns into rbx, rbp, r12-r15, calls duet_context_switch
 *   (save, load, 0), and when resumed stores what those registers hold into
 *   out[0..5] (rbx, rbp, r12, r13, r14, r15). Restores the caller's values.
 *
 * void duet_test_clobber_and_switch(void** save, void* load);
 *   Overwrites rbx, rbp, r12-r15 with garbage, then switches; restores the
 *   caller's values when resumed. Used by the other side to trample them.
 */
    .text
    .globl  duet_test_switch_with_patterns
    .type   duet_test_switch_with_patterns, @function
duet_test_switch_with_patterns:
    pushq   %rbx
    pushq   %rbp
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    pushq   %rdx                    /* keep `out`; 7 pushes + ret: rsp 16-aligned */
    movabsq $0x1111111111111111, %rbx
    movabsq $0x2222222222222222, %rbp
    movabsq $0x3333333333333333, %r12
    movabsq $0x4444444444444444, %r13
    movabsq $0x5555555555555555, %r14
    movabsq $0x6666666666666666, %r15
    xorl    %edx, %edx
    call    duet_context_switch@PLT
    popq    %rcx                    /* out */
    movq    %rbx, 0(%rcx)
    movq    %rbp, 8(%rcx)
    movq    %r12, 16(%rcx)
    movq    %r13, 24(%rcx)
    movq    %r14, 32(%rcx)
    movq    %r15, 40(%rcx)
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbp
    popq    %rbx
    ret
    .size   duet_test_switch_with_patterns, .-duet_test_switch_with_patterns

    .globl  duet_test_clobber_and_switch
    .type   duet_test_clobber_and_switch, @function
duet_test_clobber_and_switch:
    pushq   %rbx
    pushq   %rbp
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    subq    $8, %rsp
    movq    $-1, %rbx
    movq    $-2, %rbp
    movq    $-3, %r12
    movq    $-4, %r13
    movq    $-5, %r14
    movq    $-6, %r15
    xorl    %edx, %edx
    call    duet_context_switch@PLT
    addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbp
    popq    %rbx
    ret
    .size   duet_test_clobber_and_switch, .-duet_test_clobber_and_switch


/*
 * void duet_test_record_entry_rsp(EntryProbe* probe, void* transfer);
 *   An entry function for make_context: records rsp as seen on entry (after
 *   the trampoline's call) in probe->rsp, then switches back to probe->main_sp
 *   for good. struct EntryProbe { void* self_sp; void* main_sp; uint64_t rsp; }.
 */
    .text
    .globl  duet_test_record_entry_rsp
    .type   duet_test_record_entry_rsp, @function
duet_test_record_entry_rsp:
    movq    %rsp, 16(%rdi)          /* probe->rsp = rsp at entry                  */
    movq    8(%rdi), %rsi           /* load = probe->main_sp                      */
    xorl    %edx, %edx
    subq    $8, %rsp                /* realign for the call (we never come back)  */
    call    duet_context_switch@PLT /* save = &probe->self_sp (rdi)               */
    ud2
    .size   duet_test_record_entry_rsp, .-duet_test_record_entry_rsp

    .section .note.GNU-stack,"",@progbits
