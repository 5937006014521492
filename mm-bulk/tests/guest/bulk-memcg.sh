#!/bin/sh
# __GFP_ACCOUNT bulk requests from inside a child memory cgroup.  5.10
# turns kmem accounting on when the first child memory cgroup comes
# online, so the KUnit case at boot (root cgroup, accounting off) cannot
# see it.  This test brings a child cgroup online, moves itself into it
# and calls the bulk allocator through the bulk_probe test module
# (/sys/kernel/debug/kstacks_bulk_probe, in the writer's context): a
# request with __GFP_ACCOUNT must take the single-page path, which
# charges the page to the cgroup (one page, charged, a kmem page); one
# without it takes the bulk path and charges nothing.
#
# Exit 0 pass, 1 fail, 77 skip.

log() { echo "bulk-memcg: $*"; }
fail() { log "FAIL: $*"; cleanup; exit 1; }
cg=/sys/fs/cgroup/kstacks-bulk
cleanup() {
	echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
	rmdir $cg 2>/dev/null
}

insmod /lib/modules-kstacks/bulk_probe.ko 2>/dev/null ||
	grep -q '^bulk_probe ' /proc/modules || { log "SKIP: no bulk_probe module"; exit 77; }
mkdir -p /sys/kernel/debug /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
p=/sys/kernel/debug/kstacks_bulk_probe
[ -w $p ] || { log "SKIP: no $p"; exit 77; }
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
	{ log "SKIP: no memory controller in cgroup2"; exit 77; }
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || fail "enable the memory controller"
mkdir -p $cg || fail "mkdir $cg"
echo $$ >$cg/cgroup.procs || fail "move into $cg"

# probe ARGS EXPECTED-REGEX
probe() {
	echo "$1" >$p || fail "write '$1' to $p"
	r=$(cat $p)
	log "$1: $r"
	echo "$r" | grep -Eq "$2" || fail "$1: got '$r', expected /$2/"
}
probe "64" '^ret ([2-9]|[1-9][0-9]+) charged 0 kmem 0$'
probe "64 account" '^ret 1 charged 1 kmem 1$'
probe "2 account" '^ret 1 charged 1 kmem 1$'
cleanup
exit 0
