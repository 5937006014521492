#!/bin/sh
# NFSv4 over loopback (knfsd serving a tmpfs export to the kernel client)
# while the page allocations of the nfsd threads fail on purpose:
# fail_page_alloc through debugfs, with the nfsd threads as its only
# targets (task-filter, make-it-fail), so that the bulk allocator comes up
# short in svc_alloc_arg().  fail_page_alloc's own countdown (times)
# counts the failures it injected.
#
# 1. Short returns.  Every second page allocation of the nfsd threads
#    fails, so that a bulk call often brings back a single page from the
#    allocator's single-page path.  fio writes a data set, then reads it
#    back over the wire in 1 MiB O_DIRECT requests (each READ reply leaves
#    some 256 slots of rq_pages to refill) and verifies every block, each
#    run within 120 s: a thread that slept 500 ms after every short return
#    would need minutes for one request.
# 2. No progress.  One nfsd thread, all its page allocations failing,
#    serves a request and then cannot refill its array.  Its stack
#    (/proc/PID/stack, which leaves out the scheduler's own functions,
#    schedule_timeout() among them) must show it asleep in its refill,
#    not where it waits for requests: the two sleeps differ by the return
#    address of the frame on top, svc_recv() (into which svc_alloc_arg()
#    is inlined) or svc_alloc_arg() if it is not inlined.  And it must
#    retry at the pace of its 500 ms sleeps: at least 2 and at most 100
#    failures taken in 3 s, and at most 1000 since the injection began,
#    where a thread retrying without sleeping takes thousands (and, in a
#    guest with one CPU, all of them before this script runs again).
#    Once allocations succeed, it serves again.
# 3. Shutdown.  The same thread, asleep in its refill with its allocations
#    failing, is stopped (echo 0 >/proc/fs/nfsd/threads): it must leave
#    with -EINTR, within 10 s.
#
# Exit 0 pass, 1 fail, 77 skip (no NFS tools, no nfsd or no
# fail_page_alloc in this kernel).

EXPORT=/export
MNT=/mnt/nfs
DBG=/sys/kernel/debug
FI=$DBG/fail_page_alloc
# fail_page_alloc's countdown when failures are not to run out
MANY=1000000
# Failures an nfsd thread that sleeps between its tries takes at most in
# phase 2, from the start of the injection to the end of the 3 s counted
# (some 10 s)
MAX_TAKEN=1000
pid=
idle_site=
trigger=

log() { echo "nfs-alloc-fail: $*"; }

fi_off() {
	[ -f "$FI/probability" ] && echo 0 >"$FI/probability"
	for p in $(nfsd_pids); do
		echo 0 >"/proc/$p/make-it-fail" 2>/dev/null
	done
}

cleanup() {
	cd /
	fi_off
	[ -n "$trigger" ] && kill "$trigger" 2>/dev/null
	# Phase 3 stops the server; bring it back for the client to unmount.
	if [ "$(cat /proc/fs/nfsd/threads 2>/dev/null)" = 0 ]; then
		rpc.nfsd -N 3 -V 4 1 >/dev/null 2>&1
	fi
	nfs_stop "$EXPORT" "$MNT"
}

die() {
	log "FAIL: $*"
	dmesg | tail -n 20 | sed 's/^/nfs-alloc-fail: dmesg: /'
	cleanup
	exit 1
}

skip() {
	log "SKIP: $*"
	exit 77
}

fi_set() {
	echo "$2" >"$FI/$1" || die "cannot write fail_page_alloc/$1"
}

# fi_start PROBABILITY INTERVAL TIMES PID...: fail page allocations of the
# given tasks only, of any order, sleeping or not; allocations with
# __GFP_HIGHMEM (the page cache of the tmpfs export) stay out.  TIMES
# counts down with every failure injected.
fi_start() {
	fi_set probability 0
	fi_set task-filter Y
	fi_set min-order 0
	fi_set ignore-gfp-wait N
	fi_set ignore-gfp-highmem Y
	fi_set space 0
	fi_set verbose 0
	fi_set interval "$2"
	fi_set times "$3"
	p=$1
	shift 3
	for t in "$@"; do
		echo 1 >"/proc/$t/make-it-fail" || die "cannot target nfsd thread $t"
	done
	fi_set probability "$p"
}

fi_left() {
	cat "$FI/times"
}

# fio_within WHAT FIO-OPTIONS...: run fio, at most 120 s; on failure, show
# the end of its log and fail saying which: fio failed (after how long),
# or it was stopped at 120 s.
fio_within() {
	what=$1
	shift
	t0=$(date +%s)
	timeout 120 fio "$@" >/tmp/fio.log 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	[ $rc -eq 0 ] && return 0
	tail -n 15 /tmp/fio.log
	[ $took -ge 120 ] && die "$what over NFS did not finish within 120 s"
	die "$what over NFS failed after ${took} s (fio exit status $rc)"
}

# sleep_site: where nfsd thread $pid sleeps: the frame on top of its stack
# once scheduler functions are passed over (/proc/PID/stack leaves them
# out on 5.10, not every kernel does), if that is one of the SUNRPC
# server's: svc_recv(), or svc_alloc_arg() or svc_get_next_xprt() where
# the compiler did not inline them into it.
sleep_site() {
	awk '$2 ~ /^(__)?(freezable_)?schedule/ { next }
		{ if ($2 ~ /^(svc_recv|svc_alloc_arg|svc_get_next_xprt)\+/) print $2; exit }' \
		"/proc/$pid/stack" 2>/dev/null
}

# in_refill: the thread sleeps in svc_recv(), not where it waits for
# requests: in svc_alloc_arg(), between two tries to fill its array.
in_refill() {
	site=$(sleep_site)
	[ -n "$site" ] && [ "$site" != "$idle_site" ]
}

# enter_refill: from now on every page allocation of nfsd thread $pid
# fails; a request (stat, in the background: it may take more RPCs than
# the one the thread serves) is served, and the thread, refilling its
# array after the reply, cannot.  True once it is seen asleep there.
# Sending the reply may need memory too and wait for it: the thread is
# then let through (injection off) and the request tried again.
enter_refill() {
	tries=0
	while [ $tries -lt 5 ]; do
		tries=$((tries + 1))
		fi_start 100 1 $MANY "$pid"
		timeout 120 stat "$MNT/probe" >/dev/null 2>&1 &
		trigger=$!
		n=0
		while [ $n -lt 20 ]; do
			sleep 0.5
			in_refill && return 0
			n=$((n + 1))
		done
		fi_off
		wait "$trigger"
		trigger=
		sleep 1
	done
	return 1
}

# shellcheck source=SCRIPTDIR/../lib/nfs-server.sh
. /usr/share/kstacks/sunrpc-user/nfs-server.sh || skip "no nfs-server.sh helper"
nfs_require
grep -q " $DBG debugfs " /proc/mounts || mount -t debugfs debugfs $DBG 2>/dev/null
[ -f "$FI/probability" ] ||
	skip "no fail_page_alloc in debugfs (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS)"

# Attributes are not cached, so that stat asks the server every time.
nfs_start "$EXPORT" "$MNT" 200m sync actimeo=0
mkdir -p "$MNT/probe" || die "cannot create a directory on the export"

# --- 1. short returns, data verified --------------------------------------
JOB="--ioengine=psync --bs=1m --nrfiles=4 --filesize=4m --size=16m \
--verify=crc32c --verify_fatal=1 --file_service_type=roundrobin"
# fio does not create the directory of its files.
mkdir "$MNT/short" || die "cannot create $MNT/short on the export"
pids=$(nfsd_pids | tr '\n' ' ')
[ -n "$pids" ] || die "no nfsd threads"
# shellcheck disable=SC2086
fi_start 100 2 $MANY $pids
log "every second page allocation of nfsd threads ${pids}fails"
# shellcheck disable=SC2086
fio_within "fio write and verify" --name=short --directory="$MNT/short" \
	--rw=write --do_verify=1 --end_fsync=1 $JOB
sync
echo 3 >/proc/sys/vm/drop_caches
# shellcheck disable=SC2086
fio_within "fio O_DIRECT read-back and verify" --name=short --directory="$MNT/short" \
	--rw=write --verify_only=1 --direct=1 $JOB
secs=$took
fails=$((MANY - $(fi_left)))
fi_off
for f in "$MNT/short"/*; do
	cmp "$f" "$EXPORT/short/$(basename "$f")" || die "server and client copies of $f differ"
done
[ "$fails" -gt 0 ] || die "no page allocation of the nfsd threads failed"
log "short returns: $fails page allocations of nfsd failed; 16 MiB verified, read back over the wire in ${secs}s"
rm -rf "$MNT/short"

# --- 2. no progress: sleep and retry ---------------------------------------
echo 1 >/proc/fs/nfsd/threads || die "cannot set one nfsd thread"
sleep 1
pids=$(nfsd_pids | tr '\n' ' ')
[ "$(echo "$pids" | wc -w)" = 1 ] || die "expected one nfsd thread, found: $pids"
pid=${pids% }
for _ in 1 2 3; do
	stat "$MNT/probe" >/dev/null || die "stat over NFS failed"
done
sleep 1
# Where the idle thread sleeps, waiting for requests: another place than
# the refill's sleep.
idle_site=$(sleep_site)
[ -n "$idle_site" ] ||
	die "cannot tell where nfsd thread $pid waits: $(tr '\n' ' ' <"/proc/$pid/stack")"
enter_refill ||
	die "nfsd thread $pid did not get to refilling its array: $(tr '\n' ' ' <"/proc/$pid/stack")"
before=$(fi_left)
seen=0
for _ in 1 2 3 4 5 6; do
	sleep 0.5
	in_refill && seen=$((seen + 1))
done
left=$(fi_left)
took=$((before - left))
# A thread that retries without sleeping keeps the CPU of a one-CPU guest
# to itself until fail_page_alloc's countdown runs out, and only then lets
# this script run again: count every failure since the injection began.
[ "$((MANY - left))" -le $MAX_TAKEN ] ||
	die "nfsd thread $pid took $((MANY - left)) failures since its allocations began to fail, $left of $MANY left: it retries without sleeping"
[ "$took" -ge 2 ] || die "nfsd thread $pid did not retry its refill ($took failures in 3 s)"
[ "$took" -le 100 ] ||
	die "nfsd thread $pid took $took failures in 3 s: it retries without sleeping"
[ "$seen" -ge 3 ] ||
	die "nfsd thread $pid was seen asleep in its refill $seen times of 6"
fi_off
wait "$trigger" || die "stat over NFS failed while nfsd retried"
trigger=
timeout 30 stat "$MNT/probe" >/dev/null ||
	die "nfsd does not serve requests once its allocations succeed again"
log "no progress: nfsd thread $pid seen asleep in svc_alloc_arg() $seen times of 6 in 3 s, $took failures taken meanwhile; it served again once allocations succeeded"

# --- 3. stopped while its allocations fail ----------------------------------
enter_refill ||
	die "nfsd thread $pid did not get to refilling its array: $(tr '\n' ' ' <"/proc/$pid/stack")"
echo 0 >/proc/fs/nfsd/threads &
stopper=$!
n=0
while [ -d "/proc/$pid" ] && [ $n -lt 10 ]; do
	sleep 1
	n=$((n + 1))
done
if [ -d "/proc/$pid" ]; then
	stack=$(tr '\n' ' ' <"/proc/$pid/stack" 2>/dev/null)
	# Let it allocate, so that it can stop at all.
	fi_off
	wait "$stopper"
	die "nfsd thread $pid, asleep in its refill with its allocations failing, did not stop within 10 s (stack: $stack)"
fi
wait "$stopper"
log "shutdown: nfsd thread $pid, asleep in its refill with its allocations failing, stopped within $n s"
fi_off
rpc.nfsd -N 3 -V 4 1 || die "rpc.nfsd did not start again"
# The restarted server is in its grace period; the client recovers.
timeout 60 stat "$MNT/probe" >/dev/null || die "the client did not recover after the server restarted"
wait "$trigger"
trigger=

cleanup
log "pass"
exit 0
