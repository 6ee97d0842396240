//! `p4bpf`: the command line. (Stub: `p4bpf check FILE`.)

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [cmd, file] if cmd == "check" => {
            let fe = p4bpf_front::check_file(Path::new(file), &p4bpf_front::Options::default());
            for d in &fe.diagnostics.list {
                eprint!("{}", d.render(&fe.sources));
            }
            if fe.has_errors() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
        }
        _ => {
            eprintln!("usage: p4bpf check FILE.p4");
            ExitCode::from(2)
        }
    }
}
