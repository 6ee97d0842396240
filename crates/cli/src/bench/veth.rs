//! A veth pair for live-frame timing, created with `ip` and removed when
//! dropped. Frames a program sends (XDP_TX out of `ifindex`) reach the peer
//! only when the peer runs NAPI, so the peer gets an XDP program (the drop
//! floor): what is measured ends at the peer's driver, not its stack.

use std::path::Path;
use std::process::Command;

pub struct VethPair {
    pub name: String,
    pub ifindex: u32,
}

impl VethPair {
    /// A new pair `p4bN` / `p4bNp` (N = this process id), the peer running
    /// the XDP program of `peer_object` (section `xdp`).
    pub fn create(peer_object: &Path) -> Result<VethPair, String> {
        let name = format!("p4b{}", std::process::id() % 100_000);
        let peer = format!("{name}p");
        ip(&["link", "add", &name, "type", "veth", "peer", "name", &peer])?;
        let mut pair = VethPair {
            name: name.clone(),
            ifindex: 0,
        };
        ip(&["link", "set", &name, "up"])?;
        ip(&["link", "set", &peer, "up"])?;
        let object = peer_object.to_string_lossy();
        ip(&[
            "link", "set", "dev", &peer, "xdpdrv", "obj", &object, "sec", "xdp",
        ])?;
        let index = std::fs::read_to_string(format!("/sys/class/net/{name}/ifindex"))
            .map_err(|e| format!("cannot read the ifindex of {name}: {e}"))?;
        pair.ifindex = index
            .trim()
            .parse()
            .map_err(|_| format!("bad ifindex of {name}: {index}"))?;
        Ok(pair)
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        // Deleting one end deletes both; nothing to do if it is gone already.
        let _ = ip(&["link", "del", &self.name]);
    }
}

fn ip(words: &[&str]) -> Result<(), String> {
    let output = Command::new("ip")
        .args(words)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`ip {}` failed: {}",
            words.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
