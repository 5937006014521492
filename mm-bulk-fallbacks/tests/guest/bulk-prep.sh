#!/bin/sh
# Patch 1 of this stack: alloc_pages_bulk() holds its CPU's per-cpu list
# lock only to take pages off the list, and prepares them (page_owner,
# KASAN, init_on_alloc clearing, the reference count) after dropping it.
# Vanilla 7.3 prepares each page with the lock held.  Checked through the
# bulk_batch_probe module's "prep" mode: for every page a bulk call adds,
# whether its reference count was set, the last step of its preparation,
# while the call held the lock (page_ref_set tracepoint and lockdep, which
# the stack's debug config turns on).  Bulk calls of 8, 64 and 128 pages
# into empty arrays, of 64 into an array with every fourth slot populated
# (one run of empty slots at a time), of 65 into one whose last slot is
# populated (the call ends on the loop's own condition, past a populated
# tail) and into a full one: every added page prepared in the call, none
# of them under the lock.
#
# Preparation clears a page asked for with __GFP_ZERO: the probe's "zero"
# mode frees N pages filled with 0xaa to the CPU's per-cpu list and asks
# for N zeroed pages, which the bulk call takes from that list again.
# Every page it adds must read zero, and some of them must be those pages
# (else the check proves nothing): 64 pages, 64 into an array with holes,
# 512 pages.
#
# Exit 0 pass, 1 fail, 77 skip.

log() { echo "bulk-prep: $*"; }
fail() { log "FAIL: $*"; exit 1; }

insmod /lib/modules-kstacks/bulk_batch_probe.ko 2>/dev/null ||
	grep -q '^bulk_batch_probe ' /proc/modules || { log "SKIP: no bulk_batch_probe module"; exit 77; }
mkdir -p /sys/kernel/debug
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
p=/sys/kernel/debug/kstacks_bulk_batch_probe
[ -w $p ] || { log "SKIP: no $p"; exit 77; }

# probe ARGS EXPECTED
probe() {
	echo "$1" >$p || fail "write '$1' to $p"
	read -r r <$p
	log "$1: $r"
	case $r in
	*"prep none") fail "the probe module cannot see preparation (CONFIG_DEBUG_PAGE_REF, CONFIG_LOCKDEP)" ;;
	*"prep lockdep off") log "SKIP: lockdep turned itself off after a report earlier in this boot (the console check fails on it)"; exit 77 ;;
	esac
	[ "$r" = "$2" ] || fail "$1: got '$r', expected '$2'"
}

probe "8 prep" 'ret 8 new 8 charged 0 kmem 0 order ok prep 8 locked 0'
probe "64 prep" 'ret 64 new 64 charged 0 kmem 0 order ok prep 64 locked 0'
probe "128 prep" 'ret 128 new 128 charged 0 kmem 0 order ok prep 128 locked 0'
probe "64 hole prep" 'ret 64 new 48 charged 0 kmem 0 order ok prep 48 locked 0'
probe "65 hole prep" 'ret 65 new 48 charged 0 kmem 0 order ok prep 48 locked 0'
probe "64 full prep" 'ret 64 new 0 charged 0 kmem 0 order ok prep 0 locked 0'

# zero ARGS EXPECTED: EXPECTED, then "zero 0 reused U" with U above 0
zero() {
	echo "$1" >$p || fail "write '$1' to $p"
	read -r r <$p
	log "$1: $r"
	case $r in
	"$2 zero 0 reused 0") fail "$1: no page filled with 0xaa came back: the check proves nothing ($r)" ;;
	"$2 zero 0 reused "[1-9]*) ;;
	*) fail "$1: got '$r', expected '$2 zero 0 reused U', U above 0" ;;
	esac
}
zero "64 zero" 'ret 64 new 64 charged 0 kmem 0 order ok'
zero "64 hole zero" 'ret 64 new 48 charged 0 kmem 0 order ok'
zero "512 zero" 'ret 512 new 512 charged 0 kmem 0 order ok'
rmmod bulk_batch_probe
exit 0
