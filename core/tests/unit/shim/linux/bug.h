/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/bug.h.
 * Part 3 (test hooks): BUG_ON()/WARN_ON() do not crash; they record a
 * failure through shim_hook_fail() so the harness can report "the code
 * under test tripped an assertion" as a test failure.  WARN_ON*() keep the
 * kernel's value semantics (they evaluate to the condition).
 */
#ifndef _SHIM_LINUX_BUG_H
#define _SHIM_LINUX_BUG_H

#include <linux/compiler.h>
#include <linux/build_bug.h>

extern unsigned long shim_hook_failures;
void shim_hook_fail(const char *file, int line, const char *what);

#define BUG()		shim_hook_fail(__FILE__, __LINE__, "BUG()")
#define BUG_ON(cond)	do { if (unlikely(cond)) shim_hook_fail(__FILE__, __LINE__, "BUG_ON(" #cond ")"); } while (0)
#define __shim_warn(cond, what) ({ int __ret = !!(cond); \
	if (unlikely(__ret)) shim_hook_fail(__FILE__, __LINE__, what "(" #cond ")"); \
	unlikely(__ret); })
#define WARN_ON(cond)		__shim_warn(cond, "WARN_ON")
#define WARN_ON_ONCE(cond)	__shim_warn(cond, "WARN_ON_ONCE")
#define WARN(cond, ...)		__shim_warn(cond, "WARN")
#define WARN_ONCE(cond, ...)	__shim_warn(cond, "WARN_ONCE")

#endif
