#!/bin/sh
# alloc_pages_bulk() with __GFP_ACCOUNT from inside a child memory cgroup.
# Upstream sends such requests to the single-page path, one page per call,
# whenever kmem accounting is on; this stack takes the bulk path and
# charges the batch in one step.  Through the bulk_batch_probe module
# (/sys/kernel/debug/kstacks_bulk_batch_probe, in the writer's context):
# - a 64-page request returns 64 pages, each charged to the cgroup and
#   marked kmem, into empty, partly populated and full arrays;
# - a 1024-page request (more than the per-cpu list holds, refilled on
#   the way) returns every page charged;
# - without __GFP_ACCOUNT nothing is charged; from the root cgroup neither;
# - 32 rounds of 64 slots (48 of them empty) charged and freed leave
#   memory.current where it was: only the empty slots are charged;
# - in a cgroup 4 pages below its limit, a 128-page request falls back to
#   one page (charged), with no OOM kill (memory.events).
#
# Exit 0 pass, 1 fail, 77 skip.

log() { echo "bulk-memcg: $*"; }
cg=/sys/fs/cgroup/kstacks-bulk-batch
lim=/sys/fs/cgroup/kstacks-bulk-batch-limit
cleanup() {
	echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
	rmdir $cg $lim 2>/dev/null
}
fail() { log "FAIL: $*"; cleanup; exit 1; }

insmod /lib/modules-kstacks/bulk_batch_probe.ko 2>/dev/null ||
	grep -q '^bulk_batch_probe ' /proc/modules || { log "SKIP: no bulk_batch_probe module"; exit 77; }
mkdir -p /sys/kernel/debug /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
p=/sys/kernel/debug/kstacks_bulk_batch_probe
[ -w $p ] || { log "SKIP: no $p"; exit 77; }
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
	{ log "SKIP: no memory controller in cgroup2"; exit 77; }
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || fail "enable the memory controller"

# probe ARGS EXPECTED [quiet] (shell builtins only: no fork is charged)
probe() {
	echo "$1" >$p || fail "write '$1' to $p"
	read -r r <$p
	[ -n "${3:-}" ] || log "$1: $r"
	[ "$r" = "$2" ] || fail "$1: got '$r', expected '$2'"
}

# From the root cgroup: nothing is charged to a child.
probe "64 account" 'ret 64 new 64 charged 0 kmem 0 order ok'

mkdir -p $cg || fail "mkdir $cg"
echo $$ >$cg/cgroup.procs || fail "move into $cg"
probe "64 account" 'ret 64 new 64 charged 64 kmem 64 order ok'
probe "64 account hole" 'ret 64 new 48 charged 48 kmem 48 order ok'
probe "64 account full" 'ret 64 new 0 charged 0 kmem 0 order ok'
probe "2 account" 'ret 2 new 2 charged 2 kmem 2 order ok'
probe "64" 'ret 64 new 64 charged 0 kmem 0 order ok'
echo "1024 account" >$p || fail "write '1024 account'"
read -r r <$p
log "1024 account: $r"
set -- $r
[ "$1 $3 $9 ${10}" = "ret new order ok" ] || fail "1024 account: got '$r'"
[ "$2" -ge 1 ] && [ "$4" = "$2" ] && [ "$6" = "$2" ] && [ "$8" = "$2" ] ||
	fail "1024 account: $2 returned, $4 new, $6 charged, $8 kmem: expected all equal, at least 1"

read -r before <$cg/memory.current
i=0
while [ $i -lt 32 ]; do
	probe "64 account hole" 'ret 64 new 48 charged 48 kmem 48 order ok' quiet
	i=$((i + 1))
done
read -r after <$cg/memory.current
log "memory.current $before -> $after after 32 x 48 charged pages freed"
# The per-cpu charge stock keeps up to 64 pages charged; charging the 16
# populated slots too, unrefunded, would leave 512 more.
[ $((after - before)) -le $((128 * 4096)) ] ||
	fail "memory.current grew by $(((after - before) / 4096)) pages"

# A cgroup with 4 pages of room.  Up to 64 pages may sit charged ahead in
# the per-cpu charge stock, which serves a charge of 64 pages or fewer
# without looking at the limit: a 128-page batch cannot be served from it
# and does not fit, so it falls back to one page, charged.
mkdir -p $lim || fail "mkdir $lim"
echo $$ >$lim/cgroup.procs || fail "move into $lim"
probe "2 account" 'ret 2 new 2 charged 2 kmem 2 order ok'
read -r cur <$lim/memory.current
echo $((cur + 4 * 4096)) >$lim/memory.max || fail "set memory.max"
log "memory.current $cur, memory.max $((cur + 4 * 4096))"
probe "128 account" 'ret 1 new 1 charged 1 kmem 1 order ok'
echo max >$lim/memory.max
grep -q '^oom_kill 0$' $lim/memory.events || fail "OOM kill in $lim: $(grep oom $lim/memory.events | xargs)"
cleanup
rmmod bulk_batch_probe
exit 0
