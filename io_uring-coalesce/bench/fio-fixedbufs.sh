#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Description: fio, io_uring engine with registered (fixed) buffers in
# 2 MiB hugetlb pages, 8 MiB random reads and then random writes with
# O_DIRECT on the emulated NVMe disk, queue depth 4 (fio-fixedbufs.fio).
# Prints, for tools/bench:
#
#	figure fio_randread_MBps RATE MB/s higher
#	figure fio_randread_sys_s_per_GiB SECONDS s/GiB lower
#	figure fio_randwrite_MBps RATE MB/s higher
#	figure fio_randwrite_sys_s_per_GiB SECONDS s/GiB lower
#	figure fio_randread_cpu_s_per_GiB SECONDS s/GiB lower
#	figure fio_randwrite_cpu_s_per_GiB SECONDS s/GiB lower
#
# MB = 10^6 bytes; sys_s is fio's own system CPU time (the submission side,
# where registered buffers are imported and DMA-mapped), per GiB moved;
# cpu_s is system + irq + softirq time of all CPUs of the guest ("cpu" line
# of /proc/stat, USER_HZ ticks) across the job, per GiB: it also counts the
# completion side, wherever the kernel accounts it.
# IOU_BENCH_DEV names another disk; IOU_BENCH_MB the amount moved per job
# (default 4096: fio's CPU time comes from clock ticks, and a few seconds
# of I/O give it hundreds of them; 512 MiB gave about ten).  Exit 0 success, 1 error, 77 no disk or no fio.
dev=${IOU_BENCH_DEV:-/dev/nvme0n1}
mb=${IOU_BENCH_MB:-4096}
job=/usr/share/kstacks/io_uring-coalesce/fio-fixedbufs.fio
[ -f "$job" ] || job=$(dirname "$0")/fio-fixedbufs.fio

[ -b "$dev" ] || { echo "# no block device $dev"; exit 77; }
command -v fio >/dev/null || { echo "# no fio"; exit 77; }
[ -f "$job" ] || { echo "# no job file $job"; exit 1; }

# Four 8 MiB buffers: 16 huge pages, and some slack for fio's alignment.
hp=/proc/sys/vm/nr_hugepages
old=$(cat $hp)
echo $((old + 20)) >$hp
trap 'rm -f /dev/hugepages/kstacks-fio; echo "$old" >$hp' EXIT
[ "$(cat $hp)" -ge $((old + 20)) ] || { echo "# cannot reserve 20 huge pages"; exit 77; }

rc=0
# system + irq + softirq ticks of all CPUs
cpu_ticks() {
	awk '$1 == "cpu" { print $4 + $7 + $8; exit }' /proc/stat
}
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
for rw in randread randwrite; do
	t0=$(cpu_ticks)
	out=$(DEV=$dev RW=$rw MB=$mb fio --minimal "$job" 2>/tmp/fio.err) || {
		sed 's/^/# /' /tmp/fio.err
		echo "# fio $rw failed: $(head -c 200 /tmp/fio.err)"
		rc=1
		continue
	}
	t1=$(cpu_ticks)
	# Terse v3: 6 read KiB, 7 read KiB/s, 9 read ms; 47 write KiB,
	# 48 write KiB/s, 50 write ms; 89 system CPU %.
	echo "$out" | awk -F';' -v rw=$rw -v ticks=$((t1 - t0)) -v hz="$hz" '{
		if (rw == "randread") { kb = $6; bw = $7; ms = $9 }
		else { kb = $47; bw = $48; ms = $50 }
		sys = $89; sub("%", "", sys)
		if (kb <= 0 || ms <= 0) { print "# fio " rw ": nothing moved"; exit 1 }
		printf "figure fio_%s_MBps %.1f MB/s higher\n", rw, bw * 1024 / 1e6
		printf "figure fio_%s_sys_s_per_GiB %.4f s/GiB lower\n", rw,
			sys / 100 * ms / 1000 / (kb / 1048576)
		printf "figure fio_%s_cpu_s_per_GiB %.4f s/GiB lower\n", rw,
			ticks / hz / (kb / 1048576)
	}' || rc=1
done
exit $rc
