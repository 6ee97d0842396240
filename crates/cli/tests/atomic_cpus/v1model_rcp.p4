// The Rate Control Protocol's update (p4c's rcp.p4) on v1model: three
// registers read with `read(out value, index)` and written back in one
// `@atomic` block, two of them only for packets whose RTT is below the
// limit. The probe carries out the three totals after the packet.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header rcp_t {
    bit<32> rtt;
    bit<16> length;
    bit<32> bytes;
    bit<32> sum_rtt;
    bit<32> with_rtt;
}

struct headers_t {
    ethernet_t ethernet;
    rcp_t rcp;
}

struct meta_t {}

const bit<32> MAX_ALLOWABLE_RTT = 2500;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.rcp);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control RcpIngress(inout headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    register<bit<32>>(1) input_traffic_bytes;
    register<bit<32>>(1) sum_rtt_Tr;
    register<bit<32>>(1) num_pkts_with_rtt;
    apply {
        sm.egress_spec = 2;
        @atomic {
            bit<32> bytes;
            input_traffic_bytes.read(bytes, 0);
            bytes = bytes + (bit<32>) hdr.rcp.length;
            input_traffic_bytes.write(0, bytes);
            hdr.rcp.bytes = bytes;
            bit<32> sum_rtt;
            bit<32> with_rtt;
            sum_rtt_Tr.read(sum_rtt, 0);
            num_pkts_with_rtt.read(with_rtt, 0);
            if (hdr.rcp.rtt < MAX_ALLOWABLE_RTT) {
                sum_rtt = sum_rtt + hdr.rcp.rtt;
                sum_rtt_Tr.write(0, sum_rtt);
                with_rtt = with_rtt + 1;
                num_pkts_with_rtt.write(0, with_rtt);
            }
            hdr.rcp.sum_rtt = sum_rtt;
            hdr.rcp.with_rtt = with_rtt;
        }
    }
}

control RcpEgress(inout headers_t hdr, inout meta_t meta,
               inout standard_metadata_t sm) { apply { } }

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.rcp);
    }
}

V1Switch(P(), NoVerify(), RcpIngress(), RcpEgress(), NoCompute(), D()) main;
