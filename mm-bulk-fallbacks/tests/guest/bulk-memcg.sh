#!/bin/sh
# alloc_pages_bulk() with __GFP_ACCOUNT from inside a child memory cgroup.
# Upstream sends such requests to the single-page path, one page per call,
# whenever kmem accounting is on; this stack takes the bulk path and
# charges the batch in one step.  Through the bulk_batch_probe module
# (/sys/kernel/debug/kstacks_bulk_batch_probe, in the writer's context):
# - a 64-page request returns 64 pages, each charged to the cgroup and
#   marked kmem, into empty, partly populated and full arrays;
# - a 1024-page request (more than the per-cpu list holds, refilled on
#   the way) returns every page charged, and kept, raises the cgroup's
#   kernel memory (memory.stat "kernel") by its pages;
# - without __GFP_ACCOUNT nothing is charged; from the root cgroup neither;
# - 32 rounds of 64 slots (48 of them empty) charged and freed leave
#   memory.current where it was: only the empty slots are charged;
# - the pages of a batch hold one reference each on the cgroup's charge
#   (its obj_cgroup): a 64-page call takes 64, 48 for a call that fills
#   48 slots, and freeing the pages drops as many; a cgroup removed while
#   they are allocated is released once they are freed, if not before
#   (its obj_cgroup is reparented when it goes offline):
#   nr_dying_descendants back to where it was;
# - in a cgroup whose parent has a limit of 32 pages, 8-page and 128-page
#   requests get what fits, at least one page and at most 32, all charged,
#   with no OOM kill (memory.events); a __GFP_NOFAIL request too: no batch
#   is forced past the limit;
# - a bulk call takes no more pages than the cgroup and its ancestors have
#   room for: the 67 requests made in that cgroup raise fewer than 32 max
#   events in all on the parent (the single-page fallback's, when its page
#   is not in this CPU's charge stock; a batch charge that fails, one per
#   request, would raise 67 or more), and leave free memory (MemFree and
#   the per-cpu lists) where it was;
# - a race made to happen by the probe (the cgroup's room, read before the
#   per-cpu lock, taken by other charges before the run is charged): the
#   run's charge fails, without reclaim (the probe counts the memory
#   cgroup reclaims begun), the OOM killer or forcing, even for
#   __GFP_NOFAIL and GFP_ATOMIC; its pages go back
#   to the buddy allocator, counted neither allocated nor freed (pgfree -
#   pgalloc in /proc/vmstat does not grow by them) and none lost (free
#   memory where it was), and the call falls back to one page, charged;
# - in a cgroup whose parent has 16 pages of room, an array with holes
#   is filled in runs until the room, read once, is used: no run is taken
#   that cannot be charged;
# - a 1024-page request in a cgroup whose memory.high is 64 pages reclaims
#   over memory.high during the call (a high event), as charging it a page
#   at a time would, not only on the return to user space; with
#   GFP_ATOMIC, or from a PF_MEMALLOC task, it does not.
#
# Exit 0 pass, 1 fail, 77 skip.

log() { echo "bulk-memcg: $*"; }
cg=/sys/fs/cgroup/kstacks-bulk-batch
lim=/sys/fs/cgroup/kstacks-bulk-batch-limit
gone=/sys/fs/cgroup/kstacks-bulk-batch-gone
refcg=/sys/fs/cgroup/kstacks-bulk-batch-refs
high=/sys/fs/cgroup/kstacks-bulk-batch-high
holes=/sys/fs/cgroup/kstacks-bulk-batch-holes
cleanup() {
	echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
	echo free >$p 2>/dev/null
	rmdir $cg $lim/leaf $lim $holes/leaf $holes $gone $refcg $high 2>/dev/null
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

mkdir -p $cg || fail "mkdir $cg"
# From the root cgroup, with kmem accounting on (a child cgroup is
# online): nothing is charged.
probe "64 account" 'ret 64 new 64 charged 0 kmem 0 order ok'
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
# Each CPU's charge stock keeps up to 64 pages charged; charging the 16
# populated slots too would leave 512 more.
ncpu=$(grep -c '^processor' /proc/cpuinfo)
[ $((after - before)) -le $((ncpu * 64 * 4096)) ] ||
	fail "memory.current grew by $(((after - before) / 4096)) pages"
# stat NAME: the count of memory.stat line NAME of $cg.
stat() {
	while read -r k v; do
		[ "$k" = "$1" ] && echo "$v"
	done <$cg/memory.stat
}
kernel0=$(stat kernel)
echo "1024 account keep" >$p || fail "write '1024 account keep'"
read -r r <$p
set -- $r
kernel1=$(stat kernel)
echo free >$p || fail "free the kept pages"
log "1024 account keep: $r; memory.stat kernel $kernel0 -> $kernel1"
[ "$1 $3 $5 $7 $9 ${10}" = "ret new charged kmem order ok" ] && [ "$2" -gt 128 ] &&
	[ "$4" = "$2" ] && [ "$6" = "$2" ] && [ "$8" = "$2" ] ||
	fail "1024 account keep: got '$r', expected more than 128 pages, all charged"
d=$(((kernel1 - kernel0) / 4096 - $2))
[ $d -le 64 ] && [ $d -ge -64 ] ||
	fail "memory.stat kernel grew by $(((kernel1 - kernel0) / 4096)) pages for $2 pages kept: the charge is not counted as kernel memory"

# free memory in kB: MemFree and the pages on the per-cpu lists, which
# MemFree leaves out (the batches are taken from them, refilled from the
# free lists, and the pages not charged go back to the free lists).
memfree() {
	n=0
	while read -r k v _; do
		[ "$k" = MemFree: ] && n=$((n + v))
	done </proc/meminfo
	while read -r k v _; do
		[ "$k" = count: ] && n=$((n + v * 4))
	done </proc/zoneinfo
	echo $n
}

# The race: calls of 128 pages (more than the per-cpu charge stock
# serves, so the charge goes to the page counter).  The probe sets the
# cgroup's memory.max to its usage while the call holds the per-cpu lock,
# and back when the call takes a zone lock after releasing it ("race 1
# 1": the run's pages given back) or at the end of the call.
# vmstat_drift: pgfree minus every zone's pgalloc.
vmstat_drift() {
	n=0
	while read -r k v; do
		case $k in
		pgfree) n=$((n + v)) ;;
		pgalloc_*) n=$((n - v)) ;;
		esac
	done </proc/vmstat
	echo $n
}
# The probe counts the memory cgroup reclaims the call begins while the
# limit is down: none, since the run's charge may not reclaim (its 128
# pages are a costly order, for which a charge that reclaimed would fail
# all the same, without the OOM killer: only the count tells them apart).
echo "128 account race" >$p || fail "write '128 account race' to $p"
read -r r <$p
case $r in
*"race none") log "SKIP the race: the probe has no lockdep tracepoints ($r)"; i=16 ;;
*) i=0 ;;
esac
drift0=$(vmstat_drift)
free0=$(memfree)
while [ $i -lt 16 ]; do
	probe "128 account race" 'ret 1 new 1 charged 1 kmem 1 order ok race 1 1 0' quiet
	probe "128 account nofail race" 'ret 1 new 1 charged 1 kmem 1 order ok race 1 1 0' quiet
	probe "128 account atomic race" 'ret 1 new 1 charged 1 kmem 1 order ok race 1 1 0' quiet
	i=$((i + 1))
done
drift1=$(vmstat_drift)
free1=$(memfree)
log "48 raced calls of 128 pages: each got one page, charged; pgfree - pgalloc $drift0 -> $drift1; free memory $free0 -> $free1 kB"
[ $((drift1 - drift0)) -lt 1024 ] && [ $((drift0 - drift1)) -lt 1024 ] ||
	fail "pgfree - pgalloc moved by $((drift1 - drift0)) pages over 48 raced calls: pages given back were counted"
[ $((free0 - free1)) -lt 8192 ] ||
	fail "free memory fell by $((free0 - free1)) kB over 48 raced calls: pages not charged were not given back"
grep -q '^oom_kill 0$' $cg/memory.events || fail "OOM kill in $cg: $(grep oom $cg/memory.events | xargs)"

# References, counted in a cgroup of their own that the shell enters and
# leaves without forking (a process that ran in it would drop references
# later, from RCU callbacks): the call takes one per page it charged, and
# freeing the pages drops at least as many.
# refs REQUEST N: the probe's REQUEST adds N pages, all charged, and
# counts "refs +N -F" with F >= N.
refs() {
	echo "$1 refs" >$p || fail "write '$1 refs' to $p"
	read -r r <$p
	log "$1 refs: $r"
	set -- $r "$2"
	[ "$1 $3 $5 $7 $9 ${10} ${11}" = "ret new charged kmem order ok refs" ] &&
		[ "$4 $6 $8 ${12}" = "${14} ${14} ${14} +${14}" ] ||
		fail "got '$r', expected ${14} pages charged and refs +${14}"
	[ "${13#-}" -ge "${14}" ] 2>/dev/null ||
		fail "got '$r': freeing the pages dropped fewer references than they took"
}
mkdir -p $refcg || fail "mkdir $refcg"
echo $$ >$refcg/cgroup.procs || fail "move into $refcg"
refs "64 account" 64
refs "64 account hole" 48
echo $$ >$cg/cgroup.procs || fail "move into $cg"

# Release: 64 pages kept in a cgroup that is then removed.  It stays
# dying while they are allocated and goes once they are freed.
read -r dying0 <<EOF2
$(sed -n 's/^nr_dying_descendants //p' /sys/fs/cgroup/cgroup.stat)
EOF2
mkdir -p $gone || fail "mkdir $gone"
echo $$ >$gone/cgroup.procs || fail "move into $gone"
probe "64 account keep" 'ret 64 new 64 charged 64 kmem 64 order ok'
echo $$ >/sys/fs/cgroup/cgroup.procs || fail "move back to the root cgroup"
rmdir $gone || fail "rmdir $gone"
echo free >$p || fail "free the kept pages"
i=0
while :; do
	read -r dying <<EOF2
$(sed -n 's/^nr_dying_descendants //p' /sys/fs/cgroup/cgroup.stat)
EOF2
	[ "$dying" -le "$dying0" ] && break
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the removed cgroup is still dying 30 s after its pages were freed ($dying dying, $dying0 before)"
	sleep 0.1
done
log "removed cgroup released $((i / 10)).$((i % 10)) s after its 64 pages were freed"
echo $$ >$cg/cgroup.procs || fail "move into $cg"

# A cgroup whose parent has 32 pages of room, none of them yet charged
# (but for what the shell itself faults in or opens there: with 6 pages,
# the shell's own pages once filled the room, and a single-page
# fallback's charge then called the OOM killer, as it would for any task
# at its limit).
# The per-cpu charge stock serves charges without looking at the limit,
# and it fills with pages uncharged (a cgroup file read allocates a
# charged page and frees it): the limit is set before the shell enters
# the cgroup, and the shell reads no cgroup file until the requests are
# made (a read allocates a charged buffer of up to 4 pages, which the
# limit would not have room for).  A bulk call reads the room the cgroup
# and its ancestors have before it takes pages, takes no more, and
# charges them without reclaim: each request gets between 1 and 32
# pages, every one charged, and none invokes the OOM killer; nothing is
# forced past the limit for __GFP_NOFAIL but the
# one page of a single-page fallback.  Max events are raised on the
# cgroup whose limit refused a charge, the parent, and the probe counts
# those each call raises there: none for a batch; the single-page
# fallback raises one when its page is not in this CPU's charge stock and
# it has to reclaim.  The stock keeps the pages a call frees charged, so
# after the first request the room reads 0 and most requests take the
# single-page path; a bulk call that read the leaf's room alone, or none,
# would take 128 pages it could not charge: one failed charge and one max
# event for every request.  Free memory is read before the shell enters
# and after the limit is lifted.
# fits R: the probe's result R is "ret K new K charged K kmem K order ok
# max +M high +H" with 1 <= K <= 32; adds M to maxsum.
maxsum=0
fits() {
	set -- $1
	[ "$1 $3 $5 $7 $9 ${10} ${11} ${13}" = "ret new charged kmem order ok max high" ] &&
		[ "$2" = "$4" ] && [ "$2" = "$6" ] && [ "$2" = "$8" ] &&
		[ "$2" -ge 1 ] && [ "$2" -le 32 ] && maxsum=$((maxsum + ${12#+}))
}
mkdir -p $lim $lim/leaf || fail "mkdir $lim/leaf"
echo +memory >$lim/cgroup.subtree_control || fail "enable the memory controller in $lim"
echo $((32 * 4096)) >$lim/memory.max || fail "set memory.max"
free0=$(memfree)
echo $$ >$lim/leaf/cgroup.procs || fail "move into $lim/leaf"
for req in "8 account events" "128 account events" "128 account nofail keep events"; do
	echo "$req" >$p || fail "write '$req' to $p"
	read -r r <$p
	log "$req: $r"
	fits "$r" || fail "$req: got '$r', expected between 1 and 32 pages, all charged"
done
echo free >$p || fail "free the kept pages"
# 64 requests of 128 pages that each keep at most 32: their max events,
# and no page lost.
i=0
while [ $i -lt 64 ]; do
	echo "128 account events" >$p || fail "write '128 account events' to $p"
	read -r r <$p
	fits "$r" || fail "128 account events (request $i): got '$r', expected between 1 and 32 pages, all charged"
	i=$((i + 1))
done
echo max >$lim/memory.max
log "67 requests in $lim/leaf raised $maxsum max events"
[ $maxsum -lt 32 ] || fail "67 requests in $lim/leaf raised $maxsum max events: batches were charged beyond the room of the cgroup and its ancestors"
free1=$(memfree)
log "free memory $free0 -> $free1 kB over 64 requests of 128 pages in $lim"
[ $((free0 - free1)) -lt 8192 ] || fail "free memory fell by $((free0 - free1)) kB: pages taken and not charged were lost"
log "$lim: $(grep -E '^(max|oom_kill) ' $lim/memory.events | xargs)"
grep -q '^oom_kill 0$' $lim/memory.events || fail "OOM kill in $lim: $(grep oom $lim/memory.events | xargs)"

# Holes: in a fresh cgroup whose parent has 16 pages of room, a 128-slot
# array with every fourth slot populated is filled in runs of 3 pages.
# The room is read once and each run charged uses its part: the call
# takes what fits (at most 16 pages, less what the shell's own faults and
# opens of the probe file charge first; at least 4, so more than one
# run) and stops, and no charge is refused (the probe counts no max
# event on the parent during the call).  A call that did not count what
# its runs used would take a further run it could not charge.
mkdir -p $holes $holes/leaf || fail "mkdir $holes/leaf"
echo +memory >$holes/cgroup.subtree_control || fail "enable the memory controller in $holes"
echo $((16 * 4096)) >$holes/memory.max || fail "set memory.max of $holes"
echo $$ >$holes/leaf/cgroup.procs || fail "move into $holes/leaf"
echo "128 account hole events" >$p || fail "write '128 account hole events' to $p"
read -r r <$p
echo max >$holes/memory.max
echo $$ >/sys/fs/cgroup/cgroup.procs || fail "move back to the root cgroup"
log "128 account hole events in $holes/leaf: $r"
set -- $r
[ "$3 $5 $7 $9 ${10} ${11}" = "new charged kmem order ok max" ] &&
	[ "$4" = "$6" ] && [ "$4" = "$8" ] && [ "$4" -ge 4 ] && [ "$4" -le 16 ] ||
	fail "128 account hole events in $holes/leaf: got '$r', expected 4 to 16 pages, all charged"
[ "${12}" = "+0" ] ||
	fail "128 account hole events in $holes/leaf raised ${12} max events: a run was taken beyond the room"

# memory.high of 64 pages: a 1024-page call is charged over it, and
# reclaims during the call (vanilla's page-at-a-time charge does once the
# overage passes 64 pages): the probe counts at least one high event.
mkdir -p $high || fail "mkdir $high"
echo $((64 * 4096)) >$high/memory.high || fail "set memory.high"
# in_high REQ: REQ written to the probe from inside $high, its result
# checked for its form and at least one page; $h gets its "high +H".
in_high() {
	echo $$ >$high/cgroup.procs || fail "move into $high"
	echo "$1" >$p || fail "write '$1' to $p"
	echo $$ >/sys/fs/cgroup/cgroup.procs || fail "move back to the root cgroup"
	read -r r <$p
	log "$1 in $high: $r"
	q=$1
	set -- $r
	[ "$1 $3 ${11} ${13}" = "ret new max high" ] && [ "$2" -ge 1 ] ||
		fail "$q in $high: got '$r'"
	h=${14}
}
in_high "1024 account events"
[ "${h#+}" -ge 1 ] || fail "a 1024-page call charged over memory.high of 64 pages raised no high event during the call"
# Neither a GFP_ATOMIC caller nor a PF_MEMALLOC task reclaims for
# memory.high during the call (the return to user space does, after it).
for req in "1024 account atomic events" "1024 account memalloc events"; do
	in_high "$req"
	[ "$h" = "+0" ] || fail "$req in $high: reclaimed for memory.high during the call (high $h)"
done
cleanup
rmmod bulk_batch_probe
exit 0
