#!/bin/sh
# NFSv4.2 over loopback in the guest: knfsd serving a tmpfs export to the
# kernel client.  Sequential O_DIRECT write and read of 128 MiB in 1 MiB
# requests with fio, so that every request goes over the wire and nfsd
# refills the pages of its request array for each one.  The server is set
# up by the first round and kept for the next ones.
#
# Prints "figure NAME VALUE UNIT higher" lines.

EXPORT=/export
MNT=/mnt/nfs

die() {
	echo "nfs-throughput: $*" >&2
	exit 1
}

setup() {
	for b in fio rpc.nfsd rpc.mountd exportfs; do
		command -v "$b" >/dev/null || die "$b is not in the guest"
	done
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	mkdir -p /run /var/run /var/lib/nfs/v4recovery "$EXPORT" "$MNT"
	grep -q localhost /etc/hosts 2>/dev/null || echo "127.0.0.1 localhost" >>/etc/hosts
	[ -f /etc/passwd ] || echo "root:x:0:0:root:/:/bin/sh" >/etc/passwd
	[ -f /etc/group ] || echo "root:x:0:" >/etc/group
	: >/etc/nfs.conf
	: >/var/lib/nfs/etab
	: >/var/lib/nfs/rmtab
	mount -t nfsd nfsd /proc/fs/nfsd || die "cannot mount the nfsd filesystem"
	mount -t tmpfs -o size=300m tmpfs "$EXPORT" || die "no tmpfs"
	echo "$EXPORT 127.0.0.1(rw,fsid=0,insecure,no_root_squash,no_subtree_check,async)" >/etc/exports
	exportfs -ra || die "exportfs"
	rpc.mountd -N 2 -N 3 -F >/tmp/mountd.log 2>&1 &
	echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null
	echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null
	rpc.nfsd -N 3 -V 4 4 || die "rpc.nfsd"
	mount -t nfs4 -o vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1,rsize=1048576,wsize=1048576 \
		127.0.0.1:/ "$MNT" || die "cannot mount the export"
	# The first open waits out the grace period; not part of a figure.
	: >"$MNT/warm" || die "cannot create a file on the export"
}

grep -q " $MNT nfs4 " /proc/mounts || setup

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
