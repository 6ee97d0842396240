// PNA's direct externs given a length: `count(bytes)` adds that many
// bytes to the entry's counter, `dpdk_execute([colour,] bytes)` meters
// that many bytes, whatever the frame's own length; its colour may be a
// variable the control sets before the table hits.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

header tag_t {
    bit<8> colour;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

struct meta_t {
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control PreControl(in headers_t hdr, inout meta_t meta,
                   in pna_pre_input_metadata_t istd,
                   inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControl(inout headers_t hdr, inout meta_t meta,
                    in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    DirectCounter<bit<64>>(PNA_CounterType_t.PACKETS_AND_BYTES) volume;
    DirectMeter(PNA_MeterType_t.BYTES) police;
    PNA_MeterColor_t colour_in;

    action write_colour(PNA_MeterColor_t c) {
        if (c == PNA_MeterColor_t.GREEN) {
            hdr.tag.colour = 1;
        } else if (c == PNA_MeterColor_t.YELLOW) {
            hdr.tag.colour = 2;
        } else {
            hdr.tag.colour = 3;
        }
    }
    action counted(PortId_t port) {
        volume.count(1000);
        send_to_port(port);
    }
    action policed(PortId_t port) {
        write_colour(police.dpdk_execute(1000));
        send_to_port(port);
    }
    action policed_yellow(PortId_t port) {
        write_colour(police.dpdk_execute(PNA_MeterColor_t.YELLOW, 32w1000));
        send_to_port(port);
    }
    action policed_by_tag(PortId_t port) {
        write_colour(police.dpdk_execute(colour_in, 1000));
        send_to_port(port);
    }
    table flows {
        key = { hdr.ethernet.dst : exact; }
        actions = { counted; policed; policed_yellow; policed_by_tag; NoAction; }
        default_action = NoAction;
        pna_direct_counter = volume;
        pna_direct_meter = police;
    }
    apply {
        colour_in = hdr.tag.colour == 2 ? PNA_MeterColor_t.YELLOW : PNA_MeterColor_t.GREEN;
        flows.apply();
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
