// SPDX-License-Identifier: GPL-2.0
/*
 * An io_uring memory region allocated by the kernel in a memory cgroup at
 * its limit, with page cache to reclaim.
 *
 * io_region_allocate_pages() takes a region larger than MAX_PAGE_ORDER
 * (4 MiB on x86-64) from alloc_pages_bulk_node(), which stops where its
 * fast path ends: near a zone's watermark, near the cgroup's limit (the
 * batch is charged without reclaim when mm-bulk-fallbacks is applied), and
 * after one page for an accounted request on a kernel without it.  A short
 * return is not a failure: the next call's single-page path reclaims and
 * goes on.  Vanilla 7.3 takes it for -ENOMEM.
 *
 * In a child memory cgroup (made and removed here), 64 MiB of /dev/ram0
 * are read through the page cache, charged to the cgroup and clean, so
 * reclaimable; memory.max is set 1 MiB above memory.current.  An 8 MiB
 * region (IORING_REGISTER_MEM_REGION, kernel-allocated) must register by
 * reclaiming that page cache, without an OOM kill, memory.current within
 * memory.max; mapped, it must read zero (__GFP_ZERO) and take writes end
 * to end; after the ring is closed memory.current must be back within
 * 512 KiB of where it was, page cache aside.
 *
 * Exit 0 pass, 1 fail, 77 no io_uring memory regions, no memory cgroup
 * controller or no ram disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NAME "region-pressure"
#define CG_ROOT "/sys/fs/cgroup"
#define CG CG_ROOT "/kstacks-io_uring-region-pressure"
#define CACHE_MIB 64
#define REGION_MIB 8
#define SLACK (1L << 20)

/* 7.3's uapi (include/uapi/linux/io_uring.h); Debian 12's headers lack it. */
#define KSTACKS_IORING_REGISTER_MEM_REGION 34
#define KSTACKS_IORING_OFF_PARAM_REGION 0x20000000ULL

struct kstacks_region_desc {
	uint64_t user_addr;
	uint64_t size;
	uint32_t flags;
	uint32_t id;
	uint64_t mmap_offset;
	uint64_t resv[4];
};

struct kstacks_mem_region_reg {
	uint64_t region_uptr;
	uint64_t flags;
	uint64_t resv[2];
};

#define fail(...) do { printf(NAME ": FAIL: " __VA_ARGS__); putchar('\n'); \
		       cleanup(); exit(1); } while (0)
#define skip(...) do { printf(NAME ": SKIP: " __VA_ARGS__); putchar('\n'); \
		       cleanup(); exit(77); } while (0)

static int in_cgroup;

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static void cleanup(void)
{
	char pid[32];

	if (!in_cgroup)
		return;
	in_cgroup = 0;
	write_str(CG "/memory.max", "max");
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_str(CG_ROOT "/cgroup.procs", pid);
	rmdir(CG);
}

/* A number from a cgroup file, or the value of KEY in a keyed file. */
static long cg_read(const char *file, const char *key)
{
	char path[128], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), CG "/%s", file);
	f = fopen(path, "r");
	if (!f)
		fail("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		size_t k = key ? strlen(key) : 0;

		if (!key) {
			v = strtol(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, k) && line[k] == ' ') {
			v = strtol(line + k + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	if (v < 0)
		fail("%s: no %s", path, key ? key : "value");
	return v;
}

static void enter_cgroup(void)
{
	char ctl[256] = "", pid[32];
	FILE *f;

	mkdir(CG_ROOT, 0755);
	mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL);
	f = fopen(CG_ROOT "/cgroup.controllers", "r");
	if (!f || !fgets(ctl, sizeof(ctl), f) || !strstr(ctl, "memory")) {
		if (f)
			fclose(f);
		skip("no memory cgroup controller");
	}
	fclose(f);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(CG_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG, 0755) && errno != EEXIST))
		fail("cannot make %s: %s", CG, strerror(errno));
	if (write_str(CG "/cgroup.procs", pid))
		fail("cannot enter %s: %s", CG, strerror(errno));
	in_cgroup = 1;
}

/*
 * Fill the cgroup with clean, reclaimable page cache of the ram disk.  The
 * device stays open: its last close drops the page cache (kill_bdev()).
 */
static int page_cache(void)
{
	static char buf[1 << 20];
	int fd = open("/dev/ram0", O_RDONLY);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENXIO)
			skip("no /dev/ram0");
		fail("/dev/ram0: %s", strerror(errno));
	}
	for (int i = 0; i < CACHE_MIB; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			fail("read of /dev/ram0: %s", strerror(errno));
	return fd;
}

int main(void)
{
	size_t size = (size_t)REGION_MIB << 20;
	struct kstacks_region_desc rd = { .size = size };
	struct kstacks_mem_region_reg mr = { .region_uptr = (uintptr_t)&rd };
	long start, before, during, after, limit, cache, oom0;
	struct io_uring ring;
	char max[32];
	unsigned char *p;
	int ret, ram;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret)
		skip("io_uring_queue_init: %s", strerror(-ret));
	enter_cgroup();
	ram = page_cache();
	before = cg_read("memory.current", NULL);
	start = before - cg_read("memory.stat", "file");
	cache = cg_read("memory.stat", "file");
	if (cache < (CACHE_MIB / 2) << 20)
		fail("reading %d MiB of /dev/ram0 put only %ld KiB of page cache in the cgroup",
		     CACHE_MIB, cache >> 10);
	limit = before + SLACK;
	snprintf(max, sizeof(max), "%ld", limit);
	if (write_str(CG "/memory.max", max))
		fail("memory.max %s: %s", max, strerror(errno));
	oom0 = cg_read("memory.events", "oom_kill");

	ret = syscall(__NR_io_uring_register, ring.ring_fd,
		      KSTACKS_IORING_REGISTER_MEM_REGION, &mr, 1);
	if (ret && errno == EINVAL)
		skip("no IORING_REGISTER_MEM_REGION");
	during = cg_read("memory.current", NULL);
	printf(NAME ": %d MiB region at memory.max = memory.current + %ld KiB (%ld KiB of page cache): %s, memory.current %+ld KiB, page cache %ld KiB\n",
	       REGION_MIB, SLACK >> 10, cache >> 10, ret ? strerror(errno) : "registered",
	       (during - before) >> 10, cg_read("memory.stat", "file") >> 10);
	if (ret)
		fail("a %d MiB region in a cgroup at its limit with %ld KiB of page cache to reclaim: %s",
		     REGION_MIB, cache >> 10, strerror(errno));
	if (cg_read("memory.events", "oom_kill") != oom0)
		fail("the region was registered by an OOM kill");
	if (during > limit)
		fail("memory.current %ld above memory.max %ld", during, limit);

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 ring.ring_fd, rd.mmap_offset ? rd.mmap_offset :
		 KSTACKS_IORING_OFF_PARAM_REGION);
	if (p == MAP_FAILED)
		fail("mmap of the region: %s", strerror(errno));
	for (size_t i = 0; i < size; i++)
		if (p[i])
			fail("region byte %zu is %#x, not zero", i, p[i]);
	memset(p, 0x5a, size);
	munmap(p, size);
	io_uring_queue_exit(&ring);

	/*
	 * The region's pages go back once the ring's teardown work has run:
	 * what the cgroup holds besides page cache comes back to where it
	 * was before the page cache was read.
	 */
	for (int i = 0; i < 100; i++) {
		after = cg_read("memory.current", NULL) -
			cg_read("memory.stat", "file");
		if (after - start <= 512 * 1024)
			break;
		usleep(50 * 1000);
	}
	close(ram);
	cleanup();
	printf(NAME ": after close, memory.current besides page cache %+ld KiB from before the region\n",
	       (after - start) >> 10);
	if (after - start > 512 * 1024)
		fail("%ld KiB besides page cache still charged after the ring is closed",
		     (after - start) >> 10);
	printf(NAME ": PASS\n");
	return 0;
}
