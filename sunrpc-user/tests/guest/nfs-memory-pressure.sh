#!/bin/sh
# nfsd under memory pressure, with fio verifying the data.  knfsd exports
# ext2 on a ram disk (brd) to the kernel client of the same guest: the
# page cache nfsd fills with the data it receives is written back to the
# ram disk and can be reclaimed, which a tmpfs export without swap cannot.
#
# The nfsd threads are moved into a memory cgroup (cgroup v2) with a limit
# (memory.high 16M, memory.max 32M).  On 5.10 that limit puts no pressure
# on them: nothing nfsd allocates is charged to its group.  A kthread has
# no mm, so the page cache it adds is charged to the root group
# (mem_cgroup_charge(page, current->mm) and get_mem_cgroup_from_mm(NULL)),
# and memcg_kmem_bypass() leaves its kernel memory uncharged.  The test
# logs the group's memory.current and memory.events beside the page cache
# nfsd filled, and puts nfsd under the pressure that does apply to it:
# the guest's free memory, page cache dropped, is taken down to 128 MiB (a
# tmpfs filled with zeros), less than the 48 MiB data set needs on the ram
# disk, in the server's page cache and in the client's, so that page
# cache is reclaimed while nfsd refills its request pages.
#
# Neither the tmpfs (no swap) nor the ram disk can be reclaimed, and
# KASAN's quarantine may hold up to 1/32 of the guest's memory (32 MiB of
# 1 GiB) of freed objects: what is left has to cover the data set on the
# ram disk, the quarantine and the kernel's own needs with room to spare,
# or the guest runs out of memory instead of reclaiming page cache.  The
# test fails if the OOM killer ran.
#
# fio writes the data set, reads it back over the wire with O_DIRECT and
# verifies every block; the server's copy is compared with the client's,
# and /proc/vmstat must show pages reclaimed meanwhile.
#
# Exit 0 pass, 1 fail, 77 skip (no NFS tools, no nfsd, no ram disk).

EXPORT=/export
MNT=/mnt/nfs
DISK=/dev/ram0
HOG=/mnt/hog
CG=
# Free memory left, in MiB, and the data set, in 4 MiB files
LEFT=128
FILES=12

log() { echo "nfs-memory-pressure: $*"; }

cleanup() {
	cd /
	rm -f "$HOG/fill"
	umount "$HOG" 2>/dev/null
	cgroup_release "$CG"
	nfs_stop "$EXPORT" "$MNT"
}

die() {
	log "FAIL: $*"
	dmesg | tail -n 20 | sed 's/^/nfs-memory-pressure: dmesg: /'
	cleanup
	exit 1
}

skip() {
	log "SKIP: $*"
	exit 77
}

vmstat() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat
}

meminfo() {
	awk -v k="$1:" '$1 == k { print int($2 / 1024) }' /proc/meminfo
}

# oom_kills: how often the OOM killer ran since the data set was started.
oom_kills() {
	echo $(($(vmstat oom_kill) - oom))
}

# shellcheck source=SCRIPTDIR/../lib/nfs-server.sh
. /usr/share/kstacks/sunrpc-user/nfs-server.sh || skip "no nfs-server.sh helper"
for b in fio rpc.nfsd rpc.mountd exportfs mke2fs; do
	command -v "$b" >/dev/null || skip "$b is not in the guest"
done
grep -qw nfsd /proc/filesystems || skip "kernel without nfsd"
grep -qw nfs4 /proc/filesystems || skip "kernel without the NFSv4 client"
grep -qw ext2 /proc/filesystems || skip "kernel without ext2"
[ -b $DISK ] || skip "no ram disk $DISK (CONFIG_BLK_DEV_RAM)"

nfs_start "$EXPORT" "$MNT" $DISK sync
log "exporting ext2 on $DISK: $(grep " $EXPORT " /proc/mounts)"
# fio does not create the directory of its files.
mkdir "$MNT/pressure" || die "cannot create $MNT/pressure on the export"

# The nfsd threads into a memory cgroup with a limit.
if ! [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	mount -t cgroup2 none /sys/fs/cgroup || die "cannot mount cgroup2"
fi
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
CG=/sys/fs/cgroup/nfsd
mkdir -p $CG
[ -f $CG/memory.max ] || die "no memory controller in cgroup v2"
echo 16M >$CG/memory.high || die "cannot set memory.high"
echo 32M >$CG/memory.max || die "cannot set memory.max"
pids=$(nfsd_pids | tr '\n' ' ')
[ -n "$pids" ] || die "no nfsd threads"
for p in $pids; do
	echo "$p" >$CG/cgroup.procs || die "cannot move nfsd thread $p into $CG"
	grep -qx '0::/nfsd' "/proc/$p/cgroup" || die "nfsd thread $p is not in $CG: $(cat "/proc/$p/cgroup")"
done
log "nfsd threads ${pids}in $CG (memory.high 16M, memory.max 32M)"

# Leave LEFT MiB of free memory, with no page cache of earlier tests left
# to reclaim instead.
sync
echo 3 >/proc/sys/vm/drop_caches
free=$(meminfo MemFree)
hog=$((free - LEFT))
if [ $hog -gt 0 ]; then
	mkdir -p $HOG
	mount -t tmpfs -o size=${hog}m tmpfs $HOG || die "cannot mount a tmpfs on $HOG"
	dd if=/dev/zero of=$HOG/fill bs=1M count=$hog 2>/dev/null ||
		die "cannot fill $HOG with $hog MiB"
fi
log "free memory: $free MiB, $hog MiB taken, $(meminfo MemFree) MiB left"

JOB="--ioengine=psync --bs=256k --nrfiles=$FILES --filesize=4m \
--size=$((FILES * 4))m --verify=crc32c --verify_fatal=1 --file_service_type=roundrobin"
oom=$(vmstat oom_kill)
steal=$(($(vmstat pgsteal_kswapd) + $(vmstat pgsteal_direct)))
stall=$(($(vmstat allocstall_dma32) + $(vmstat allocstall_normal) + $(vmstat allocstall_movable)))
cached=$(meminfo Cached)
# shellcheck disable=SC2086
fio --name=pressure --directory="$MNT/pressure" --rw=write --do_verify=1 \
	--end_fsync=1 $JOB >/tmp/fio.log 2>&1 || {
	tail -n 15 /tmp/fio.log
	die "fio write and verify over NFS under memory pressure (OOM kills: $(oom_kills))"
}
grown=$(($(meminfo Cached) - cached))
current=$(cat $CG/memory.current)
sync
echo 3 >/proc/sys/vm/drop_caches
# shellcheck disable=SC2086
fio --name=pressure --directory="$MNT/pressure" --rw=write --verify_only=1 \
	--direct=1 $JOB >/tmp/fio.log 2>&1 || {
	tail -n 15 /tmp/fio.log
	die "fio O_DIRECT read-back and verify over NFS under memory pressure (OOM kills: $(oom_kills))"
}
steal=$(($(vmstat pgsteal_kswapd) + $(vmstat pgsteal_direct) - steal))
stall=$(($(vmstat allocstall_dma32) + $(vmstat allocstall_normal) + $(vmstat allocstall_movable) - stall))
[ "$(oom_kills)" -eq 0 ] ||
	die "the OOM killer ran $(oom_kills) times: the guest ran out of memory, not just page cache"
n=0
for f in "$MNT/pressure"/*; do
	cmp "$f" "$EXPORT/pressure/$(basename "$f")" || die "server and client copies of $f differ"
	n=$((n + 1))
done
[ $n -eq $FILES ] || die "expected $FILES files, found $n"
for p in $pids; do
	[ -d "/proc/$p" ] || die "nfsd thread $p is gone"
done
log "$((FILES * 4)) MiB verified; $steal pages reclaimed, $stall direct reclaim stalls; now free $(meminfo MemFree) MiB, page cache $(meminfo Cached) MiB, slab $(meminfo Slab) MiB"
log "nfsd's group: memory.current $current bytes while the page cache grew by $grown MiB; events: $(tr '\n' ' ' <$CG/memory.events)"
[ "$steal" -gt 0 ] || die "no page was reclaimed: the data set did not put the guest under pressure"

cleanup
log "pass"
exit 0
