/* SPDX-License-Identifier: MIT */
/*
 * Description: io_uring fixed buffers over huge pages.
 *
 * 1. Registration: time io_uring_register_buffers() and
 *    io_uring_unregister_buffers() of one buffer of SIZE MiB (512 and
 *    1024; IOU_BENCH_SIZES), backed by 2 MiB hugetlb pages and by
 *    transparent huge pages (IOU_BENCH_BACKINGS="hugetlb thp"),
 *    IOU_BENCH_ITERS times each (default 3):
 *
 *	figure register_hugetlb_1024M_s SECONDS s lower
 *	figure unregister_hugetlb_1024M_s SECONDS s lower
 *	figure register_thp_512M_s SECONDS s lower
 *	...
 *
 *    (the average seconds per call), and for each backing at the largest
 *    size
 *
 *	figure register_hugetlb_1024M_meta_KiB KIB KiB lower
 *
 *    the memory the kernel holds for the registered buffer: the drop of
 *    MemFree in /proc/meminfo across the registration, the smallest of
 *    all iterations.  It is mostly the bvec array, 16 bytes per bvec:
 *    4096 KiB for one bvec per 4 KiB page of 1 GiB, 8 KiB for one per
 *    2 MiB folio (per-cpu page lists blur it by some pages).  THP figures
 *    are left out, with a "# " line saying so, when the kernel does not
 *    back the buffer with THPs.
 *
 *    Beside them, the fixed cost of an unregistration, each the median of
 *    FIXED_REPS calls (so that a timer tick inside one does not count):
 *
 *	figure unregister_empty_s SECONDS s lower
 *	figure unregister_4k_s SECONDS s lower
 *
 *    io_uring_unregister_buffers() with no buffers registered, which
 *    fails with -ENXIO at once (the system call and the ring's lock), and
 *    that of one 4 KiB buffer (the quiesce of the buffer table, almost
 *    nothing to unpin).  Where two kernels differ in the large figures by
 *    the same time at every size, these say whether the system call or
 *    the quiesce holds the difference.
 *
 * 2. 8 MiB O_DIRECT READ_FIXED reads from /dev/nvme0n1 into one registered
 *    buffer of 4 hugetlb pages, queue depth 4 (all four reads target the
 *    same buffer), IOU_BENCH_READ_MB in total (default 8192, 0 skips this
 *    part and the need for the disk):
 *
 *	figure read_fixed_MBps RATE MB/s higher
 *	figure read_fixed_sys_s_per_GiB SECONDS s/GiB lower
 *	figure read_fixed_cpu_s_per_GiB SECONDS s/GiB lower
 *
 *    MB = 10^6 bytes.  Under qemu -icount (KSTACKS_ICOUNT=1 in the
 *    environment) the rate is printed as a "# " line only: the guest
 *    clock skips the waits for the emulated disk by host time there.  sys_s is getrusage(RUSAGE_SELF) ru_stime of this
 *    process; cpu_s is system + irq + softirq of all CPUs from the "cpu"
 *    line of /proc/stat (whole guest), since the completion work may be
 *    accounted to interrupts rather than the task.  Both come from clock
 *    ticks: the run is long enough (8 GiB, a few seconds) for hundreds of
 *    them.
 *
 * IOU_BENCH_DEV names another disk or a preallocated file, to try the
 * program outside the guest.
 *
 * Other lines start with "# ".  Huge pages are reserved through
 * /proc/sys/vm/nr_hugepages and the old value is restored at exit.
 *
 * Build: gcc -static -O2 -Wall -Wextra -Werror -D_GNU_SOURCE \
 *		-I. register-hugetlb.c -luring
 * Exit 0 success, 1 error, 77 no io_uring / no hugetlb / no /dev/nvme0n1.
 */
#include <liburing.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "hugemem.h"

#define GIB		(1024.0 * 1024.0 * 1024.0)
#define NVME_DEV	"/dev/nvme0n1"

#define READ_PAGES	4		/* huge pages in the read buffer */
#define READ_LEN	(READ_PAGES * HPAGE)	/* bytes per read: 8 MiB */
#define QD		4
#define FIXED_REPS	65

static void bench_register(struct io_uring *ring, const char *backing,
			   char *p, size_t size, int iters, int meta_figure)
{
	struct iovec iov;
	double treg = 0, tunreg = 0, t0, t1, t2, t3;
	long meta = -1, free0, free1;
	int i, ret;

	iov.iov_base = p;
	iov.iov_len = size;
	for (i = 0; i < iters; i++) {
		free0 = meminfo_kib("MemFree");
		profile_mark();
		t0 = now();
		ret = io_uring_register_buffers(ring, &iov, 1);
		t1 = now();
		profile_mark();
		if (ret)
			die(T_EXIT_FAIL, "io_uring_register_buffers(%zu): %s",
			    size, strerror(-ret));
		free1 = meminfo_kib("MemFree");
		if (free0 >= 0 && free1 >= 0 &&
		    (meta < 0 || free0 - free1 < meta))
			meta = free0 - free1 > 0 ? free0 - free1 : 0;
		/* The unregistration alone: /proc/meminfo is read before. */
		profile_mark();
		t2 = now();
		ret = io_uring_unregister_buffers(ring);
		t3 = now();
		profile_mark();
		if (ret)
			die(T_EXIT_FAIL, "io_uring_unregister_buffers: %s",
			    strerror(-ret));
		printf("# %s %zu MiB, iteration %d: register %.6f s unregister %.6f s\n",
		       backing, size / MIB, i + 1, t1 - t0, t3 - t2);
		treg += t1 - t0;
		tunreg += t3 - t2;
	}
	printf("figure register_%s_%zuM_s %.9f s lower\n", backing,
	       size / MIB, treg / iters);
	printf("figure unregister_%s_%zuM_s %.9f s lower\n", backing,
	       size / MIB, tunreg / iters);
	if (meta_figure && meta >= 0)
		printf("figure register_%s_%zuM_meta_KiB %ld KiB lower\n",
		       backing, size / MIB, meta);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void bench_fixed(struct io_uring *ring, char *page)
{
	struct iovec iov = { .iov_base = page, .iov_len = 4096 };
	double empty[FIXED_REPS], one[FIXED_REPS], t0;
	int i, ret;

	for (i = 0; i < FIXED_REPS; i++) {
		profile_mark();
		t0 = now();
		ret = io_uring_unregister_buffers(ring);
		empty[i] = now() - t0;
		profile_mark();
		if (ret != -ENXIO)
			die(T_EXIT_FAIL, "io_uring_unregister_buffers with none registered: %d, want -ENXIO",
			    ret);
	}
	for (i = 0; i < FIXED_REPS; i++) {
		ret = io_uring_register_buffers(ring, &iov, 1);
		if (ret)
			die(T_EXIT_FAIL, "io_uring_register_buffers(4 KiB): %s",
			    strerror(-ret));
		profile_mark();
		t0 = now();
		ret = io_uring_unregister_buffers(ring);
		one[i] = now() - t0;
		profile_mark();
		if (ret)
			die(T_EXIT_FAIL, "io_uring_unregister_buffers(4 KiB): %s",
			    strerror(-ret));
	}
	qsort(empty, FIXED_REPS, sizeof(empty[0]), cmp_double);
	qsort(one, FIXED_REPS, sizeof(one[0]), cmp_double);
	printf("figure unregister_empty_s %.9f s lower\n",
	       empty[FIXED_REPS / 2]);
	printf("figure unregister_4k_s %.9f s lower\n", one[FIXED_REPS / 2]);
}

/* system + irq + softirq ticks of all CPUs, from /proc/stat. */
static unsigned long long stat_sys_ticks(void)
{
	unsigned long long v[7] = { 0 };
	char line[512];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		die(T_EXIT_FAIL, "/proc/stat: %s", strerror(errno));
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		die(T_EXIT_FAIL, "cannot parse /proc/stat");
	fclose(f);
	/* user nice system idle iowait irq softirq */
	return v[2] + v[5] + v[6];
}

static double rusage_sys(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void queue_read(struct io_uring *ring, int fd, char *buf,
		       unsigned long long off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		die(T_EXIT_FAIL, "no sqe");
	io_uring_prep_read_fixed(sqe, fd, buf, READ_LEN, off, 0);
	sqe->user_data = off;
}

static void bench_read(struct io_uring *ring, int fd,
		       unsigned long long span, size_t total)
{
	struct io_uring_cqe *cqe;
	struct iovec iov;
	unsigned long long ticks0, ticks1, off = 0;
	size_t nreads = total / READ_LEN, issued = 0, done = 0;
	double t0, t1, sys0, sys1, secs, gib = (double)nreads * READ_LEN / GIB;
	long hz = sysconf(_SC_CLK_TCK);
	char *buf = huge_alloc(READ_LEN);
	int ret;

	iov.iov_base = buf;
	iov.iov_len = READ_LEN;
	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret)
		die(T_EXIT_FAIL, "io_uring_register_buffers(%lu): %s",
		    READ_LEN, strerror(-ret));

	/* one untimed read, to get the device and the path warm */
	queue_read(ring, fd, buf, 0);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0 || io_uring_wait_cqe(ring, &cqe))
		die(T_EXIT_FAIL, "warm-up read: %s", strerror(-ret));
	if (cqe->res != (int)READ_LEN)
		die(T_EXIT_FAIL, "warm-up read: res %d (%s)", cqe->res,
		    cqe->res < 0 ? strerror(-cqe->res) : "short");
	io_uring_cqe_seen(ring, cqe);

	sys0 = rusage_sys();
	ticks0 = stat_sys_ticks();
	t0 = now();
	while (done < nreads) {
		while (issued < nreads && issued - done < QD) {
			queue_read(ring, fd, buf, off);
			off += READ_LEN;
			if (off + READ_LEN > span)
				off = 0;
			issued++;
		}
		ret = io_uring_submit_and_wait(ring, 1);
		if (ret < 0)
			die(T_EXIT_FAIL, "io_uring_submit_and_wait: %s",
			    strerror(-ret));
		while (io_uring_peek_cqe(ring, &cqe) == 0) {
			if (cqe->res != (int)READ_LEN)
				die(T_EXIT_FAIL,
				    "read at %llu: res %d (%s)",
				    (unsigned long long)cqe->user_data,
				    cqe->res, cqe->res < 0 ?
				    strerror(-cqe->res) : "short");
			io_uring_cqe_seen(ring, cqe);
			done++;
		}
	}
	t1 = now();
	ticks1 = stat_sys_ticks();
	sys1 = rusage_sys();

	ret = io_uring_unregister_buffers(ring);
	if (ret)
		die(T_EXIT_FAIL, "io_uring_unregister_buffers: %s",
		    strerror(-ret));
	munmap(buf, READ_LEN);

	secs = t1 - t0;
	printf("# read: %zu x %lu MiB in %.6f s, task sys %.6f s, "
	       "all CPUs sys+irq+softirq %llu ticks (%ld Hz)\n", nreads,
	       READ_LEN / MIB, secs, sys1 - sys0, ticks1 - ticks0, hz);
	/*
	 * Under qemu -icount (KSTACKS_ICOUNT=1 from tools/bench --icount)
	 * the guest clock skips its waits for the emulated disk by host
	 * time: the rate is then no instruction count, and not a figure.
	 */
	printf("%s read_fixed_MBps %.3f MB/s higher%s\n",
	       getenv("KSTACKS_ICOUNT") ? "# not a figure under -icount:" :
	       "figure", nreads * (double)READ_LEN / 1e6 / secs,
	       getenv("KSTACKS_ICOUNT") ? " (device waits in host time)" : "");
	printf("figure read_fixed_sys_s_per_GiB %.6f s/GiB lower\n",
	       (sys1 - sys0) / gib);
	printf("figure read_fixed_cpu_s_per_GiB %.6f s/GiB lower\n",
	       (double)(ticks1 - ticks0) / hz / gib);
}

int main(void)
{
	struct io_uring ring;
	unsigned long long devsize = 0;
	size_t sizes[8], max_size = 0, read_total;
	const char *dev = getenv("IOU_BENCH_DEV");
	const char *env_sizes = getenv("IOU_BENCH_SIZES");
	const char *backings = getenv("IOU_BENCH_BACKINGS");
	long read_mb, nr;
	int nsizes = 0, iters, ret, fd = -1, i;
	char list[128], *tok, *save;

	setvbuf(stdout, NULL, _IOLBF, 0);
	iters = env_long("IOU_BENCH_ITERS", 3, 1, 1000);
	read_mb = env_long("IOU_BENCH_READ_MB", 8192, 0, 1L << 20);
	read_total = ((size_t)read_mb * MIB + READ_LEN - 1) & ~(READ_LEN - 1);
	snprintf(list, sizeof(list), "%s", env_sizes ? env_sizes : "512 1024");
	for (tok = strtok_r(list, " ,", &save); tok && nsizes < 8;
	     tok = strtok_r(NULL, " ,", &save)) {
		long mb = strtol(tok, NULL, 10);

		if (mb < 2 || mb > 1024)
			die(T_EXIT_FAIL, "IOU_BENCH_SIZES: %s: want 2..1024", tok);
		sizes[nsizes] = ((size_t)mb * MIB + HPAGE - 1) & ~(HPAGE - 1);
		if (sizes[nsizes] > max_size)
			max_size = sizes[nsizes];
		nsizes++;
	}
	if (!backings)
		backings = "hugetlb thp";

	/* check the disk first, so that a guest without it skips at once */
	if (read_total) {
		struct stat st;

		if (!dev)
			dev = NVME_DEV;
		fd = open(dev, O_RDONLY | O_DIRECT);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENXIO ||
			    errno == ENODEV)
				die(T_EXIT_SKIP, "%s: %s (IOU_BENCH_READ_MB=0 "
				    "measures registration only)", dev,
				    strerror(errno));
			die(T_EXIT_FAIL, "open %s: %s", dev, strerror(errno));
		}
		if (fstat(fd, &st))
			die(T_EXIT_FAIL, "fstat %s: %s", dev, strerror(errno));
		if (S_ISREG(st.st_mode))
			devsize = st.st_size;
		else if (ioctl(fd, BLKGETSIZE64, &devsize))
			die(T_EXIT_FAIL, "BLKGETSIZE64 %s: %s", dev,
			    strerror(errno));
		devsize &= ~(unsigned long long)(READ_LEN - 1);
		if (!devsize)
			die(T_EXIT_SKIP, "%s smaller than %lu MiB", dev,
			    READ_LEN / MIB);
	}

	ret = io_uring_queue_init(QD, &ring, 0);
	if (ret == -ENOSYS || ret == -EPERM)
		die(T_EXIT_SKIP, "io_uring not available: %s", strerror(-ret));
	if (ret)
		die(T_EXIT_FAIL, "io_uring_queue_init: %s", strerror(-ret));

	printf("# buffers of %s MiB (%s), %d iterations; reads %zu MiB of "
	       "%llu MiB of %s\n", env_sizes ? env_sizes : "512 1024",
	       backings, iters, read_total / MIB, devsize / MIB,
	       read_total ? dev : "(none)");

	{
		char *page = aligned_alloc(4096, 4096);

		if (!page)
			die(T_EXIT_FAIL, "aligned_alloc: %s", strerror(errno));
		memset(page, 0, 4096);
		bench_fixed(&ring, page);
		free(page);
	}
	if (strstr(backings, "hugetlb")) {
		char *p;

		nr = max_size / HPAGE;
		if (nr < READ_PAGES)
			nr = READ_PAGES;
		reserve_hugepages(nr);
		p = huge_alloc(max_size);
		for (i = 0; i < nsizes; i++)
			bench_register(&ring, "hugetlb", p, sizes[i], iters,
				       sizes[i] == max_size);
		munmap(p, max_size);
		restore_hugepages();
	}
	if (strstr(backings, "thp")) {
		size_t map_len;
		char *map, *p = thp_alloc(max_size, &map, &map_len);

		for (i = 0; p && i < nsizes; i++)
			bench_register(&ring, "thp", p, sizes[i], iters,
				       sizes[i] == max_size);
		if (p)
			munmap(map, map_len);
	}
	if (read_total) {
		reserve_hugepages(READ_PAGES);
		bench_read(&ring, fd, devsize, read_total);
		restore_hugepages();
	}

	io_uring_queue_exit(&ring);
	if (fd >= 0)
		close(fd);
	return T_EXIT_PASS;
}
