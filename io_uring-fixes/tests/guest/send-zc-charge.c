// SPDX-License-Identifier: GPL-2.0
/*
 * The socket charge of a zero-copy send from a fixed buffer inside a 2 MiB
 * hugetlb page, on mainline: io_uring-coalesce's test of the same name
 * (that stack carries the fix on 6.1), built here from its source.  64
 * SEND_ZC of 4 KiB each near the end of the huge page to a peer that does
 * not read must all be queued in 8 MiB of send buffer, sk_wmem_queued
 * under 16 times the bytes queued.  Upstream, which charges a fragment
 * from the start of its folio, queues 3 of them.
 */
#include "../../../io_uring-coalesce/tests/guest/send-zc-charge.c"
