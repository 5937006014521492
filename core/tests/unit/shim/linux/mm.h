/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/mm.h (+ asm-generic/memory_model.h):
 * a small physical memory model for testing page-array helpers.
 *
 * Memory model (selected at build time, like the kernel):
 *  - CONFIG_SPARSEMEM=1 without CONFIG_SPARSEMEM_VMEMMAP ("sparse"): every
 *    section of PAGES_PER_SECTION pages has its own separately malloc'd
 *    memmap array, allocated so that section N+1's array never follows
 *    section N's in the address space.  struct page pointers are therefore
 *    NOT comparable across sections: page + 1 at a section end is not the
 *    next pfn's page.  page_to_pfn() finds the section from page->flags,
 *    exactly as the classic sparse model does, and reports wild pointers.
 *    With -DSHIM_SPARSE_ADJACENT=1 ("sparse-adj") the sections instead
 *    share one arena in reverse order: the struct page after the last one
 *    of section N is the first one of section N-1, so a pointer walk that
 *    runs off a section finds a valid but pfn-unrelated page (the case the
 *    PAGES_PER_SECTION cap protects against).
 *  - CONFIG_SPARSEMEM_VMEMMAP=1 ("vmemmap") or CONFIG_FLATMEM=1 ("flat"):
 *    one contiguous memmap array, page_to_pfn() is pointer subtraction.
 *  - CONFIG_DISCONTIGMEM=1 ("discontig", 5.10 only): one memmap per node of
 *    SHIM_NODE_PAGES pages, allocated like the sparse sections; the node
 *    id lives in page->flags; nth_page() is plain pointer arithmetic as in
 *    5.10 (compound pages never cross a node).
 *
 * Part 1 (copies, keep in sync with the kernel): nth_page(),
 * compound_order()/compound_nr() (0/1 for anything but a head page),
 * folio_page(), folio_nr_pages(), folio_order(), folio_size(), folio_pfn(),
 * folio_page_idx() and the pfn<->page conversions per memory model.
 * Part 2 (no-op stubs): see <linux/kernel.h>.
 * Part 3 (test hooks): shim_mem_*() build and inspect the memory, the
 * pfn<->page conversions count a hook failure for pfns outside the memory
 * or pointers outside every memmap (the kernel would oops or return
 * garbage there).
 */
#ifndef _SHIM_LINUX_MM_H
#define _SHIM_LINUX_MM_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/mm_types.h>
#include <linux/mmzone.h>
#include <linux/mmdebug.h>
#include <linux/page-flags.h>
#include <linux/pfn.h>
#include <asm/page.h>

#if IS_ENABLED(CONFIG_SPARSEMEM_VMEMMAP) && !IS_ENABLED(CONFIG_SPARSEMEM)
#error "CONFIG_SPARSEMEM_VMEMMAP requires CONFIG_SPARSEMEM"
#endif
#if IS_ENABLED(CONFIG_FLATMEM) + IS_ENABLED(CONFIG_SPARSEMEM) + IS_ENABLED(CONFIG_DISCONTIGMEM) != 1
#error "build with one of -DCONFIG_SPARSEMEM=1 [-DCONFIG_SPARSEMEM_VMEMMAP=1], -DCONFIG_FLATMEM=1, -DCONFIG_DISCONTIGMEM=1"
#endif

#define SHIM_SPARSE_CLASSIC \
	(IS_ENABLED(CONFIG_SPARSEMEM) && !IS_ENABLED(CONFIG_SPARSEMEM_VMEMMAP))
/* Memory models whose memmap is split into separate allocations. */
#define SHIM_SPLIT_MEMMAP \
	(SHIM_SPARSE_CLASSIC || IS_ENABLED(CONFIG_DISCONTIGMEM))
#ifndef SHIM_NODE_PAGES
#define SHIM_NODE_PAGES		1024UL	/* discontig: pages per node */
#endif
#if IS_ENABLED(CONFIG_DISCONTIGMEM)
#define SHIM_CHUNK_PAGES	SHIM_NODE_PAGES
#else
#define SHIM_CHUNK_PAGES	SHIM_PAGES_PER_SECTION
#endif

/* ---- test hooks: the memory ---- */
struct shim_mem {
	unsigned long nr_pfns;
	unsigned long nr_sections;
	unsigned long nr_chunks;	/* sections (sparse) or nodes (discontig) */
	struct page **section_map;	/* sparse/discontig: one array per chunk */
	struct page *map;		/* vmemmap/flat: one array */
	struct page *arena;		/* sparse-adj: all sections, reversed */
};
extern struct shim_mem shim_mem;
extern struct page shim_bad_page;	/* returned for invalid pfns */

/* Allocate nr_sections sections of memory, all order-0 pages. */
void shim_mem_init(unsigned long nr_sections);
/* Make every page order-0 again. */
void shim_mem_reset(void);
void shim_mem_free(void);
/* Turn [pfn, pfn + 2^order) into one compound page (a folio); order >= 1. */
void shim_mem_make_compound(unsigned long pfn, unsigned int order);
/* Ground-truth page for a pfn (no checks beyond the bounds; test side). */
struct page *shim_pfn_page(unsigned long pfn);
const char *shim_memory_model(void);
/*
 * The page whose struct page sits right after @page's in the address space,
 * if that is a page of the memmap at all, else NULL (test side, no checks).
 */
struct page *shim_memmap_next(struct page *page);

/* ---- copies: pfn <-> page per memory model ---- */
#if SHIM_SPLIT_MEMMAP
/* Section number (sparse) or node id (discontig), from page->flags. */
static inline unsigned long page_to_section(const struct page *page)
{
	return page->flags >> SECTIONS_PGSHIFT;
}
#define page_to_nid(page)	((int)page_to_section(page))

static inline unsigned long page_to_pfn(const struct page *page)
{
	unsigned long c = page_to_section(page);

	if (c >= shim_mem.nr_chunks ||
	    page < shim_mem.section_map[c] ||
	    page >= shim_mem.section_map[c] + SHIM_CHUNK_PAGES) {
		shim_hook_fail(__FILE__, __LINE__, "page_to_pfn() on a pointer outside the memmap");
		return ~0UL >> 1;
	}
	return c * SHIM_CHUNK_PAGES + (unsigned long)(page - shim_mem.section_map[c]);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	if (pfn >= shim_mem.nr_pfns) {
		shim_hook_fail(__FILE__, __LINE__, "pfn_to_page() on a pfn without memmap");
		return &shim_bad_page;
	}
	return shim_mem.section_map[pfn / SHIM_CHUNK_PAGES] + pfn % SHIM_CHUNK_PAGES;
}
#else
static inline unsigned long page_to_pfn(const struct page *page)
{
	if (page < shim_mem.map || page >= shim_mem.map + shim_mem.nr_pfns) {
		shim_hook_fail(__FILE__, __LINE__, "page_to_pfn() on a pointer outside the memmap");
		return ~0UL >> 1;
	}
	return (unsigned long)(page - shim_mem.map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	if (pfn >= shim_mem.nr_pfns) {
		shim_hook_fail(__FILE__, __LINE__, "pfn_to_page() on a pfn without memmap");
		return &shim_bad_page;
	}
	return shim_mem.map + pfn;
}
#endif
#define page_to_pfn page_to_pfn
#define pfn_to_page pfn_to_page

#if SHIM_SPARSE_CLASSIC
#define nth_page(page, n)	pfn_to_page(page_to_pfn((page)) + (n))
#else
#define nth_page(page, n)	((page) + (n))
#endif

static inline unsigned long page_to_phys_shim(const struct page *page)
{
	return page_to_pfn(page) << PAGE_SHIFT;
}

/* ---- copies: compound pages (5.10 .. 6.12) ---- */
static inline unsigned int compound_order(const struct page *page)
{
	if (!PageHead(page))
		return 0;
	return page->compound_order;
}

static inline unsigned long compound_nr(const struct page *page)
{
	if (!PageHead(page))
		return 1;
	return 1UL << page->compound_order;
}

static inline unsigned long page_size(const struct page *page)
{
	return PAGE_SIZE << compound_order(page);
}

/* ---- copies: folios (6.1, 6.12) ---- */
#ifndef SHIM_NO_FOLIO
static inline unsigned int folio_order(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 0;
	return folio->page.compound_order;
}

static inline long folio_nr_pages(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 1;
	return 1L << folio->page.compound_order;
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE << folio_order(folio);
}

static inline unsigned long folio_pfn(const struct folio *folio)
{
	return page_to_pfn(&folio->page);
}

#define folio_page(folio, n)	nth_page(&(folio)->page, n)

#if SHIM_SPARSE_CLASSIC
#define folio_page_idx(folio, p)	(page_to_pfn(p) - folio_pfn(folio))
#else
#define folio_page_idx(folio, p)	((p) - &(folio)->page)
#endif

static inline struct folio *pfn_folio(unsigned long pfn)
{
	return page_folio(pfn_to_page(pfn));
}
#endif /* SHIM_NO_FOLIO */

#endif
