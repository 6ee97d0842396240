"""Drives `p4bpf p4runtime serve` as a P4 user would: with p4runtime-shell,
plus raw P4Runtime messages for what the shell will not send (bad input, a
second controller). Run by crates/cli/tests/p4runtime.rs, one phase at a
time:

    session.py ADDRESS P4INFO OBJECT program|counters|errors

Prints what it checks; exits non-zero on the first failed check.
"""
import os
import sys
import traceback
import threading
import time

import grpc
from google.rpc import status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from p4runtime_sh import shell as sh
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

ADDRESS, P4INFO, OBJECT, PHASE = sys.argv[1:5]
DEVICE = 1
PRIMARY = (0, 10)


def check(what, condition):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        # Not sys.exit: p4runtime-shell's stream thread would keep the
        # process alive.
        os._exit(1)


def connect(set_pipeline):
    config = sh.FwdPipeConfig(P4INFO, OBJECT) if set_pipeline else None
    sh.setup(device_id=DEVICE, grpc_addr=ADDRESS, election_id=PRIMARY, config=config)


def program():
    connect(set_pipeline=True)
    station = sh.TableEntry("stations")(action="send")
    station.match["hdr.ethernet.dst"] = "02:00:00:00:00:01"
    station.action["port"] = "7"
    station.insert()
    route = sh.TableEntry("routes")(action="send")
    route.match["hdr.ipv4.dst_addr"] = "10.1.0.0/16"
    route.action["port"] = "3"
    route.insert()
    rule = sh.TableEntry("acl")(action="drop")
    rule.match["hdr.ipv4.src_addr"] = "192.168.0.0&&&255.255.0.0"
    rule.match["hdr.ipv4.protocol"] = "17"
    rule.priority = 10
    rule.insert()

    stations = list(sh.TableEntry("stations").read())
    check("one station read back", len(stations) == 1)
    check("its port is 7", stations[0].action["port"].value == b"\x07")
    routes = list(sh.TableEntry("routes").read())
    check("one route read back, a /16",
          len(routes) == 1 and routes[0].match["hdr.ipv4.dst_addr"].lpm.prefix_len == 16)
    rules = list(sh.TableEntry("acl").read())
    check("one acl rule read back with priority 10",
          len(rules) == 1 and rules[0].priority == 10)
    every = []
    sh.TableEntry("stations").read(function=every.append)
    check("read with a callback sees it too", len(every) == 1)

    lower = Controller((0, 5))
    check("a controller with a lower election id is a backup",
          lower.arbitration_code == grpc.StatusCode.ALREADY_EXISTS.value[0])
    code = lower.write_station("02:00:00:00:00:02")
    check("its write is refused with PERMISSION_DENIED", code == grpc.StatusCode.PERMISSION_DENIED)
    with open(P4INFO) as text:
        info = text_format.Parse(text.read(), p4info_pb2.P4Info())
    with open(OBJECT, "rb") as f:
        check("and so is its pipeline config",
              lower.verify(info, f.read()) == grpc.StatusCode.PERMISSION_DENIED)
    check("and nothing was written", len(list(sh.TableEntry("stations").read())) == 1)

    ops = Controller((0, 2), role="ops")
    check("a controller of another role is its primary, whatever the ids of the default role",
          ops.arbitration_code == grpc.StatusCode.OK.value[0])
    check("it may write", ops.write_station("02:00:00:00:00:03") == grpc.StatusCode.OK)
    check("but not as the default role, whose primary it is not",
          ops.write_station("02:00:00:00:00:04", role="") == grpc.StatusCode.PERMISSION_DENIED)
    ops_backup = Controller((0, 1), role="ops")
    check("a lower election id in that role is a backup",
          ops_backup.arbitration_code == grpc.StatusCode.ALREADY_EXISTS.value[0])
    check("and may not write",
          ops_backup.write_station("02:00:00:00:00:05") == grpc.StatusCode.PERMISSION_DENIED)
    check("nor may the default role's backup write as `ops`",
          lower.write_station("02:00:00:00:00:06", role="ops") == grpc.StatusCode.PERMISSION_DENIED)
    ops.close()
    check("when the role's primary leaves, its backup takes over",
          eventually(lambda: ops_backup.write_station("02:00:00:00:00:03",
                                                      kind=p4runtime_pb2.Update.DELETE)
                     == grpc.StatusCode.OK))
    check("and only the default role's entry is left",
          len(list(sh.TableEntry("stations").read())) == 1)
    ops_backup.close()
    lower.close()
    sh.teardown()


def eventually(condition, seconds=10):
    """Whether `condition()` holds within `seconds` (the server hears of a
    closed stream a moment after the client closes it)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def counters():
    connect(set_pipeline=False)
    cells = list(sh.CounterEntry("arrivals").read())
    check("all 8 cells of the counter read", sorted(c.index for c in cells) == list(range(8)))
    first = next(c for c in cells if c.index == 0)
    print("arrivals[0] =", first.packet_count)
    check("cell 0 counted the test packets", first.packet_count >= 5)
    one = sh.CounterEntry("arrivals")
    one.index = 0
    check("cell 0 alone", [c.index for c in one.read()] == [0])
    sh.teardown()


class Controller:
    """A raw P4Runtime client: a stream with an election id, then writes."""

    def __init__(self, election_id, role=""):
        self.channel = grpc.insecure_channel(ADDRESS)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.election_id = election_id
        self.role = role
        self.closed = threading.Event()
        request = p4runtime_pb2.StreamMessageRequest()
        request.arbitration.device_id = DEVICE
        request.arbitration.election_id.high, request.arbitration.election_id.low = election_id
        if role:
            request.arbitration.role.name = role
        self.stream = self.stub.StreamChannel(self._requests(request))
        first = next(self.stream)
        self.arbitration_code = first.arbitration.status.code

    def _requests(self, first):
        # The stream stays open (this controller stays in the election)
        # until close() cancels it.
        yield first
        self.closed.wait()

    def write(self, updates, atomicity=p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR, role=None):
        request = p4runtime_pb2.WriteRequest(device_id=DEVICE, atomicity=atomicity,
                                             role=self.role if role is None else role)
        request.election_id.high, request.election_id.low = self.election_id
        request.updates.extend(updates)
        try:
            self.stub.Write(request)
            return grpc.StatusCode.OK, []
        except grpc.RpcError as error:
            return error.code(), update_codes(error)

    def write_station(self, mac, kind=p4runtime_pb2.Update.INSERT, role=None):
        code, _ = self.write([station_update(kind, mac, 1)], role=role)
        return code

    def verify(self, p4info, device_config):
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=DEVICE, action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY)
        request.election_id.high, request.election_id.low = self.election_id
        request.config.p4info.CopyFrom(p4info)
        request.config.p4_device_config = device_config
        try:
            self.stub.SetForwardingPipelineConfig(request)
            return grpc.StatusCode.OK
        except grpc.RpcError as error:
            return error.code()

    def read(self, entity):
        request = p4runtime_pb2.ReadRequest(device_id=DEVICE)
        request.entities.add().CopyFrom(entity)
        try:
            return grpc.StatusCode.OK, [e for r in self.stub.Read(request) for e in r.entities]
        except grpc.RpcError as error:
            return error.code(), []

    def close(self):
        self.closed.set()
        self.stream.cancel()
        self.channel.close()


def object_id(kind, alias):
    """The id of P4Info object `alias` (a table, an action) from the file."""
    with open(P4INFO) as text:
        info = text_format.Parse(text.read(), p4info_pb2.P4Info())
    return next(o.preamble.id for o in getattr(info, kind) if o.preamble.alias == alias)


def update_codes(error):
    """The per-update canonical codes from the status details."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            codes = []
            for detail in status.details:
                update_error = p4runtime_pb2.Error()
                detail.Unpack(update_error)
                codes.append(update_error.canonical_code)
            return codes
    return []


def station_update(kind, mac, port, port_bytes=None, table_id=None, field_id=None):
    update = p4runtime_pb2.Update(type=kind)
    entry = update.entity.table_entry
    entry.table_id = table_id if table_id is not None else object_id("tables", "stations")
    field = entry.match.add()
    field.field_id = field_id if field_id is not None else 1
    field.exact.value = bytes.fromhex(mac.replace(":", ""))
    action = entry.action.action
    action.action_id = object_id("actions", "send")
    param = action.params.add()
    param.param_id = 1
    param.value = port_bytes if port_bytes is not None else port.to_bytes(4, "big")
    return update


OK, NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT, OUT_OF_RANGE, UNIMPLEMENTED, ABORTED, PERMISSION_DENIED = (
    0, 5, 6, 3, 11, 12, 10, 7)


def stations_now(controller):
    entity = p4runtime_pb2.Entity()
    entity.table_entry.table_id = object_id("tables", "stations")
    code, found = controller.read(entity)
    return sorted(e.table_entry.match[0].exact.value.hex() for e in found)


def station_port(controller, mac):
    entity = p4runtime_pb2.Entity()
    entity.table_entry.table_id = object_id("tables", "stations")
    field = entity.table_entry.match.add()
    field.field_id = 1
    field.exact.value = bytes.fromhex(mac)
    _, found = controller.read(entity)
    params = [e.table_entry.action.action.params[0].value for e in found]
    return int.from_bytes(params[0], "big") if len(params) == 1 else None


def default_action(controller):
    entity = p4runtime_pb2.Entity()
    entity.table_entry.table_id = object_id("tables", "stations")
    entity.table_entry.is_default_action = True
    _, found = controller.read(entity)
    check("one default entry", len(found) == 1 and found[0].table_entry.is_default_action)
    return found[0].table_entry.action.action.action_id


def errors():
    primary = Controller(PRIMARY)
    for station in stations_now(primary):
        primary.write([station_update(p4runtime_pb2.Update.DELETE, station, 0)])
    INSERT, MODIFY, DELETE = (p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY,
                              p4runtime_pb2.Update.DELETE)
    a, b, c = "020000000a01", "020000000a02", "020000000a03"

    code, codes = primary.write([station_update(INSERT, a, 1), station_update(INSERT, a, 2)])
    check("duplicate insert: ALREADY_EXISTS for the second, OK for the first",
          code == grpc.StatusCode.UNKNOWN and codes == [OK, ALREADY_EXISTS])
    check("the first entry stays, once", stations_now(primary) == [a])

    code, codes = primary.write([station_update(DELETE, b, 1)])
    check("delete of a missing entry: NOT_FOUND", codes == [NOT_FOUND])
    code, codes = primary.write([station_update(MODIFY, b, 1)])
    check("modify of a missing entry: NOT_FOUND", codes == [NOT_FOUND])

    code, codes = primary.write([station_update(INSERT, b, 1, table_id=0x02abcdef)])
    check("unknown table id: NOT_FOUND", codes == [NOT_FOUND])
    code, codes = primary.write([station_update(INSERT, b, 1, field_id=9)])
    check("unknown match field id: INVALID_ARGUMENT", codes == [INVALID_ARGUMENT])
    code, codes = primary.write([station_update(INSERT, "01" + b, 1)])
    check("a 56-bit value for a 48-bit field: OUT_OF_RANGE", codes == [OUT_OF_RANGE])
    code, codes = primary.write([station_update(INSERT, b, 1, port_bytes=b"\x01" * 5)])
    check("a 40-bit value for a 32-bit parameter: OUT_OF_RANGE", codes == [OUT_OF_RANGE])
    check("none of them wrote anything", stations_now(primary) == [a])

    code, codes = primary.write(
        [station_update(INSERT, b, 1), station_update(INSERT, a, 1), station_update(INSERT, c, 1)],
        atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    check("ROLLBACK_ON_ERROR: the duplicate fails, the others are undone",
          codes == [ABORTED, ALREADY_EXISTS, ABORTED] and stations_now(primary) == [a])
    code, codes = primary.write(
        [station_update(INSERT, b, 1), station_update(INSERT, a, 1), station_update(INSERT, c, 1)])
    check("CONTINUE_ON_ERROR: the others take",
          codes == [OK, ALREADY_EXISTS, OK] and stations_now(primary) == [a, b, c])
    code, codes = primary.write([station_update(MODIFY, a, 9), station_update(DELETE, b, 0),
                                 station_update(INSERT, c, 1)],
                                atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    check("ROLLBACK_ON_ERROR undoes a modify and a delete",
          codes == [ABORTED, ABORTED, ALREADY_EXISTS] and stations_now(primary) == [a, b, c]
          and station_port(primary, a) == 1)
    code, codes = primary.write([station_update(MODIFY, a, 9), station_update(DELETE, b, 0)])
    check("MODIFY and DELETE take", code == grpc.StatusCode.OK and station_port(primary, a) == 9
          and stations_now(primary) == [a, c])
    primary.write([station_update(INSERT, b, 1)])
    default = p4runtime_pb2.Update(type=MODIFY)
    default.entity.table_entry.table_id = object_id("tables", "stations")
    default.entity.table_entry.is_default_action = True
    default.entity.table_entry.action.action.action_id = object_id("actions", "drop")
    check("the default entry reads back without an action while the program's own",
          default_action(primary) == 0)
    code, _ = primary.write([default])
    check("the default entry takes MODIFY", code == grpc.StatusCode.OK)
    check("and reads back as drop", default_action(primary) == object_id("actions", "drop"))
    default.type = INSERT
    code, codes = primary.write([default])
    check("but not INSERT", codes == [INVALID_ARGUMENT])
    atomic, d = p4runtime_pb2.WriteRequest.DATAPLANE_ATOMIC, "020000000a04"
    code, _ = primary.write([station_update(INSERT, d, 4)], atomicity=atomic)
    check("DATAPLANE_ATOMIC: one hash table entry takes",
          code == grpc.StatusCode.OK and station_port(primary, d) == 4)
    code, _ = primary.write([station_update(MODIFY, d, 5)], atomicity=atomic)
    check("DATAPLANE_ATOMIC: one modify takes",
          code == grpc.StatusCode.OK and station_port(primary, d) == 5)
    code, codes = primary.write([station_update(INSERT, d, 6)], atomicity=atomic)
    check("DATAPLANE_ATOMIC: a duplicate gets ALREADY_EXISTS, the entry is unchanged",
          codes == [ALREADY_EXISTS] and station_port(primary, d) == 5)
    code, _ = primary.write([station_update(DELETE, d, 0)], atomicity=atomic)
    check("DATAPLANE_ATOMIC: one delete takes",
          code == grpc.StatusCode.OK and stations_now(primary) == [a, b, c])
    code, _ = primary.write([station_update(INSERT, d, 1), station_update(DELETE, a, 0)],
                            atomicity=atomic)
    check("DATAPLANE_ATOMIC of two updates: UNIMPLEMENTED, nothing written",
          code == grpc.StatusCode.UNIMPLEMENTED and stations_now(primary) == [a, b, c])
    default.type = MODIFY
    code, _ = primary.write([default], atomicity=atomic)
    check("DATAPLANE_ATOMIC of a default action (an array slot): UNIMPLEMENTED",
          code == grpc.StatusCode.UNIMPLEMENTED)

    code, codes = primary.write([p4runtime_pb2.Update(type=INSERT)])
    check("an update without an entity: INVALID_ARGUMENT", codes == [INVALID_ARGUMENT])
    register = p4runtime_pb2.Update(type=MODIFY)
    register.entity.register_entry.register_id = 1
    code, codes = primary.write([register])
    check("a register id P4Info does not have: NOT_FOUND", codes == [NOT_FOUND])

    request = p4runtime_pb2.WriteRequest(device_id=DEVICE + 1)
    request.election_id.high, request.election_id.low = PRIMARY
    try:
        primary.stub.Write(request)
        code = grpc.StatusCode.OK
    except grpc.RpcError as error:
        code = error.code()
    check("unknown device id: NOT_FOUND", code == grpc.StatusCode.NOT_FOUND)

    entity = p4runtime_pb2.Entity()
    entity.table_entry.table_id = 0x02abcdef
    check("reading an unknown table id: NOT_FOUND",
          primary.read(entity)[0] == grpc.StatusCode.NOT_FOUND)

    with open(P4INFO) as text:
        info = text_format.Parse(text.read(), p4info_pb2.P4Info())
    with open(OBJECT, "rb") as f:
        good_object = f.read()
    check("VERIFY of the right pair: OK", primary.verify(info, good_object) == grpc.StatusCode.OK)
    check("VERIFY of a config that is no object: INVALID_ARGUMENT",
          primary.verify(info, b"not an ELF object") == grpc.StatusCode.INVALID_ARGUMENT)
    info.tables[0].preamble.name = "RouterIngress.no_such_table"
    info.tables[1].match_fields[0].name = "hdr.ipv4.no_such_field"
    check("VERIFY of a P4Info for another program: INVALID_ARGUMENT",
          primary.verify(info, good_object) == grpc.StatusCode.INVALID_ARGUMENT)

    garbage = primary.channel.unary_unary("/p4.v1.P4Runtime/Write")
    try:
        garbage(b"\xff\xff\xff\xff")
        code = grpc.StatusCode.OK
    except grpc.RpcError as error:
        code = error.code()
    print("malformed message answered", code)
    check("a malformed message is refused (INTERNAL: undecodable)", code == grpc.StatusCode.INTERNAL)
    check("the table is as the good updates left it", stations_now(primary) == [a, b, c])
    primary.close()


def tls():
    """The server runs with --tls-ca: only clients with a certificate the CA
    signed get in. Certificates from certs.sh, in the current folder."""
    def capabilities(channel):
        try:
            stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
            return stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=10).p4runtime_api_version
        except grpc.RpcError as error:
            return error.code()
        finally:
            channel.close()

    def read(name):
        with open(name, "rb") as f:
            return f.read()

    trusted = grpc.ssl_channel_credentials(read("ca.pem"), read("client.key"), read("client.pem"))
    version = capabilities(grpc.secure_channel(ADDRESS, trusted))
    check(f"a client with a certificate gets in (P4Runtime {version})", version == "1.4.1")
    anonymous = grpc.ssl_channel_credentials(read("ca.pem"))
    check("a client without a certificate does not",
          capabilities(grpc.secure_channel(ADDRESS, anonymous)) == grpc.StatusCode.UNAVAILABLE)
    check("a plain-text client does not",
          capabilities(grpc.insecure_channel(ADDRESS)) == grpc.StatusCode.UNAVAILABLE)


try:
    {"program": program, "counters": counters, "errors": errors, "tls": tls}[PHASE]()
except Exception:  # noqa: BLE001 - any failure ends the phase, loudly
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(1)
