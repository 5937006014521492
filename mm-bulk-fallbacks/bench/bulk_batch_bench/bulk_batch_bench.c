// SPDX-License-Identifier: GPL-2.0
/*
 * Cost per page of allocating and freeing a batch of order-0 pages: an
 * alloc_page() loop against an alloc_pages_bulk() call completed by such a
 * loop, for batches of 8, 32, 64 and 128 pages, with the GFP flags of the
 * case measured:
 *
 *   tag=page_owner (default)  GFP_KERNEL, loaded in a boot with
 *                             page_owner=on (the "cmdline" file beside
 *                             this module asks tools/bench for it)
 *   tag=memcg account=1       GFP_KERNEL_ACCOUNT, loaded by the memcg
 *                             program from inside a child memory cgroup
 *   tag=default               GFP_KERNEL with neither, loaded by the
 *                             default program: the path every bulk caller
 *                             takes, which patch 1 alone changes
 *
 * "bulk" is what the bulk allocator's callers do (vm_area_alloc_pages()):
 * one alloc_pages_bulk() call, then alloc_page() for the slots it left
 * empty.  Where the kernel's bulk allocator falls back to one page per
 * call (both cases on upstream 7.3) that is one page from the bulk call
 * and a loop for the rest.  The pages are freed inside the timed section,
 * one __free_page() each, since freeing has its own cost per page that a
 * bulk allocation does not change (with page_owner on, a stack trace
 * saved per page): the figures are the cost of allocating and freeing a
 * page.  Each figure is the median of "reps" runs of "pages" pages, the
 * two methods taking turns run by run after an untimed warm-up run of
 * each.  Printed at load time, for tools/bench:
 *
 *	figure TAG_loop_64_cycles CYCLES_PER_PAGE cycles lower
 *	figure TAG_bulk_64_cycles CYCLES_PER_PAGE cycles lower
 *	figure TAG_bulk_vs_loop_64 RATIO x lower
 *
 * The ratio is the median cycles per page of the bulk method over the
 * median cycles per page of the loop, the two figures above it divided.
 * Loading fails with -ENOMEM when a batch cannot be filled, with -EAGAIN
 * when a timed run saw no cycles pass.
 */
#define pr_fmt(fmt) fmt

#include <linux/gfp.h>
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

static bool account;
module_param(account, bool, 0444);
MODULE_PARM_DESC(account, "allocate with __GFP_ACCOUNT (default off)");

static char *tag = "page_owner";
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag, "prefix of the figure names (default page_owner)");

static const unsigned int batches[] = { 8, 32, 64, 128 };
#define MAX_BATCH 128

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

/*
 * One batch of @n pages allocated and freed, by a bulk call and a loop
 * for what it left, or by a loop alone; cycles added to @cy.
 */
static int one_batch(bool bulk, unsigned int n, struct page **array, u64 *cy)
{
	gfp_t gfp = account ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	unsigned int got = 0;
	u64 c0;

	c0 = get_cycles();
	if (bulk)
		got = alloc_pages_bulk(gfp, n, array);
	for (; got < n; got++) {
		array[got] = alloc_page(gfp);
		if (!array[got])
			break;
	}
	free_array(array, n);
	*cy += get_cycles() - c0;
	return got == n ? 0 : -ENOMEM;
}

static void print_milli(const char *what, unsigned int n, const char *unit,
			u64 milli)
{
	pr_info("figure %s_%s_%u%s %llu.%03llu %s lower\n", tag, what, n,
		strcmp(unit, "cycles") ? "" : "_cycles", milli / 1000,
		milli % 1000, unit);
}

static int __init bulk_batch_bench_init(void)
{
	struct page **array;
	u64 *col[2];
	unsigned int b, r, c, m;
	int ret = 0;

	array = kcalloc(MAX_BATCH, sizeof(*array), GFP_KERNEL);
	col[0] = kcalloc(reps, sizeof(u64), GFP_KERNEL);
	col[1] = kcalloc(reps, sizeof(u64), GFP_KERNEL);
	if (!array || !col[0] || !col[1] || !reps) {
		ret = -ENOMEM;
		goto out;
	}
	pr_info("bulk_batch_bench: %s, %u pages per run, %u runs, gfp %s\n",
		tag, pages, reps, account ? "GFP_KERNEL_ACCOUNT" : "GFP_KERNEL");
	for (b = 0; b < ARRAY_SIZE(batches); b++) {
		unsigned int n = batches[b], calls = max(pages / n, 1U);
		u64 med[2], warm = 0;

		for (m = 0; m < 2; m++)
			for (c = 0; c < calls && !ret; c++)
				ret = one_batch(m, n, array, &warm);
		for (r = 0; r < reps && !ret; r++) {
			for (m = 0; m < 2 && !ret; m++) {
				u64 cy = 0;

				for (c = 0; c < calls && !ret; c++) {
					ret = one_batch(m, n, array, &cy);
					cond_resched();
				}
				if (!ret && !cy)
					ret = -EAGAIN;
				col[m][r] = div_u64(cy * 1000, calls * n);
			}
		}
		if (ret)
			goto out;
		for (m = 0; m < 2; m++) {
			sort(col[m], reps, sizeof(u64), cmp_u64, NULL);
			med[m] = col[m][reps / 2];
		}
		print_milli("loop", n, "cycles", med[0]);
		print_milli("bulk", n, "cycles", med[1]);
		print_milli("bulk_vs_loop", n, "x",
			    med[0] ? div64_u64(med[1] * 1000, med[0]) : 0);
	}
out:
	kfree(col[1]);
	kfree(col[0]);
	kfree(array);
	return ret;
}

static void __exit bulk_batch_bench_exit(void)
{
}

module_init(bulk_batch_bench_init);
module_exit(bulk_batch_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstacks: cost per page of bulk allocation against an alloc_page() loop");
