// PNA's timer requests on NOTIFY_CONTROL tables outside exact ones: the
// action of an lpm entry and of a ternary rule restarts the matched
// entry's timer with expire-time profile 2 (`set_entry_expire_time`), so
// only profile 2's timeout decides when they are idle.
#include <core.p4>
#include <tc/pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m,
         in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}

control C(inout headers_t hdr, inout meta_t m,
          in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    action to(PortId_t port) {
        send_to_port(port);
        set_entry_expire_time((ExpireTimeProfileId_t) 2);
    }
    table by_prefix {
        key = { hdr.ethernet.dst: lpm; }
        actions = { to; NoAction; }
        default_action = NoAction;
        pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table by_mask {
        key = { hdr.ethernet.src: ternary; }
        actions = { to; NoAction; }
        default_action = NoAction;
        pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    apply {
        if (hdr.ethernet.etherType == 1) {
            by_prefix.apply();
        } else {
            by_mask.apply();
        }
    }
}

control D(packet_out pkt, inout headers_t hdr, in meta_t m,
          in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}

PNA_NIC(P(), C(), D()) main;
