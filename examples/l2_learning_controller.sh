#!/usr/bin/env bash
# The controller of examples/l2_learning.p4: learns each source address
# the switch reports in a digest, so frames to it are forwarded only to
# its port from then on.
#
#   examples/l2_learning_controller.sh PIPELINE
#
# Each digest line reads `digest learn_t: srcAddr=MAC ingress_port=PORT`.
# Frames from an address keep coming until its entries are in, so the
# same address may be reported twice: the second `table add` finds the
# entry there and is ignored.
set -uo pipefail

P4BPF="${P4BPF:-p4bpf}"
pipeline="${1:?usage: l2_learning_controller.sh PIPELINE}"

"$P4BPF" digest "$pipeline" learn_t | while read -r _ _ source port; do
    mac="${source#srcAddr=}"
    port="${port#ingress_port=}"
    if "$P4BPF" table add "$pipeline" SwitchIngress.smac "hdr.ethernet.srcAddr=$mac" NoAction 2>/dev/null; then
        "$P4BPF" table add "$pipeline" SwitchIngress.dmac "hdr.ethernet.dstAddr=$mac" forward "port=$port"
        echo "learned $mac on port $port"
    fi
done
