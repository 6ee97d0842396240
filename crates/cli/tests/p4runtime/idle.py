"""Idle-timeout notifications over P4Runtime with p4runtime-shell, run by
crates/cli/tests/p4runtime_idle.rs against tests/stf/pna_idle_sweep.p4:

    idle.py ADDRESS P4INFO OBJECT

Sets the pipeline, inserts an entry of the NOTIFY_CONTROL table
`MainControl.reported` and prints `inserted`; then waits for a line on
stdin (the test hits the entry, which starts its timer, after setting
expire-time profile 0 to 100 ms), then for the IdleTimeoutNotification
naming the entry, and checks no second one comes while it stays idle.
"""
import os
import sys
import traceback

from p4runtime_sh import shell as sh
from p4runtime_sh.context import P4Type

ADDRESS, P4INFO, OBJECT = sys.argv[1:4]


def check(what, condition):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        # Not sys.exit: p4runtime-shell's stream thread would keep the
        # process alive.
        os._exit(1)


def main():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    table_id = sh.context.get_obj_id(P4Type.table, "MainControl.reported")
    entry = sh.TableEntry("MainControl.reported")(action="MainControl.to")
    entry.match["hdr.ethernet.dst"] = "00:00:00:00:00:01"
    entry.action["port"] = "1"
    entry.insert()
    print("inserted", flush=True)
    sys.stdin.readline()

    message = sh.client.get_stream_packet("idle_timeout_notification", timeout=5)
    check("an idle-timeout notification came", message is not None)
    entries = message.idle_timeout_notification.table_entry
    check("it names one entry", len(entries) == 1)
    check("of MainControl.reported", entries[0].table_id == table_id)
    key = entries[0].match[0].exact.value
    check("whose key is 00:00:00:00:00:01", int.from_bytes(key, "big") == 1)
    check("with a timestamp", message.idle_timeout_notification.timestamp > 0)
    again = sh.client.get_stream_packet("idle_timeout_notification", timeout=2)
    check("no second notification while it stays idle", again is None)


try:
    main()
except Exception:
    traceback.print_exc()
    # Not sys.exit: p4runtime-shell's stream thread would keep the process
    # alive.
    os._exit(1)
os._exit(0)
