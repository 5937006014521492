#!/bin/sh
# NFSv4 over loopback: knfsd serves a tmpfs export to the kernel NFS
# client of the same guest.  fio writes a data set of several files
# through the mount, reads it back from the server (page cache dropped,
# then O_DIRECT) and verifies every block; the server's copy is compared
# with the client's view.  Then the same once more with fio inside a
# memory cgroup with a limit well below the size of the data set, so that
# the client reclaims and writes back under pressure.  The limit applies
# to the client only: nfsd stays in the root group (nfs-memory-pressure
# puts nfsd itself under pressure, nfs-alloc-fail makes its allocations
# fail).
#
# Exit 0 pass, 1 fail, 77 skip (no NFS tools or no nfsd in this kernel).

EXPORT=/export
MNT=/mnt/nfs
CG=

log() { echo "nfs-loopback: $*"; }

cleanup() {
	cd /
	cgroup_release "$CG"
	nfs_stop "$EXPORT" "$MNT"
}

die() {
	log "FAIL: $*"
	dmesg | tail -n 20 | sed 's/^/nfs-loopback: dmesg: /'
	cleanup
	exit 1
}

skip() {
	log "SKIP: $*"
	exit 77
}

# shellcheck source=SCRIPTDIR/../lib/nfs-server.sh
. /usr/share/kstacks/sunrpc-user/nfs-server.sh || skip "no nfs-server.sh helper"
nfs_require

nfs_start "$EXPORT" "$MNT" 400m sync
log "nfsd versions: $(cat /proc/fs/nfsd/versions) threads: $(cat /proc/fs/nfsd/threads)"
log "mounted: $(grep " $MNT " /proc/mounts)"

# fio_data DIR NAME [fio options]: write the data set with verification
# headers, read it back in the page cache, then drop the client's cache
# and read it over the wire with O_DIRECT, verifying every block.
JOB="--ioengine=psync --bs=128k --nrfiles=8 --filesize=3m --size=24m \
--verify=crc32c --verify_fatal=1 --file_service_type=roundrobin"
fio_data() {
	d=$1
	n=$2
	shift 2
	mkdir -p "$d" || return 1
	# shellcheck disable=SC2086
	fio --name="$n" --directory="$d" --rw=write --do_verify=1 \
		--end_fsync=1 $JOB "$@" >/tmp/fio.log 2>&1 || {
		tail -n 15 /tmp/fio.log
		return 1
	}
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# shellcheck disable=SC2086
	fio --name="$n" --directory="$d" --rw=write --verify_only=1 \
		--direct=1 $JOB "$@" >/tmp/fio.log 2>&1 || {
		tail -n 15 /tmp/fio.log
		return 1
	}
	return 0
}

# compare DIR: the server's copy of each file is the client's.
compare() {
	n=0
	for f in "$MNT/$1"/*; do
		cmp "$f" "$EXPORT/$1/$(basename "$f")" || return 1
		n=$((n + 1))
	done
	[ $n -eq 8 ] || {
		log "expected 8 files in $1, found $n"
		return 1
	}
	return 0
}

log "writing, reading back and verifying 24 MiB in 8 files"
fio_data "$MNT/plain" plain || die "fio verify over NFS"
compare plain || die "server and client copies differ"
rm -rf "$MNT/plain"

# The same from a memory cgroup limited to far less than the data set.
if [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; then
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	CG=/sys/fs/cgroup/nfs-loopback
	mkdir -p "$CG"
	[ -f "$CG/memory.max" ] || die "no memory controller in cgroup v2"
	echo 16M >"$CG/memory.max" || die "cannot set memory.max"
else
	mkdir -p /sys/fs/cgroup/memory
	mount -t cgroup -o memory none /sys/fs/cgroup/memory ||
		die "no memory cgroup (v1 or v2)"
	CG=/sys/fs/cgroup/memory/nfs-loopback
	mkdir -p "$CG"
	echo 16M >"$CG/memory.limit_in_bytes" || die "cannot set the limit"
fi
log "again with fio in memory cgroup $CG (limit 16M; nfsd stays in the root group)"
echo $$ >"$CG/cgroup.procs" || die "cannot enter $CG"
fio_data "$MNT/memcg" memcg || die "fio verify over NFS in a memory cgroup"
echo $$ >"$(dirname "$CG")/cgroup.procs"
compare memcg || die "server and client copies differ (memory cgroup)"
if [ -f "$CG/memory.events" ]; then
	log "memcg events: $(tr '\n' ' ' <"$CG/memory.events")"
fi
rm -rf "$MNT/memcg"

cleanup
log "pass"
exit 0
