#!/bin/sh
# NFSv4.2 over loopback in the guest: knfsd serving a tmpfs export to the
# kernel client.  Sequential O_DIRECT write and read of 128 MiB in 1 MiB
# requests with fio, so that every request goes over the wire and nfsd
# refills the pages of its request array for each one.  The server is set
# up by the first round and kept for the next ones.
#
# svc_alloc_arg() is inlined into svc_recv(), so its cost is read from the
# function profiler as the time nfsd spends in svc_recv() per call, not
# counting the time it sleeps waiting for a request (the kernel needs
# CONFIG_FUNCTION_PROFILER; without it that figure is missing and the
# program exits 1 after printing the others).
#
# Prints "figure NAME VALUE UNIT higher|lower" lines.

EXPORT=/export
MNT=/mnt/nfs
T=/sys/kernel/tracing

die() {
	echo "nfs-throughput: $*" >&2
	exit 1
}

. /usr/share/kstacks/sunrpc-user/nfs-server.sh || die "no nfs-server.sh helper"
if ! grep -q " $MNT nfs4 " /proc/mounts; then
	for b in fio rpc.nfsd rpc.mountd exportfs; do
		command -v "$b" >/dev/null || die "$b is not in the guest"
	done
	nfs_start "$EXPORT" "$MNT" 300m async
fi

profile=0
grep -q " $T tracefs " /proc/mounts || mount -t tracefs tracefs $T 2>/dev/null
if [ -f $T/function_profile_enabled ] && echo svc_recv >$T/set_ftrace_filter; then
	echo 0 >$T/options/sleep-time
	echo 0 >$T/function_profile_enabled
	echo 1 >$T/function_profile_enabled
	profile=1
fi

JOB="--name=seq --directory=$MNT --filename=seq.dat --bs=1m --size=128m \
--ioengine=psync --direct=1 --output-format=terse"

# terse v3: field 7 is read bandwidth, field 48 write bandwidth, in KiB/s
w=$(fio $JOB --rw=write --end_fsync=1 | awk -F';' '{ print $48 }')
[ -n "$w" ] && [ "$w" -gt 0 ] || die "fio write failed"
r=$(fio $JOB --rw=read | awk -F';' '{ print $7 }')
[ -n "$r" ] && [ "$r" -gt 0 ] || die "fio read failed"
rm -f "$MNT/seq.dat"

echo "figure nfs-write $(awk -v k="$w" 'BEGIN { printf "%.1f", k / 1024 }') MiB/s higher"
echo "figure nfs-read $(awk -v k="$r" 'BEGIN { printf "%.1f", k / 1024 }') MiB/s higher"

[ $profile = 1 ] || die "no function profiler for svc_recv in this kernel"
echo 0 >$T/function_profile_enabled
# "svc_recv HITS TIME us AVG us ..." per CPU: total time over all calls.
cat $T/trace_stat/function* | awk '$1 == "svc_recv" {
	n += $2; t += ($4 == "ms" ? $3 * 1000 : $3) }
	END { if (n) printf "figure svc_recv %.2f us/call lower\n", t / n
	      else { print "nfs-throughput: svc_recv never ran" > "/dev/stderr"; exit 1 } }' ||
	exit 1
echo >$T/set_ftrace_filter
