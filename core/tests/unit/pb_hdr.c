// SPDX-License-Identifier: GPL-2.0
/* The only translation unit that includes the header under test. */
#include <string.h>
#include <linux/mm.h>
/*
 * The code under test is built with -Wall -Wextra -Werror, except for
 * -Wsign-compare: kernel builds do not enable it (W=2/W=3 only), and
 * folio_nr_pages() returns long while page counts are unsigned long.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <linux/page_batch.h>
#pragma GCC diagnostic pop
#include "pb_hdr.h"

/* The documented interface, checked at build time. */
static unsigned long (*const check_contig_type)(struct page **, unsigned long)
	__attribute__((unused)) = page_array_contig_len;
static bool (*const check_layout_type)(struct page **, unsigned long,
				       struct page_folio_layout *)
	__attribute__((unused)) = page_array_folio_layout;
#define FIELD_TYPE(m, t) _Static_assert(__builtin_types_compatible_p( \
	__typeof__(((struct page_folio_layout *)0)->m), t), \
	"struct page_folio_layout." #m " is not " #t)
FIELD_TYPE(folio_size, size_t);
FIELD_TYPE(offset, size_t);
FIELD_TYPE(nr_folios, unsigned long);

unsigned long pbh_contig_len(struct page **pages, unsigned long nr_pages)
{
	return page_array_contig_len(pages, nr_pages);
}

bool pbh_folio_layout(struct page **pages, unsigned long nr_pages,
		      struct pbh_layout *out, bool *wrote)
{
	struct page_folio_layout l, before;
	bool ret;

	memset(&l, 0xa5, sizeof(l));
	before = l;
	ret = page_array_folio_layout(pages, nr_pages, &l);
	*wrote = memcmp(&l, &before, sizeof(l)) != 0;
	out->folio_size = l.folio_size;
	out->offset = l.offset;
	out->nr_folios = l.nr_folios;
	return ret;
}
