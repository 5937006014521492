/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/compiler.h and compiler_types.h.
 * Part 1 (copies, keep in sync): likely/unlikely, READ_ONCE/WRITE_ONCE
 * semantics (a volatile access of the object), attribute spellings.
 */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

#include <linux/kconfig.h>

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	do { *(volatile __typeof__(x) *)&(x) = (val); } while (0)

#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __maybe_unused		__attribute__((__unused__))
#define __pure			__attribute__((__pure__))
#ifndef __attribute_const__
#define __attribute_const__	__attribute__((__const__))
#endif
#define __force
#define __user
#define __rcu
#define __init
#define __section(s)		__attribute__((__section__(s)))
#define fallthrough		__attribute__((__fallthrough__))
#define __same_type(a, b)	__builtin_types_compatible_p(__typeof__(a), __typeof__(b))
#define barrier()		__asm__ __volatile__("" : : : "memory")

#endif
