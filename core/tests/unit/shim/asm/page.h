/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for asm/page.h (copies, x86-64 values). */
#ifndef _SHIM_ASM_PAGE_H
#define _SHIM_ASM_PAGE_H

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

#endif
