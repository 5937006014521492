/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reference implementations (plain pfn loops over the model's ground truth)
 * and the checks that compare <linux/page_batch.h> against them.  Shared by
 * page_batch_test.c and fuzz_page_batch.c.  The code under test is reached
 * through pb_hdr.h.
 */
#ifndef PB_REF_H
#define PB_REF_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "pb_hdr.h"

/* Ground truth, from the test-only fields of struct page. */
static inline unsigned long ref_pfn(const struct page *p) { return p->__shim_pfn; }
static inline unsigned long ref_head_pfn(const struct page *p) { return p->__shim_head_pfn; }
static inline unsigned int ref_order(const struct page *p) { return p->__shim_order; }

/* How many leading entries have pfn(pages[i]) == pfn(pages[0]) + i. */
static unsigned long ref_contig_len(struct page *const *pages, unsigned long nr)
{
	unsigned long i;

	if (!nr)
		return 0;
	for (i = 1; i < nr; i++)
		if (ref_pfn(pages[i]) != ref_pfn(pages[0]) + i)
			break;
	return i;
}

/*
 * The least page_array_contig_len() may return: the reference count, capped
 * at the end of pages[0]'s section where the memmap is not virtually
 * contiguous (classic SPARSEMEM).  Anything in [ref_contig_min, ref_contig_len]
 * is correct.
 */
static unsigned long ref_contig_min(struct page *const *pages, unsigned long nr)
{
	unsigned long ref = ref_contig_len(pages, nr);
#if SHIM_SPARSE_CLASSIC
	if (nr) {
		unsigned long left = SHIM_PAGES_PER_SECTION -
				     (ref_pfn(pages[0]) & (SHIM_PAGES_PER_SECTION - 1));
		if (left < ref)
			ref = left;
	}
#endif
	return ref;
}

struct ref_layout {
	size_t folio_size;
	size_t offset;
	unsigned long nr_folios;
};

/*
 * A run of equal-size large folios: pages[0] anywhere in the first folio,
 * then page by page to the end of each folio, each next folio entered at its
 * head with the same order, all folios but the last complete.
 */
static bool ref_folio_layout(struct page *const *pages, unsigned long nr,
			     struct ref_layout *out)
{
	unsigned long i, expect, folio_end, nr_folios = 1;
	unsigned int order;

	if (!nr)
		return false;
	order = ref_order(pages[0]);
	if (!order)
		return false;
	expect = ref_pfn(pages[0]);
	folio_end = ref_head_pfn(pages[0]) + (1UL << order);
	for (i = 1; i < nr; i++) {
		unsigned long pfn = ref_pfn(pages[i]);

		expect++;
		if (expect < folio_end) {
			if (pfn != expect)
				return false;
			continue;
		}
		/* Next folio: must be the head of a folio of the same order. */
		if (ref_order(pages[i]) != order || ref_head_pfn(pages[i]) != pfn)
			return false;
		expect = pfn;
		folio_end = pfn + (1UL << order);
		nr_folios++;
	}
	out->folio_size = PAGE_SIZE << order;
	out->offset = (ref_pfn(pages[0]) - ref_head_pfn(pages[0])) * PAGE_SIZE;
	out->nr_folios = nr_folios;
	return true;
}

/* ---- checks: return 0 if the header agrees, else 1 and a reason ---- */

static void pb_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int pb_check_contig(struct page **pages, unsigned long nr,
			   char *why, size_t len)
{
	unsigned long hooks = shim_hook_failures;
	unsigned long ref = ref_contig_len(pages, nr);
	unsigned long lo = ref_contig_min(pages, nr);
	unsigned long got = pbh_contig_len(pages, nr);

	if (shim_hook_failures != hooks) {
		pb_msg(why, len, "page_array_contig_len tripped %lu VM_BUG_ON/WARN/bad-pfn hook(s)",
		       shim_hook_failures - hooks);
		return 1;
	}
	if (got > ref) {
		pb_msg(why, len, "page_array_contig_len=%lu > reference %lu (never more)", got, ref);
		return 1;
	}
	if (got < lo) {
		if (lo == ref)
			pb_msg(why, len, "page_array_contig_len=%lu, expected %lu", got, ref);
		else
			pb_msg(why, len, "page_array_contig_len=%lu < %lu (must reach the section end; reference %lu)",
			       got, lo, ref);
		return 1;
	}
	return 0;
}

static int pb_check_layout(struct page **pages, unsigned long nr,
			   char *why, size_t len)
{
	unsigned long hooks = shim_hook_failures;
	struct pbh_layout got;
	struct ref_layout ref;
	bool ok, rok, wrote;

	rok = ref_folio_layout(pages, nr, &ref);
	ok = pbh_folio_layout(pages, nr, &got, &wrote);
	if (shim_hook_failures != hooks) {
		pb_msg(why, len, "page_array_folio_layout tripped %lu VM_BUG_ON/WARN/bad-pfn hook(s)",
		       shim_hook_failures - hooks);
		return 1;
	}
	if (ok != rok) {
		pb_msg(why, len, "page_array_folio_layout=%s, expected %s",
		       ok ? "true" : "false", rok ? "true" : "false");
		return 1;
	}
	/* Documented: "@layout is left unmodified" when returning false. */
	if (!ok && wrote) {
		pb_msg(why, len, "page_array_folio_layout returned false but wrote @layout");
		return 1;
	}
	if (ok && (got.folio_size != ref.folio_size || got.offset != ref.offset ||
		   got.nr_folios != ref.nr_folios)) {
		pb_msg(why, len, "layout {folio_size %zu offset %zu nr_folios %lu}, expected {%zu %zu %lu}",
		       got.folio_size, got.offset, got.nr_folios,
		       ref.folio_size, ref.offset, ref.nr_folios);
		return 1;
	}
	return 0;
}

#endif
