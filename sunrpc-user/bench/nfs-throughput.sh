#!/bin/sh
# NFSv4.2 over loopback in the guest: knfsd (4 threads) serving a tmpfs
# export to the kernel client.  Four fio jobs write and then read 32 MiB
# each, sequentially, O_DIRECT, in 1 MiB requests (rsize and wsize are
# 1 MiB), so that every request goes over the wire and several nfsd
# threads serve at once.  A READ reply hands the page cache pages on in
# place of the thread's own, so after each 1 MiB READ svc_alloc_arg()
# refills some 256 slots of rq_pages: the case the bulk allocator is for.
# The server is set up by the first round and kept for the next ones.
#
# Figures:
#   nfs-write, nfs-read   throughput, MiB/s
#   svc_recv              time nfsd spends in svc_recv() per call, during
#                         both runs (svc_alloc_arg() is inlined there), from
#                         the function profiler, sleeping not counted
#   nfs-read-pages-per-rpc        pages allocated (/proc/vmstat pgalloc_*)
#   nfs-read-alloc-calls-per-rpc  calls of __alloc_pages_nodemask() and
#                         __alloc_pages_bulk() (function profiler hits)
#                         per RPC nfsd served (/proc/net/rpc/nfsd), during
#                         another read of 8 MiB per job.  Both count the
#                         whole guest, the client's allocations too, which
#                         are the same on both kernels.
# The profiler figures need CONFIG_FUNCTION_PROFILER; without it they are
# missing and the program exits 1 after printing the others.
#
# Prints "figure NAME VALUE UNIT higher|lower" lines.

EXPORT=/export
MNT=/mnt/nfs
T=/sys/kernel/tracing

die() {
	echo "nfs-throughput: $*" >&2
	exit 1
}

# shellcheck source=SCRIPTDIR/../tests/lib/nfs-server.sh
. /usr/share/kstacks/sunrpc-user/nfs-server.sh || die "no nfs-server.sh helper"
if ! grep -q " $MNT nfs4 " /proc/mounts; then
	for b in fio rpc.nfsd rpc.mountd exportfs; do
		command -v "$b" >/dev/null || die "$b is not in the guest"
	done
	nfs_start "$EXPORT" "$MNT" 300m async
fi

# profile FUNCTION...: count and time these functions from now on.
profile() {
	echo 0 >$T/function_profile_enabled
	: >$T/set_ftrace_filter
	for f in "$@"; do
		# a function the kernel lacks (__alloc_pages_bulk on vanilla)
		echo "$f" >>$T/set_ftrace_filter 2>/dev/null
	done
	echo 1 >$T/function_profile_enabled
}

# hits FUNCTION...: calls counted since profile, summed over the CPUs.
hits() {
	echo 0 >$T/function_profile_enabled
	cat $T/trace_stat/function* | awk -v fs="$*" '
		BEGIN { n = split(fs, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
		$1 in want { h += $2 } END { print h + 0 }'
}

rpcs() {
	awk '$1 == "rpc" { print $2 }' /proc/net/rpc/nfsd
}

pgalloc() {
	awk '/^pgalloc_/ { s += $2 } END { print s + 0 }' /proc/vmstat
}

have_profiler=0
grep -q " $T tracefs " /proc/mounts || mount -t tracefs tracefs $T 2>/dev/null
if [ -f $T/function_profile_enabled ] && echo svc_recv >$T/set_ftrace_filter; then
	echo 0 >$T/options/sleep-time
	profile svc_recv
	have_profiler=1
fi

JOB="--name=seq --directory=$MNT --bs=1m --numjobs=4 --group_reporting \
--ioengine=psync --direct=1 --output-format=terse"

# terse v3: field 7 is read bandwidth, field 48 write bandwidth, in KiB/s
# shellcheck disable=SC2086
w=$(fio $JOB --size=32m --rw=write --end_fsync=1 | awk -F';' '{ print $48 }')
[ "${w:-0}" -gt 0 ] || die "fio write failed"
# shellcheck disable=SC2086
r=$(fio $JOB --size=32m --rw=read | awk -F';' '{ print $7 }')
[ "${r:-0}" -gt 0 ] || die "fio read failed"

echo "figure nfs-write $(awk -v k="$w" 'BEGIN { printf "%.1f", k / 1024 }') MiB/s higher"
echo "figure nfs-read $(awk -v k="$r" 'BEGIN { printf "%.1f", k / 1024 }') MiB/s higher"

if [ $have_profiler = 0 ]; then
	rm -f "$MNT"/seq.*
	die "no function profiler for svc_recv in this kernel"
fi
echo 0 >$T/function_profile_enabled
# "svc_recv HITS TIME us AVG us ..." per CPU: total time over all calls.
cat $T/trace_stat/function* | awk '$1 == "svc_recv" {
	n += $2; t += ($4 == "ms" ? $3 * 1000 : $3) }
	END { if (n) printf "figure svc_recv %.2f us/call lower\n", t / n
	      else { print "nfs-throughput: svc_recv never ran" > "/dev/stderr"; exit 1 } }' ||
	exit 1

# Allocations per RPC while nfsd serves READs.
profile __alloc_pages_nodemask __alloc_pages_bulk
rpc0=$(rpcs)
pg0=$(pgalloc)
# shellcheck disable=SC2086
fio $JOB --size=8m --rw=read >/dev/null || die "fio read failed"
pg=$(($(pgalloc) - pg0))
n=$(($(rpcs) - rpc0))
calls=$(hits __alloc_pages_nodemask __alloc_pages_bulk)
: >$T/set_ftrace_filter
rm -f "$MNT"/seq.*
[ "$n" -gt 0 ] || die "nfsd served no RPC"
echo "figure nfs-read-pages-per-rpc $(awk -v p="$pg" -v n="$n" 'BEGIN { printf "%.1f", p / n }') pages/rpc lower"
echo "figure nfs-read-alloc-calls-per-rpc $(awk -v c="$calls" -v n="$n" 'BEGIN { printf "%.2f", c / n }') calls/rpc lower"
