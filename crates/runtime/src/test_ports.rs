//! Output ports for runs with no real interfaces behind them (kernel
//! `BPF_PROG_TEST_RUN`, the user-space target): the pipeline's ports map
//! sends every P4 port below [`TEST_PORTS`] to the loopback interface, so
//! a redirect to any of them is `XDP_REDIRECT` / `TC_ACT_REDIRECT` and the
//! recorded output port says which. Nothing is transmitted: a test run
//! without live frames only returns the verdict. Ports at or above the
//! bound have no interface, and the program drops packets sent there, on
//! both targets alike (so `p4bpf fuzz` compares like with like).
//! In user space no interface stands behind a port, so there port P gets
//! the made-up index [`USER_IFINDEX_BASE`] + P: where a copy was sent
//! (`bpf_clone_redirect`) then says its port.

use crate::error::Result;
use crate::map::Write;
use crate::pipeline::LoadedPipeline;
use crate::ports::ifindex;

/// P4 ports 0..TEST_PORTS get an interface; STF scripts use small numbers
/// and the compiled ports map holds 512.
pub const TEST_PORTS: u32 = 256;
/// The user target's made-up interface index of port 0.
pub const USER_IFINDEX_BASE: u32 = 1000;

/// Fill `pipeline`'s ports map, if it has one.
pub fn map_test_ports(pipeline: &LoadedPipeline) -> Result<()> {
    let Some(name) = &pipeline.description.port_map else {
        return Ok(());
    };
    let ports = pipeline.map(name)?;
    let loopback = ifindex("lo")?;
    let in_user_space = pipeline.user_host().is_some();
    for port in 0..TEST_PORTS {
        let index = match in_user_space {
            true => USER_IFINDEX_BASE + port,
            false => loopback,
        };
        ports.write(&port.to_ne_bytes(), &index.to_ne_bytes(), Write::Replace)?;
    }
    Ok(())
}
