//! The test's own network namespace: the calling thread moves into a fresh,
//! unnamed one, so nothing is visible to the rest of the machine and the
//! kernel removes it with every interface in it when the thread ends, even
//! when the process dies on a failure or Ctrl-C: teardown cannot be missed.
//! Interfaces are made with `ip` (children inherit the thread's namespace).

use crate::error::{Result, RuntimeError};
use crate::sys_net;
use std::process::Command;

/// Move the calling thread into a new network namespace with IPv6 off (so
/// the kernel sends no router or neighbour solicitations of its own).
pub fn enter_fresh() -> Result<()> {
    // SAFETY: affects only the calling thread's network namespace.
    if unsafe { sys_net::unshare(sys_net::CLONE_NEWNET) } != 0 {
        return Err(RuntimeError::NotSupported(format!(
            "cannot create a network namespace: {}",
            std::io::Error::last_os_error()
        )));
    }
    for scope in ["all", "default"] {
        let path = format!("/proc/sys/net/ipv6/conf/{scope}/disable_ipv6");
        // A kernel without IPv6 has no such file and sends nothing anyway.
        let _ = std::fs::write(path, "1");
    }
    Ok(())
}

/// Run `program` with `args`; its stderr becomes the error.
pub fn tool(program: &str, args: &[&str]) -> Result<()> {
    let output = Command::new(program).args(args).output().map_err(|e| {
        RuntimeError::NotSupported(format!("cannot run `{program}` ({e}): install iproute2"))
    })?;
    if output.status.success() {
        return Ok(());
    }
    Err(RuntimeError::Value(format!(
        "`{program} {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr).trim()
    )))
}

/// A veth pair: `inner` (the pipeline's side, interface index `index` when
/// given) and `outer` (the tester's side), both up.
pub fn veth_pair(inner: &str, outer: &str, indexes: Option<(u32, u32)>) -> Result<()> {
    let (inner_index, outer_index) = indexes.map_or((String::new(), String::new()), |(i, o)| {
        (i.to_string(), o.to_string())
    });
    let mut args = vec!["link", "add", inner];
    if indexes.is_some() {
        args.extend(["index", &inner_index]);
    }
    args.extend(["type", "veth", "peer", "name", outer]);
    if indexes.is_some() {
        args.extend(["index", &outer_index]);
    }
    tool("ip", &args)?;
    tool("ip", &["link", "set", inner, "up"])?;
    tool("ip", &["link", "set", outer, "up"])
}
