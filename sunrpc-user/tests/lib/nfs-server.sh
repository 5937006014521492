# Sourced by sunrpc-user's guest tests and benchmark: NFSv4 over loopback,
# knfsd serving an export to the kernel client of the same guest.
# The caller defines die() (report and exit) before sourcing this file.
#
#   nfs_start EXPORT MNT SIZE|DEVICE sync|async [MOUNT_OPTIONS]
#	SIZE: a tmpfs of that size is exported; DEVICE (/dev/...): an ext2
#	file system is made on it and exported.  MOUNT_OPTIONS are added to
#	the client's.
#   nfs_stop EXPORT MNT
#   nfsd_pids		the PIDs of the nfsd threads, one a line

nfs_mountd_pid=

nfs_start() {
	export_dir=$1
	mnt=$2
	backing=$3
	mode=$4
	opts=${5:+,$5}

	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || die "no loopback"
	mkdir -p /etc /run /var/run /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs \
		"$export_dir" "$mnt"
	grep -q localhost /etc/hosts 2>/dev/null || echo "127.0.0.1 localhost" >>/etc/hosts
	[ -f /etc/passwd ] || echo "root:x:0:0:root:/:/bin/sh" >/etc/passwd
	[ -f /etc/group ] || echo "root:x:0:" >/etc/group
	: >/etc/nfs.conf
	: >/var/lib/nfs/etab
	: >/var/lib/nfs/rmtab

	mount -t nfsd nfsd /proc/fs/nfsd || die "cannot mount the nfsd filesystem"
	case $backing in
	/dev/*)
		[ -b "$backing" ] || die "no block device $backing"
		mke2fs -F -b 4096 "$backing" >/tmp/mke2fs.log 2>&1 ||
			die "mke2fs $backing: $(tail -n 1 /tmp/mke2fs.log)"
		mount -t ext2 "$backing" "$export_dir" ||
			die "cannot mount ext2 on $backing at $export_dir"
		;;
	*)
		mount -t tmpfs -o size="$backing" tmpfs "$export_dir" ||
			die "cannot mount tmpfs on $export_dir"
		;;
	esac
	echo "$export_dir 127.0.0.1(rw,fsid=0,insecure,no_root_squash,no_subtree_check,$mode)" >/etc/exports
	exportfs -ra || die "exportfs -ra"
	rpc.mountd -N 2 -N 3 -F >/tmp/mountd.log 2>&1 &
	nfs_mountd_pid=$!
	# A short grace period: nothing to reclaim in a fresh guest.
	echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null
	echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null
	rpc.nfsd -N 3 -V 4 4 || die "rpc.nfsd did not start"

	mount -t nfs4 -o "vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1,rsize=1048576,wsize=1048576$opts" \
		127.0.0.1:/ "$mnt" ||
		die "cannot mount the export (mountd: $(tail -n 3 /tmp/mountd.log))"
	# The first open waits out the grace period.
	: >"$mnt/.warm" || die "cannot create a file on the export"
	rm -f "$mnt/.warm"
}

nfs_stop() {
	umount "$2" 2>/dev/null || umount -f "$2" 2>/dev/null
	rpc.nfsd 0 >/dev/null 2>&1
	exportfs -ua >/dev/null 2>&1
	[ -n "$nfs_mountd_pid" ] && kill "$nfs_mountd_pid" 2>/dev/null
	nfs_mountd_pid=
	umount "$1" 2>/dev/null
	umount /proc/fs/nfsd 2>/dev/null
}

nfsd_pids() {
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = nfsd ] && echo "${d#/proc/}"
	done
	return 0
}

# nfs_require: skip (the caller's skip) unless the guest has what an NFS
# test over loopback needs: fio, the server's programs, nfsd and the NFSv4
# client.
nfs_require() {
	local b
	for b in fio rpc.nfsd rpc.mountd exportfs; do
		command -v "$b" >/dev/null || skip "$b is not in the guest"
	done
	grep -qw nfsd /proc/filesystems || skip "kernel without nfsd"
	grep -qw nfs4 /proc/filesystems || skip "kernel without the NFSv4 client"
}

# cgroup_release CG: move the tasks of memory cgroup CG back to the root
# group and remove it (nothing when CG is empty or gone).
cgroup_release() {
	local p
	[ -n "$1" ] && [ -d "$1" ] || return 0
	while read -r p; do
		echo "$p" >/sys/fs/cgroup/cgroup.procs 2>/dev/null
	done <"$1/cgroup.procs"
	rmdir "$1" 2>/dev/null
	return 0
}
