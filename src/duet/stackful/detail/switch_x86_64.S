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
 * address = duet_context_entry. The frame's top is 16-byte aligned, so after
 * the 64 bytes are dropped rsp is 16-byte aligned at the trampoline; its `call`
 * pushes 8 bytes, giving the entry function (rsp + 8) % 16 == 0.
 *
 * Why compare before restoring the FP control state: ldmxcsr costs ~1 ns
 * even when nothing changes, and ~50 ns when it changes MXCSR's status flags
 * (measured on Intel: a ping-pong between a context with the inexact flag set
 * and one without took 101 ns per round trip with Boost.Context's
 * unconditional ldmxcsr + fldcw, 4.4 ns with the compare); fldcw costs ~0.2 ns.
 * Almost every switch finds the same control state on both sides, so we
 * compare and load only on a difference. Only MXCSR's control bits (6-15) are
 * callee-saved; its status flags (0-5) are caller-saved, so a difference in
 * the flags alone does not force a load. The compare runs before the stack
 * switch, straight against memory (its frame through rsi, ours through rsp):
 * 7 instructions where Boost's two loads are 2, so 28 per switch against
 * jump_fcontext's 24. What neither can skip is stmxcsr: it is the only way to
 * learn whether the running fiber changed its own MXCSR, and it is microcoded
 * and slow on AMD Zen (LLVM's Zen 3 model: one per ~15 cycles).
 *
 * Status flags travel with the thread, never with the fiber: when the control
 * bits do differ, we load the other context's control bits with OUR status
 * flags, never its saved flags, so the load does not change the flags (the
 * ~50 ns case above). switch/duet_rounding_differs (different rounding modes,
 * different flags): 105.7 ns per round trip loading the saved MXCSR, 9.4 ns
 * this way (Intel); when the flags happen to agree the merge costs ~1.5 ns per
 * round trip. (The fast path already carries our flags over.)
 *
 * Why the compare's branches fall through: the common case (nothing differs)
 * runs straight down past two not-taken branches, and the loads sit out of
 * line after the final jmp. A taken branch ends a fetch block and costs the
 * front end a redirect on either vendor; a not-taken one costs next to
 * nothing. The earlier layout took two branches per switch.
 *
 * Why mov into a frame made by one lea, not push/pop (the frame is the same):
 * after pushes, an explicit use of rsp (stmxcsr (%rsp), movq %rsp, ...) makes
 * the stack engine insert a sync uop, and measured on Intel the push form cost
 * ~0.2 ns more per switch with everything else equal. Boost.Context's
 * jump_fcontext uses the same mov form.
 *
 * Why the resume address is loaded first: the indirect jmp that ends the
 * switch is predicted at fetch, but only checked once its target is in a
 * register. Loading it right after the stack switch, before the six register
 * loads, checks it as early as possible, so a mispredicted target (a fiber
 * resumed from a new place) is redirected sooner.
 *
 * Why resume with `jmp` rather than `ret`: the return-stack predictor pairs each
 * `ret` with the `call` that pushed it; after a stack switch they never match,
 * so every `ret` mispredicts (measured ~3x slower). A loaded address plus an
 * indirect `jmp` goes through the ordinary branch-target predictor instead.
 */

    .text
    .p2align 6                              /* one 64-byte line: the fast path
                                               spans two, not three          */
    .globl  duet_context_switch
    .type   duet_context_switch, @function
    .globl  duet_context_switch_local       /* the same code, for calls from inside */
    .hidden duet_context_switch_local       /* libduet: hidden, so no PLT hop       */
    .type   duet_context_switch_local, @function
duet_context_switch:
duet_context_switch_local:
    .cfi_startproc
    leaq    -56(%rsp), %rsp         /* the frame below the resume address      */
    .cfi_adjust_cfa_offset 56
    stmxcsr (%rsp)                  /* save MXCSR (rounding, exception masks)  */
    fnstcw  4(%rsp)                 /* save x87 control word (precision, RC)   */
    movq    %r15, 8(%rsp)           /* save r15                                */
    .cfi_rel_offset r15, 8
    movq    %r14, 16(%rsp)          /* save r14                                */
    .cfi_rel_offset r14, 16
    movq    %r13, 24(%rsp)          /* save r13                                */
    .cfi_rel_offset r13, 24
    movq    %r12, 32(%rsp)          /* save r12                                */
    .cfi_rel_offset r12, 32
    movq    %rbx, 40(%rsp)          /* save rbx                                */
    .cfi_rel_offset rbx, 40
    movq    %rbp, 48(%rsp)          /* save rbp                                */
    .cfi_rel_offset rbp, 48
    movq    %rsp, (%rdi)            /* *save_sp = our stack pointer: we are parked */

    movl    (%rsi), %r10d           /* its saved MXCSR (rsi: still its frame)    */
    xorl    (%rsp), %r10d           /* bits that differ from ours (the load is
                                       forwarded from our stmxcsr: same address
                                       and size)                                */
    testl   $0xFFC0, %r10d          /* any control bit (DAZ, masks, RC, FZ)?     */
    jnz     .Lload_mxcsr            /* yes (rare): load it, out of line         */
.Lmxcsr_done:
    movzwl  4(%rsp), %r11d          /* our x87 control word (forwarded likewise) */
    cmpw    4(%rsi), %r11w          /* its x87 control word equal to ours?       */
    jne     .Lload_x87_cw           /* no (rare): load it, out of line          */
.Lfp_done:
    .cfi_remember_state             /* the out-of-line loads run in this state:
                                       our whole frame still in place           */
    movq    %rsi, %rsp              /* adopt the other context's stack; its frame
                                       has the same layout, so the CFI above
                                       still describes it                       */
    movq    56(%rsp), %rcx          /* its resume address, first (see "Why the
                                       resume address is loaded first")         */
    movq    8(%rsp), %r15           /* restore r15                              */
    .cfi_restore r15
    movq    16(%rsp), %r14          /* restore r14                              */
    .cfi_restore r14
    movq    24(%rsp), %r13          /* restore r13 (entry data for a new context) */
    .cfi_restore r13
    movq    32(%rsp), %r12          /* restore r12 (entry function, new context) */
    .cfi_restore r12
    movq    40(%rsp), %rbx          /* restore rbx                              */
    .cfi_restore rbx
    movq    48(%rsp), %rbp          /* restore rbp                              */
    .cfi_restore rbp
    leaq    64(%rsp), %rsp          /* drop its frame and resume address        */
    .cfi_adjust_cfa_offset -64
    .cfi_register rip, rcx
    movq    %rdx, %rax              /* it returns `transfer`                    */
    jmpq    *%rcx                   /* resume it (see above: jmp, not ret)      */

    .cfi_restore_state
.Lload_mxcsr:
    andl    $0xFFC0, %r10d          /* the control bits that differ, and only them */
    xorl    (%rsp), %r10d           /* our MXCSR with those bits turned to its:
                                       its control bits, our status flags       */
    movl    %r10d, (%rsi)           /* into its MXCSR slot (read for the last
                                       time now: it is being resumed)          */
    ldmxcsr (%rsi)                  /* load it (see "Status flags travel")      */
    jmp     .Lmxcsr_done            /* and go on to the x87 control word        */
.Lload_x87_cw:
    fldcw   4(%rsi)                 /* restore its x87 control word             */
    jmp     .Lfp_done               /* and go on to its stack and registers     */
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
