// SPDX-License-Identifier: GPL-2.0
/*
 * A real user of accounted bulk allocation: io_uring's memory regions,
 * from inside a memory cgroup.
 *
 * io_region_allocate_pages() (7.3) allocates a region's pages with
 * GFP_KERNEL_ACCOUNT: one compound allocation when the region fits in
 * MAX_PAGE_ORDER (4 MiB on x86-64), else alloc_pages_bulk_node(), whose
 * short return it takes as -ENOMEM.  Vanilla 7.3's bulk allocator
 * returns one page from the single-page path for an accounted request
 * once kmem accounting is on, so a region larger than 4 MiB cannot be
 * registered by any process in a child memory cgroup: -ENOMEM.  With the
 * batch charged (mm-bulk-fallbacks patch 3) it is registered, and the
 * cgroup is charged for it.
 *
 * In a child memory cgroup (made and removed here), for 8 and 16 MiB:
 * a ring is set up, IORING_REGISTER_MEM_REGION registers a kernel-
 * allocated region of that size (must succeed), the region is mapped and
 * written end to end, memory.current must have grown by the region's
 * size, less 1/64 of it, and after the ring is closed it must come back
 * within 512 KiB of where it was (the per-cpu charge stock and the ring's
 * own small allocations; the region is 2048 or 4096 pages).  The 1/64:
 * memory.current is read once it has settled (unchanged over 100 ms), but
 * the cgroup's other charges (what the 8 MiB ring's teardown freed late)
 * can still go down meanwhile; on a loaded host the 16 MiB region once
 * read 16376 KiB.  A region not charged reads nothing like its size.
 *
 * Exit 0 pass, 1 fail, 77 no io_uring, no memory regions (kernels before
 * 6.13) or no memory cgroup controller.
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

#define CG_ROOT "/sys/fs/cgroup"
#define CG CG_ROOT "/kstacks-bulk-io_uring-region"

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

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static long memory_current(void)
{
	char buf[64] = "";
	int fd = open(CG "/memory.current", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* memory.current once two reads 100 ms apart agree (3 s at most) */
static long memory_settled(void)
{
	long prev = memory_current(), cur = prev;

	for (int i = 0; i < 30; i++) {
		usleep(100 * 1000);
		cur = memory_current();
		if (cur == prev)
			break;
		prev = cur;
	}
	return cur;
}

static void leave_cgroup(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(CG_ROOT "/cgroup.procs", pid);
	rmdir(CG);
}

/* Enter a child memory cgroup: 0, 77 with no memory controller, 1. */
static int enter_cgroup(void)
{
	char ctl[256] = "", pid[32];
	FILE *f;

	mkdir(CG_ROOT, 0755);
	mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL);
	f = fopen(CG_ROOT "/cgroup.controllers", "r");
	if (!f || !fgets(ctl, sizeof(ctl), f) || !strstr(ctl, "memory")) {
		if (f)
			fclose(f);
		printf("io_uring-region: SKIP: no memory cgroup controller\n");
		return 77;
	}
	fclose(f);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_file(CG_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG, 0755) && errno != EEXIST) ||
	    write_file(CG "/cgroup.procs", pid)) {
		printf("io_uring-region: FAIL: cannot enter %s: %s\n", CG,
		       strerror(errno));
		return 1;
	}
	return 0;
}

/* One region of @mib MiB: 0 pass, 1 fail, 77 skip. */
static int region(unsigned int mib)
{
	size_t size = (size_t)mib << 20;
	struct kstacks_region_desc rd = { .size = size };
	struct kstacks_mem_region_reg mr = {
		.region_uptr = (uintptr_t)&rd,
	};
	struct io_uring ring;
	long before, during, after;
	unsigned char *p;
	int ret;

	before = memory_settled();
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret) {
		printf("io_uring-region: SKIP: io_uring_queue_init: %s\n",
		       strerror(-ret));
		return 77;
	}
	ret = syscall(__NR_io_uring_register, ring.ring_fd,
		      KSTACKS_IORING_REGISTER_MEM_REGION, &mr, 1);
	if (ret && errno == EINVAL) {
		printf("io_uring-region: SKIP: no IORING_REGISTER_MEM_REGION\n");
		io_uring_queue_exit(&ring);
		return 77;
	}
	if (ret) {
		printf("io_uring-region: FAIL: a %u MiB region in a memory cgroup: %s\n",
		       mib, strerror(errno));
		io_uring_queue_exit(&ring);
		return 1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 ring.ring_fd, rd.mmap_offset ? rd.mmap_offset :
		 KSTACKS_IORING_OFF_PARAM_REGION);
	if (p == MAP_FAILED) {
		printf("io_uring-region: FAIL: mmap of the %u MiB region: %s\n",
		       mib, strerror(errno));
		io_uring_queue_exit(&ring);
		return 1;
	}
	memset(p, 0x5a, size);
	during = memory_current();
	munmap(p, size);
	io_uring_queue_exit(&ring);
	/* The ring's pages go back once its teardown work has run. */
	for (int i = 0; i < 100; i++) {
		after = memory_current();
		if (after - before <= 512 * 1024)
			break;
		usleep(50 * 1000);
	}
	printf("io_uring-region: %u MiB region: memory.current %+ld KiB registered, %+ld KiB after close\n",
	       mib, (during - before) / 1024, (after - before) / 1024);
	if (during - before < (long)(size - size / 64)) {
		printf("io_uring-region: FAIL: the %u MiB region is not charged to the cgroup\n",
		       mib);
		return 1;
	}
	if (after - before > 512 * 1024) {
		printf("io_uring-region: FAIL: %ld KiB still charged after the ring is closed\n",
		       (after - before) / 1024);
		return 1;
	}
	return 0;
}

int main(void)
{
	int ret = enter_cgroup();

	if (ret)
		return ret;
	ret = region(8);
	if (!ret)
		ret = region(16);
	leave_cgroup();
	if (!ret)
		printf("io_uring-region: PASS\n");
	return ret;
}
