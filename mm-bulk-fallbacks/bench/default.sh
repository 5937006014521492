#!/bin/sh
# The bulk_batch_bench module (bulk_batch_bench/) with neither page_owner
# nor memory cgroup accounting: GFP_KERNEL from the root cgroup, the path
# every bulk caller takes and that only patch 1 (pages prepared after the
# per-cpu lock is dropped) changes.  Its figures are printed by the module
# and passed on here.  The first argument, if any, is the figures' tag in
# place of "default" (init-on-alloc.sh runs this program under its own).
dmesg -c >/dev/null
insmod /bench/mm-bulk-fallbacks-bulk_batch_bench.ko tag="${1:-default}"
rc=$?
rmmod bulk_batch_bench 2>/dev/null
dmesg | sed -n 's/^\[[^]]*\] *//; /^figure /p; /bulk_batch_bench:/p'
exit $rc
