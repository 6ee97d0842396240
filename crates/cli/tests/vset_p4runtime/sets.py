"""Parser value sets over P4Runtime with p4runtime-shell's client, run by
crates/cli/tests/vset_p4runtime.rs against tests/vset_p4runtime/sets.p4:

    sets.py ADDRESS P4INFO OBJECT

Checks the P4Info lists `pairs`' fields with their match kinds; writes
both sets by MODIFY and reads them back (a left-out range reads back left
out); a second MODIFY replaces the whole set; INSERT and more members
than the set holds are refused with the specification's codes; a
ROLLBACK_ON_ERROR batch that fails leaves the set as it was; value set
id 0 reads every set. Leaves
both sets as the test then sends packets through. Prints what it checks,
exits non-zero on the first failed check.
"""
import os
import sys

from p4.v1 import p4runtime_pb2
from p4runtime_sh import shell as sh
from p4runtime_sh.p4runtime import P4RuntimeWriteException

ADDRESS, P4INFO, OBJECT = sys.argv[1:4]


def check(what, condition):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        # Not sys.exit: p4runtime-shell's stream thread would keep the
        # process alive.
        os._exit(1)


def set_id(name):
    for vs in sh.context.p4info.value_sets:
        if vs.preamble.name == name:
            return vs
    check(f"the P4Info has {name}", False)


def member(*fields):
    """A ValueSetMember from (field id, kind, values...) tuples."""
    m = p4runtime_pb2.ValueSetMember()
    for field_id, kind, *values in fields:
        fm = m.match.add()
        fm.field_id = field_id
        if kind == "exact":
            fm.exact.value = values[0]
        elif kind == "ternary":
            fm.ternary.value, fm.ternary.mask = values
        elif kind == "range":
            fm.range.low, fm.range.high = values
    return m


def write(vs_id, members, kind=p4runtime_pb2.Update.MODIFY, then=None):
    """One update of set vs_id; `then` (id, members) adds a second update
    to the batch, which then rolls back on error."""
    request = p4runtime_pb2.WriteRequest(device_id=1)
    request.election_id.low = 10
    for set_id, set_members in [(vs_id, members)] + ([then] if then else []):
        update = request.updates.add()
        update.type = kind
        update.entity.value_set_entry.value_set_id = set_id
        update.entity.value_set_entry.members.extend(set_members)
    if then:
        request.atomicity = p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR
    try:
        sh.client.write(request)
        return None
    except P4RuntimeWriteException as e:
        return str(e)


def read(vs_id):
    wanted = p4runtime_pb2.Entity()
    wanted.value_set_entry.value_set_id = vs_id
    found = []
    for response in sh.client.read_one(wanted):
        for entity in response.entities:
            found.append(entity.value_set_entry)
    return found


def as_tuples(entry):
    out = []
    for m in entry.members:
        fields = []
        for fm in m.match:
            kind = fm.WhichOneof("field_match_type")
            part = getattr(fm, kind)
            values = {"exact": lambda p: (p.value,), "ternary": lambda p: (p.value, p.mask),
                      "range": lambda p: (p.low, p.high)}[kind](part)
            fields.append((fm.field_id, kind) + tuple(int.from_bytes(v, "big") for v in values))
        out.append(tuple(fields))
    return sorted(out)


def main():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    pairs, types = set_id("InParser.pairs"), set_id("InParser.types")
    check("pairs' P4Info fields are ether_type TERNARY 16 and src_low RANGE 8",
          [(f.id, f.name, f.bitwidth, f.match_type) for f in pairs.match]
          == [(1, "ether_type", 16, 4), (2, "src_low", 8, 5)])
    pid, tid = pairs.preamble.id, types.preamble.id

    ipv4 = member((1, "ternary", b"\x08\x00", b"\xff\x00"), (2, "range", b"\x0a", b"\x14"))
    lldp = member((1, "ternary", b"\x90\x00", b"\xff\xff"))
    check("pairs written by MODIFY", write(pid, [ipv4, lldp]) is None)
    [entry] = read(pid)
    check("pairs reads back its two members, the left-out range left out",
          as_tuples(entry) == sorted([((1, "ternary", 0x0800, 0xff00), (2, "range", 10, 20)),
                                       ((1, "ternary", 0x9000, 0xffff),)]))
    check("a second MODIFY replaces the set", write(pid, [lldp]) is None)
    [entry] = read(pid)
    check("pairs now holds one member", as_tuples(entry) == [((1, "ternary", 0x9000, 0xffff),)])

    refused = write(pid, [ipv4], p4runtime_pb2.Update.INSERT)
    check("INSERT is refused", refused is not None and "INVALID_ARGUMENT" in refused)
    refused = write(pid, [ipv4, lldp, ipv4])
    check("three members for a set of two are refused",
          refused is not None and "RESOURCE_EXHAUSTED" in refused)
    wrong = member((1, "exact", b"\x08\x00"))
    refused = write(pid, [wrong])
    check("an exact match on a ternary field is refused, naming the field",
          refused is not None and "INVALID_ARGUMENT" in refused and "ether_type" in refused)
    [entry] = read(pid)
    check("refused writes leave the set as it was",
          as_tuples(entry) == [((1, "ternary", 0x9000, 0xffff),)])

    refused = write(pid, [ipv4], then=(pid, [wrong]))
    check("a ROLLBACK_ON_ERROR batch whose second update fails is refused", refused is not None)
    [entry] = read(pid)
    check("and its first update is rolled back",
          as_tuples(entry) == [((1, "ternary", 0x9000, 0xffff),)])

    check("types written by MODIFY", write(tid, [member((1, "exact", b"\x88\xcc"))]) is None)
    [entry] = read(tid)
    check("types reads back 0x88cc", as_tuples(entry) == [((1, "exact", 0x88cc),)])
    every = read(0)
    check("value set id 0 reads both sets",
          sorted(e.value_set_id for e in every) == sorted([pid, tid]))
    check("pairs written again for the packets", write(pid, [ipv4, lldp]) is None)
    print("written", flush=True)
    os._exit(0)


main()
