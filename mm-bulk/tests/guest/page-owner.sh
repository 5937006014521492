#!/bin/sh
# The cell boots with page_owner=on, so that the page_alloc_bulk KUnit
# suite checks the owner records of pages allocated in bulk.  That case
# passes without checking anything when page_owner is off, so make sure
# it was on, and that the record dump (which walks every page, including
# the ones the bulk allocator handed out) reads without a kernel report.
#
# Exit 0 pass, 1 fail.

log() { echo "page-owner: $*"; }

grep -qw 'page_owner=on' /proc/cmdline || { log "FAIL: booted without page_owner=on"; exit 1; }
mkdir -p /sys/kernel/debug
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
f=/sys/kernel/debug/page_owner
[ -r $f ] || { log "FAIL: no $f: page_owner is not active"; exit 1; }
n=$(head -c 4000000 $f | grep -c '^Page allocated via order')
log "$n owner records in the first 4 MB of $f"
[ "$n" -gt 0 ] || { log "FAIL: no owner records"; exit 1; }
exit 0
