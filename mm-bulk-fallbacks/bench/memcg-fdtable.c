// SPDX-License-Identifier: GPL-2.0
/*
 * Accounted vmalloc as a process meets it, inside a memory cgroup: the
 * file descriptor table.
 *
 * A process whose highest open descriptor is N - 1 has a table of N
 * struct file pointers (8 bytes each), which alloc_fdtable() allocates
 * with kvmalloc(GFP_KERNEL_ACCOUNT): above the largest kmalloc size that
 * is vmalloc, whose pages come from the bulk allocator with
 * __GFP_ACCOUNT.  Every fork() or vfork() of a process gives the child
 * its own copy of the table (dup_fd(): a new table of the same size, the
 * pointers copied), freed when the child exits.  Servers that raise
 * RLIMIT_NOFILE and hold many sockets have such tables.  vfork() copies
 * nothing else of note (the child shares the memory), and the child
 * exits at once: one table allocated and one freed per call.
 * (unshare(CLONE_FILES) would copy it only if the table were shared.)
 *
 * The program moves itself into a child memory cgroup of its own
 * (cgroup v2 at /sys/fs/cgroup, made and removed here), raises
 * RLIMIT_NOFILE, opens descriptor N - 1 and for N = 64Ki (a 512 KiB
 * table, 128 pages) and 1Mi (8 MiB, 2048 pages) prints the average time
 * of one vfork() of a child that exits at once, with the wait for it,
 * over ITERS calls (default 50, argv[1]):
 *
 *	figure fdtable_vfork_64K_us MICROSECONDS us lower
 *	figure fdtable_vfork_1M_us MICROSECONDS us lower
 *
 * and the cgroup's memory.current after the last call against before
 * the first (the table charged to the cgroup, not lost):
 *
 *	# memory.current +KIB KiB over N calls
 *
 * Under tools/bench --icount a microsecond is a number of guest
 * instructions.  Build: gcc -static -O2 -Wall -Wextra -Werror
 * -D_GNU_SOURCE memcg-fdtable.c.  Exit 0 success, 1 error, 77 no memory
 * cgroup controller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CG_ROOT "/sys/fs/cgroup"
#define CG CG_ROOT "/kstacks-bulk-fdtable"

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

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Enter a child memory cgroup: 0, -77 with no memory controller, -1. */
static int enter_cgroup(void)
{
	char pid[32];
	FILE *f;
	char ctl[256] = "";

	mkdir(CG_ROOT, 0755);
	mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL);
	f = fopen(CG_ROOT "/cgroup.controllers", "r");
	if (!f || !fgets(ctl, sizeof(ctl), f) || !strstr(ctl, "memory")) {
		if (f)
			fclose(f);
		return -77;
	}
	fclose(f);
	if (write_file(CG_ROOT "/cgroup.subtree_control", "+memory"))
		return -1;
	if (mkdir(CG, 0755) && errno != EEXIST)
		return -1;
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(CG "/cgroup.procs", pid);
}

static void leave_cgroup(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(CG_ROOT "/cgroup.procs", pid);
	rmdir(CG);
}

/* One vfork() whose child exits at once, and the wait: 0 or -1. */
static int vfork_once(void)
{
	pid_t pid = vfork();

	if (pid < 0) {
		perror("vfork");
		return -1;
	}
	if (!pid)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid) {
		perror("waitpid");
		return -1;
	}
	return 0;
}

/* Time vfork() with descriptor nr - 1 the highest open. */
static int measure(const char *name, int nr, int iters)
{
	long before, after;
	double t0, us;
	int fd, i;

	fd = dup2(0, nr - 1);
	if (fd < 0) {
		perror("dup2");
		return -1;
	}
	/* The first call is not measured. */
	if (vfork_once())
		return -1;
	before = read_long(CG "/memory.current");
	t0 = now_us();
	for (i = 0; i < iters; i++) {
		if (vfork_once())
			return -1;
	}
	us = (now_us() - t0) / iters;
	after = read_long(CG "/memory.current");
	printf("figure fdtable_vfork_%s_us %.1f us lower\n", name, us);
	printf("# memory.current %+ld KiB over %d calls of %s\n",
	       (after - before) / 1024, iters, name);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };
	int iters = argc > 1 ? atoi(argv[1]) : 50;
	int ret;

	if (iters <= 0) {
		fprintf(stderr, "usage: %s [ITERS]\n", argv[0]);
		return 1;
	}
	ret = enter_cgroup();
	if (ret == -77) {
		printf("# no memory cgroup controller\n");
		return 77;
	}
	if (ret) {
		perror("memory cgroup " CG);
		return 1;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit RLIMIT_NOFILE");
		leave_cgroup();
		return 1;
	}
	ret = measure("64K", 1 << 16, iters) || measure("1M", 1 << 20, iters);
	leave_cgroup();
	return ret ? 1 : 0;
}
