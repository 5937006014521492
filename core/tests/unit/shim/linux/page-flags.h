/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/page-flags.h: head/tail/compound tests
 * and page_folio().
 *
 * Part 1 (copies, keep in sync): PageHead() tests a flag bit of the page
 * itself, PageTail() tests bit 0 of compound_head, compound_head() strips
 * it; PageCompound() is head-or-tail; folio_test_large() is folio_test_head().
 * Folio helpers are hidden when SHIM_NO_FOLIO is defined (5.10 has none).
 */
#ifndef _SHIM_LINUX_PAGE_FLAGS_H
#define _SHIM_LINUX_PAGE_FLAGS_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/mm_types.h>

enum pageflags {
	PG_locked,
	PG_head,
	PG_reserved,
	__NR_PAGEFLAGS,
};

/* Section number lives in the top bits of page->flags (as SECTIONS_PGSHIFT). */
#define SECTIONS_PGSHIFT	40
#define SHIM_FLAGS_MASK		((1UL << SECTIONS_PGSHIFT) - 1)

static inline unsigned long _compound_head(const struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);

	if (unlikely(head & 1))
		return head - 1;
	return (unsigned long)page;
}
#define compound_head(page)	((__typeof__(page))_compound_head(page))

static inline int PageTail(const struct page *page)
{
	return READ_ONCE(page->compound_head) & 1;
}

static inline int PageHead(const struct page *page)
{
	return !!(page->flags & (1UL << PG_head));
}

static inline int PageCompound(const struct page *page)
{
	return PageHead(page) || PageTail(page);
}

static inline int PageReserved(const struct page *page)
{
	return !!(page->flags & (1UL << PG_reserved));
}

#ifndef SHIM_NO_FOLIO
#define page_folio(p)		(_Generic((p),				\
	const struct page *:	(const struct folio *)_compound_head(p), \
	struct page *:		(struct folio *)_compound_head(p)))
static inline bool folio_test_head(const struct folio *folio)
{
	return PageHead(&folio->page);
}
static inline bool folio_test_large(const struct folio *folio)
{
	return folio_test_head(folio);
}
#endif

#endif
