"""Signed register values over P4Runtime, run by crates/cli/tests/p4regint.rs
against tests/p4regint/signed.p4:

    signed.py ADDRESS P4INFO OBJECT setup|after

setup: sets the pipeline, reads a negative initial value, MODIFYs a struct
register of int<8>, int<16>, int<33> and bit<8> fields and plain int
registers with boundary values (two's-complement bytestrings, padded or
not) and reads them back, tries values outside the fields and registers
indexed by a struct or a bit<72>, and inserts table entries whose int
keys and parameters are negative (one of each out of range), printing one
line each; after: reads the cell a packet wrote. Messages are built by
hand (p4runtime-shell has no register entity and encodes no negative
int) and values shown as their bytes in hex.
"""
import os
import sys

from p4.v1 import p4data_pb2, p4runtime_pb2
from p4runtime_sh import shell as sh

ADDRESS, P4INFO, OBJECT, PHASE = sys.argv[1:5]


def reg_id(name):
    for r in sh.context.p4info.registers:
        if r.preamble.name == name:
            return r.preamble.id
    raise KeyError(name)


def entity(name, index=None, data=None):
    e = p4runtime_pb2.Entity()
    e.register_entry.register_id = 0 if name is None else reg_id(name)
    if index is not None:
        e.register_entry.index.index = index
    if data is not None:
        e.register_entry.data.CopyFrom(data)
    return e


def raw(data):
    d = p4data_pb2.P4Data()
    d.bitstring = data
    return d


def struct(*members):
    d = p4data_pb2.P4Data()
    for m in members:
        d.struct.members.add().CopyFrom(m)
    return d


def show(data):
    if data.WhichOneof("data") == "struct":
        return "{" + ", ".join(show(m) for m in data.struct.members) + "}"
    return data.bitstring.hex()


def read(how, name, index=None):
    try:
        names = {r.preamble.id: r.preamble.name for r in sh.context.p4info.registers}
        for reply in sh.client.read_one(entity(name, index)):
            for e in reply.entities:
                r = e.register_entry
                print("reg", how, names[r.register_id], r.index.index, show(r.data), flush=True)
    except Exception as error:  # the status code and message are the test's
        print("fail", how, " ".join(str(error).split()), flush=True)


def write(how, name, index, data):
    update = p4runtime_pb2.Update()
    update.type = p4runtime_pb2.Update.MODIFY
    update.entity.CopyFrom(entity(name, index, data))
    try:
        sh.client.write_update(update)
        print("ok  ", how, flush=True)
    except Exception as error:
        print("fail", how, " ".join(str(error).split()), flush=True)


def cell(a, b, c, d):
    return struct(raw(a), raw(b), raw(c), raw(d))


def p4id(kind, name):
    for item in getattr(sh.context.p4info, kind):
        if item.preamble.name == name:
            return item
    raise KeyError(name)


def sign_entry(a, e, v, w):
    """An In.signs entry: keys a and e, In.set_b(v, w), each given as bytes."""
    table = p4id("tables", "In.signs")
    entry = p4runtime_pb2.TableEntry(table_id=table.preamble.id)
    for field, value in zip(table.match_fields, (a, e)):
        m = entry.match.add()
        m.field_id = field.id
        m.exact.value = value
    action = p4id("actions", "In.set_b")
    entry.action.action.action_id = action.preamble.id
    for param, value in zip(action.params, (v, w)):
        p = entry.action.action.params.add()
        p.param_id = param.id
        p.value = value
    return entry


def insert(how, entry):
    update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
    update.entity.table_entry.CopyFrom(entry)
    try:
        sh.client.write_update(update)
        print("ok  ", how, flush=True)
    except Exception as error:
        print("fail", how, " ".join(str(error).split()), flush=True)


def read_entries(how):
    e = p4runtime_pb2.Entity()
    e.table_entry.table_id = p4id("tables", "In.signs").preamble.id
    for reply in sh.client.read_one(e):
        for found in reply.entities:
            t = found.table_entry
            keys = " ".join(m.exact.value.hex() for m in t.match)
            params = " ".join(p.value.hex() for p in t.action.action.params)
            print("entry", how, keys, "->", params, flush=True)


def tables():
    """Int keys and parameters: -3, -2 (sign-extended) -> -300, -5."""
    insert("signs", sign_entry(b"\xfd", b"\xff\xfe", b"\xfe\xd4", b"\xfb"))
    insert("signs-high", sign_entry(b"\x7f", b"\x07\xff", b"\x7f\xff", b"\x00\x80"))
    insert("param-over", sign_entry(b"\x01", b"\x01", b"\x01\x80\x00", b"\x00"))
    insert("key-over", sign_entry(b"\x00\x80", b"\x01", b"\x00", b"\x00"))
    read_entries("signs")


def setup():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    read("initial", "In.seeded", 1)
    # -128, -32768, -2^32; 127, 32767, 2^32-1; -1 padded and not.
    write("lowest", "In.cells", 1, cell(b"\x80", b"\x80\x00", b"\xff\x00\x00\x00\x00", b"\xff"))
    write("highest", "In.cells", 2, cell(b"\x7f", b"\x7f\xff", b"\x00\xff\xff\xff\xff", b"\x00"))
    write("minus-one", "In.cells", 3, cell(b"\xff", b"\xff\xff\xff", b"\xff", b"\x01"))
    read("cells", "In.cells")
    write("small", "In.small", 0, raw(b"\xff\xff"))
    write("big", "In.big", 1, raw(b"\xff\x00\x00\x00\x00"))
    read("small", "In.small", 0)
    read("big", "In.big", 1)
    write("a-over", "In.cells", 0, cell(b"\x00\x80", b"\x00", b"\x00", b"\x00"))
    write("c-over", "In.cells", 0, cell(b"\x00", b"\x00", b"\x01\x00\x00\x00\x00", b"\x00"))
    write("c-under", "In.cells", None, cell(b"\x00", b"\x00", b"\xfe\xff\xff\xff\xff", b"\x00"))
    write("b-under", "In.cells", 0, cell(b"\x00", b"\xff\x7f\xff", b"\x00", b"\x00"))
    read("unchanged", "In.cells", 0)
    read("by-key", "In.by_key", 0)
    write("by-wide", "In.by_wide", 0, raw(b"\x01"))
    read("every", None)
    tables()


def after():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10))
    read("packet", "In.cells", 0)
    print("ok   read", flush=True)


try:
    setup() if PHASE == "setup" else after()
finally:
    # Not sys.exit: p4runtime-shell's stream thread would keep the process alive.
    os._exit(0)
