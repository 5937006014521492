/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decode a byte string into a memory layout (folios of random orders at
 * pfns) and a page array (runs, picks, folio chains, duplicates, edits).
 * Used by the fuzzer on its input and by the unit test on PRNG bytes.
 * Call shim_mem_init(PB_NR_SECTIONS) once before pb_build().
 */
#ifndef PB_GEN_H
#define PB_GEN_H

#include <stdint.h>
#include <stdlib.h>

#define PB_NR_SECTIONS	32		/* 32 * 64 = 2048 pfns */
#define PB_MAX_PAGES	1024
#define PB_MAX_FOLIOS	256
#define PB_MAX_ORDER	9

struct pb_bytes {
	const uint8_t *d;
	size_t n, pos;
};

static inline unsigned int pb_u8(struct pb_bytes *b)
{
	return b->pos < b->n ? b->d[b->pos++] : 0;
}

static inline unsigned int pb_u16(struct pb_bytes *b)
{
	unsigned int lo = pb_u8(b);

	return lo | pb_u8(b) << 8;
}

struct pb_world {
	unsigned long head[PB_MAX_FOLIOS];
	unsigned int order[PB_MAX_FOLIOS];
	unsigned int nr_folios;
	struct page **pages;		/* PB_MAX_PAGES scratch */
	unsigned long nr;
};

static bool pb_range_free(unsigned long pfn, unsigned long nr)
{
	if (pfn + nr > shim_mem.nr_pfns)
		return false;
	for (unsigned long i = 0; i < nr; i++)
		if (ref_order(shim_pfn_page(pfn + i)))
			return false;
	return true;
}

static void pb_push(struct pb_world *w, unsigned long pfn)
{
	if (w->nr < PB_MAX_PAGES && pfn < shim_mem.nr_pfns)
		w->pages[w->nr++] = shim_pfn_page(pfn);
}

static void pb_push_folio(struct pb_world *w, unsigned int f,
			  unsigned long from, unsigned long to)
{
	for (unsigned long i = from; i < to; i++)
		pb_push(w, w->head[f] + i);
}

/* Pick the k-th folio of the given order (wrapping), or -1. */
static int pb_pick_order(struct pb_world *w, unsigned int order, unsigned int k)
{
	unsigned int cnt = 0;

	for (unsigned int f = 0; f < w->nr_folios; f++)
		cnt += w->order[f] == order;
	if (!cnt)
		return -1;
	k %= cnt;
	for (unsigned int f = 0; f < w->nr_folios; f++)
		if (w->order[f] == order && !k--)
			return (int)f;
	return -1;
}

/*
 * Build memory and array from bytes.  Returns an exact-size malloc'd copy of
 * the array (so ASan flags any read past its end) in *out, length in *nr.
 */
static void pb_build(const uint8_t *data, size_t size, struct page ***out,
		     unsigned long *nr)
{
	static struct page *scratch[PB_MAX_PAGES];
	struct pb_bytes b = { data, size, 0 };
	struct pb_world w = { .pages = scratch };
	unsigned int nplace;

	shim_mem_reset();

	/* Phase 1: folios.  Each placement may lay several adjacent ones. */
	nplace = pb_u8(&b) % 17;
	for (unsigned int p = 0; p < nplace; p++) {
		unsigned int c = pb_u8(&b);
		unsigned int order = 1 + c % PB_MAX_ORDER;
		unsigned int reps = 1 + (c >> 4) % 4;
		unsigned long sz = 1UL << order;
		unsigned long head = (pb_u16(&b) % shim_mem.nr_pfns) & ~(sz - 1);

		for (unsigned int r = 0; r < reps && w.nr_folios < PB_MAX_FOLIOS; r++, head += sz) {
			if (!pb_range_free(head, sz))
				break;
			shim_mem_make_compound(head, order);
			w.head[w.nr_folios] = head;
			w.order[w.nr_folios++] = order;
		}
	}

	/* Phase 2: the array. */
	while (b.pos < b.n && w.nr < PB_MAX_PAGES) {
		unsigned int op = pb_u8(&b) % 9;
		unsigned long start, len, i;

		switch (op) {
		case 0:	/* short run */
			start = pb_u16(&b) % shim_mem.nr_pfns;
			len = 1 + pb_u8(&b);
			for (i = 0; i < len; i++)
				pb_push(&w, start + i);
			break;
		case 1:	/* long run */
			start = pb_u16(&b) % shim_mem.nr_pfns;
			len = 1 + pb_u16(&b) % 700;
			for (i = 0; i < len; i++)
				pb_push(&w, start + i);
			break;
		case 2:	/* random pick */
			pb_push(&w, pb_u16(&b) % shim_mem.nr_pfns);
			break;
		case 3: { /* folio chain: start anywhere, then whole folios, last may be cut */
			unsigned int f, cnt, cut, c;
			unsigned long fnr;

			if (!w.nr_folios) {
				pb_u8(&b);
				break;
			}
			f = pb_u8(&b) % w.nr_folios;
			fnr = 1UL << w.order[f];
			start = pb_u16(&b) % fnr;
			cnt = 1 + pb_u8(&b) % 4;
			cut = pb_u16(&b);
			for (c = 0; c < cnt; c++) {
				unsigned long end = fnr;

				if (c) {
					int g = pb_pick_order(&w, w.order[f], pb_u8(&b));

					if (g < 0)
						break;
					f = (unsigned int)g;
					start = 0;
				}
				if (c == cnt - 1 && (cut & 1))
					end = start + 1 + (cut >> 1) % (fnr - start);
				pb_push_folio(&w, f, start, end);
			}
			break;
		}
		case 4:	/* duplicate the last entry */
			len = 1 + pb_u8(&b) % 3;
			for (i = 0; w.nr && i < len; i++)
				pb_push(&w, ref_pfn(w.pages[w.nr - 1]));
			break;
		case 5: { /* nudge one entry by a small delta */
			unsigned long at, pfn;
			int delta;

			at = pb_u16(&b);
			delta = (int8_t)pb_u8(&b);
			if (!w.nr)
				break;
			at %= w.nr;
			pfn = ref_pfn(w.pages[at]) + (unsigned long)(long)delta;
			if (pfn < shim_mem.nr_pfns)
				w.pages[at] = shim_pfn_page(pfn);
			break;
		}
		case 6:	/* reverse the last few entries */
			len = pb_u8(&b);
			if (!w.nr)
				break;
			len = 1 + len % w.nr;
			for (i = 0; i < len / 2; i++) {
				struct page *t = w.pages[w.nr - 1 - i];

				w.pages[w.nr - 1 - i] = w.pages[w.nr - len + i];
				w.pages[w.nr - len + i] = t;
			}
			break;
		case 7:	/* continue physically from the last entry */
			len = 1 + pb_u8(&b) % 70;
			for (i = 0; w.nr && i < len; i++)
				pb_push(&w, ref_pfn(w.pages[w.nr - 1]) + 1);
			break;
		case 8:	/* continue with the next struct page in the address space */
			len = 1 + pb_u8(&b) % 70;
			for (i = 0; w.nr && i < len; i++) {
				struct page *next = shim_memmap_next(w.pages[w.nr - 1]);

				if (!next)
					break;
				pb_push(&w, ref_pfn(next));
			}
			break;
		}
	}

	*nr = w.nr;
	*out = malloc(w.nr * sizeof(struct page *));
	if (!*out && w.nr)
		abort();
	if (w.nr)
		memcpy(*out, w.pages, w.nr * sizeof(struct page *));
}

#endif
