#!/bin/sh
# The default program (default.sh: GFP_KERNEL from the root cgroup) in a
# boot with init_on_alloc=1 (init-on-alloc.cmdline), its figures tagged
# init_on_alloc: Debian's amd64 configs set CONFIG_INIT_ON_ALLOC_DEFAULT_ON,
# so every page the bulk allocator hands out is cleared in prep_new_page(),
# which vanilla runs with the per-cpu lock held and patch 1 runs after
# dropping it.
exec /bench/mm-bulk-fallbacks-default init_on_alloc
