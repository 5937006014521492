#!/bin/sh
# The network path of the patched kernel, not page_pool: iperf3 TCP over a
# veth pair between two network namespaces, in both directions.  Passes
# when each run moves data and reports no error.
#
# On 5.10 no page_pool takes part: veth creates none (6.1's does not
# either, 6.12's does); only hardware drivers and xen-netfront do, and the
# guest has none of them.  page_pool itself is tested by the page_pool
# KUnit suite.  What the run exercises of the stacks is the page
# allocator as the mm-bulk patches changed it, under the single-page
# allocations of a live network path (socket buffers, page fragments),
# with the debug checks of the kernel on.
#
# Exit 0 pass, 1 fail, 77 skip (no iproute2 or iperf3 in the guest).

IP=/usr/sbin/ip
srv_pid=

log() { echo "veth-network-path: $*"; }

cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	$IP netns del pp-a 2>/dev/null
	$IP netns del pp-b 2>/dev/null
}

fail() {
	log "FAIL: $*"
	cleanup
	exit 1
}

[ -x $IP ] || { log "SKIP: no iproute2"; exit 77; }
command -v iperf3 >/dev/null || { log "SKIP: no iperf3"; exit 77; }

mkdir -p /var/run/netns /run/netns
$IP netns add pp-a || fail "ip netns add"
$IP netns add pp-b || fail "ip netns add"
$IP link add pp-va type veth peer name pp-vb || fail "cannot create a veth pair"
$IP link set pp-va netns pp-a || fail "move pp-va"
$IP link set pp-vb netns pp-b || fail "move pp-vb"
$IP -n pp-a addr add 10.99.0.1/24 dev pp-va || fail "address pp-va"
$IP -n pp-b addr add 10.99.0.2/24 dev pp-vb || fail "address pp-vb"
for ns in pp-a pp-b; do
	$IP -n $ns link set lo up || fail "lo up in $ns"
done
$IP -n pp-a link set pp-va up || fail "pp-va up"
$IP -n pp-b link set pp-vb up || fail "pp-vb up"
$IP netns exec pp-a ping -c 1 -W 5 10.99.0.2 >/dev/null ||
	fail "no ping over the veth pair"

$IP netns exec pp-b iperf3 -s -1 -B 10.99.0.2 >/tmp/iperf3-srv.log 2>&1 &
srv_pid=$!
sleep 1
run() {
	$IP netns exec pp-a iperf3 -c 10.99.0.2 -t 3 -f m "$@" >/tmp/iperf3.log 2>&1
	rc=$?
	sed 's/^/veth-network-path: /' /tmp/iperf3.log | grep -E 'sender|receiver|error'
	[ $rc -eq 0 ] || return 1
	grep -q receiver /tmp/iperf3.log
}
run || fail "iperf3 a -> b"
wait "$srv_pid"
$IP netns exec pp-b iperf3 -s -1 -B 10.99.0.2 >/tmp/iperf3-srv.log 2>&1 &
srv_pid=$!
sleep 1
run -R || fail "iperf3 b -> a (reverse)"
wait "$srv_pid"
srv_pid=
cleanup
log "pass"
exit 0
