/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/minmax.h.  KEEP IN SYNC in spirit with
 * the kernel: min()/max() refuse (via a pointer-comparison warning, an
 * error under -Werror) to compare values of different types, exactly as
 * the kernel's __typecheck() does, so a header that would warn in a kernel
 * build fails here too.  min_t()/max_t() cast first.
 */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define __shim_cmp(x, y, op) ({				\
	__typeof__(x) __x = (x);			\
	__typeof__(y) __y = (y);			\
	(void)(&__x == &__y);	/* __typecheck */	\
	__x op __y ? __x : __y; })

#define min(x, y)	__shim_cmp(x, y, <)
#define max(x, y)	__shim_cmp(x, y, >)
#define min3(x, y, z)	min((__typeof__(x))min(x, y), z)
#define max3(x, y, z)	max((__typeof__(x))max(x, y), z)
#define min_t(type, x, y) __shim_cmp((type)(x), (type)(y), <)
#define max_t(type, x, y) __shim_cmp((type)(x), (type)(y), >)
#define clamp(val, lo, hi) min((__typeof__(val))max(val, lo), hi)
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define swap(a, b) \
	do { __typeof__(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

#endif
