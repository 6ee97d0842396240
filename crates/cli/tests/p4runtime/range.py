"""Range and optional matches over P4Runtime with p4runtime-shell, run by
crates/cli/tests/p4runtime_range.rs against tests/p4runtime/range.p4:

    range.py ADDRESS P4INFO OBJECT

Sets the pipeline; inserts a rule of a range and a given optional value,
and one of a range with the optional left out; reads both back with
their matches; checks a backwards range is refused. Prints what it
checks, exits non-zero on the first failed check.
"""
import os
import traceback
import sys

from p4.v1 import p4runtime_pb2
from p4runtime_sh import shell as sh
from p4runtime_sh.p4runtime import P4RuntimeWriteException

ADDRESS, P4INFO, OBJECT = sys.argv[1:4]
TABLE = "In.classify"
# PSA_PORT_CPU: to the host stack (XDP_PASS), no port map needed.
CPU = 0xfffffffd


def check(what, condition):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        # Not sys.exit: p4runtime-shell's stream thread would keep the
        # process alive.
        os._exit(1)


def rule(low_high, src, priority, port):
    entry = sh.TableEntry(TABLE)(action="In.fwd")
    entry.match["hdr.ethernet.ether_type"] = low_high
    if src is not None:
        entry.match["hdr.ethernet.src"] = src
    entry.action["port"] = str(port)
    entry.priority = priority
    return entry


def main():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    rule("0x0800..0x08ff", "00:00:00:00:00:01", 20, CPU).insert()
    rule("0x9000..0x9fff", None, 10, CPU).insert()
    print("inserted", flush=True)

    read = sorted(sh.TableEntry(TABLE).read(), key=lambda e: -e.priority)
    check("two rules read back", len(read) == 2)
    first, second = (e.msg() for e in read)
    kinds = {m.WhichOneof("field_match_type") for m in first.match}
    check("the first has a range and an optional match", kinds == {"range", "optional"})
    low_high = [(m.range.low, m.range.high) for m in first.match if m.HasField("range")]
    check("its range is 0x0800..0x08ff",
          [(int.from_bytes(l, "big"), int.from_bytes(h, "big")) for l, h in low_high]
          == [(0x0800, 0x08ff)])
    value = [m.optional.value for m in first.match if m.HasField("optional")]
    check("its optional value is 00:00:00:00:00:01",
          [int.from_bytes(v, "big") for v in value] == [1])
    check("the second has its range alone (the optional left out)",
          [m.WhichOneof("field_match_type") for m in second.match] == ["range"])

    # p4runtime-shell refuses a backwards range itself: swap the bounds of
    # a good one in the message so that the server is the one to judge.
    entry = rule("0x0800..0x0900", None, 30, 4).msg()
    bounds = entry.match[0].range
    bounds.low, bounds.high = bounds.high, bounds.low
    request = p4runtime_pb2.WriteRequest(device_id=1)
    request.election_id.low = 10
    update = request.updates.add()
    update.type = p4runtime_pb2.Update.INSERT
    update.entity.table_entry.CopyFrom(entry)
    refused = None
    try:
        sh.client.write(request)
    except P4RuntimeWriteException as e:
        refused = str(e)
    check("a backwards range is refused", refused is not None and "INVALID_ARGUMENT" in refused)


try:
    main()
except Exception:
    traceback.print_exc()
    os._exit(1)
os._exit(0)
