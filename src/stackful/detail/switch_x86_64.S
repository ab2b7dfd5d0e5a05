/*
 * duet stackful voice: the x86-64 System V context switch and entry trampoline.
 *
 * void* duet_context_switch(void** save_sp, void* load_sp, void* transfer);
 *   Saves the caller's callee-saved state on its own stack, stores that stack
 *   pointer in *save_sp, loads load_sp (a stack saved the same way, or one built
 *   by make_context) and continues there. The context being resumed sees
 *   `transfer` as the return value of ITS call to duet_context_switch (or, for a
 *   new context, as the second argument of its entry function).
 *
 * What is saved, and why only this: the caller of a function may assume that
 * rbx, rbp, r12-r15 and rsp survive the call (SysV ABI 3.2.1), and that the
 * control bits of MXCSR and the x87 control word do too ("callee-saved" control
 * state: rounding mode, exception masks, precision). Everything else is
 * caller-saved, so the compiler has already spilled whatever it needs.
 *
 * Frame of a suspended context (stack grows down; save_sp points at the bottom):
 *
 *     higher addresses
 *     +-------------------------------+
 *     | resume address (pushed by the | <- save_sp + 56
 *     | caller's `call`)              |
 *     | rbp                           | <- save_sp + 48
 *     | rbx                           | <- save_sp + 40
 *     | r12                           | <- save_sp + 32
 *     | r13                           | <- save_sp + 24
 *     | r14                           | <- save_sp + 16
 *     | r15                           | <- save_sp +  8
 *     | x87 CW (2 bytes) @+4 | MXCSR  | <- save_sp +  0
 *     +-------------------------------+
 *     lower addresses
 *
 * A new context is the same 64-byte frame built by make_context() at the top of
 * a fresh stack: default MXCSR (0x1F80) and x87 CW (0x037F), r12 = entry
 * function, r13 = its data, rbp = 0 (ends frame-pointer walks), and the resume
 * address = duet_context_entry. The frame's top is 16-byte aligned, so after the
 * eight 8-byte slots are popped rsp is 16-byte aligned at the trampoline; its
 * `call` pushes 8 bytes, giving the entry function (rsp + 8) % 16 == 0.
 *
 * Why compare before restoring the FP control state: ldmxcsr and fldcw are
 * slow when they change the register (the pipeline is drained), and ~free to
 * skip. Almost every switch finds the same control state on both sides, so we
 * compare and load only on a difference. Only MXCSR's control bits (6-15) are
 * callee-saved; its status flags (0-5) are caller-saved, so a difference in
 * the flags alone does not force a load. Measured: ~70 ns per switch when the
 * two contexts' MXCSR differed only in a sticky status flag, ~5 ns with this.
 *
 * Why resume with `jmp` rather than `ret`: the return-stack predictor pairs each
 * `ret` with the `call` that pushed it; after a stack switch they never match,
 * so every `ret` mispredicts (measured ~3x slower). A popped address plus an
 * indirect `jmp` goes through the ordinary branch-target predictor instead.
 */

    .text
    .p2align 4
    .globl  duet_context_switch
    .type   duet_context_switch, @function
    .globl  duet_context_switch_local       /* the same code, for calls from inside */
    .hidden duet_context_switch_local       /* libduet: hidden, so no PLT hop       */
    .type   duet_context_switch_local, @function
duet_context_switch:
duet_context_switch_local:
    .cfi_startproc
    pushq   %rbp                    /* save callee-saved rbp                     */
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    pushq   %rbx                    /* save rbx                                  */
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbx, 0
    pushq   %r12                    /* save r12                                  */
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r12, 0
    pushq   %r13                    /* save r13                                  */
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r13, 0
    pushq   %r14                    /* save r14                                  */
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r14, 0
    pushq   %r15                    /* save r15                                  */
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r15, 0
    leaq    -8(%rsp), %rsp          /* room for MXCSR + x87 CW (lea: flags kept)  */
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)                  /* save MXCSR (rounding, exception masks)     */
    fnstcw  4(%rsp)                 /* save x87 control word (precision, rounding)*/
    movl    (%rsp), %r8d            /* keep our MXCSR in r8 (scratch: caller-saved) */
    movzwl  4(%rsp), %r9d           /* and our x87 CW in r9                        */
    movq    %rsp, (%rdi)            /* *save_sp = our stack pointer: we are parked */

    movq    %rsi, %rsp              /* adopt the other context's stack; its frame
                                       has the same layout, so the CFI above
                                       still describes it                         */
    movl    (%rsp), %r10d           /* its saved MXCSR                            */
    xorl    %r8d, %r10d             /* bits that differ from ours                 */
    testl   $0xFFC0, %r10d          /* any control bit (DAZ, masks, RC, FZ)?       */
    jz      1f                      /* no: skip the load (see "Why compare" above) */
    ldmxcsr (%rsp)                  /* yes: restore its MXCSR                      */
1:  cmpw    4(%rsp), %r9w           /* its x87 control word equal to ours?         */
    je      2f                      /* yes: skip the (serialising) fldcw           */
    fldcw   4(%rsp)                 /* no: restore its x87 control word            */
2:
    leaq    8(%rsp), %rsp           /* drop the control-word slot                 */
    .cfi_adjust_cfa_offset -8
    popq    %r15                    /* restore r15                                */
    .cfi_adjust_cfa_offset -8
    .cfi_restore r15
    popq    %r14                    /* restore r14                                */
    .cfi_adjust_cfa_offset -8
    .cfi_restore r14
    popq    %r13                    /* restore r13 (entry data for a new context) */
    .cfi_adjust_cfa_offset -8
    .cfi_restore r13
    popq    %r12                    /* restore r12 (entry function, new context)  */
    .cfi_adjust_cfa_offset -8
    .cfi_restore r12
    popq    %rbx                    /* restore rbx                                */
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbx
    popq    %rbp                    /* restore rbp                                */
    .cfi_adjust_cfa_offset -8
    .cfi_restore rbp
    popq    %rcx                    /* its resume address (rcx: caller-saved, not
                                       a return register)                         */
    .cfi_adjust_cfa_offset -8
    .cfi_register rip, rcx
    movq    %rdx, %rax              /* it returns `transfer`                      */
    jmpq    *%rcx                   /* resume it (see above: jmp, not ret)        */
    .cfi_endproc
    .size   duet_context_switch, .-duet_context_switch
    .size   duet_context_switch_local, .-duet_context_switch_local

/*
 * duet_context_entry: the first "resume address" of every new context.
 * Entered by the `jmpq *%rcx` above with rsp 16-byte aligned, r12 = entry
 * function, r13 = its data, rax = the transfer value of the switch that
 * started us. Calls entry(data, transfer), which must never return: a fiber
 * ends by switching away for good. If it did return, ud2 traps at once instead
 * of running off into whatever lies above the stack.
 */
    .p2align 4
    .globl  duet_context_entry
    .type   duet_context_entry, @function
duet_context_entry:
    .cfi_startproc
    .cfi_undefined rip              /* outermost frame: unwinders stop here       */
    movq    %r13, %rdi              /* arg 1: the entry function's data           */
    movq    %rax, %rsi              /* arg 2: the transfer value                  */
    callq   *%r12                   /* entry(data, transfer); rsp+8 is 16-aligned
                                       inside it                                  */
    ud2                             /* unreachable: entry functions never return  */
    .cfi_endproc
    .size   duet_context_entry, .-duet_context_entry

    .section .note.GNU-stack,"",@progbits   /* this object needs no executable stack */
