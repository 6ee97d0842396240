"""Per-entry idle timeouts over P4Runtime with p4runtime-shell, run by
crates/cli/tests/p4runtime_idle.rs against tests/stf/psa_idle_timeout.p4
(PSA; `In.flows` is NOTIFY_CONTROL, `In.marks` NO_TIMEOUT):

    idle_entry.py ADDRESS P4INFO OBJECT

Inserts three entries of `In.flows` with their own idle_timeout_ns (300 ms,
an hour, none), reads them back with time_since_last_hit, checks an
idle_timeout_ns on `In.marks` is refused, then waits for the notification
of the 300 ms entry alone and prints `notified`. After a line on stdin (the
test hits that entry), its time since the last hit is shorter, and it is
reported again once idle again. A MODIFY gives the hour-long entry 1 ms:
it is reported in turn.
"""
import os
import sys
import traceback

from p4runtime_sh import shell as sh
from p4runtime_sh.p4runtime import P4RuntimeWriteException

ADDRESS, P4INFO, OBJECT = sys.argv[1:4]
MS = 1000 * 1000
HOUR = 3600 * 1000 * MS


def check(what, condition):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        # Not sys.exit: p4runtime-shell's stream thread would keep the
        # process alive.
        os._exit(1)


def flow(dst, timeout_ns, port="2"):
    entry = sh.TableEntry("In.flows")(action="In.forward")
    entry.match["hdr.ethernet.dst"] = dst
    entry.action["port"] = port
    entry.idle_timeout_ns = timeout_ns
    return entry


def read_back(dst):
    query = sh.TableEntry("In.flows")
    query.match["hdr.ethernet.dst"] = dst
    query.time_since_last_hit.elapsed_ns = 0
    found = list(query.read())
    check("one entry read for " + dst, len(found) == 1)
    return found[0]


def notified_keys(timeout):
    message = sh.client.get_stream_packet("idle_timeout_notification",
                                          timeout=timeout)
    if message is None:
        return []
    return [int.from_bytes(e.match[0].exact.value, "big")
            for e in message.idle_timeout_notification.table_entry]


def main():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    flow("00:00:00:00:00:02", 300 * MS).insert()
    flow("00:00:00:00:00:03", HOUR, port="3").insert()
    flow("00:00:00:00:00:04", 0, port="4").insert()
    mark = sh.TableEntry("In.marks")(action="In.mark")
    mark.match["hdr.ethernet.src"] = "00:00:00:00:00:01"
    mark.action["kind"] = "7"
    mark.idle_timeout_ns = MS
    try:
        mark.insert()
        check("an idle_timeout_ns on a NO_TIMEOUT table is refused", False)
    except P4RuntimeWriteException as error:
        check("an idle_timeout_ns on a NO_TIMEOUT table is refused",
              "NOTIFY_CONTROL" in str(error))
    for dst, timeout in [("00:00:00:00:00:02", 300 * MS),
                         ("00:00:00:00:00:03", HOUR),
                         ("00:00:00:00:00:04", 0)]:
        entry = read_back(dst)
        check("idle_timeout_ns of %s reads back" % dst,
              entry.idle_timeout_ns == timeout)
        elapsed = entry.time_since_last_hit.elapsed_ns
        check("its timer started at the insert", 0 < elapsed < 60 * 1000 * MS)

    check("the 300 ms entry alone is reported",
          notified_keys(5) == [2] and notified_keys(1) == [])
    before = read_back("00:00:00:00:00:02").time_since_last_hit.elapsed_ns
    print("notified", flush=True)
    sys.stdin.readline()
    after = read_back("00:00:00:00:00:02").time_since_last_hit.elapsed_ns
    check("a hit restarted its timer", after < before)
    check("idle again, it is reported again", notified_keys(5) == [2])

    flow("00:00:00:00:00:03", MS, port="3").modify()
    check("a MODIFY gives an entry its new timeout",
          read_back("00:00:00:00:00:03").idle_timeout_ns == MS)
    check("and it is reported in turn", notified_keys(5) == [3])


try:
    main()
except Exception:
    traceback.print_exc()
    # Not sys.exit: p4runtime-shell's stream thread would keep the process
    # alive.
    os._exit(1)
os._exit(0)
