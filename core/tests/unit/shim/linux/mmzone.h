/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for the SPARSEMEM parts of include/linux/mmzone.h and
 * asm/sparsemem.h.
 *
 * Part 1 (copies, keep in sync): the PAGES_PER_SECTION arithmetic.  The
 * section is made small (64 pages, SECTION_SIZE_BITS 18) so tests cross
 * many section boundaries with small arrays.  Override with
 * -DSHIM_PFN_SECTION_SHIFT=N.
 */
#ifndef _SHIM_LINUX_MMZONE_H
#define _SHIM_LINUX_MMZONE_H

#include <linux/types.h>
#include <linux/kconfig.h>
#include <asm/page.h>

#ifndef SHIM_PFN_SECTION_SHIFT
#define SHIM_PFN_SECTION_SHIFT	6
#endif
/* Test hook: the section size of the model, whatever the memory model. */
#define SHIM_PAGES_PER_SECTION	(1UL << SHIM_PFN_SECTION_SHIFT)

#if IS_ENABLED(CONFIG_SPARSEMEM)	/* the kernel defines these only here */
#define SECTION_SIZE_BITS	(SHIM_PFN_SECTION_SHIFT + PAGE_SHIFT)
#define PFN_SECTION_SHIFT	(SECTION_SIZE_BITS - PAGE_SHIFT)
#define PAGES_PER_SECTION	(1UL << PFN_SECTION_SHIFT)
#define PAGE_SECTION_MASK	(~(PAGES_PER_SECTION - 1))
#define SECTION_ALIGN_UP(pfn)	(((pfn) + PAGES_PER_SECTION - 1) & PAGE_SECTION_MASK)
#define SECTION_ALIGN_DOWN(pfn)	((pfn) & PAGE_SECTION_MASK)

static inline unsigned long pfn_to_section_nr(unsigned long pfn)
{
	return pfn >> PFN_SECTION_SHIFT;
}

static inline unsigned long section_nr_to_pfn(unsigned long sec)
{
	return sec << PFN_SECTION_SHIFT;
}
#endif /* CONFIG_SPARSEMEM */

#define MAX_ORDER		11	/* 5.10 / 6.1 meaning: orders 0..10 */
#define MAX_PAGE_ORDER		10	/* 6.12 meaning */
#define NR_PAGE_ORDERS		(MAX_PAGE_ORDER + 1)

#endif
