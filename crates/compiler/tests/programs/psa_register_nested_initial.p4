// A register of a struct holding a bool and a nested struct (with a
// 72-bit field), at a nested-struct index, with an initial value given
// by position for the nested part. Ingress writes the cell the packet
// names when `op` is 1, then reads it into the packet.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<8> op;
    bit<8> idx;
    bit<7> pad;
    bool flag;
    bit<16> port;
    bit<72> tag;
    bit<8> tail;
}
struct inner_t { bit<16> port; bit<72> tag; }
struct cell_t { bool flag; inner_t inner; bit<8> tail; }
struct where_t { bit<8> idx; inner_t unused; }
struct headers_t { h_t h; }
struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Register<cell_t, where_t>(8, { flag = true, inner = { 16w0x1234, 72w0xabcdef0123456789ff }, tail = 0x7e }) cells;
    apply {
        send_to_port(ostd, (PortId_t)32w2);
        where_t at = { idx = hdr.h.idx, unused = { 0, 0 } };
        if (hdr.h.op == 1) {
            cell_t v = { flag = hdr.h.flag, inner = { port = hdr.h.port, tag = hdr.h.tag }, tail = hdr.h.tail };
            cells.write(at, v);
        }
        cell_t c = cells.read(at);
        hdr.h.flag = c.flag;
        hdr.h.port = c.inner.port;
        hdr.h.tag = c.inner.tag;
        hdr.h.tail = c.tail;
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.h); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) { apply { } }
control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
