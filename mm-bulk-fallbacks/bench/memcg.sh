#!/bin/sh
# The bulk_batch_bench module (bulk_batch_bench/) loaded from inside a child
# memory cgroup with account=1: the cost per page of __GFP_ACCOUNT
# allocations charged to that cgroup, bulk against an alloc_page() loop.
# Its figures are printed by the module and passed on here.
cg=/sys/fs/cgroup/kstacks-bulk-bench
mkdir -p /sys/fs/cgroup
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || exit 1
mkdir -p $cg && echo $$ >$cg/cgroup.procs || exit 1
dmesg -c >/dev/null
insmod /bench/mm-bulk-fallbacks-bulk_batch_bench.ko account=1 tag=memcg
rc=$?
rmmod bulk_batch_bench 2>/dev/null
dmesg | sed -n 's/^\[[^]]*\] *//; /^figure /p; /bulk_batch_bench:/p'
echo $$ >/sys/fs/cgroup/cgroup.procs
rmdir $cg
exit $rc
