// PNA's idle timeouts seen by the control plane (`idle_sweep` in the
// STF): `reported` has pna_idle_timeout = NOTIFY_CONTROL, so its idle
// entries stay and every sweep reports them; `aged` has AUTO_DELETE, so
// the sweep deletes its idle entries. A control-plane entry's timer
// starts at its first hit.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t { }

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
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
    action to(PortId_t port) { send_to_port(port); }
    action unknown() { send_to_port((PortId_t)9); }
    table reported {
        key = { hdr.ethernet.dst : exact; }
        actions = { to; unknown; }
        default_action = unknown;
        pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table aged {
        key = { hdr.ethernet.dst : exact; }
        actions = { to; unknown; }
        default_action = unknown;
        pna_idle_timeout = PNA_IdleTimeout_t.AUTO_DELETE;
    }
    apply {
        if (hdr.ethernet.etherType == 0x0001) {
            reported.apply();
        } else {
            aged.apply();
        }
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
