// SPDX-License-Identifier: Apache-2.0
// Study program 6: parse Ethernet, insert an 8-byte custom header after it,
// send the packet back out (XDP_TX).
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

header tag_h {
    bit<16> magic;
    bit<16> etherType;  // the EtherType the tag displaced
    bit<32> value;
}

struct eth_tag_t {
    ethernet_h ethernet;
    tag_h      tag;
}

const bit<16> ETHERTYPE_TAG = 0x88b5;  // IEEE local experimental

parser EthParser(packet_in packet, out eth_tag_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control Push(inout eth_tag_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        hdr.tag.setValid();
        hdr.tag.magic = 0x5034;
        hdr.tag.etherType = hdr.ethernet.etherType;
        hdr.tag.value = 0xdeadbeef;
        hdr.ethernet.etherType = ETHERTYPE_TAG;
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_TX;
    }
}

control TagDeparser(in eth_tag_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.tag);
    }
}

xdp(EthParser(), Push(), TagDeparser()) main;
