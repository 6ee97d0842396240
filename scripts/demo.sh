#!/usr/bin/env bash
# `make demo`: the P4 router examples/l3_router.p4 between two hosts;
# `make demo EXAMPLE=v1model_router`: the same with the tutorial-style
# v1model router examples/v1model_router.p4.
#
#   h1 (netns) eth0 10.0.1.1 ── r1 ┐ root namespace: the pipeline on r1, r2 ┌ r2 ── eth0 10.0.2.1 h2 (netns)
#
# The router's interfaces stay in the root namespace, where bpffs holds the
# pipeline's pins; the hosts get their own namespaces. Kernel forwarding is
# off on r1 and r2, so whatever crosses was routed by the XDP program.
# Every name carries this run's id; everything is removed on exit, also
# after a failure or Ctrl-C.
set -euo pipefail

P4BPF="${P4BPF:-target/release/p4bpf}"
example="${EXAMPLE:-l3_router}"
case "$example" in
    l3_router | v1model_router) ;;
    *) echo "EXAMPLE must be l3_router or v1model_router, not $example" >&2; exit 2 ;;
esac
run_id="$$"
pipeline="demo$run_id"
h1="p4demo-h1-$run_id"
h2="p4demo-h2-$run_id"
r1="p4r1-$run_id"
r2="p4r2-$run_id"
h1_mac=02:00:00:00:01:01
h2_mac=02:00:00:00:02:01
r1_mac=02:00:00:00:01:fe
r2_mac=02:00:00:00:02:fe

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

cleanup() {
    set +e
    "$P4BPF" pipeline unload "$pipeline" >/dev/null 2>&1
    ip link del "$r1" 2>/dev/null
    ip link del "$r2" 2>/dev/null
    ip netns del "$h1" 2>/dev/null
    ip netns del "$h2" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" -ne 0 ]; then
    echo "make demo needs root (network namespaces, XDP): run it with sudo" >&2
    exit 1
fi

step "two hosts in their own namespaces, one veth pair each to the router"
for host in 1 2; do
    ns="p4demo-h$host-$run_id"; router_if="p4r$host-$run_id"
    host_mac_var="h${host}_mac"; router_mac_var="r${host}_mac"
    ip netns add "$ns"
    ip link add "$router_if" address "${!router_mac_var}" type veth peer name eth0 netns "$ns" address "${!host_mac_var}"
    ip addr add "10.0.$host.254/24" dev "$router_if"
    ip link set "$router_if" up
    sysctl -qw "net.ipv4.conf.$router_if.forwarding=0"
    ip -n "$ns" addr add "10.0.$host.1/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" route add default via "10.0.$host.254"
    # XDP_REDIRECT into a veth delivers only when the peer has NAPI (GRO);
    # and a redirected frame loses "checksum to be filled in" offload state,
    # so hosts must send UDP with its checksum computed (tx offload off).
    ip netns exec "$ns" ethtool -K eth0 gro on tx off >/dev/null
    # The v1model router drops what is not IPv4, ARP included: the hosts
    # know the router's address beforehand.
    if [ "$example" = v1model_router ]; then
        ip -n "$ns" neigh add "10.0.$host.254" lladdr "${!router_mac_var}" dev eth0
    fi
done
ip link show "$r1" | head -1
ip link show "$r2" | head -1

step "load the router and attach it to both interfaces"
show "$P4BPF" pipeline load "examples/$example.p4" --name "$pipeline" --xdp-mode native
show "$P4BPF" port add "$pipeline" "$r1" --port 1
show "$P4BPF" port add "$pipeline" "$r2" --port 2

if [ "$example" = l3_router ]; then
    step "routes and next hops (forward's port is the P4 port given to port add)"
    show "$P4BPF" table add "$pipeline" ipv4_routes hdr.ipv4.dstAddr=10.0.1.0/24 set_next_hop id=1
    show "$P4BPF" table add "$pipeline" ipv4_routes hdr.ipv4.dstAddr=10.0.2.0/24 set_next_hop id=2
    show "$P4BPF" table add "$pipeline" next_hops next_hop=1 forward dst_mac=$h1_mac src_mac=$r1_mac port=1
    show "$P4BPF" table add "$pipeline" next_hops next_hop=2 forward dst_mac=$h2_mac src_mac=$r2_mac port=2
    show "$P4BPF" table dump "$pipeline" ipv4_routes
    show "$P4BPF" table dump "$pipeline" next_hops
else
    step "routes (ipv4_forward's port is the P4 port given to port add)"
    show "$P4BPF" table add "$pipeline" ipv4_lpm hdr.ipv4.dstAddr=10.0.1.0/24 ipv4_forward dstAddr=$h1_mac srcAddr=$r1_mac port=1
    show "$P4BPF" table add "$pipeline" ipv4_lpm hdr.ipv4.dstAddr=10.0.2.0/24 ipv4_forward dstAddr=$h2_mac srcAddr=$r2_mac port=2
    show "$P4BPF" table dump "$pipeline" ipv4_lpm
fi
show "$P4BPF" pipeline show "$pipeline"

step "ping h2 from h1 through the router"
show ip netns exec "$h1" ping -c 3 -i 0.2 -W 2 10.0.2.1

step "a UDP flow from h1 to h2, checked on arrival (MACs rewritten, TTL decremented)"
ready="/tmp/p4demo-udp-ready-$$"
rm -f "$ready"
DEMO_UDP_READY="$ready" show ip netns exec "$h2" python3 scripts/demo_udp.py receive 10.0.2.1 5000 5 \
    "$r2_mac" "$h2_mac" 63 &
receiver=$!
# Send only once the receiver listens (a loaded machine starts it slowly).
for _ in $(seq 100); do [ -e "$ready" ] && break; sleep 0.1; done
rm -f "$ready"
show ip netns exec "$h1" python3 scripts/demo_udp.py send 10.0.2.1 5000 5
wait "$receiver"

step "counters (packets per next hop, or per port for v1model_router, summed over CPUs)"
show "$P4BPF" counter get "$pipeline" forwarded 1
show "$P4BPF" counter get "$pipeline" forwarded 2
to_h2=$("$P4BPF" counter get "$pipeline" forwarded 2 | sed -n 's/.*packets=//p')
if [ "${to_h2:-0}" -lt 8 ]; then
    echo "expected at least 8 packets forwarded to next hop 2 (3 pings, 5 UDP), got ${to_h2:-0}" >&2
    exit 1
fi

step "remove everything"
show "$P4BPF" pipeline unload "$pipeline"
cleanup
trap - EXIT
echo
echo "demo passed"
