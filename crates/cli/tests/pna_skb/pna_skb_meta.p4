// P4TC's skb_* externs at TC: the action writes the socket buffer's mark
// and tc_index through skb_set_meta and reads them back into the frame;
// a tc_classid set but never written (skb_get_meta drops it) reads back
// as the socket buffer's own (0). The protocol is the frame's EtherType.
#include <core.p4>
#include <tc/pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header tags_t { bit<32> mark; bit<16> index; bit<16> classid; bit<16> protocol; }
struct headers_t { ethernet_t ethernet; tags_t tags; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.tags); transition accept; }
}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    action tag(bit<32> mark) {
        skb_get_meta();
        skb_set_mark(skb_get_mark() + mark);
        skb_set_tc_index(hdr.tags.index);
        skb_set_meta();
        skb_set_tc_classid(7);
        skb_get_meta();
        skb_set_meta();
        hdr.tags.mark = skb_get_mark();
        hdr.tags.index = skb_get_tc_index() + 1;
        hdr.tags.classid = skb_get_tc_classid();
        hdr.tags.protocol = skb_get_protocol();
        send_to_port((PortId_t)1);
    }
    table tagging {
        key = { hdr.ethernet.dst : exact; }
        actions = { tag; }
        default_action = tag(0x100);
    }
    apply { tagging.apply(); }
}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tags); }
}
PNA_NIC(P(), C(), D()) main;
