// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace tests for include/linux/page_batch.h (core stack):
 * page_array_contig_len() and page_array_folio_layout(), against plain
 * reference loops, on the shim memory model (see shim/linux/mm.h).
 *
 * Every array is checked twice per primitive: as an exact-size heap array
 * (ASan reports any read of pages[nr_pages] or before pages[0]) and with a
 * guard entry after the end chosen so that reading it would change the
 * answer.  Deterministic: the PRNG seed is fixed (override: PB_SEED=n).
 *
 * Output: one "FAIL: ..." line per failing test, then
 * "N tests run, N passed, N failed".  Exit status 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mm.h>
#include "pb_ref.h"
#include "pb_gen.h"

extern int shim_hook_quiet;

static unsigned long tests_run, tests_failed;
static const char *current_case = "";
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned long rng_below(unsigned long n)
{
	return n ? rng() % n : 0;
}

/* ---- a growable array of pages, built by pfn ---- */
struct vec {
	struct page **p;
	unsigned long n, cap;
};

static void vpush(struct vec *v, unsigned long pfn)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->p = realloc(v->p, v->cap * sizeof(*v->p));
		if (!v->p)
			abort();
	}
	v->p[v->n++] = shim_pfn_page(pfn);
}

static void vrun(struct vec *v, unsigned long pfn, unsigned long len)
{
	for (unsigned long i = 0; i < len; i++)
		vpush(v, pfn + i);
}

static void vreset(struct vec *v)
{
	v->n = 0;
}

/* ---- running checks ---- */
static const char *current_kind = "";

static void record(int failed, const char *what, const char *variant,
		   const char *why)
{
	tests_run++;
	if (failed) {
		tests_failed++;
		printf("FAIL: [%s] %s/%s: %s [%s]: %s\n", shim_memory_model(),
		       current_kind, current_case, what, variant, why);
	}
}

/* A page whose presence after the end would extend either answer. */
static struct page *default_guard(struct page **pages, unsigned long nr)
{
	if (nr) {
		unsigned long pfn = ref_pfn(pages[nr - 1]) + 1;

		return shim_pfn_page(pfn < shim_mem.nr_pfns ? pfn : ref_pfn(pages[0]));
	}
	/* Empty array: a page inside a large folio if there is one. */
	for (unsigned long pfn = 0; pfn < shim_mem.nr_pfns; pfn++)
		if (ref_order(shim_pfn_page(pfn)))
			return shim_pfn_page(pfn);
	return shim_pfn_page(0);
}

static void check_one(const char *what, struct page **src, unsigned long nr,
		      struct page *guard)
{
	char why[256];
	struct page **a;
	size_t bytes = nr * sizeof(*a);

	current_kind = what;
	if (!guard)
		guard = default_guard(src, nr);

	/* Exact-size array: ASan catches reads outside [0, nr). */
	a = malloc(bytes);	/* ASan: even a 0-byte chunk is poisoned */
	if (!a && bytes)
		abort();
	if (nr)
		memcpy(a, src, bytes);
	record(pb_check_contig(a, nr, why, sizeof(why)), "contig_len", "exact", why);
	if (nr && memcmp(a, src, bytes))
		record(1, "contig_len", "exact", "modified the array");
	record(pb_check_layout(a, nr, why, sizeof(why)), "folio_layout", "exact", why);
	if (nr && memcmp(a, src, bytes))
		record(1, "folio_layout", "exact", "modified the array");
	free(a);

	/* Same array with a guard entry after the end. */
	a = malloc((nr + 1) * sizeof(*a));
	if (!a)
		abort();
	if (nr)
		memcpy(a, src, bytes);
	a[nr] = guard;
	record(pb_check_contig(a, nr, why, sizeof(why)), "contig_len", "guard", why);
	record(pb_check_layout(a, nr, why, sizeof(why)), "folio_layout", "guard", why);
	free(a);
}

#define CASE(...) do { static char __name[160]; \
	snprintf(__name, sizeof(__name), __VA_ARGS__); current_case = __name; } while (0)

/* ---- expectations stated directly (not only "same as reference") ---- */
static void expect_contig(struct vec *v, unsigned long want)
{
	char why[160];
	unsigned long got = pbh_contig_len(v->p, v->n);
	unsigned long lo = ref_contig_min(v->p, v->n);

	/* Sanity of the reference itself, then the header. */
	if (ref_contig_len(v->p, v->n) != want) {
		snprintf(why, sizeof(why), "reference says %lu, table says %lu",
			 ref_contig_len(v->p, v->n), want);
		record(1, "table", "-", why);
		return;
	}
	snprintf(why, sizeof(why), "page_array_contig_len=%lu, want %lu (min %lu)", got, want, lo);
	record(got > want || got < lo, "contig_len", "table", why);
}

static void expect_layout(struct vec *v, bool want, size_t fsz, size_t off,
			  unsigned long nf)
{
	char why[200];
	struct ref_layout r;
	struct pbh_layout l;
	bool rok = ref_folio_layout(v->p, v->n, &r);
	bool ok, wrote;

	if (rok != want || (want && (r.folio_size != fsz || r.offset != off ||
				     r.nr_folios != nf))) {
		record(1, "table", "-", "reference disagrees with the table");
		return;
	}
	ok = pbh_folio_layout(v->p, v->n, &l, &wrote);
	snprintf(why, sizeof(why), "got %s {%zu %zu %lu}, want %s {%zu %zu %lu}",
		 ok ? "true" : "false", ok ? l.folio_size : 0, ok ? l.offset : 0,
		 ok ? l.nr_folios : 0, want ? "true" : "false", fsz, off, nf);
	record(ok != want || (ok && (l.folio_size != fsz || l.offset != off ||
				     l.nr_folios != nf)), "folio_layout", "table", why);
}

/* ---- cases ---- */
static struct vec v;

static void test_empty(void)
{
	shim_mem_reset();
	shim_mem_make_compound(0, 2);
	vreset(&v);
	CASE("empty array");
	check_one("empty", v.p, 0, NULL);
	expect_contig(&v, 0);
	expect_layout(&v, false, 0, 0, 0);
	/* guard = head of a large folio: must still be false / 0 */
	check_one("empty", v.p, 0, shim_pfn_page(0));
}

static void test_one_entry(void)
{
	static const unsigned long pfns[] = { 0, 1, 63, 64, 65, 1000, 2047 };

	shim_mem_reset();
	for (unsigned int i = 0; i < ARRAY_SIZE(pfns); i++) {
		vreset(&v);
		vpush(&v, pfns[i]);
		CASE("one order-0 entry pfn %lu", pfns[i]);
		expect_contig(&v, 1);
		expect_layout(&v, false, 0, 0, 0);
		check_one("one", v.p, 1, NULL);
	}
	for (unsigned int order = 1; order <= PB_MAX_ORDER; order++) {
		unsigned long nr = 1UL << order, head = nr;	/* second slot */

		shim_mem_reset();
		shim_mem_make_compound(head, order);
		for (unsigned long idx = 0; idx < nr; idx++) {
			vreset(&v);
			vpush(&v, head + idx);
			CASE("one entry, order %u folio, index %lu", order, idx);
			expect_contig(&v, 1);
			expect_layout(&v, true, nr * PAGE_SIZE, idx * PAGE_SIZE, 1);
			check_one("one", v.p, 1, NULL);
		}
	}
}

static void test_contig_runs(void)
{
	static const unsigned long starts[] = {
		0, 1, 2, 31, 32, 62, 63, 64, 65, 100, 127, 128, 191, 192, 1000,
		1023, 1024, 2047 - 300, 2047 - 64, 2047 - 1, 2047,
	};
	static const unsigned long lens[] = {
		1, 2, 3, 4, 7, 8, 31, 32, 33, 63, 64, 65, 66, 100, 127, 128,
		129, 191, 192, 193, 256, 300, 513, 1024,
	};

	for (int with_folios = 0; with_folios < 2; with_folios++) {
		shim_mem_reset();
		if (with_folios) {
			/* contiguity must not care about folio boundaries */
			shim_mem_make_compound(0, 3);
			shim_mem_make_compound(64, 6);
			shim_mem_make_compound(512, 9);
			shim_mem_make_compound(1024, 1);
		}
		for (unsigned int s = 0; s < ARRAY_SIZE(starts); s++) {
			for (unsigned int l = 0; l < ARRAY_SIZE(lens); l++) {
				if (starts[s] + lens[l] > shim_mem.nr_pfns)
					continue;
				vreset(&v);
				vrun(&v, starts[s], lens[l]);
				CASE("run start %lu len %lu%s", starts[s], lens[l],
				     with_folios ? " (folios present)" : "");
				expect_contig(&v, lens[l]);
				check_one("run", v.p, v.n, NULL);
			}
		}
	}
	/* Whole memory in one array. */
	shim_mem_reset();
	vreset(&v);
	vrun(&v, 0, shim_mem.nr_pfns);
	CASE("run over all of memory");
	expect_contig(&v, shim_mem.nr_pfns);
	check_one("run", v.p, v.n, NULL);
}

static void test_broken_runs(void)
{
	static const unsigned long starts[] = { 0, 5, 60, 63, 64, 120 };
	static const unsigned long lens[] = { 1, 2, 3, 5, 58, 59, 63, 64, 65, 70, 130 };

	shim_mem_reset();
	for (unsigned int s = 0; s < ARRAY_SIZE(starts); s++) {
		for (unsigned int l = 0; l < ARRAY_SIZE(lens); l++) {
			unsigned long st = starts[s], len = lens[l], last = st + len - 1;

			/* a jump forward by two */
			vreset(&v);
			vrun(&v, st, len);
			vrun(&v, last + 2, 10);
			CASE("run %lu+%lu then skip one pfn", st, len);
			expect_contig(&v, len);
			check_one("broken", v.p, v.n, NULL);

			/* then the same page again */
			vreset(&v);
			vrun(&v, st, len);
			vpush(&v, last);
			vrun(&v, last + 1, 5);
			CASE("run %lu+%lu then the last page repeated", st, len);
			expect_contig(&v, len);
			check_one("broken", v.p, v.n, NULL);

			/* then a far away page, then the proper continuation */
			vreset(&v);
			vrun(&v, st, len);
			vpush(&v, 1500);
			vrun(&v, last + 2, 3);
			CASE("run %lu+%lu then far page", st, len);
			expect_contig(&v, len);
			check_one("broken", v.p, v.n, NULL);

			/* then the previous page */
			if (st) {
				vreset(&v);
				vrun(&v, st, len);
				vpush(&v, st - 1);
				CASE("run %lu+%lu then the page before it", st, len);
				expect_contig(&v, len);
				check_one("broken", v.p, v.n, NULL);
			}
		}
	}
}

static void test_permutations(void)
{
	shim_mem_reset();
	shim_mem_make_compound(256, 4);
	for (unsigned long len = 2; len <= 140; len += (len < 10 ? 1 : 11)) {
		for (unsigned long st = 0; st < 200; st += 61) {
			vreset(&v);
			for (unsigned long i = 0; i < len; i++)
				vpush(&v, st + len - 1 - i);
			CASE("reversed run %lu+%lu", st, len);
			expect_contig(&v, 1);
			check_one("reversed", v.p, v.n, NULL);

			for (int k = 0; k < 3; k++) {
				vreset(&v);
				vrun(&v, st, len);
				for (unsigned long i = len - 1; i > 0; i--) {
					unsigned long j = rng_below(i + 1);
					struct page *t = v.p[i];

					v.p[i] = v.p[j];
					v.p[j] = t;
				}
				CASE("shuffled run %lu+%lu #%d", st, len, k);
				check_one("shuffled", v.p, v.n, NULL);
			}
		}
	}
	/* folio pages reversed / shuffled */
	vreset(&v);
	for (unsigned long i = 16; i-- > 0;)
		vpush(&v, 256 + i);
	CASE("order-4 folio, pages reversed");
	expect_layout(&v, false, 0, 0, 0);
	check_one("reversed", v.p, v.n, NULL);
	/* stride 2 */
	vreset(&v);
	for (unsigned long i = 0; i < 40; i++)
		vpush(&v, 60 + 2 * i);
	CASE("stride 2");
	expect_contig(&v, 1);
	check_one("stride", v.p, v.n, NULL);
}

static void test_duplicates(void)
{
	shim_mem_reset();
	shim_mem_make_compound(128, 3);
	static const unsigned long pfns[] = { 5, 63, 64, 128, 131, 135 };

	for (unsigned int i = 0; i < ARRAY_SIZE(pfns); i++) {
		unsigned long p = pfns[i];

		for (unsigned long rep = 2; rep <= 9; rep++) {
			vreset(&v);
			for (unsigned long k = 0; k < rep; k++)
				vpush(&v, p);
			CASE("pfn %lu repeated %lu times", p, rep);
			expect_contig(&v, 1);
			if (ref_order(shim_pfn_page(p)))
				expect_layout(&v, false, 0, 0, 0);
			check_one("dup", v.p, v.n, NULL);
		}
		vreset(&v);
		vpush(&v, p);
		vpush(&v, p + 1);
		vpush(&v, p + 1);
		vpush(&v, p + 2);
		CASE("pfn %lu, %lu twice, %lu", p, p + 1, p + 2);
		expect_contig(&v, 2);
		check_one("dup", v.p, v.n, NULL);
	}
	/* a whole folio, then a page of it again */
	vreset(&v);
	vrun(&v, 128, 8);
	vpush(&v, 129);
	CASE("order-3 folio then one of its tails again");
	expect_layout(&v, false, 0, 0, 0);
	check_one("dup", v.p, v.n, NULL);
}

/* Slots (in units of the folio size) where test folios go: not in array order. */
static const unsigned int slot_order[] = { 1, 3, 0, 2 };

static void place_folios(unsigned int order, unsigned long *heads, unsigned int *nheads)
{
	unsigned long nr = 1UL << order, slots = shim_mem.nr_pfns / nr;
	unsigned int n = 0;

	shim_mem_reset();
	for (unsigned int i = 0; i < ARRAY_SIZE(slot_order); i++) {
		if (slot_order[i] >= slots)
			continue;
		heads[n] = slot_order[i] * nr;
		shim_mem_make_compound(heads[n], order);
		n++;
	}
	*nheads = n;
}

static void test_folio_runs(void)
{
	for (unsigned int order = 1; order <= PB_MAX_ORDER; order++) {
		unsigned long nr = 1UL << order, heads[4];
		size_t fsz = nr * PAGE_SIZE;
		unsigned int nh;

		place_folios(order, heads, &nh);

		for (unsigned int nf = 1; nf <= nh; nf++) {
			/* start at every index of the first folio */
			for (unsigned long idx = 0; idx < nr; idx++) {
				vreset(&v);
				vrun(&v, heads[0] + idx, nr - idx);
				for (unsigned int f = 1; f < nf; f++)
					vrun(&v, heads[f], nr);
				CASE("order %u, %u folios, start index %lu", order, nf, idx);
				expect_layout(&v, true, fsz, idx * PAGE_SIZE, nf);
				check_one("folios", v.p, v.n, NULL);
				if (order > 6 && idx > 4 && idx < nr - 4)
					idx += nr / 16;	/* sample big folios */
			}
			/* every (sampled) length of the last folio */
			for (unsigned long last = 1; last < nr; last++) {
				vreset(&v);
				vrun(&v, heads[0] + (nf > 1 ? 1 : 0), nr - (nf > 1 ? 1 : 0));
				for (unsigned int f = 1; f < nf; f++)
					vrun(&v, heads[f], f == nf - 1 ? last : nr);
				if (nf == 1) {
					vreset(&v);
					vrun(&v, heads[0], last);
				}
				CASE("order %u, %u folios, last one %lu pages", order, nf, last);
				expect_layout(&v, true, fsz, nf > 1 ? PAGE_SIZE : 0, nf);
				check_one("partial-last", v.p, v.n, NULL);
				if (order > 5 && last > 3 && last < nr - 3)
					last += nr / 8;
			}
		}
		if (nh < 3)
			continue;

		/* partial middle folio: drop its last page */
		vreset(&v);
		vrun(&v, heads[0], nr);
		vrun(&v, heads[1], nr - 1);
		vrun(&v, heads[2], nr);
		CASE("order %u, middle folio missing its last page", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("partial-middle", v.p, v.n, NULL);

		/* first folio not complete before the next starts */
		vreset(&v);
		vrun(&v, heads[0], nr - 1);
		vrun(&v, heads[1], nr);
		CASE("order %u, first folio cut short, then next", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("partial-middle", v.p, v.n, NULL);

		/* second folio entered not at its head */
		vreset(&v);
		vrun(&v, heads[0], nr);
		vrun(&v, heads[1] + 1, nr - 1);
		CASE("order %u, second folio entered at index 1", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("not-at-head", v.p, v.n, NULL);

		/* second folio entered at its last page */
		vreset(&v);
		vrun(&v, heads[0] + nr - 1, 1);
		vpush(&v, heads[1] + nr - 1);
		CASE("order %u, last page of two folios", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("not-at-head", v.p, v.n, NULL);

		/* holes: skip a page in the first, middle and last folio */
		for (unsigned int hf = 0; hf < 3; hf++) {
			unsigned long hole_at[] = { 1, nr / 2, nr - 1 };

			for (unsigned int h = 0; h < 3; h++) {
				if (hole_at[h] == 0 || (h && hole_at[h] == hole_at[h - 1]))
					continue;
				if (hf == 2 && hole_at[h] == nr - 1)
					continue;	/* that is just a partial last folio */
				vreset(&v);
				for (unsigned int f = 0; f < 3; f++)
					for (unsigned long i = 0; i < nr; i++)
						if (!(f == hf && i == hole_at[h]))
							vpush(&v, heads[f] + i);
				CASE("order %u, hole at page %lu of folio %u", order, hole_at[h], hf);
				expect_layout(&v, false, 0, 0, 0);
				check_one("hole", v.p, v.n, NULL);
			}
		}

		/* a repeated page inside a folio */
		vreset(&v);
		vrun(&v, heads[0], nr);
		vrun(&v, heads[1], nr / 2 + 1);
		vrun(&v, heads[1] + nr / 2, nr - nr / 2);
		CASE("order %u, a page of the second folio repeated", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("repeat", v.p, v.n, NULL);

		/* the next folio's tail instead of its head, same offset as before */
		vreset(&v);
		vrun(&v, heads[0], nr);
		vpush(&v, heads[1] + 1);
		CASE("order %u, next entry is a tail page", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("not-at-head", v.p, v.n, NULL);

		/* an order-0 page after a complete folio, and before one */
		vreset(&v);
		vrun(&v, heads[0], nr);
		vpush(&v, heads[0] == 0 ? shim_mem.nr_pfns - 1 : 0);
		if (ref_order(v.p[v.n - 1]) == 0) {
			CASE("order %u, complete folio then an order-0 page", order);
			expect_layout(&v, false, 0, 0, 0);
			check_one("order0", v.p, v.n, NULL);
		}
	}
}

static void test_adjacent_folios(void)
{
	/* physically adjacent folios: contiguous AND a folio run */
	for (unsigned int order = 1; order <= 8; order++) {
		unsigned long nr = 1UL << order, base = 2 * nr;

		if (base + 4 * nr > shim_mem.nr_pfns)
			base = 0;
		shim_mem_reset();
		for (unsigned int f = 0; f < 3; f++)
			shim_mem_make_compound(base + f * nr, order);
		shim_mem_make_compound(base + 4 * nr, order == 8 ? 7 : order + 1);

		for (unsigned long idx = 0; idx < nr; idx += (nr > 8 ? nr / 8 : 1)) {
			vreset(&v);
			vrun(&v, base + idx, 3 * nr - idx - 1);
			CASE("order %u, 3 adjacent folios from index %lu, last cut", order, idx);
			expect_contig(&v, 3 * nr - idx - 1);
			expect_layout(&v, true, nr * PAGE_SIZE, idx * PAGE_SIZE, 3);
			check_one("adjacent", v.p, v.n, NULL);
		}
		/* run into the order-0 page after the third folio */
		vreset(&v);
		vrun(&v, base + 1, 3 * nr);
		CASE("order %u, adjacent folios then an order-0 page", order);
		expect_contig(&v, 3 * nr);
		expect_layout(&v, false, 0, 0, 0);
		check_one("order0", v.p, v.n, NULL);

		/* mixed sizes: order k folio followed by the bigger folio */
		vreset(&v);
		vrun(&v, base + 2 * nr, nr);
		vrun(&v, base + 4 * nr, 2);
		CASE("order %u folio then a folio of another order", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("mixed", v.p, v.n, NULL);

		/* mixed sizes: the other way round, starting in the bigger one */
		vreset(&v);
		vrun(&v, base + 4 * nr, (order == 8 ? 1UL << 7 : 2 * nr));
		vrun(&v, base, nr);
		CASE("order %u: other-order folio then an order %u folio", order, order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("mixed", v.p, v.n, NULL);

		/* order-0 page first, then a folio */
		vreset(&v);
		vpush(&v, base + 3 * nr);
		vrun(&v, base, nr);
		CASE("order %u: order-0 page then a folio", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("order0", v.p, v.n, NULL);

		/* the same folio twice (each entered at its head, complete) */
		vreset(&v);
		vrun(&v, base, nr);
		vrun(&v, base, nr);
		CASE("order %u: the same folio twice", order);
		check_one("same-twice", v.p, v.n, NULL);
	}
}

static void test_cross_section(void)
{
	/* Compound pages spanning sections (order > SHIM_PFN_SECTION_SHIFT). */
	for (unsigned int order = 7; order <= PB_MAX_ORDER; order++) {
		unsigned long nr = 1UL << order, head = nr;

		shim_mem_reset();
		shim_mem_make_compound(head, order);
		shim_mem_make_compound(head + nr, order);
		for (unsigned long off = 0; off < nr; off += SHIM_PAGES_PER_SECTION / 2) {
			for (unsigned long delta = 0; delta < 3; delta++) {
				unsigned long st = head + off + delta;

				vreset(&v);
				vrun(&v, st, 2 * nr - off - delta);
				CASE("order %u spanning sections, from +%lu", order, off + delta);
				expect_layout(&v, true, nr * PAGE_SIZE, (off + delta) * PAGE_SIZE, 2);
				check_one("span", v.p, v.n, NULL);
			}
		}
		/* A hole right at a section boundary inside the folio. */
		vreset(&v);
		for (unsigned long i = 0; i < nr; i++)
			if (i != SHIM_PAGES_PER_SECTION)
				vpush(&v, head + i);
		CASE("order %u, hole at the first section boundary", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("span", v.p, v.n, NULL);
		/* Jump to the wrong section at the boundary. */
		vreset(&v);
		vrun(&v, head, SHIM_PAGES_PER_SECTION);
		vrun(&v, head + 2 * SHIM_PAGES_PER_SECTION, nr - SHIM_PAGES_PER_SECTION);
		CASE("order %u, next section skipped", order);
		expect_layout(&v, false, 0, 0, 0);
		check_one("span", v.p, v.n, NULL);
	}
}

/*
 * Arrays that follow the memmap instead of the pfns: entry i + 1 is the
 * struct page right after entry i's in memory.  Identical to a contiguous
 * run where the memmap is virtually contiguous; under sparse-adj it jumps
 * to an unrelated section at each section end, which only the
 * PAGES_PER_SECTION cap keeps page_array_contig_len() from counting.
 */
static void test_memmap_adjacent(void)
{
	static const unsigned long starts[] = { 0, 1, 30, 60, 63, 64, 100, 127, 200, 1983, 2047 };
	static const unsigned long lens[] = { 1, 2, 4, 5, 64, 65, 66, 100, 129, 200 };

	for (int with_folios = 0; with_folios < 2; with_folios++) {
		shim_mem_reset();
		if (with_folios) {
			shim_mem_make_compound(0, 6);
			shim_mem_make_compound(64, 6);
			shim_mem_make_compound(128, 7);
		}
		for (unsigned int s = 0; s < ARRAY_SIZE(starts); s++) {
			for (unsigned int l = 0; l < ARRAY_SIZE(lens); l++) {
				struct page *p = shim_pfn_page(starts[s]);

				vreset(&v);
				vpush(&v, starts[s]);
				while (v.n < lens[l] && (p = shim_memmap_next(p)))
					vpush(&v, ref_pfn(p));
				CASE("memmap-adjacent walk from pfn %lu, %lu entries%s", starts[s],
				     v.n, with_folios ? " (folios present)" : "");
				check_one("memmap-adj", v.p, v.n, NULL);
			}
		}
	}
}

static void test_random(unsigned int iters)
{
	uint8_t buf[256];

	for (unsigned int it = 0; it < iters; it++) {
		struct page **pages;
		unsigned long nr;
		size_t len = 8 + rng_below(sizeof(buf) - 8);

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rng();
		pb_build(buf, len, &pages, &nr);
		CASE("random #%u (%lu entries)", it, nr);
		check_one("random", pages, nr, NULL);
		free(pages);
	}
}

int main(int argc, char **argv)
{
	const char *seed = getenv("PB_SEED");
	unsigned int iters = 600;

	(void)argc;
	(void)argv;
	if (seed && *seed)
		rng_state = strtoull(seed, NULL, 0) | 1;
	if (getenv("PB_RANDOM_ITERS"))
		iters = (unsigned int)strtoul(getenv("PB_RANDOM_ITERS"), NULL, 0);
	shim_hook_quiet = 1;
	shim_mem_init(PB_NR_SECTIONS);

	test_empty();
	test_one_entry();
	test_contig_runs();
	test_broken_runs();
	test_permutations();
	test_duplicates();
	test_folio_runs();
	test_adjacent_folios();
	test_cross_section();
	test_memmap_adjacent();
	test_random(iters);

	free(v.p);
	shim_mem_free();
	printf("%lu tests run, %lu passed, %lu failed\n", tests_run,
	       tests_run - tests_failed, tests_failed);
	return tests_failed ? 1 : 0;
}
