"""RegisterEntry over P4Runtime, run by crates/cli/tests/p4reg_p4runtime.rs
against tests/p4reg_p4runtime/registers.p4:

    registers.py ADDRESS P4INFO OBJECT setup|after

setup: sets the pipeline, reads never-written cells (initial values),
writes one cell and every cell, reads one and all, writes registers
without an initial value (bit<8>, int<8>, int<12>), tries bad updates and
reads, and ROLLBACK_ON_ERROR batches whose register MODIFY must be undone,
printing one line each; after: reads the cells a packet wrote.
p4runtime-shell has no register entity: messages are built by hand and
sent with its client.
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


def reg_name(rid):
    for r in sh.context.p4info.registers:
        if r.preamble.id == rid:
            return r.preamble.name
    return str(rid)


def entity(name, index=None, data=None, rid=None):
    e = p4runtime_pb2.Entity()
    e.register_entry.register_id = reg_id(name) if rid is None else rid
    if index is not None:
        e.register_entry.index.index = index
    if data is not None:
        e.register_entry.data.CopyFrom(data)
    return e


def bits(value):
    d = p4data_pb2.P4Data()
    d.bitstring = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    return d


def raw(data):
    d = p4data_pb2.P4Data()
    d.bitstring = data
    return d


def struct(*members):
    d = p4data_pb2.P4Data()
    for m in members:
        d.struct.members.add().CopyFrom(m)
    return d


def flag(value):
    d = p4data_pb2.P4Data()
    d.bool = value
    return d


def show(data):
    kind = data.WhichOneof("data")
    if kind == "bitstring":
        return hex(int.from_bytes(data.bitstring, "big"))
    if kind == "bool":
        return str(data.bool)
    if kind == "struct":
        return "{" + ", ".join(show(m) for m in data.struct.members) + "}"
    return "?" + str(kind)


def read(how, name=None, index=None, rid=None):
    try:
        for reply in sh.client.read_one(entity(name, index, rid=rid)):
            for e in reply.entities:
                r = e.register_entry
                print("reg", how, reg_name(r.register_id),
                      r.index.index, show(r.data), flush=True)
    except Exception as error:  # the status code and message are the test's
        print("fail", how, " ".join(str(error).split()), flush=True)


def write(how, name, index, data, kind=p4runtime_pb2.Update.MODIFY, rid=None):
    update = p4runtime_pb2.Update()
    update.type = kind
    update.entity.CopyFrom(entity(name, index, data, rid=rid))
    try:
        sh.client.write_update(update)
        print("ok  ", how, flush=True)
    except Exception as error:
        print("fail", how, " ".join(str(error).split()), flush=True)


def batch(how, *updates):
    """One ROLLBACK_ON_ERROR request of (name, index, data) MODIFYs."""
    request = p4runtime_pb2.WriteRequest(atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    for name, index, data in updates:
        one = request.updates.add()
        one.type = p4runtime_pb2.Update.MODIFY
        one.entity.CopyFrom(entity(name, index, data))
    try:
        sh.client.write(request)
        print("ok  ", how, flush=True)
    except Exception as error:
        print("fail", how, " ".join(str(error).split()), flush=True)


def plain():
    """Registers without an initial value: bit<8> and two's-complement ints."""
    read("initial", "In.bare", 1)
    write("bare", "In.bare", 0, bits(0xab))
    read("bare", "In.bare", 0)
    write("int8", "In.deltas", 1, raw(b"\xfe"))
    read("int8", "In.deltas", 1)
    write("int8-padded", "In.deltas", 2, raw(b"\xff\xff\x80"))
    read("int8-padded", "In.deltas", 2)
    write("int8-positive", "In.deltas", 0, raw(b"\x00\x7f"))
    read("int8-positive", "In.deltas", 0)
    write("int8-over", "In.deltas", 0, raw(b"\x00\x80"))
    write("int8-under", "In.deltas", 0, raw(b"\xff\x7f"))
    write("int12", "In.offsets", 1, raw(b"\xf8\x00"))
    read("int12", "In.offsets", 1)
    write("int12-small", "In.offsets", 2, raw(b"\x07\xff"))
    read("int12-small", "In.offsets", 2)
    write("int-field", "In.pairs", 0, struct(raw(b"\xff"), bits(1)))


def rollback():
    """A register MODIFY, then a failing update: the cell stays as it was."""
    batch("rollback-one", ("In.totals", 1, bits(0x1111)), ("In.totals", 9, bits(1)))
    read("rollback-one", "In.totals", 1)
    batch("rollback-all", ("In.bare", None, bits(0x77)), ("In.deltas", 3, raw(b"\xfc")),
          ("In.cells", 0, bits(1)))
    read("rollback-all", "In.bare")
    read("rollback-all", "In.deltas", 3)
    batch("applied", ("In.deltas", 3, raw(b"\x05")), ("In.totals", 1, bits(0x2222)))
    read("applied", "In.deltas", 3)
    read("applied", "In.totals", 1)


def cell(count, on, tag, small):
    return struct(bits(count), flag(on), struct(bits(tag), bits(small)))


def setup():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    read("initial", "In.totals", 5)
    read("initial", "In.cells", 3)
    write("one", "In.totals", 2, bits(0xbeef))
    read("one", "In.totals", 2)
    write("all", "In.cells", None, cell(0x1234, False, 0xff00000000000000ab, 9))
    write("one-cell", "In.cells", 1, cell(0x55, True, 0x42, 0))
    read("all", "In.cells")
    read("every", rid=0)
    write("wide", "In.totals", 0, bits(0x1ffff))
    write("range", "In.totals", 6, bits(1))
    write("shape", "In.cells", 0, bits(1))
    write("members", "In.cells", 0, struct(bits(1), flag(True)))
    write("insert", "In.totals", 0, bits(1), kind=p4runtime_pb2.Update.INSERT)
    write("delete", "In.totals", 0, bits(1), kind=p4runtime_pb2.Update.DELETE)
    write("id", None, 0, bits(1), rid=12345)
    plain()
    read("range", "In.cells", 4)
    read("id", rid=12345)
    read("after-errors", "In.totals", 0)
    rollback()


def after():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10))
    read("packet", "In.totals", 3)
    read("packet", "In.cells", 3)
    read("packet", "In.bare", 3)
    read("packet", "In.deltas", 3)
    read("packet", "In.offsets", 3)
    print("ok   read", flush=True)
try:
    setup() if PHASE == "setup" else after()
finally:
    # Not sys.exit: p4runtime-shell's stream thread would keep the process alive.
    os._exit(0)
