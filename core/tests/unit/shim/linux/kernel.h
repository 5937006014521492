/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for include/linux/kernel.h: pulls in the usual helpers. */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <limits.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/align.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#ifndef offsetof
#define offsetof(t, m)	__builtin_offsetof(t, m)
#endif
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
/* Part 2 (no-op stubs). */
#define might_sleep()	do { } while (0)
#define cond_resched()	do { } while (0)
#define pr_warn(...)	do { } while (0)
#define pr_err(...)	do { } while (0)
#define pr_debug(...)	do { } while (0)

#endif
