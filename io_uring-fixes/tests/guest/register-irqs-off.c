// SPDX-License-Identifier: GPL-2.0
/*
 * Registration keeps interrupts off for short sections only, on
 * mainline: io_uring-coalesce's test of the same name (that stack walks
 * in batches on 6.1), built here from its source.  A thread on CPU 1
 * times IPIs to CPU 0 while CPU 0 registers 512 MiB of 4 KiB pages;
 * upstream, which pins the whole buffer in one lockless walk with
 * interrupts off, holds each of them off for the length of that walk.
 */
#include "../../../io_uring-coalesce/tests/guest/register-irqs-off.c"
