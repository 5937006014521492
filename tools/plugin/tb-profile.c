// SPDX-License-Identifier: GPL-2.0
/*
 * tb-profile: a qemu TCG plugin that counts the guest instructions each
 * translated block of kernel code executes, for tools/profile.
 *
 *   -plugin tb-profile.so,out=FILE[,mark=ADDR]
 *
 * Every execution of a block adds its instruction count to a counter of
 * the block's start address (kernel addresses; all user code shares one
 * counter, address 0).  Each execution of the block at ADDR (hex, the
 * entry of a syscall the benchmark calls around what it times) closes a
 * window: FILE gets "window N" and one "ADDR COUNT" line for every block
 * that ran since the window before.  The run's end closes the last one.
 * Under -icount shift=0 the counts are the guest's nanoseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-v1.h"

KSTACKS_EXPORT int qemu_plugin_version = 1;

#define SLOTS	(1u << 21)

struct counter {
	uint64_t addr;
	uint64_t count;
	uint64_t last;
	int used;
};

static struct counter *table;
static unsigned int nr_used;
static FILE *out;
static uint64_t mark;
static unsigned long window;

static struct counter *lookup(uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;
	unsigned int i = (unsigned int)(h >> 43) & (SLOTS - 1);

	while (table[i].used && table[i].addr != addr)
		i = (i + 1) & (SLOTS - 1);
	if (!table[i].used) {
		if (nr_used >= SLOTS / 2) {
			fprintf(stderr, "tb-profile: more than %u blocks\n",
				SLOTS / 2);
			abort();
		}
		table[i].used = 1;
		table[i].addr = addr;
		nr_used++;
	}
	return &table[i];
}

static void close_window(const char *how)
{
	unsigned int i;

	fprintf(out, "window %lu%s\n", window++, how);
	for (i = 0; i < SLOTS; i++) {
		struct counter *c = &table[i];

		if (!c->used || c->count == c->last)
			continue;
		fprintf(out, "%" PRIx64 " %" PRIu64 "\n", c->addr,
			c->count - c->last);
		c->last = c->count;
	}
	fflush(out);
}

static void on_mark(unsigned int vcpu, void *data)
{
	close_window("");
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct counter *c;

	/* Kernel text is in the top half of the address space. */
	c = lookup(addr >> 63 ? addr : 0);
	qemu_plugin_register_vcpu_tb_exec_inline(tb,
						 QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->count,
						 qemu_plugin_tb_n_insns(tb));
	if (mark && addr == mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
}

static void at_end(qemu_plugin_id_t id, void *data)
{
	close_window(" end");
	fclose(out);
}

KSTACKS_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
				       int argc, char **argv)
{
	const char *path = NULL;
	char *end;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "mark=", 5)) {
			errno = 0;
			mark = strtoull(argv[i] + 5, &end, 16);
			if (errno || *end || !mark) {
				fprintf(stderr, "tb-profile: bad %s\n", argv[i]);
				return -1;
			}
		} else {
			fprintf(stderr, "tb-profile: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "tb-profile: out=FILE is needed\n");
		return -1;
	}
	table = calloc(SLOTS, sizeof(*table));
	out = fopen(path, "w");
	if (!table || !out) {
		fprintf(stderr, "tb-profile: %s: %s\n", path, strerror(errno));
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, at_end, NULL);
	return 0;
}
