// SPDX-License-Identifier: GPL-2.0
/*
 * Cost per page of allocating a batch of order-0 pages: an alloc_page()
 * loop against one alloc_pages_bulk_array() call and one
 * alloc_pages_bulk_list() call, for batch sizes 1, 8, 16, 32, 64 and 128.
 *
 * Only the allocation is timed; the pages are freed outside the timed
 * section, the same way for every method.  Each figure is the median of
 * "reps" runs of "pages" pages each (so "pages / batch" calls per run).
 * The methods take turns run by run, after one untimed warm-up run of
 * each, so that warming caches and a drifting host fall on all of them
 * alike.  Printed at load time, one line per figure, for tools/bench:
 *
 *	figure alloc_loop_64_ns NS_PER_PAGE ns lower
 *	figure alloc_bulk_array_64_cycles CYCLES_PER_PAGE cycles lower
 *	figure bulk_array_vs_loop_64 RATIO x lower
 *
 * The ratio is the median cycles per page of the bulk array call over the
 * median cycles per page of the alloc_page() loop, both of this load: the
 * two cycle figures printed above it, divided.
 *
 * On a kernel without the bulk allocator (built without
 * HAVE_ALLOC_PAGES_BULK) the bulk_array and bulk_list figures measure what
 * a caller does there instead: an alloc_page() loop filling the array or
 * the list.  In newer kernels (7.3 among the bases) the array form is
 * called alloc_pages_bulk() and there is no list form: built
 * with BULK_ARRAY_ONLY, the module measures the array call under its old
 * name and prints no bulk_list figures.  The module stays loaded until removed; loading fails with
 * -ENOMEM if the allocator ever returns fewer pages than asked for, and
 * with -EAGAIN if a timed run saw no time pass (a clock source that is
 * still coarse early in boot), rather than print a figure of zero.
 */
#define pr_fmt(fmt) fmt

#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timex.h>

static unsigned int pages = 8192;
module_param(pages, uint, 0444);
MODULE_PARM_DESC(pages, "pages allocated per timed run (default 8192)");

static unsigned int reps = 7;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "timed runs per figure, the median is printed (default 7)");

enum method { LOOP, BULK_ARRAY, BULK_LIST, NR_METHODS };
static const char * const method_name[NR_METHODS] = {
	"loop", "bulk_array", "bulk_list",
};

static const unsigned int batches[] = { 1, 8, 16, 32, 64, 128 };
#define MAX_BATCH 128

#ifdef BULK_ARRAY_ONLY
#define alloc_pages_bulk_array(gfp, n, array) alloc_pages_bulk(gfp, n, array)
static const char kernel_kind[] = "bulk allocator, array form only";
#elif defined(HAVE_ALLOC_PAGES_BULK)
static const char kernel_kind[] = "bulk allocator";
#else
static const char kernel_kind[] = "no bulk allocator: bulk figures are alloc_page() loops";
#endif

struct sample {
	u64 ns;
	u64 cycles;
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void free_array(struct page **array, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (array[i])
			__free_page(array[i]);
		array[i] = NULL;
	}
}

static void free_list(struct list_head *list)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, list, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
}

/* Whether this kernel has method @m to measure. */
static bool have_method(enum method m)
{
#ifdef BULK_ARRAY_ONLY
	return m != BULK_LIST;
#else
	return true;
#endif
}

/* One batch with @m; returns the pages it got, all freed again. */
static unsigned int one_batch(enum method m, unsigned int n,
			      struct page **array, struct sample *s)
{
	unsigned int got = 0, i;
	u64 t0, c0;
	LIST_HEAD(list);

	switch (m) {
	case LOOP:
		t0 = ktime_get_ns();
		c0 = get_cycles();
		for (i = 0; i < n; i++) {
			array[i] = alloc_page(GFP_KERNEL);
			if (!array[i])
				break;
		}
		s->cycles += get_cycles() - c0;
		s->ns += ktime_get_ns() - t0;
		got = i;
		free_array(array, got);
		break;
	case BULK_ARRAY:
		t0 = ktime_get_ns();
		c0 = get_cycles();
#ifdef HAVE_ALLOC_PAGES_BULK
		got = alloc_pages_bulk_array(GFP_KERNEL, n, array);
#else
		for (i = 0; i < n; i++) {
			array[i] = alloc_page(GFP_KERNEL);
			if (!array[i])
				break;
		}
		got = i;
#endif
		s->cycles += get_cycles() - c0;
		s->ns += ktime_get_ns() - t0;
		free_array(array, n);
		break;
	case BULK_LIST:
		t0 = ktime_get_ns();
		c0 = get_cycles();
#if defined(HAVE_ALLOC_PAGES_BULK) && !defined(BULK_ARRAY_ONLY)
		got = alloc_pages_bulk_list(GFP_KERNEL, n, &list);
#else
		for (i = 0; i < n; i++) {
			struct page *page = alloc_page(GFP_KERNEL);

			if (!page)
				break;
			list_add(&page->lru, &list);
		}
		got = i;
#endif
		s->cycles += get_cycles() - c0;
		s->ns += ktime_get_ns() - t0;
		free_list(&list);
		break;
	default:
		break;
	}
	return got;
}

/*
 * Median cost per page of every method at batch size @n, in ns and cycles
 * (x1000), the methods taking turns run by run after an untimed warm-up.
 */
static int measure(unsigned int n, struct page **array, u64 *ns, u64 *cycles,
		   u64 (*ns_v)[NR_METHODS], u64 (*cy_v)[NR_METHODS])
{
	unsigned int calls = max(pages / n, 1U), r, c, m;
	struct sample warm = { 0, 0 };
	u64 *col;

	for (m = 0; m < NR_METHODS; m++)
		for (c = 0; c < calls && have_method(m); c++)
			if (one_batch(m, n, array, &warm) != n)
				return -ENOMEM;
	for (r = 0; r < reps; r++) {
		for (m = 0; m < NR_METHODS; m++) {
			struct sample s = { 0, 0 };

			if (!have_method(m))
				continue;
			for (c = 0; c < calls; c++) {
				if (one_batch(m, n, array, &s) != n)
					return -ENOMEM;
				cond_resched();
			}
			/* Early in boot the clock may still be too coarse. */
			if (!s.ns || !s.cycles)
				return -EAGAIN;
			ns_v[r][m] = div_u64(s.ns * 1000, calls * n);
			cy_v[r][m] = div_u64(s.cycles * 1000, calls * n);
		}
	}
	col = kcalloc(reps, sizeof(*col), GFP_KERNEL);
	if (!col)
		return -ENOMEM;
	for (m = 0; m < NR_METHODS; m++) {
		if (!have_method(m))
			continue;
		for (r = 0; r < reps; r++)
			col[r] = ns_v[r][m];
		sort(col, reps, sizeof(*col), cmp_u64, NULL);
		ns[m] = col[reps / 2];
		for (r = 0; r < reps; r++)
			col[r] = cy_v[r][m];
		sort(col, reps, sizeof(*col), cmp_u64, NULL);
		cycles[m] = col[reps / 2];
	}
	kfree(col);
	return 0;
}

/* Print a value kept in thousandths with three decimals. */
static void print_figure(const char *what, unsigned int n,
			 const char *unit, u64 milli)
{
	pr_info("figure %s_%u_%s %llu.%03llu %s lower\n", what, n, unit,
		div_u64(milli, 1000), milli % 1000, unit);
}

static int __init page_alloc_bulk_bench_init(void)
{
	u64 ns[NR_METHODS], cycles[NR_METHODS];
	u64 (*ns_v)[NR_METHODS], (*cy_v)[NR_METHODS];
	struct page **array;
	unsigned int b, n;
	int m, ret = 0;

	if (!reps || !pages)
		return -EINVAL;
	array = kcalloc(MAX_BATCH, sizeof(*array), GFP_KERNEL);
	ns_v = kcalloc(reps, sizeof(*ns_v), GFP_KERNEL);
	cy_v = kcalloc(reps, sizeof(*cy_v), GFP_KERNEL);
	if (!array || !ns_v || !cy_v) {
		ret = -ENOMEM;
		goto out;
	}
	pr_info("# page_alloc_bulk_bench: %s, %u pages per run, median of %u runs, methods in turn\n",
		kernel_kind, pages, reps);
	for (b = 0; b < ARRAY_SIZE(batches); b++) {
		n = batches[b];
		ret = measure(n, array, ns, cycles, ns_v, cy_v);
		if (ret) {
			pr_err("page_alloc_bulk_bench: batch %u: %s\n", n,
			       ret == -EAGAIN ? "the clock did not advance" :
			       "got fewer pages than asked for");
			goto out;
		}
		for (m = 0; m < NR_METHODS; m++) {
			char what[32];

			if (!have_method(m))
				continue;
			snprintf(what, sizeof(what), "alloc_%s", method_name[m]);
			print_figure(what, n, "ns", ns[m]);
			print_figure(what, n, "cycles", cycles[m]);
		}
		/* Median cycles per page of the bulk array call over the loop's. */
		if (cycles[LOOP])
			pr_info("figure bulk_array_vs_loop_%u %llu.%03llu x lower\n",
				n, div_u64(cycles[BULK_ARRAY] * 1000, cycles[LOOP]) / 1000,
				div_u64(cycles[BULK_ARRAY] * 1000, cycles[LOOP]) % 1000);
	}
out:
	kfree(cy_v);
	kfree(ns_v);
	kfree(array);
	return ret;
}

static void __exit page_alloc_bulk_bench_exit(void)
{
}

module_init(page_alloc_bulk_bench_init);
module_exit(page_alloc_bulk_bench_exit);
MODULE_DESCRIPTION("Cost per page of bulk order-0 page allocation");
MODULE_LICENSE("GPL");
