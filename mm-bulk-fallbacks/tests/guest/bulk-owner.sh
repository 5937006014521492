#!/bin/sh
# alloc_pages_bulk() with page_owner on (the cell boots page_owner=on).
# Upstream falls back to one page per call whenever page_owner is on;
# this stack takes the bulk path and records the owner of the whole batch
# with one stack trace.  Checked through the bulk_batch_probe module
# (/sys/kernel/debug/kstacks_bulk_batch_probe): a 64-page request returns
# 64 pages, in order, into empty, partly populated and full arrays, and
# page_owner's per-stack page count (page_owner_stacks/show_stacks) for the
# bulk call's stack is exactly the pages it holds: 64 while they are kept,
# none once they are freed.
#
# Exit 0 pass, 1 fail, 77 skip.

log() { echo "bulk-owner: $*"; }
fail() { log "FAIL: $*"; echo free >$p 2>/dev/null; exit 1; }

grep -qw 'page_owner=on' /proc/cmdline || fail "booted without page_owner=on"
insmod /lib/modules-kstacks/bulk_batch_probe.ko 2>/dev/null ||
	grep -q '^bulk_batch_probe ' /proc/modules || { log "SKIP: no bulk_batch_probe module"; exit 77; }
mkdir -p /sys/kernel/debug
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
p=/sys/kernel/debug/kstacks_bulk_batch_probe
stacks=/sys/kernel/debug/page_owner_stacks/show_stacks
[ -w $p ] || { log "SKIP: no $p"; exit 77; }
[ -r $stacks ] || fail "no $stacks: page_owner is not active"

# probe ARGS EXPECTED
probe() {
	echo "$1" >$p || fail "write '$1' to $p"
	read -r r <$p
	log "$1: $r"
	[ "$r" = "$2" ] || fail "$1: got '$r', expected '$2'"
}
# Pages page_owner counts for the stacks of bulk calls made by the probe.
bulk_pages() {
	awk '/^$/ { if (b && m) n += c; b = m = c = 0; next }
		/alloc_pages_bulk/ { b = 1 } /bulk_batch_probe/ { m = 1 }
		/^nr_base_pages:/ { c = $2 }
		END { if (b && m) n += c; print n + 0 }' $stacks
}

probe "64" 'ret 64 new 64 charged 0 kmem 0 order ok'
probe "64 hole" 'ret 64 new 48 charged 0 kmem 0 order ok'
probe "64 full" 'ret 64 new 0 charged 0 kmem 0 order ok'
probe "2" 'ret 2 new 2 charged 0 kmem 0 order ok'
n=$(bulk_pages)
[ "$n" -eq 0 ] || fail "$n pages still counted for bulk stacks after they were freed"
probe "64 keep" 'ret 64 new 64 charged 0 kmem 0 order ok'
n=$(bulk_pages)
log "page_owner counts $n pages for the bulk call's stack"
[ "$n" -eq 64 ] || fail "page_owner counts $n pages for the kept bulk allocation, expected 64"
echo free >$p
n=$(bulk_pages)
[ "$n" -eq 0 ] || fail "$n pages still counted after freeing the kept ones"
rmmod bulk_batch_probe
exit 0
