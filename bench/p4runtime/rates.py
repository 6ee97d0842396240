"""Insertion rates: 100K exact and 100K lpm entries through batched
P4Runtime writes (`p4bpf p4runtime serve`) and through `p4bpf table load`.
Needs root (BPF) and a python with grpcio and p4runtime (the venv the
P4Runtime test makes: target/tmp/p4runtime-venv). Run from the repository:

    target/tmp/p4runtime-venv/bin/python bench/p4runtime/rates.py target/release/p4bpf

With PERF_SERVER=FILE set, `perf record -g` samples the server into FILE
(where its time goes: bench/p4runtime/README.md).

Prints a Markdown table, best of 3 rounds: entries per second of wall
time, and per second of CPU time of the server or of `table load` (user +
system, from /proc and getrusage), which says more than wall time on a
machine shared with other builds. Requests are serialised before the clock
starts: the figures are the server's (transfer, decoding, checks, map
writes), not the Python client's protobuf encoding.
"""
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time

import grpc
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

P4BPF = os.path.abspath(sys.argv[1])
ENTRIES = 100_000
BATCH = 10_000
ROUNDS = 3
HERE = os.path.dirname(os.path.abspath(__file__))
PIPELINE = f"rates{os.getpid()}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def address(n):
    return f"{10 + (n >> 16)}.{(n >> 8) & 255}.{n & 255}.0"


def ip_bytes(n):
    return bytes([10 + (n >> 16), (n >> 8) & 255, n & 255, 0])


class Controller:
    def __init__(self, target, p4info, obj):
        self.channel = grpc.insecure_channel(
            target, options=[("grpc.max_send_message_length", 64 << 20)])
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.closed = threading.Event()
        first = p4runtime_pb2.StreamMessageRequest()
        first.arbitration.device_id = 1
        first.arbitration.election_id.low = 1
        self.stream = self.stub.StreamChannel(self._requests(first))
        next(self.stream)
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=1, action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        request.election_id.low = 1
        request.config.p4info.CopyFrom(p4info)
        request.config.p4_device_config = obj
        self.stub.SetForwardingPipelineConfig(request)
        self.raw_write = self.channel.unary_unary(
            "/p4.v1.P4Runtime/Write", request_serializer=None, response_deserializer=None)

    def _requests(self, first):
        yield first
        self.closed.wait()

    def close(self):
        self.closed.set()
        self.stream.cancel()
        self.channel.close()


def write_requests(p4info, table, kind):
    ids = {t.preamble.alias: t for t in p4info.tables}
    action = next(a for a in p4info.actions if a.preamble.alias == "send")
    table_id = ids[table].preamble.id
    requests = []
    for start in range(0, ENTRIES, BATCH):
        request = p4runtime_pb2.WriteRequest(device_id=1)
        request.election_id.low = 1
        for n in range(start, min(start + BATCH, ENTRIES)):
            update = request.updates.add()
            update.type = p4runtime_pb2.Update.INSERT
            entry = update.entity.table_entry
            entry.table_id = table_id
            field = entry.match.add()
            field.field_id = 1
            if kind == "exact":
                field.exact.value = ip_bytes(n)
            else:
                field.lpm.value = ip_bytes(n)
                field.lpm.prefix_len = 24
            entry.action.action.action_id = action.preamble.id
            param = entry.action.action.params.add()
            param.param_id = 1
            param.value = bytes([n % 64])
        requests.append(request.SerializeToString())
    return requests


def clear(table):
    subprocess.run([P4BPF, "table", "clear", PIPELINE, table], check=True, capture_output=True)


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def p4runtime_rate(controller, server_pid, p4info, table, kind):
    requests = write_requests(p4info, table, kind)
    best, best_cpu = 0.0, 0.0
    for _ in range(ROUNDS):
        clear(table)
        start, cpu = time.perf_counter(), cpu_seconds(server_pid)
        for request in requests:
            controller.raw_write(request)
        best = max(best, ENTRIES / (time.perf_counter() - start))
        best_cpu = max(best_cpu, ENTRIES / max(cpu_seconds(server_pid) - cpu, 0.01))
    return best, best_cpu


def table_load_rate(table, kind):
    field = "dst_addr" if kind == "exact" else "src_addr"
    suffix = "" if kind == "exact" else "/24"
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for n in range(ENTRIES):
            f.write(f"{table} {field}={address(n)}{suffix} send port={n % 64}\n")
        path = f.name
    best, best_cpu = 0.0, 0.0
    for _ in range(ROUNDS):
        clear(table)
        start, cpu = time.perf_counter(), children_cpu()
        subprocess.run([P4BPF, "table", "load", PIPELINE, path], check=True, capture_output=True)
        best = max(best, ENTRIES / (time.perf_counter() - start))
        best_cpu = max(best_cpu, ENTRIES / max(children_cpu() - cpu, 0.01))
    os.unlink(path)
    return best, best_cpu


def main():
    out = tempfile.mkdtemp()
    subprocess.run([P4BPF, "compile", os.path.join(HERE, "tables.p4"), "-o", out],
                   check=True, capture_output=True)
    with open(os.path.join(out, "tables.p4info.txtpb")) as f:
        p4info = text_format.Parse(f.read(), p4info_pb2.P4Info())
    with open(os.path.join(out, "tables.o"), "rb") as f:
        obj = f.read()
    target = f"127.0.0.1:{free_port()}"
    server = subprocess.Popen([P4BPF, "p4runtime", "serve", "--addr", target, "--pipeline", PIPELINE],
                              stderr=subprocess.DEVNULL)
    if os.environ.get("PERF_SERVER"):
        subprocess.Popen(["perf", "record", "-g", "-o", os.environ["PERF_SERVER"], "-p", str(server.pid)],
                         stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while True:
            try:
                socket.create_connection(tuple([target.split(":")[0], int(target.split(":")[1])])).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        controller = Controller(target, p4info, obj)
        rows = []
        for table, kind in (("hosts", "exact"), ("routes", "lpm")):
            rows.append((kind, p4runtime_rate(controller, server.pid, p4info, table, kind),
                         table_load_rate(table, kind)))
        controller.close()
    finally:
        server.kill()
        server.wait()
        subprocess.run([P4BPF, "pipeline", "unload", PIPELINE], capture_output=True)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    print(f"| {ENTRIES} entries | P4Runtime Write, {BATCH} updates a request: wall | "
          "per server CPU second | `p4bpf table load`: wall | per CPU second |")
    print("| --- | --- | --- | --- | --- |")
    for kind, (grpc_wall, grpc_cpu), (load_wall, load_cpu) in rows:
        print(f"| {kind} | {grpc_wall / 1000:.0f}K/s | {grpc_cpu / 1000:.0f}K/s | "
              f"{load_wall / 1000:.0f}K/s | {load_cpu / 1000:.0f}K/s |")


main()
