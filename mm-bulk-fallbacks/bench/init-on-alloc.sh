#!/bin/sh
# The bulk_batch_bench module (bulk_batch_bench/) as default.sh loads it,
# GFP_KERNEL from the root cgroup, in a boot with init_on_alloc=1
# (init-on-alloc.cmdline): Debian's amd64 configs set
# CONFIG_INIT_ON_ALLOC_DEFAULT_ON, so every page the bulk allocator hands
# out is cleared in prep_new_page(), which vanilla runs with the per-cpu
# lock held and patch 1 runs after dropping it.  The figures are the
# module's, passed on here.
dmesg -c >/dev/null
insmod /bench/mm-bulk-fallbacks-bulk_batch_bench.ko tag=init_on_alloc
rc=$?
rmmod bulk_batch_bench 2>/dev/null
dmesg | sed -n 's/^\[[^]]*\] *//; /^figure /p; /bulk_batch_bench:/p'
exit $rc
