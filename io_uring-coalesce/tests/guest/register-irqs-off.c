// SPDX-License-Identifier: GPL-2.0
/*
 * Registration keeps interrupts off for short sections only: the lockless
 * page walk is asked for a batch of pages at a time, not for the whole
 * buffer in one section with interrupts off.
 *
 * Seen from another CPU: a thread on CPU 1 calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) in a loop, which sends an
 * IPI to every CPU running a thread of the process and waits until each
 * has taken it, and times every call.  The registering thread runs on
 * CPU 0, and a CPU with interrupts off takes the IPI only when it turns
 * them on again: the longest wait during a registration is at least its
 * longest section with interrupts off on CPU 0.  The buffer is 512 MiB
 * of 4 KiB pages, all faulted in, so that the lockless walk takes all of
 * it: 131,072 page table entries in one section where it is asked for
 * the whole buffer at once, 64 per section in batches.
 *
 * A registration is long when its longest wait exceeds LONG_MS; the test
 * fails when each of TRIES registrations is long (a vCPU that the host
 * does not run delays an IPI too, but not in every registration).  The
 * waits while CPU 0 runs in user space are logged beside them.
 */
#include "iou_coalesce.h"
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#define BUF_LEN		(512UL << 20)
#define TRIES		3
#define LONG_MS		50

enum { IDLE, MEASURE, STOP };

static atomic_int phase = IDLE;
static atomic_long longest;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static void run_on(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		t_fail("sched_setaffinity to CPU %d: %s", cpu, strerror(errno));
}

/* On CPU 1: IPIs to the process's other CPUs, the longest wait kept. */
static void *ipi_loop(void *arg)
{
	(void)arg;
	run_on(1);
	while (atomic_load(&phase) != STOP) {
		int measuring = atomic_load(&phase) == MEASURE;
		long t0 = now_ns(), wait;

		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
			t_fail("membarrier: %s", strerror(errno));
		wait = now_ns() - t0;
		if (measuring && atomic_load(&phase) == MEASURE &&
		    wait > atomic_load(&longest))
			atomic_store(&longest, wait);
	}
	return NULL;
}

static void measure_start(void)
{
	atomic_store(&longest, 0);
	atomic_store(&phase, MEASURE);
}

static long measure_end(void)
{
	atomic_store(&phase, IDLE);
	return atomic_load(&longest);
}

int main(void)
{
	struct io_uring ring;
	struct iovec iov;
	long took, wait, shortest = -1, floor;
	int i, ret, long_ones = 0;
	pthread_t thread;
	uint8_t *buf;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		t_skip("one CPU: no other CPU to send IPIs from");
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		t_skip("membarrier: %s", strerror(errno));
	run_on(0);

	buf = small_alloc(BUF_LEN);
	memset(buf, 0x5a, BUF_LEN);
	iov.iov_base = buf;
	iov.iov_len = BUF_LEN;
	ring_init(&ring);

	ret = pthread_create(&thread, NULL, ipi_loop, NULL);
	if (ret)
		t_fail("pthread_create: %s", strerror(ret));

	/* the floor: CPU 0 busy in user space for 200 ms */
	measure_start();
	for (took = now_ns(); now_ns() - took < 200000000L;)
		;
	floor = measure_end();

	for (i = 0; i < TRIES; i++) {
		measure_start();
		took = now_ns();
		ret = io_uring_register_buffers(&ring, &iov, 1);
		took = now_ns() - took;
		wait = measure_end();
		if (ret)
			t_fail("register 512 MiB of small pages: %s",
			       strerror(-ret));
		ret = io_uring_unregister_buffers(&ring);
		if (ret)
			t_fail("unregister: %s", strerror(-ret));
		t_log("registration %d: %.1f ms, longest IPI wait %.3f ms",
		      i + 1, took / 1e6, wait / 1e6);
		if (wait > LONG_MS * 1000000L)
			long_ones++;
		if (shortest < 0 || wait < shortest)
			shortest = wait;
	}
	atomic_store(&phase, STOP);
	pthread_join(thread, NULL);
	t_log("longest IPI wait with CPU 0 in user space: %.3f ms",
	      floor / 1e6);

	if (long_ones == TRIES)
		t_fail("every registration held an IPI off for %.1f ms or more: interrupts off across the buffer's walk",
		       shortest / 1e6);
	io_uring_queue_exit(&ring);
	munmap(buf, BUF_LEN);
	return T_EXIT_PASS;
}
