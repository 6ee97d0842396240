"""Writes p4runtime.binpb: the P4Runtime schema as a FileDescriptorSet.

The upstream .proto files are not in any package this project can install;
the PyPI `p4runtime` package (the bindings p4runtime-shell uses) carries the
compiled descriptors, and `googleapis-common-protos` those of google.rpc.
build.rs generates the Rust types from this set, so no protoc is needed.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install p4runtime==1.4.1
    /tmp/v/bin/python extract.py p4runtime.binpb
"""
import sys

from google.protobuf import descriptor_pb2
from p4.v1 import p4runtime_pb2


def add_with_dependencies(file_descriptor, into, seen):
    if file_descriptor.name in seen:
        return
    seen.add(file_descriptor.name)
    for dependency in file_descriptor.dependencies:
        add_with_dependencies(dependency, into, seen)
    proto = into.file.add()
    file_descriptor.CopyToProto(proto)


def main():
    descriptor_set = descriptor_pb2.FileDescriptorSet()
    add_with_dependencies(p4runtime_pb2.DESCRIPTOR, descriptor_set, set())
    with open(sys.argv[1], "wb") as out:
        out.write(descriptor_set.SerializeToString())
    for file in descriptor_set.file:
        print(file.name, file.package)


main()
