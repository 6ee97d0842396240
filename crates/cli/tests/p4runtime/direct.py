"""Direct counters over P4Runtime with p4runtime-shell, run by
crates/cli/tests/p4runtime_direct.rs against
tests/externs/v1model_direct_counters.p4:

    direct.py ADDRESS P4INFO OBJECT insert|read

insert: sets the pipeline and inserts two entries of MyIngress.first;
read: prints the direct counter data of every entry (a wildcard read)
and of the entry with key 2 (a read by key), one `direct` line each.
"""
import os
import sys

from p4runtime_sh import shell as sh

ADDRESS, P4INFO, OBJECT, PHASE = sys.argv[1:5]


def entry(key, action, port):
    te = sh.TableEntry("MyIngress.first")(action=action)
    te.match["hdr.op.first"] = str(key)
    te.action["port"] = str(port)
    te.insert()
    print("ok   entry", key, flush=True)


def show(how, counts):
    for c in counts:
        key = c.table_entry.match["hdr.op.first"]
        print("direct", how, " ".join(str(key).split()), "packets", c.packet_count,
              "bytes", c.byte_count, flush=True)


if PHASE == "insert":
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    entry(1, "MyIngress.to_port", 2)
    entry(2, "MyIngress.to_port_counting", 3)
else:
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10))
    show("all", sh.DirectCounterEntry("MyIngress.first_hits").read())
    keyed = sh.DirectCounterEntry("MyIngress.first_hits")
    keyed.table_entry.match["hdr.op.first"] = "2"
    show("key", keyed.read())
    print("ok   read", flush=True)
# Not sys.exit: p4runtime-shell's stream thread would keep the process alive.
os._exit(0)
