#!/bin/sh
# stress-ng (Debian's, not written here) on what the 6.1 stacks change,
# with its own verification on (--verify): io_uring (fixed buffers among
# its operations), anonymous memory touched and checked (vm), mmap and
# mremap, madvise and memfd, in parallel for 20 seconds, each instance
# bounded in memory (small enough that the debug kernel under TCG gets
# through a few rounds of each: with 4 MiB, mmap's one round took more
# than its 20 s in a guest beside two others on the host's two cores).  A stressor's failed check is a failed test; the
# cell's scan of the console log catches any kernel report meanwhile.
# The same script on the vanilla debug kernel: make vanilla-check
# BASE=6.1 TEST=io_uring-coalesce-stress-ng.
#
# Exit 0 pass, 1 fail, 77 skip.

log() { echo "stress-ng: $*"; }
command -v stress-ng >/dev/null || { log "no stress-ng in the guest"; exit 77; }
out=/tmp/stress-ng.yaml
stress-ng --timeout 20s --verify --metrics-brief --yaml "$out" \
	--io-uring 1 \
	--vm 1 --vm-bytes 16M --vm-method all \
	--mmap 1 --mmap-bytes 1M \
	--mremap 1 --mremap-bytes 8M \
	--madvise 1 \
	--memfd 1 --memfd-bytes 8M
rc=$?
case $rc in
0) ;;
3) log "not enough resources for a stressor (exit 3)"; exit 77 ;;
*) log "FAIL: stress-ng exited $rc"; exit 1 ;;
esac
# Every stressor ran and did some work (bogo ops in the YAML metrics).
for s in io-uring vm mmap mremap madvise memfd; do
	n=$(awk -v s="$s" '$1 == "-" && $2 == "stressor:" { cur = $3 } cur == s && $1 == "bogo-ops:" { print $2; exit }' "$out")
	[ -n "$n" ] && [ "$n" -gt 0 ] 2>/dev/null || { log "FAIL: stressor $s did no work (bogo-ops '${n}')"; exit 1; }
done
log "6 stressors, 20 s, --verify: no failure"
exit 0
