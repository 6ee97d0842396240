"""Idle-timeout notifications of lpm and ternary entries over P4Runtime
with p4runtime-shell, run by crates/cli/tests/p4runtime_idle.rs against
tests/idle_kinds/tables.p4 (`In.by_prefix` lpm; `In.by_mask` ternary and
exact; both NOTIFY_CONTROL):

    idle_rules.py ADDRESS P4INFO OBJECT

Inserts an lpm entry and two ternary rules with 200 ms timeouts and a
ternary rule with an hour's, deletes one 200 ms rule at once, reads the
others back (one, and the whole table), and checks the notifications: the two 200 ms entries left,
each with its table, match, priority and idle_timeout_ns and no action,
once. Prints `notified`; after a line on stdin (the test hits the
ternary rule), that rule alone is reported again. A MODIFY gives the
hour-long rule 1 ms: it is reported in turn, with its new timeout.
"""
import os
import sys
import traceback

from p4runtime_sh import shell as sh

ADDRESS, P4INFO, OBJECT = sys.argv[1:4]
MS = 1000 * 1000
HOUR = 3600 * 1000 * MS


def check(what, condition, seen=None):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        print("     seen: %r" % (seen,), flush=True)
        # Not sys.exit: p4runtime-shell's stream thread would keep the
        # process alive.
        os._exit(1)


def rule(a, mask, b, priority, timeout_ns):
    entry = sh.TableEntry("In.by_mask")(action="In.set2")
    entry.match["hdr.h.a"] = "%#x&&&%#x" % (a, mask)
    entry.match["hdr.h.b"] = str(b)
    entry.priority = priority
    entry.action["v"] = "1"
    entry.idle_timeout_ns = timeout_ns
    return entry


def prefix(timeout_ns):
    entry = sh.TableEntry("In.by_prefix")(action="In.set1")
    entry.match["hdr.h.addr"] = "10.0.0.0/8"
    entry.action["v"] = "1"
    entry.idle_timeout_ns = timeout_ns
    return entry


def number(data):
    return int.from_bytes(data, "big")


def field(match):
    kind = match.WhichOneof("field_match_type")
    if kind == "ternary":
        return ("ternary", number(match.ternary.value), number(match.ternary.mask))
    if kind == "lpm":
        return ("lpm", number(match.lpm.value), match.lpm.prefix_len)
    return (kind, number(match.exact.value))


def described(entry):
    """An entry of a notification as (table, match, priority, timeout,
    whether it carries an action)."""
    table = sh.context.get_name_from_id(entry.table_id)
    match = tuple(sorted(field(m) for m in entry.match))
    return (table, match, entry.priority, entry.idle_timeout_ns,
            entry.HasField("action"))


def notified(first_wait):
    """Every entry notified until no notification comes for 1.5 s (three
    sweeps of the server), waiting `first_wait` s for the first."""
    found = []
    wait = first_wait
    while True:
        message = sh.client.get_stream_packet("idle_timeout_notification",
                                              timeout=wait)
        if message is None:
            return sorted(found)
        found.extend(described(e)
                     for e in message.idle_timeout_notification.table_entry)
        wait = 1.5


def rule_read(a, mask, b, priority):
    query = sh.TableEntry("In.by_mask")
    query.match["hdr.h.a"] = "%#x&&&%#x" % (a, mask)
    query.match["hdr.h.b"] = str(b)
    query.priority = priority
    query.time_since_last_hit.elapsed_ns = 0
    found = list(query.read())
    check("one rule read back", len(found) == 1, found)
    return found[0]


RULE = ("In.by_mask", (("exact", 1), ("ternary", 0x1200, 0xff00)), 10,
        200 * MS, False)
PREFIX = ("In.by_prefix", (("lpm", 0x0a000000, 8),), 0, 200 * MS, False)
LONG = ("In.by_mask", (("exact", 1), ("ternary", 0x1234, 0xffff)), 20,
        MS, False)


def main():
    sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
             config=sh.FwdPipeConfig(P4INFO, OBJECT))
    rule(0x1200, 0xff00, 1, 10, 200 * MS).insert()
    rule(0x1234, 0xffff, 1, 20, HOUR).insert()
    rule(0x5600, 0xff00, 2, 30, 200 * MS).insert()
    prefix(200 * MS).insert()
    rule(0x5600, 0xff00, 2, 30, 200 * MS).delete()
    short = rule_read(0x1200, 0xff00, 1, 10)
    check("a rule's idle_timeout_ns reads back",
          short.idle_timeout_ns == 200 * MS, short)
    check("its timer started at the insert",
          0 < short.time_since_last_hit.elapsed_ns < 60 * 1000 * MS, short)

    query = sh.TableEntry("In.by_prefix")
    query.match["hdr.h.addr"] = "10.0.0.0/8"
    query.time_since_last_hit.elapsed_ns = 0
    found = [(e.idle_timeout_ns, e.time_since_last_hit.elapsed_ns > 0)
             for e in query.read()]
    check("a prefix's timer reads back", found == [(200 * MS, True)], found)
    query = sh.TableEntry("In.by_mask")
    query.time_since_last_hit.elapsed_ns = 0
    every = sorted((e.priority, e.idle_timeout_ns,
                    e.time_since_last_hit.elapsed_ns > 0)
                   for e in query.read())
    check("a read of the whole table gives each rule its timer",
          every == [(10, 200 * MS, True), (20, HOUR, True)], every)

    seen = notified(5)
    check("the 200 ms rule and prefix are reported, once, with their "
          "match, priority and idle_timeout_ns, not the deleted rule",
          seen == sorted([RULE, PREFIX]), seen)
    print("notified", flush=True)
    sys.stdin.readline()
    seen = notified(5)
    check("a hit rule is reported again, alone", seen == [RULE], seen)

    rule(0x1234, 0xffff, 1, 20, MS).modify()
    check("a MODIFY gives a rule its new timeout",
          rule_read(0x1234, 0xffff, 1, 20).idle_timeout_ns == MS)
    seen = notified(5)
    check("and it is reported in turn, with that timeout", seen == [LONG],
          seen)


try:
    main()
except Exception:
    traceback.print_exc()
    # Not sys.exit: p4runtime-shell's stream thread would keep the process
    # alive.
    os._exit(1)
os._exit(0)
