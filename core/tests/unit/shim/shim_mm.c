// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks: the memory model behind shim/linux/mm.h and the hook-failure
 * counter behind shim/linux/bug.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mm.h>

struct shim_mem shim_mem;
struct page shim_bad_page;
unsigned long shim_hook_failures;
int shim_hook_quiet;

void shim_hook_fail(const char *file, int line, const char *what)
{
	shim_hook_failures++;
	if (!shim_hook_quiet)
		fprintf(stderr, "hook: %s:%d: %s\n", file, line, what);
}

const char *shim_memory_model(void)
{
#if SHIM_SPARSE_CLASSIC && defined(SHIM_SPARSE_ADJACENT)
	return "sparse-adj";
#elif SHIM_SPARSE_CLASSIC
	return "sparse";
#elif IS_ENABLED(CONFIG_DISCONTIGMEM)
	return "discontig";
#elif IS_ENABLED(CONFIG_SPARSEMEM_VMEMMAP)
	return "vmemmap";
#else
	return "flat";
#endif
}

struct page *shim_pfn_page(unsigned long pfn)
{
	if (pfn >= shim_mem.nr_pfns) {
		fprintf(stderr, "shim: pfn %lu outside memory (%lu pfns)\n",
			pfn, shim_mem.nr_pfns);
		abort();
	}
#if SHIM_SPLIT_MEMMAP
	return shim_mem.section_map[pfn / SHIM_CHUNK_PAGES] + pfn % SHIM_CHUNK_PAGES;
#else
	return shim_mem.map + pfn;
#endif
}

struct page *shim_memmap_next(struct page *page)
{
	uintptr_t next = (uintptr_t)(page + 1);
#if SHIM_SPLIT_MEMMAP
	for (unsigned long c = 0; c < shim_mem.nr_chunks; c++) {
		uintptr_t lo = (uintptr_t)shim_mem.section_map[c];

		if (next >= lo && next < lo + SHIM_CHUNK_PAGES * sizeof(struct page))
			return (struct page *)next;
	}
	return NULL;
#else
	uintptr_t lo = (uintptr_t)shim_mem.map;

	if (next >= lo && next < lo + shim_mem.nr_pfns * sizeof(struct page))
		return (struct page *)next;
	return NULL;
#endif
}

static void init_page(unsigned long pfn)
{
	struct page *page = shim_pfn_page(pfn);

	memset(page, 0, sizeof(*page));
	page->flags = (pfn / SHIM_CHUNK_PAGES) << SECTIONS_PGSHIFT;
	page->__shim_pfn = pfn;
	page->__shim_head_pfn = pfn;
	page->__shim_order = 0;
}

void shim_mem_reset(void)
{
	for (unsigned long pfn = 0; pfn < shim_mem.nr_pfns; pfn++)
		init_page(pfn);
}

void shim_mem_init(unsigned long nr_sections)
{
	shim_mem_free();
	shim_mem.nr_sections = nr_sections;
	shim_mem.nr_pfns = nr_sections * SHIM_PAGES_PER_SECTION;
#if SHIM_SPLIT_MEMMAP
	/*
	 * Each section's (node's) memmap is its own exact-size allocation
	 * (so ASan catches any dereference past its end).  Allocate them
	 * from the last to the first, each followed by a spacer allocation,
	 * so that pointer arithmetic off the end of chunk N never lands on
	 * chunk N+1's first page.  Verify that.
	 */
	unsigned long nr_chunks = DIV_ROUND_UP(shim_mem.nr_pfns, SHIM_CHUNK_PAGES);

	if (shim_mem.nr_pfns % SHIM_CHUNK_PAGES) {
		fprintf(stderr, "shim: memory is not a whole number of nodes\n");
		abort();
	}
	shim_mem.nr_chunks = nr_chunks;
	shim_mem.section_map = calloc(nr_chunks, sizeof(struct page *));
#if SHIM_SPARSE_CLASSIC && defined(SHIM_SPARSE_ADJACENT)
	shim_mem.arena = malloc(shim_mem.nr_pfns * sizeof(struct page));
	if (!shim_mem.section_map || !shim_mem.arena)
		abort();
	for (unsigned long s = 0; s < nr_chunks; s++)
		shim_mem.section_map[s] = shim_mem.arena + (nr_chunks - 1 - s) * SHIM_CHUNK_PAGES;
#else
	void **spacers = calloc(nr_chunks, sizeof(void *));
	if (!shim_mem.section_map || !spacers)
		abort();
	for (unsigned long s = nr_chunks; s-- > 0;) {
		shim_mem.section_map[s] = malloc(SHIM_CHUNK_PAGES * sizeof(struct page));
		spacers[s] = malloc(3 * sizeof(struct page));
		if (!shim_mem.section_map[s] || !spacers[s])
			abort();
	}
	for (unsigned long s = 0; s < nr_chunks; s++)
		free(spacers[s]);
	free(spacers);
#endif
	for (unsigned long s = 0; s + 1 < nr_chunks; s++) {
		struct page *end = shim_mem.section_map[s] + SHIM_CHUNK_PAGES;
		uintptr_t a = (uintptr_t)end, b = (uintptr_t)shim_mem.section_map[s + 1];

		if (a == b) {
			fprintf(stderr, "shim: sparse memmap sections %lu/%lu are adjacent\n",
				s, s + 1);
			abort();
		}
	}
#else
	shim_mem.map = malloc(shim_mem.nr_pfns * sizeof(struct page));
	if (!shim_mem.map)
		abort();
#endif
	shim_mem_reset();
}

void shim_mem_free(void)
{
#if SHIM_SPLIT_MEMMAP
	if (shim_mem.section_map) {
		for (unsigned long s = 0; s < shim_mem.nr_chunks && !shim_mem.arena; s++)
			free(shim_mem.section_map[s]);
		free(shim_mem.section_map);
		free(shim_mem.arena);
	}
#else
	free(shim_mem.map);
#endif
	memset(&shim_mem, 0, sizeof(shim_mem));
}

void shim_mem_make_compound(unsigned long pfn, unsigned int order)
{
	unsigned long nr = 1UL << order;
	struct page *head = shim_pfn_page(pfn);

	if (order == 0 || pfn + nr > shim_mem.nr_pfns ||
	    (IS_ENABLED(CONFIG_DISCONTIGMEM) &&
	     pfn / SHIM_NODE_PAGES != (pfn + nr - 1) / SHIM_NODE_PAGES)) {
		fprintf(stderr, "shim: bad compound page pfn %lu order %u\n", pfn, order);
		abort();
	}
	for (unsigned long i = 0; i < nr; i++) {
		struct page *page = shim_pfn_page(pfn + i);

		if (page->__shim_order) {
			fprintf(stderr, "shim: pfn %lu already in a compound page\n", pfn + i);
			abort();
		}
	}
	/* prep_compound_page(): head flag + order on the head, tails point at it. */
	head->flags |= 1UL << PG_head;
	head->compound_order = order;
	for (unsigned long i = 0; i < nr; i++) {
		struct page *page = shim_pfn_page(pfn + i);

		page->__shim_head_pfn = pfn;
		page->__shim_order = order;
		if (i)
			page->compound_head = (unsigned long)head + 1;
	}
}
