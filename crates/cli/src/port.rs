//! `p4bpf port add|del|list`: attaches a loaded pipeline to interfaces as
//! numbered P4 ports. A thin shell over `p4bpf_runtime::ports`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, json_string, print_lines, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::ports;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf port add PIPELINE IFACE [--port P]
       p4bpf port del PIPELINE IFACE
       p4bpf port list PIPELINE [--json]

add   attaches PIPELINE to IFACE (XDP in the mode chosen at load, or tcx
      ingress for a TC pipeline) as P4 port P (default: the interface's
      index), recorded in the pipeline's devmap.
del   detaches it and forgets the port.
list  ports as `PORT<tab>IFACE<tab>IFINDEX`.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &["--port"]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("port")),
    };
    let port = match words.option("--port").map(str::parse::<u32>) {
        None => None,
        Some(Ok(port)) => Some(port),
        Some(Err(_)) => {
            return UsageError::new("`--port` needs a port number (0 to 4294967295)")
                .report(Some("port"))
        }
    };
    let positional: Vec<&str> = words.positional.iter().map(String::as_str).collect();
    let (command, name, interface) = match positional.as_slice() {
        [command @ ("add" | "del"), name, interface] => (*command, *name, Some(*interface)),
        ["list", name] => ("list", *name, None),
        _ => {
            return UsageError::new("expected `add|del PIPELINE IFACE` or `list PIPELINE`")
                .report(Some("port"))
        }
    };
    let deployment = match Deployment::open_with(name, command != "list") {
        Ok(deployment) => deployment,
        Err(error) => return fail(error),
    };
    let result = match (command, interface) {
        ("add", Some(interface)) => ports::add(&deployment, interface, port).map(|p| {
            vec![format!(
                "port {} is {} (ifindex {})",
                p.port, p.interface, p.ifindex
            )]
        }),
        ("del", Some(interface)) => ports::delete(&deployment, interface)
            .map(|()| vec![format!("removed {interface} from pipeline {name}")]),
        _ => ports::list(&deployment).map(|list| {
            list.iter()
                .map(|p| {
                    if words.json {
                        format!(
                            "{{\"port\": {}, \"interface\": {}, \"ifindex\": {}}}",
                            p.port,
                            json_string(&p.interface),
                            p.ifindex
                        )
                    } else {
                        format!("{}\t{}\t{}", p.port, p.interface, p.ifindex)
                    }
                })
                .collect()
        }),
    };
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}
