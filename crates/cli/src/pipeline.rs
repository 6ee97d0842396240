//! `p4bpf pipeline load|unload|show`: puts a compiled pipeline into the
//! kernel pinned under bpffs, takes it out, and describes what is loaded.
//! A thin shell over `p4bpf_runtime::deploy`.

use crate::args::{self, Args, UsageError};
use crate::compile;
use crate::control_output::{fail, json_object, json_string, print_lines, split, Words};
use crate::target::{self, Scratch};
use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::deploy::{self, Deployment, LoadOptions, Summary, XdpMode};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf pipeline load PROGRAM.p4|PROGRAM.o --name NAME [--hook xdp|tc]
                           [--xdp-mode native|generic] [-I DIR]... [-D NAME[=VALUE]]...
                           [--table-stats] [--table-caching]
       p4bpf pipeline unload NAME
       p4bpf pipeline show [NAME] [--json]

load    compiles PROGRAM.p4 (or takes the object `p4bpf compile` wrote, with
        the P4Info beside it), loads it and pins its maps, description and
        P4Info under /sys/fs/bpf/p4bpf/NAME (mounting bpffs if needed). Attach
        it to interfaces with `p4bpf port add`. --table-stats compiles
        PROGRAM.p4 counting table hits and misses for `p4bpf top`;
        --table-caching compiles it caching costly table searches (as
        `p4bpf compile --table-caching`).
unload  detaches NAME from every interface and removes all its pins.
show    tables with entry counts, counters, ports, hook and program id, and
        `@atomic` blocks skipped for want of their lock word, if any.
";

const FLAGS: &[&str] = &["--name", "--hook", "--xdp-mode", "-I", "-D"];

/// How `pipeline load` compiles a P4 program beyond the defaults.
#[derive(Clone, Copy)]
struct Build {
    table_stats: bool,
    table_caching: bool,
}

pub fn run(mut words: Args) -> ExitCode {
    let build = Build {
        table_stats: words.take_switch("--table-stats"),
        table_caching: words.take_switch("--table-caching"),
    };
    let words = match split(words, FLAGS) {
        Ok(words) => words,
        Err(error) => return error.report(Some("pipeline")),
    };
    let loading = words.positional.first().is_some_and(|c| c == "load");
    for (set, flag) in [
        (build.table_stats, "--table-stats"),
        (build.table_caching, "--table-caching"),
    ] {
        if set && !loading {
            return UsageError::new(format!("{flag} goes with `pipeline load`"))
                .report(Some("pipeline"));
        }
    }
    let defines = words.options.iter().filter(|(flag, _)| flag == "-D");
    if let Some(Err(error)) = defines
        .map(|(_, v)| args::parse_define(v))
        .find(Result::is_err)
    {
        return error.report(Some("pipeline"));
    }
    let result = match words.positional.first().map(String::as_str) {
        Some("load") => load(&words, build),
        Some("unload") => match words.positional.as_slice() {
            [_, name] => deploy::unload(name)
                .map(|()| vec![format!("unloaded pipeline {name}")])
                .map_err(|e| e.to_string()),
            _ => {
                return UsageError::new("`pipeline unload` takes one name").report(Some("pipeline"))
            }
        },
        Some("show") => show(&words),
        Some(other) => {
            return UsageError::new(format!(
                "unknown pipeline command `{other}` (load, unload, show)"
            ))
            .report(Some("pipeline"))
        }
        None => {
            return UsageError::new("`pipeline` needs a command: load, unload or show")
                .report(Some("pipeline"))
        }
    };
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}

fn load(words: &Words, build: Build) -> Result<Vec<String>, String> {
    let [_, program] = words.positional.as_slice() else {
        return Err("`pipeline load` takes one program file".into());
    };
    let name = words
        .option("--name")
        .ok_or("`pipeline load` needs `--name NAME`")?;
    let hook = match words.option("--hook") {
        None | Some("xdp") => Hook::Xdp,
        Some("tc") => Hook::Tc,
        Some(other) => return Err(format!("unknown hook `{other}` (expected `xdp` or `tc`)")),
    };
    let xdp_mode = match words.option("--xdp-mode") {
        None | Some("native") => XdpMode::Native,
        Some("generic") => XdpMode::Generic,
        Some(other) => {
            return Err(format!(
                "unknown XDP mode `{other}` (expected `native` or `generic`)"
            ))
        }
    };
    // Before compiling: a name bpffs cannot hold fails fast.
    p4bpf_runtime::bpffs::check_name("pipeline", name).map_err(|e| e.to_string())?;
    let (image, p4info) = object_and_p4info(Path::new(program), hook, build, words)?;
    let deployment = deploy::load(
        image,
        &LoadOptions {
            name: name.to_string(),
            xdp_mode,
            p4info,
        },
    )
    .map_err(|e| e.to_string())?;
    let description = &deployment.description;
    if description.hook != hook && words.option("--hook").is_some() {
        let _ = deploy::unload(name);
        return Err(format!(
            "{program} was compiled for {}, not for the requested hook",
            hook_name(description.hook)
        ));
    }
    Ok(vec![format!(
        "loaded pipeline {name}: program {} at {}, id {}",
        description.program,
        hook_name(description.hook),
        deployment.program_id().map_err(|e| e.to_string())?
    )])
}

/// The object image and P4Info text for `program`: compiled when it is P4,
/// else read, with the `.p4info.txtpb` beside it when there is one.
fn object_and_p4info(
    program: &Path,
    hook: Hook,
    build: Build,
    words: &Words,
) -> Result<(Vec<u8>, Option<String>), String> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    if program.extension().is_none_or(|e| e != "p4") {
        let flag = match (build.table_stats, build.table_caching) {
            (true, _) => "--table-stats",
            (false, true) => "--table-caching",
            (false, false) => "",
        };
        if !flag.is_empty() {
            return Err(format!(
                "{flag} compiles PROGRAM.p4; {} is already compiled (build it with `p4bpf compile {flag}`)",
                program.display()
            ));
        }
        let p4info = program.with_extension("p4info.txtpb");
        return Ok((read(program)?, std::fs::read_to_string(p4info).ok()));
    }
    let scratch = Scratch::new("load");
    let mut options = CompileOptions {
        hook,
        out_dir: scratch.0.clone(),
        table_stats: build.table_stats,
        table_caching: build.table_caching,
        // Deployed: nothing reads sent ports, so the packet path notes none.
        port_notes: false,
        ..target::default_compile_options()
    };
    for (flag, value) in &words.options {
        match flag.as_str() {
            "-I" => options.front.include_dirs.push(PathBuf::from(value)),
            // Checked in `run`.
            "-D" => options.front.defines.extend(args::parse_define(value).ok()),
            _ => {}
        }
    }
    let done = p4bpf_compiler::compile_file(program, &options).map_err(compile::error_text)?;
    let image = read(&done.object)?;
    let p4info = done.p4info.and_then(|p| std::fs::read_to_string(p).ok());
    Ok((image, p4info))
}

fn show(words: &Words) -> Result<Vec<String>, String> {
    let names = match words.positional.as_slice() {
        [_] => deploy::list(),
        [_, name] => vec![name.clone()],
        _ => return Err("`pipeline show` takes at most one name".into()),
    };
    let mut lines = Vec::new();
    let mut objects = Vec::new();
    for name in names {
        let deployment = Deployment::open(&name).map_err(|e| e.to_string())?;
        let summary = deploy::summary(&deployment).map_err(|e| e.to_string())?;
        if words.json {
            objects.push(summary_json(&summary));
        } else {
            lines.extend(summary_lines(&summary));
        }
    }
    if words.json {
        lines.push(format!("[{}]", objects.join(",\n")));
    }
    Ok(lines)
}

fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::Xdp => "xdp",
        Hook::Tc => "tc",
    }
}

fn summary_lines(summary: &Summary) -> Vec<String> {
    let hook = match summary.hook {
        Hook::Xdp => format!("xdp ({})", summary.xdp_mode),
        Hook::Tc => "tc (tcx ingress)".to_string(),
    };
    let mut lines = vec![
        format!("pipeline\t{}", summary.name),
        format!("program\t{}\tid {}", summary.program, summary.program_id),
        format!("hook\t{hook}"),
    ];
    for table in &summary.tables {
        lines.push(format!(
            "table\t{}\t{}/{} entries",
            table.name, table.entries, table.size
        ));
    }
    for counter in &summary.counters {
        lines.push(format!("counter\t{counter}"));
    }
    for port in &summary.ports {
        lines.push(format!(
            "port\t{}\t{}\tifindex {}",
            port.port, port.interface, port.ifindex
        ));
    }
    if let Some(skipped) = summary.skipped_atomic_blocks {
        lines.push(format!(
            "atomic\t{skipped} blocks skipped (lock word not won)"
        ));
    }
    if let Some(drops) = summary.mtu_drops {
        lines.push(format!(
            "mtu drops\t{drops}\tgrown past the output port's MTU"
        ));
    }
    lines
}

fn summary_json(summary: &Summary) -> String {
    let tables: Vec<String> = summary
        .tables
        .iter()
        .map(|t| {
            format!(
                "{{\"name\": {}, \"entries\": {}, \"size\": {}}}",
                json_string(&t.name),
                t.entries,
                t.size
            )
        })
        .collect();
    let ports: Vec<String> = summary
        .ports
        .iter()
        .map(|p| {
            format!(
                "{{\"port\": {}, \"interface\": {}, \"ifindex\": {}}}",
                p.port,
                json_string(&p.interface),
                p.ifindex
            )
        })
        .collect();
    let counters: Vec<String> = summary.counters.iter().map(|c| json_string(c)).collect();
    let head = json_object(&[
        ("name".into(), summary.name.clone()),
        ("program".into(), summary.program.clone()),
        ("hook".into(), hook_name(summary.hook).into()),
        ("xdp_mode".into(), summary.xdp_mode.into()),
    ]);
    let skipped = summary
        .skipped_atomic_blocks
        .map(|n| format!(", \"skipped_atomic_blocks\": {n}"))
        .unwrap_or_default();
    let mtu_drops = summary
        .mtu_drops
        .map_or(String::new(), |n| format!(", \"mtu_drops\": {n}"));
    format!(
        "{}, \"program_id\": {}, \"tables\": [{}], \"counters\": [{}], \"ports\": [{}]{skipped}{mtu_drops}}}",
        head.trim_end_matches('}'),
        summary.program_id,
        tables.join(", "),
        counters.join(", "),
        ports.join(", ")
    )
}
