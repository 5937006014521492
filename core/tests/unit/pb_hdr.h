/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code under test behind a narrow interface: pb_hdr.c is the only file
 * that includes <linux/page_batch.h>, so it is the only one recompiled per
 * base (and per mutant); the test and the fuzzer are built once per memory
 * model.
 */
#ifndef PB_HDR_H
#define PB_HDR_H

#include <linux/types.h>

struct page;

struct pbh_layout {
	size_t folio_size;
	size_t offset;
	unsigned long nr_folios;
};

/* page_array_contig_len() */
unsigned long pbh_contig_len(struct page **pages, unsigned long nr_pages);

/*
 * page_array_folio_layout() on a struct page_folio_layout prefilled with a
 * pattern; the fields are copied to *out.  *wrote is set when the header
 * changed the struct at all (it must not when returning false).
 */
bool pbh_folio_layout(struct page **pages, unsigned long nr_pages,
		      struct pbh_layout *out, bool *wrote);

#endif
