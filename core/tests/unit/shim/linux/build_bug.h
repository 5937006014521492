/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for include/linux/build_bug.h (copies). */
#ifndef _SHIM_LINUX_BUILD_BUG_H
#define _SHIM_LINUX_BUILD_BUG_H

#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))
#define BUILD_BUG_ON_MSG(cond, msg) BUILD_BUG_ON(cond)
#define BUILD_BUG()		BUILD_BUG_ON(1)
#define static_assert(expr, ...) _Static_assert(expr, #expr)

#endif
