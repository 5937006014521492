// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for include/linux/page_batch.h.
 *
 * The input is decoded by pb_build() (pb_gen.h) into a memory layout
 * (folios of orders 1..9 at pfns) and an exact-size page array (runs,
 * random picks, folio chains, duplicates, nudges, reversals).  Both
 * primitives are then compared with the reference loops of pb_ref.h:
 *  - page_array_contig_len(): never more than the reference; exactly the
 *    reference except under classic SPARSEMEM, where anything from the end
 *    of pages[0]'s section (or the reference, if smaller) up is allowed;
 *  - page_array_folio_layout(): same boolean and same layout fields, and
 *    @layout untouched on false.
 * A mismatch, an assertion hook or an ASan/UBSan report aborts.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (see the Makefile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mm.h>
#include "pb_ref.h"
#include "pb_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(struct page **pages, unsigned long nr)
{
	fprintf(stderr, "array (%lu entries), pfn:order/head:", nr);
	for (unsigned long i = 0; i < nr && i < 200; i++)
		fprintf(stderr, " %lu:%u/%lu", ref_pfn(pages[i]), ref_order(pages[i]),
			ref_head_pfn(pages[i]));
	fprintf(stderr, "%s\n", nr > 200 ? " ..." : "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool initialized;
	struct page **pages;
	unsigned long nr;
	char why[256];
	int bad = 0;

	if (!initialized) {
		shim_mem_init(PB_NR_SECTIONS);
		initialized = true;
	}
	pb_build(data, size, &pages, &nr);

	if (pb_check_contig(pages, nr, why, sizeof(why))) {
		fprintf(stderr, "[%s] %s\n", shim_memory_model(), why);
		bad = 1;
	}
	if (pb_check_layout(pages, nr, why, sizeof(why))) {
		fprintf(stderr, "[%s] %s\n", shim_memory_model(), why);
		bad = 1;
	}
	if (bad) {
		dump(pages, nr);
		abort();
	}
	free(pages);
	return 0;
}
