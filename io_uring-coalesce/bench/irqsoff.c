/* SPDX-License-Identifier: MIT */
/*
 * Description: the longest section that io_uring buffer registration runs
 * with interrupts off, from the irqsoff tracer.
 *
 * For one buffer of SIZE MiB (IOU_BENCH_SIZE, default 1024) backed by 4 KiB
 * pages, by transparent huge pages and by 2 MiB hugetlb pages, faulted in
 * beforehand, IOU_BENCH_ITERS times each (default 3): the tracer's maximum
 * is reset, io_uring_register_buffers() runs, the maximum is read; the same
 * for io_uring_unregister_buffers().  The figures are the largest of the
 * iterations, in microseconds:
 *
 *	figure register_4k_1024M_irqsoff_us US us lower
 *	figure unregister_4k_1024M_irqsoff_us US us lower
 *	figure register_thp_1024M_irqsoff_us US us lower
 *	...
 *
 * and, first, what the guest shows on its own over 200 ms of sleep (timer
 * interrupts and the like), the floor any figure above includes:
 *
 *	figure idle_irqsoff_us US us lower
 *
 * The tracer's maximum is over the whole guest for the time of the call,
 * not over the call's own code alone; "# " lines name where the longest
 * section of each figure began and ended, from the tracer's report.
 * Under qemu -icount shift=0 (tools/bench --icount) a microsecond is a
 * thousand guest instructions.
 *
 * The tracer is in kernels of the latency flavour only (tools/bench
 * --flavour latency); elsewhere the program says so in a "# " line and
 * exits 0 with no figures.
 *
 * Build: gcc -static -O2 -Wall -Wextra -Werror -D_GNU_SOURCE \
 *		-I. irqsoff.c -luring
 * Exit 0 success (or no tracer), 1 error, 77 no io_uring / no hugetlb.
 */
#include <liburing.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "hugemem.h"

#define TRACING		"/sys/kernel/tracing"

/* Whether the irqsoff tracer can be had; mounts tracefs if need be. */
static int have_irqsoff(void)
{
	char buf[512];
	ssize_t n;
	int fd;

	if (access(TRACING "/available_tracers", R_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	fd = open(TRACING "/available_tracers", O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "irqsoff") != NULL;
}

static void reset_max(void)
{
	if (write_long(TRACING "/tracing_max_latency", 0))
		die(T_EXIT_FAIL, "resetting tracing_max_latency: %s",
		    strerror(errno));
}

/* The maximum since the reset, in microseconds. */
static long read_max(void)
{
	long us = read_long(TRACING "/tracing_max_latency");

	if (us < 0)
		die(T_EXIT_FAIL, "reading tracing_max_latency");
	return us;
}

/* The "started at" and "ended at" lines of the tracer's report. */
static void print_where(const char *what)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[256], *p;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && line[0] == '#') {
		p = strstr(line, "=> ");
		if (p && (strstr(p, "started at") || strstr(p, "ended at")))
			printf("# %s: %s", what, p + 3);
	}
	fclose(f);
}

static void bench_irqsoff(struct io_uring *ring, const char *backing,
			  char *p, size_t size, int iters)
{
	long reg = 0, unreg = 0, us;
	struct iovec iov;
	char what[64];
	int i, ret;

	iov.iov_base = p;
	iov.iov_len = size;
	for (i = 0; i < iters; i++) {
		reset_max();
		ret = io_uring_register_buffers(ring, &iov, 1);
		us = read_max();
		if (ret)
			die(T_EXIT_FAIL, "io_uring_register_buffers(%zu): %s",
			    size, strerror(-ret));
		snprintf(what, sizeof(what), "register %s, iteration %d, %ld us",
			 backing, i + 1, us);
		print_where(what);
		if (us > reg)
			reg = us;
		reset_max();
		ret = io_uring_unregister_buffers(ring);
		us = read_max();
		if (ret)
			die(T_EXIT_FAIL, "io_uring_unregister_buffers: %s",
			    strerror(-ret));
		snprintf(what, sizeof(what), "unregister %s, iteration %d, %ld us",
			 backing, i + 1, us);
		print_where(what);
		if (us > unreg)
			unreg = us;
	}
	printf("figure register_%s_%zuM_irqsoff_us %ld us lower\n", backing,
	       size / MIB, reg);
	printf("figure unregister_%s_%zuM_irqsoff_us %ld us lower\n", backing,
	       size / MIB, unreg);
}

/* @size bytes of anonymous memory in 4 KiB pages, faulted in. */
static char *small_alloc(size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		die(T_EXIT_FAIL, "mmap of %zu bytes: %s", size,
		    strerror(errno));
	/* No THP, whatever the system's setting. */
	if (madvise(p, size, MADV_NOHUGEPAGE) && errno != EINVAL)
		die(T_EXIT_FAIL, "MADV_NOHUGEPAGE: %s", strerror(errno));
	for (i = 0; i < size; i += 4096)
		p[i] = 1;
	return p;
}

int main(void)
{
	size_t size = env_long("IOU_BENCH_SIZE", 1024, 2, 4096) * MIB;
	int iters = env_long("IOU_BENCH_ITERS", 3, 1, 100);
	struct io_uring ring;
	size_t map_len;
	char *p, *map;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!have_irqsoff()) {
		printf("# no irqsoff tracer in this kernel: its figures come from tools/bench --flavour latency\n");
		return T_EXIT_PASS;
	}
	size &= ~(HPAGE - 1);
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		die(ret == -ENOSYS ? T_EXIT_SKIP : T_EXIT_FAIL,
		    "io_uring_queue_init: %s", strerror(-ret));
	if (write_str(TRACING "/current_tracer", "irqsoff"))
		die(T_EXIT_FAIL, "selecting the irqsoff tracer: %s",
		    strerror(errno));

	reset_max();
	usleep(200000);
	printf("figure idle_irqsoff_us %ld us lower\n", read_max());
	print_where("idle");

	p = small_alloc(size);
	bench_irqsoff(&ring, "4k", p, size, iters);
	munmap(p, size);

	p = thp_alloc(size, &map, &map_len);
	if (p) {
		bench_irqsoff(&ring, "thp", p, size, iters);
		munmap(map, map_len);
	}

	reserve_hugepages(size / HPAGE);
	p = huge_alloc(size);
	bench_irqsoff(&ring, "hugetlb", p, size, iters);
	munmap(p, size);

	write_str(TRACING "/current_tracer", "nop");
	io_uring_queue_exit(&ring);
	return T_EXIT_PASS;
}
