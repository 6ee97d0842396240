//! Generates the P4Runtime message types and the server trait from the
//! descriptor set in `proto/` (see `proto/extract.py`): no protoc needed.

use prost::Message;

fn main() -> std::io::Result<()> {
    let path = "proto/p4runtime.binpb";
    println!("cargo:rerun-if-changed={path}");
    let descriptors = prost_types::FileDescriptorSet::decode(std::fs::read(path)?.as_slice())?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_transport(false)
        .compile_fds(descriptors)
}
