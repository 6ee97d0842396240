"""Action profile members and groups over P4Runtime with p4runtime-shell,
run by crates/cli/tests/p4runtime_profile.rs against
tests/profile/v1_selector.p4:

    profiles.py ADDRESS P4INFO OBJECT

Prints `ok` or `ERR` and the error per step, then each entry of
`Ig.by_dst` read back.
"""
import os
import sys

from p4.v1 import p4runtime_pb2
from p4runtime_sh import shell as sh

ADDRESS, P4INFO, OBJECT = sys.argv[1:4]


def step(what, action):
    try:
        action()
        print("ok  ", what, flush=True)
    except Exception as e:  # the error's text is what the test checks
        print("ERR ", what, " ".join(str(e).split())[:300], flush=True)


def member(member_id, port):
    m = sh.ActionProfileMember("Ig.spread")(member_id=member_id, action="Ig.fwd")
    m.action["port"] = str(port)
    m.insert()


def group():
    g = sh.ActionProfileGroup("Ig.spread")(group_id=5)
    g.add(1, weight=2).add(2)
    g.insert()


def entry(dst, **reference):
    te = sh.TableEntry("Ig.by_dst")()
    te.match["hdr.eth.dst"] = dst
    for field, value in reference.items():
        setattr(te, field, value)
    te.insert()


def delete_member():
    sh.ActionProfileMember("Ig.spread")(member_id=1).delete()


def unused_group():
    g = sh.ActionProfileGroup("Ig.spread")(group_id=7)
    g.add(1)
    g.insert()


def rollback_batch():
    """One ROLLBACK_ON_ERROR request inserting, modifying and deleting
    members and groups, whose last update (member 2 again) fails: none of
    it may stay."""
    new = sh.ActionProfileMember("Ig.spread")(member_id=3, action="Ig.fwd")
    new.action["port"] = "3"
    changed = sh.ActionProfileMember("Ig.spread")(member_id=2, action="Ig.fwd")
    changed.action["port"] = "9"
    unused = sh.ActionProfileMember("Ig.spread")(member_id=4)
    regrouped = sh.ActionProfileGroup("Ig.spread")(group_id=5)
    regrouped.add(2)
    extra = sh.ActionProfileGroup("Ig.spread")(group_id=6)
    extra.add(1)
    gone = sh.ActionProfileGroup("Ig.spread")(group_id=7)
    update = p4runtime_pb2.Update
    request = p4runtime_pb2.WriteRequest(atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    for kind, entity in ((update.INSERT, new), (update.MODIFY, changed), (update.DELETE, unused),
                         (update.MODIFY, regrouped), (update.INSERT, extra),
                         (update.DELETE, gone), (update.INSERT, changed)):
        one = request.updates.add()
        one.type = kind
        getattr(one.entity, entity._entity_type.name).CopyFrom(entity.msg())
    sh.client.write(request)


sh.setup(device_id=1, grpc_addr=ADDRESS, election_id=(0, 10),
         config=sh.FwdPipeConfig(P4INFO, OBJECT))
step("member 1", lambda: member(1, 1))
step("member 2", lambda: member(2, 2))
step("member 2 again", lambda: member(2, 3))
step("group 5", group)
step("entry to member 1", lambda: entry("0x0a", member_id=1))
step("entry to group 5", lambda: entry("0x0b", group_id=5))
step("delete member 1", delete_member)
step("member 4", lambda: member(4, 4))
step("group 7", unused_group)
step("rollback batch", rollback_batch)
for te in sh.TableEntry("Ig.by_dst").read():
    print("read", " ".join(str(te).split()), flush=True)
# Not sys.exit: p4runtime-shell's stream thread would keep the process alive.
os._exit(0)
