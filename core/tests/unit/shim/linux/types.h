/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for include/linux/types.h: the kernel's names for C types. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/compiler.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned long pgoff_t;
typedef unsigned int gfp_t;
typedef u64 phys_addr_t;

#endif
