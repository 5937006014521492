// SPDX-License-Identifier: GPL-2.0
/*
 * Pins racing with changes to the page tables under them: one thread pins
 * 64 THPs through the GUP test interface (PIN_BASIC_TEST: pin_user_pages()
 * without vmas, 512 pages per call, for writing), over and over; another
 * keeps changing what is mapped there, THP by THP: it frees the huge page
 * and faults a new one in (a PMD-mapped THP for the next pin to fill from
 * in one step), then splits its PMD by freeing one 4 KiB page of it
 * (MADV_DONTNEED), by making one 4 KiB page read-only and writable again
 * (mprotect), and asks for it to be paged out (MADV_PAGEOUT).  A pin that
 * filled its array from a PMD the other thread had just split or freed
 * would hold a page it never referenced: the debug kernel reports it (a
 * bad page state, a refcount underflow), and the FOLL_PIN count of the
 * whole system must be back where it started once both stop.  (That the
 * pins filled from PMD-mapped THPs on the way, make linecov shows.)
 */
#include <pthread.h>
#include <time.h>
#include "gup_helpers.h"

#define NR_THP		64
#define LEN		(NR_THP * HPAGE)
#define SECONDS		8

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

static uint8_t *buf;
static int gup_fd;
static volatile int stop;
static long pins_ok, pins_failed, rounds;

static void *pinner(void *arg)
{
	struct gup_test gup = {
		.addr = (uintptr_t)buf,
		.size = LEN,
		.nr_pages_per_call = 512,
		.gup_flags = 0x01,	/* FOLL_WRITE */
	};

	(void)arg;
	while (!stop) {
		if (ioctl(gup_fd, PIN_BASIC_TEST, &gup))
			pins_failed++;
		else
			pins_ok++;
	}
	return NULL;
}

static void *changer(void *arg)
{
	size_t i, k;

	(void)arg;
	while (!stop) {
		for (k = 0; k < NR_THP && !stop; k++) {
			uint8_t *hp = buf + k * HPAGE;
			uint8_t *pg = hp + ((k * 37 + rounds) % 512) * SMALL_PAGE;

			madvise(hp, HPAGE, MADV_DONTNEED);
			for (i = 0; i < HPAGE; i += SMALL_PAGE)
				hp[i] = (uint8_t)k;
			switch ((k + rounds) % 3) {
			case 0:
				madvise(pg, SMALL_PAGE, MADV_DONTNEED);
				break;
			case 1:
				mprotect(pg, SMALL_PAGE, PROT_READ);
				mprotect(pg, SMALL_PAGE, PROT_READ | PROT_WRITE);
				break;
			case 2:
				madvise(hp, HPAGE, MADV_PAGEOUT);
				break;
			}
		}
		rounds++;
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	long pins0, pins1;
	struct timespec t0, t;

	gup_fd = gup_test_open();
	buf = thp_alloc(LEN, 0);
	pins0 = foll_pins();

	if (pthread_create(&a, NULL, pinner, NULL) ||
	    pthread_create(&b, NULL, changer, NULL))
		t_fail("pthread_create");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < SECONDS);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);

	pins1 = foll_pins();
	t_log("%ld pins of %d THPs (%ld refused), %ld rounds of changes in %d s",
	      pins_ok, NR_THP, pins_failed, rounds, SECONDS);
	if (pins1 != pins0)
		t_fail("FOLL_PIN count %ld after the race, %ld before", pins1,
		       pins0);
	if (!pins_ok || !rounds)
		t_fail("the race did not run: %ld pins, %ld rounds", pins_ok,
		       rounds);
	munmap(buf, LEN);
	return T_EXIT_PASS;
}
