// SPDX-License-Identifier: GPL-2.0
/*
 * Unregistering fixed buffers or files quiesces their resource node:
 * the ring switches to a new node, kills the old one and waits until it
 * has retired and been put; with io_uring-coalesce the quiescing task
 * puts it itself and keeps it as the ring's next backup node.  Four
 * parts:
 *
 * - No wait for a worker.  With no request holding the node, the node
 *   retires inside the switch; the unregistering task puts it itself, so
 *   unregistration does not sleep or switch to another task.  Counted
 *   with getrusage(RUSAGE_THREAD) over ROUNDS unregistrations each of
 *   buffers and of files: at most SWITCH_ROUNDS_MAX of them may see a
 *   context switch (a timer tick may preempt one).  Vanilla 6.1 waits for
 *   an RCU grace period and for rsrc_put_work in every one.
 * - A node held by a request.  A READ_FIXED from an empty pipe holds the
 *   node, after two rounds of registration one that an earlier quiesce
 *   retired and kept for reuse.  A second thread unregisters the buffers:
 *   it must still be waiting when data is written, and must return
 *   within DEADLINE_S once the read has completed (the node then retires
 *   outside the quiesce's switch and is put by rsrc_put_work).
 * - An interrupted quiesce.  The same held node, and a signal to the
 *   unregistering thread: unregistration fails, the buffers stay
 *   registered, and a buffer update afterwards must still have its old
 *   tag posted by rsrc_put_work within DEADLINE_S.
 * - Tags.  Buffers and files registered with tags and all replaced by an
 *   update, whose node is put (and the old tags posted) by rsrc_put_work a
 *   second later, then unregistered at once, which retires that node as
 *   well: every old tag's CQE must be in the CQ ring, once, when
 *   unregistration returns.  On a plain ring and on an IOPOLL ring, whose
 *   tag completion takes uring_lock.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include "iou_coalesce.h"

#define ROUNDS			32
#define SWITCH_ROUNDS_MAX	4
#define NR_BUFS			4
#define NR_FILES		4
#define BUF_LEN			(64UL << 10)
#define DEADLINE_S		10
/* the whole test takes seconds; a quiesce that never ends fails it here */
#define TEST_TIMEOUT_S		120

static long switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		t_fail("getrusage: %s", strerror(errno));
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Register @nr buffers (@iov) or files (@fds) and unregister them; return
 * whether the unregistration switched tasks.
 */
static int unregister_switched(struct io_uring *ring, const struct iovec *iov,
			       const int *fds, int nr, int round)
{
	const char *what = iov ? "buffers" : "files";
	long before;
	int ret, sw;

	ret = iov ? io_uring_register_buffers(ring, iov, nr) :
		    io_uring_register_files(ring, fds, nr);
	if (ret)
		t_fail("round %d: register %s: %s", round, what, strerror(-ret));
	before = switches();
	ret = iov ? io_uring_unregister_buffers(ring) :
		    io_uring_unregister_files(ring);
	sw = switches() != before;
	if (ret)
		t_fail("round %d: unregister %s: %s", round, what,
		       strerror(-ret));
	return sw;
}

static void no_worker_hop(uint8_t *mem, int pipes[2])
{
	struct io_uring ring;
	struct iovec iov[NR_BUFS];
	int fds[NR_FILES], i, round, buf_sw = 0, file_sw = 0;

	for (i = 0; i < NR_BUFS; i++) {
		iov[i].iov_base = mem + i * BUF_LEN;
		iov[i].iov_len = BUF_LEN;
	}
	for (i = 0; i < NR_FILES; i++)
		fds[i] = pipes[i & 1];
	ring_init(&ring);
	for (round = 0; round < ROUNDS; round++) {
		buf_sw += unregister_switched(&ring, iov, NULL, NR_BUFS, round);
		file_sw += unregister_switched(&ring, NULL, fds, NR_FILES,
					       round);
	}
	io_uring_queue_exit(&ring);
	t_log("unregistrations with a context switch: buffers %d of %d, files %d of %d",
	      buf_sw, ROUNDS, file_sw, ROUNDS);
	if (buf_sw > SWITCH_ROUNDS_MAX || file_sw > SWITCH_ROUNDS_MAX)
		t_fail("unregistration switched tasks in more than %d of %d rounds (buffers %d, files %d): it waits for the node's put",
		       SWITCH_ROUNDS_MAX, ROUNDS, buf_sw, file_sw);
}

struct unreg {
	struct io_uring *ring;
	int ret;
	volatile int done;
	double at;
};

static void *unregister_thread(void *arg)
{
	struct unreg *u = arg;

	u->ret = io_uring_unregister_buffers(u->ring);
	u->at = now_s();
	__atomic_store_n(&u->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A READ_FIXED of the registered buffer @mem from the pipe @fd, pending. */
static void submit_read(struct io_uring *ring, int fd, uint8_t *mem,
			const char *what)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int ret;

	io_uring_prep_read_fixed(sqe, fd, mem, BUF_LEN, 0, 0);
	sqe->user_data = 1;
	ret = io_uring_submit(ring);
	if (ret != 1)
		t_fail("%s: submit: %d", what, ret);
}

/*
 * Write @msg into the pipe @wfd and reap the read submit_read() queued:
 * it must complete with all of @msg, in @mem.
 */
static void complete_read(struct io_uring *ring, int wfd, const uint8_t *mem,
			  const char *msg, size_t len, const char *what)
{
	struct io_uring_cqe *cqe;
	int ret;

	if (write(wfd, msg, len) != (ssize_t)len)
		t_fail("%s: write: %s", what, strerror(errno));
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		t_fail("%s: wait: %s", what, strerror(-ret));
	if (cqe->user_data != 1 || cqe->res != (int)len)
		t_fail("%s: read completed with %d (user_data %llu), want %zu",
		       what, cqe->res, (unsigned long long)cqe->user_data, len);
	if (memcmp(mem, msg, len))
		t_fail("%s: the fixed buffer does not hold what was written",
		       what);
	io_uring_cqe_seen(ring, cqe);
}

static void held_by_request(uint8_t *mem)
{
	static const char msg[] = "quiesce";
	struct io_uring ring;
	struct iovec iov = { .iov_base = mem, .iov_len = BUF_LEN };
	struct unreg u = { .ring = &ring };
	pthread_t thread;
	double written, start;
	int p[2], ret, i;

	if (pipe(p))
		t_fail("pipe: %s", strerror(errno));
	ring_init(&ring);
	/* two rounds first: the node the request holds is then a reused one */
	for (i = 0; i < 3; i++) {
		ret = io_uring_register_buffers(&ring, &iov, 1);
		if (ret)
			t_fail("held: register %d: %s", i, strerror(-ret));
		if (i == 2)
			break;
		ret = io_uring_unregister_buffers(&ring);
		if (ret)
			t_fail("held: unregister %d: %s", i, strerror(-ret));
	}
	memset(mem, 0, BUF_LEN);
	submit_read(&ring, p[0], mem, "held");

	ret = pthread_create(&thread, NULL, unregister_thread, &u);
	if (ret)
		t_fail("pthread_create: %s", strerror(ret));
	usleep(200 * 1000);
	if (__atomic_load_n(&u.done, __ATOMIC_ACQUIRE))
		t_fail("held: unregistration returned (%d) while a request held the buffer",
		       u.ret);

	written = now_s();
	complete_read(&ring, p[1], mem, msg, sizeof(msg), "held");

	start = now_s();
	while (!__atomic_load_n(&u.done, __ATOMIC_ACQUIRE)) {
		if (now_s() - start > DEADLINE_S)
			t_fail("held: unregistration still waits %d s after the request completed: the retired node was never put",
			       DEADLINE_S);
		usleep(10 * 1000);
	}
	pthread_join(thread, NULL);
	if (u.ret)
		t_fail("held: unregister: %s", strerror(-u.ret));
	t_log("held: unregistration returned %.3f s after the write",
	      u.at - written);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

static void on_signal(int sig)
{
	(void)sig;
}

static void on_alarm(int sig)
{
	(void)sig;
	t_fail("no end after %d s: a quiesce waits for a node nobody puts",
	       TEST_TIMEOUT_S);
}

static void interrupted(uint8_t *mem)
{
	static const char msg[] = "interrupted";
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct iovec iov = { .iov_base = mem, .iov_len = BUF_LEN };
	struct unreg u = { .ring = &ring };
	struct sigaction sa = { .sa_handler = on_signal };
	__u64 tag = 0x3000, ntag = 0x3001;
	pthread_t thread;
	double start;
	int p[2], ret;

	if (sigaction(SIGUSR1, &sa, NULL))
		t_fail("sigaction: %s", strerror(errno));
	if (pipe(p))
		t_fail("pipe: %s", strerror(errno));
	ring_init(&ring);
	ret = io_uring_register_buffers_tags(&ring, &iov, &tag, 1);
	if (ret)
		t_fail("interrupted: register: %s", strerror(-ret));
	submit_read(&ring, p[0], mem, "interrupted");

	ret = pthread_create(&thread, NULL, unregister_thread, &u);
	if (ret)
		t_fail("pthread_create: %s", strerror(ret));
	/* a signal before the thread waits is lost: send until it returns */
	start = now_s();
	while (!__atomic_load_n(&u.done, __ATOMIC_ACQUIRE)) {
		if (now_s() - start > DEADLINE_S)
			t_fail("interrupted: unregistration does not return on a signal");
		usleep(50 * 1000);
		pthread_kill(thread, SIGUSR1);
	}
	pthread_join(thread, NULL);
	if (u.ret >= 0)
		t_fail("interrupted: unregistration returned %d while a request held the buffer",
		       u.ret);

	complete_read(&ring, p[1], mem, msg, sizeof(msg), "interrupted");

	/* still registered: replace it, the old tag comes from the worker */
	ret = io_uring_register_buffers_update_tag(&ring, 0, &iov, &ntag, 1);
	if (ret != 1)
		t_fail("interrupted: update after the failed unregistration: %d",
		       ret);
	start = now_s();
	for (;;) {
		struct __kernel_timespec ts = { .tv_nsec = 100 * 1000 * 1000 };

		ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
		if (!ret)
			break;
		if (ret != -ETIME && ret != -EINTR)
			t_fail("interrupted: wait for the tag: %s",
			       strerror(-ret));
		if (now_s() - start > DEADLINE_S)
			t_fail("interrupted: the replaced buffer's tag is not posted after %d s",
			       DEADLINE_S);
	}
	if (cqe->user_data != tag || cqe->res)
		t_fail("interrupted: CQE user_data %llu res %d, want tag %llu",
		       (unsigned long long)cqe->user_data, cqe->res,
		       (unsigned long long)tag);
	io_uring_cqe_seen(&ring, cqe);
	t_log("interrupted: tag posted %.3f s after the update",
	      now_s() - start);
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("interrupted: unregister at last: %s", strerror(-ret));
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

/* Every tag of @tags must have its CQE in the ring now, each once. */
static void expect_tags(struct io_uring *ring, const __u64 *tags, int n,
			const char *what)
{
	struct io_uring_cqe *cqe;
	int seen[NR_BUFS + NR_FILES] = { 0 }, i, got = 0;

	while (!io_uring_peek_cqe(ring, &cqe)) {
		for (i = 0; i < n; i++)
			if (cqe->user_data == tags[i])
				break;
		if (i == n || cqe->res)
			t_fail("%s: unexpected CQE user_data %llu res %d", what,
			       (unsigned long long)cqe->user_data, cqe->res);
		if (seen[i]++)
			t_fail("%s: tag %llu posted twice", what,
			       (unsigned long long)tags[i]);
		got++;
		io_uring_cqe_seen(ring, cqe);
	}
	if (got != n)
		t_fail("%s: %d of %d tags posted when unregistration returned",
		       what, got, n);
}

static void tags(uint8_t *mem, int pipes[2], unsigned int flags,
		 const char *kind)
{
	struct io_uring ring;
	struct iovec iov[NR_BUFS];
	__u64 btags[NR_BUFS], ftags[NR_FILES], nbtags[NR_BUFS], nftags[NR_FILES];
	int fds[NR_FILES], nfds[NR_FILES], i, ret;
	char what[64];

	ret = io_uring_queue_init(32, &ring, flags);
	if (ret)
		t_fail("%s ring: %s", kind, strerror(-ret));
	for (i = 0; i < NR_BUFS; i++) {
		iov[i].iov_base = mem + i * BUF_LEN;
		iov[i].iov_len = BUF_LEN;
		btags[i] = 0x1000 + i;
		nbtags[i] = 0x1100 + i;
	}
	for (i = 0; i < NR_FILES; i++) {
		fds[i] = pipes[i & 1];
		nfds[i] = pipes[!(i & 1)];
		ftags[i] = 0x2000 + i;
		nftags[i] = 0x2100 + i;
	}
	ret = io_uring_register_buffers_tags(&ring, iov, btags, NR_BUFS);
	if (ret)
		t_fail("%s: register buffers with tags: %s", kind,
		       strerror(-ret));
	ret = io_uring_register_files_tags(&ring, fds, ftags, NR_FILES);
	if (ret)
		t_fail("%s: register files with tags: %s", kind,
		       strerror(-ret));

	/*
	 * Replace every buffer and file: the old ones are put, and their tags
	 * posted, when the update's node is put, which rsrc_put_work does
	 * only a second later.  Unregistering at once retires that node too.
	 */
	ret = io_uring_register_buffers_update_tag(&ring, 0, iov, nbtags,
						   NR_BUFS);
	if (ret != NR_BUFS)
		t_fail("%s: update buffers: %d", kind, ret);
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("%s: unregister buffers: %s", kind, strerror(-ret));
	snprintf(what, sizeof(what), "%s ring, buffers", kind);
	expect_tags(&ring, btags, NR_BUFS, what);

	ret = io_uring_register_files_update_tag(&ring, 0, nfds, nftags,
						 NR_FILES);
	if (ret != NR_FILES)
		t_fail("%s: update files: %d", kind, ret);
	ret = io_uring_unregister_files(&ring);
	if (ret)
		t_fail("%s: unregister files: %s", kind, strerror(-ret));
	snprintf(what, sizeof(what), "%s ring, files", kind);
	expect_tags(&ring, ftags, NR_FILES, what);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	uint8_t *mem;
	int p[2];

	mem = small_alloc(NR_BUFS * BUF_LEN);
	memset(mem, 1, NR_BUFS * BUF_LEN);
	if (pipe(p))
		t_fail("pipe: %s", strerror(errno));

	signal(SIGALRM, on_alarm);
	alarm(TEST_TIMEOUT_S);
	no_worker_hop(mem, p);
	held_by_request(mem);
	interrupted(mem);
	tags(mem, p, 0, "plain");
	tags(mem, p, IORING_SETUP_IOPOLL, "IOPOLL");
	return T_EXIT_PASS;
}
