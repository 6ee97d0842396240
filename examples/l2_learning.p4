// An Ethernet learning switch for v1model, at the TC hook.
//
// `smac` holds the source addresses the controller has learned; a miss
// sends a digest (the address and the port it came in on) to the
// controller, which adds the address to `smac` and to `dmac` with that
// port (examples/l2_learning_controller.sh). `dmac` forwards to a learned
// address's port; an unknown destination floods through multicast group 1
// (every port: `p4bpf mcast set PIPELINE 1 PORT...`), and egress drops
// the copy that would go back out of the port the frame came in on.
#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_t;
typedef bit<9> port_t;

const bit<16> FLOOD_GROUP = 1;

header ethernet_t {
    mac_t dstAddr;
    mac_t srcAddr;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct metadata_t { }

// What the controller learns from: one address and where it was seen.
struct learn_t {
    mac_t srcAddr;
    port_t ingress_port;
}

parser SwitchParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control VerifyNoChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ComputeNoChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control SwitchIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    action learn() {
        digest<learn_t>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port });
    }

    // Known sources; a miss tells the controller.
    table smac {
        key = { hdr.ethernet.srcAddr: exact; }
        actions = { learn; NoAction; }
        default_action = learn();
        size = 4096;
    }

    action forward(port_t port) {
        standard_metadata.egress_spec = port;
    }

    action flood() {
        standard_metadata.mcast_grp = FLOOD_GROUP;
    }

    // Known destinations; anything else floods.
    table dmac {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { forward; flood; }
        default_action = flood();
        size = 4096;
    }

    apply {
        smac.apply();
        dmac.apply();
    }
}

control SwitchEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply {
        // No flooded copy goes back where the frame came from.
        if (standard_metadata.egress_port == standard_metadata.ingress_port) {
            mark_to_drop(standard_metadata);
        }
    }
}

control SwitchDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(SwitchParser(), VerifyNoChecksum(), SwitchIngress(), SwitchEgress(),
         ComputeNoChecksum(), SwitchDeparser()) main;
