// SPDX-License-Identifier: GPL-2.0
/*
 * page_pool cost per page, in the manner of the page_pool benchmark
 * modules used on netdev: a pool of order-0 pages without DMA mapping,
 * one page allocated and given back per iteration, loops timed with
 * ktime and in CPU cycles (get_cycles()).  Three ways back:
 *
 *   pp_fast_path   recycled straight into the alloc cache, from softirq
 *                  (a tasklet), as XDP_DROP in NAPI does
 *   pp_ptr_ring    recycled into the ptr_ring from process context; the
 *                  cache is refilled from the ring PP_ALLOC_CACHE_REFILL
 *                  pages at a time
 *   pp_slow_path   never recycled: released and freed, so that every
 *                  page comes from the page allocator through the slow
 *                  path, where the bulk refill applies
 *
 * Every run, on every kernel, starts from the same state of the pool: its
 * alloc cache empty, and its ring empty for pp_slow_path and holding
 * PP_BENCH_RING_PAGES pages for the two other loops.  (A bulk refill
 * leaves PP_ALLOC_CACHE_REFILL - 1 pages in the cache; carried over from
 * one run to the next, they would put the patched kernel's ring loop at
 * 64 pages per ring refill against one on the unpatched kernel.)
 *
 * Loading the module runs the loops and prints two lines per loop:
 *
 *	figure NAME NS ns/page lower
 *	figure NAME_cycles CYCLES cycles/page lower
 *
 * Each figure is the median over pp_bench_rounds runs of the run's time
 * divided by its pp_bench_loops pages.  Two kernels are compared by the
 * ratio of their medians, patched / vanilla, as make bench reports it.
 * Loading fails with the error of the first loop that fails, and with
 * -EAGAIN when a run saw no time pass (a clock too coarse to time it).
 */
#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sort.h>
#include <linux/timex.h>
#include <net/page_pool.h>

static unsigned int pp_bench_loops = 200000;
module_param(pp_bench_loops, uint, 0444);
MODULE_PARM_DESC(pp_bench_loops, "iterations per timed run");

static unsigned int pp_bench_rounds = 5;
module_param(pp_bench_rounds, uint, 0444);
MODULE_PARM_DESC(pp_bench_rounds, "timed runs per figure, median reported");

#define PP_BENCH_MAX_ROUNDS	31
/* Pages in the ring at the start of a fast path or ptr_ring run */
#define PP_BENCH_RING_PAGES	(2 * PP_ALLOC_CACHE_REFILL)

enum pp_bench_mode {
	PP_BENCH_FAST,
	PP_BENCH_RING,
	PP_BENCH_SLOW,
};

static const char * const pp_bench_names[] = {
	[PP_BENCH_FAST] = "pp_fast_path",
	[PP_BENCH_RING] = "pp_ptr_ring",
	[PP_BENCH_SLOW] = "pp_slow_path",
};

struct pp_bench_run {
	enum pp_bench_mode mode;
	struct page_pool *pool;
	u64 ns;
	u64 cycles;
	int err;
	struct completion done;
};

static struct page_pool *pp_bench_create(void)
{
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 1024,
		.nid = NUMA_NO_NODE,
	};

	return page_pool_create(&pp);
}

/* One timed run of @loops iterations; returns nanoseconds or an error */
static int pp_bench_loop(struct pp_bench_run *run, unsigned int loops)
{
	struct page_pool *pool = run->pool;
	struct page *page;
	cycles_t c0, c1;
	u64 t0, t1;
	unsigned int i;

	t0 = ktime_get_ns();
	c0 = get_cycles();
	for (i = 0; i < loops; i++) {
		page = page_pool_alloc_pages(pool, GFP_ATOMIC);
		if (unlikely(!page))
			return -ENOMEM;

		switch (run->mode) {
		case PP_BENCH_FAST:
			page_pool_recycle_direct(pool, page);
			break;
		case PP_BENCH_RING:
			page_pool_put_full_page(pool, page, false);
			break;
		case PP_BENCH_SLOW:
			page_pool_release_page(pool, page);
			put_page(page);
			break;
		}
	}
	c1 = get_cycles();
	t1 = ktime_get_ns();
	run->ns = t1 - t0;
	run->cycles = c1 - c0;
	if (!run->ns || !run->cycles)
		return -EAGAIN;
	return 0;
}

static void pp_bench_tasklet_fn(unsigned long data)
{
	struct pp_bench_run *run = (struct pp_bench_run *)data;

	run->err = pp_bench_loop(run, pp_bench_loops);
	complete(&run->done);
}

static struct page *pp_bench_pages[PP_BENCH_RING_PAGES];

/* Take a page the pool holds, from its cache or ring, and free it */
static void pp_bench_free_one(struct page_pool *pool)
{
	struct page *page = page_pool_alloc_pages(pool, GFP_KERNEL);

	if (page) {
		page_pool_release_page(pool, page);
		put_page(page);
	}
}

/*
 * Bring the pool to the state every run starts from: the alloc cache
 * empty, the ring empty or, with @ring, holding PP_BENCH_RING_PAGES pages
 * of the pool.
 */
static int pp_bench_prepare(struct page_pool *pool, bool ring)
{
	unsigned int i;

	while (pool->alloc.count || !__ptr_ring_empty(&pool->ring))
		pp_bench_free_one(pool);
	if (!ring)
		return 0;

	for (i = 0; i < PP_BENCH_RING_PAGES; i++) {
		pp_bench_pages[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
		if (!pp_bench_pages[i])
			break;
	}
	/* What a refill left in the cache goes back to the page allocator */
	while (pool->alloc.count)
		pp_bench_free_one(pool);
	while (i)
		page_pool_put_full_page(pool, pp_bench_pages[--i], false);
	return __ptr_ring_empty(&pool->ring) ? -ENOMEM : 0;
}

static int pp_bench_once(struct pp_bench_run *run)
{
	struct tasklet_struct t;
	int err;

	err = pp_bench_prepare(run->pool, run->mode != PP_BENCH_SLOW);
	if (err)
		return err;

	if (run->mode != PP_BENCH_FAST) {
		run->err = pp_bench_loop(run, pp_bench_loops);
		return run->err;
	}

	/* Direct recycling into the cache only happens in softirq */
	init_completion(&run->done);
	tasklet_init(&t, pp_bench_tasklet_fn, (unsigned long)run);
	tasklet_schedule(&t);
	wait_for_completion(&run->done);
	tasklet_kill(&t);
	return run->err;
}

static int pp_bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Print the median of @v[0..@rounds) per page, with three decimals. */
static void pp_bench_report(const char *name, const char *suffix,
			    const char *unit, u64 *v, unsigned int rounds)
{
	u64 med;

	sort(v, rounds, sizeof(v[0]), pp_bench_cmp, NULL);
	med = div_u64(v[rounds / 2] * 1000, pp_bench_loops);
	pr_info("figure %s%s %llu.%03llu %s lower\n", name, suffix,
		med / 1000, med % 1000, unit);
}

static int pp_bench_mode_run(enum pp_bench_mode mode)
{
	u64 ns[PP_BENCH_MAX_ROUNDS], cycles[PP_BENCH_MAX_ROUNDS];
	struct pp_bench_run run = { .mode = mode };
	unsigned int rounds = clamp(pp_bench_rounds, 1U, PP_BENCH_MAX_ROUNDS);
	unsigned int r;
	int err = 0;

	run.pool = pp_bench_create();
	if (IS_ERR(run.pool))
		return PTR_ERR(run.pool);

	/* Warm up: caches, ring and per-cpu lists */
	err = pp_bench_once(&run);

	for (r = 0; !err && r < rounds; r++) {
		err = pp_bench_once(&run);
		ns[r] = run.ns;
		cycles[r] = run.cycles;
		cond_resched();
	}
	page_pool_destroy(run.pool);
	if (err) {
		pr_err("pp_bench: %s failed: %d\n", pp_bench_names[mode], err);
		return err;
	}

	pp_bench_report(pp_bench_names[mode], "", "ns/page", ns, rounds);
	pp_bench_report(pp_bench_names[mode], "_cycles", "cycles/page", cycles,
			rounds);
	return 0;
}

static int __init pp_bench_init(void)
{
	int err;

	if (!pp_bench_loops)
		return -EINVAL;

	pr_info("pp_bench: figures are medians over %u runs of %u pages each, per page; every run starts with the alloc cache empty and %u pages in the ring (none for pp_slow_path); compare kernels by the ratio of medians, patched / vanilla\n",
		clamp(pp_bench_rounds, 1U, PP_BENCH_MAX_ROUNDS), pp_bench_loops,
		PP_BENCH_RING_PAGES);

	err = pp_bench_mode_run(PP_BENCH_FAST);
	if (!err)
		err = pp_bench_mode_run(PP_BENCH_RING);
	if (!err)
		err = pp_bench_mode_run(PP_BENCH_SLOW);
	return err;
}

static void __exit pp_bench_exit(void)
{
}

module_init(pp_bench_init);
module_exit(pp_bench_exit);
MODULE_DESCRIPTION("page_pool fast, ptr_ring and slow path cost per page");
MODULE_LICENSE("GPL");
