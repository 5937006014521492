/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/mm_types.h: a cut-down struct page and
 * struct folio.
 *
 * Part 1 (copies, keep in sync): the compound_head encoding of tail pages
 * (bit 0 set, rest points at the head), and struct folio overlaying the
 * head page.
 * Part 3 (test hooks): the __shim_* fields are the model's ground truth
 * (pfn, head pfn, order) used only by the reference implementation in the
 * test; kernel code must never look at them.
 */
#ifndef _SHIM_LINUX_MM_TYPES_H
#define _SHIM_LINUX_MM_TYPES_H

#include <linux/types.h>

struct page {
	unsigned long flags;		/* PG_* bits; section number on top */
	unsigned long compound_head;	/* tail: head | 1 */
	unsigned int compound_order;	/* head only (kernel keeps it in page[1]) */
	/* --- test hooks: ground truth, not used by kernel-side code --- */
	unsigned long __shim_pfn;
	unsigned long __shim_head_pfn;
	unsigned int __shim_order;
};

struct folio {
	union {
		struct {
			unsigned long flags;
			unsigned long compound_head;
		};
		struct page page;
	};
};

#endif
