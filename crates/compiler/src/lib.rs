//! p4bpf's back end: P4 programs to eBPF objects.
//!
//! The path: front end ([`p4bpf_front`]) → [`lower`] (pipeline IR, every
//! target limit checked; the architecture's blocks, metadata and externs
//! from [`arch`]) → [`midend`] (IR passes and analyses) → [`emit`] (readable
//! C; what depends on XDP or TC from
//! [`target`]) → [`clang`] (object file). [`describe`] builds the description of tables
//! and counters the runtime reads from the object's `.p4bpf.pipeline`
//! section; [`p4info`] writes the P4Runtime description.

pub mod arch;
pub mod clang;
pub mod cstruct;
pub mod describe;
pub mod describe_entries;
pub mod describe_profile;
pub mod emit;
pub mod ir;
pub mod lower;
pub mod map_layout;
pub mod midend;
pub mod p4_lines;
pub mod p4info;
pub mod table_cache;
pub mod target;

use p4bpf_front::diag::Diagnostics;
use p4bpf_front::source::SourceMap;
pub use p4bpf_layout::Hook;
use std::path::{Path, PathBuf};

/// What `p4bpf compile` was asked to do.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub front: p4bpf_front::Options,
    pub hook: Hook,
    /// Where `prog.c`, `prog.o` and `prog.p4info.txtpb` go.
    pub out_dir: PathBuf,
    /// C file implementing the program's extern functions.
    pub extern_file: Option<PathBuf>,
    /// The instrumented build: per-packet trace records (`--trace`).
    pub trace: bool,
    /// Count each table's hits and misses for `p4bpf top`
    /// (`--table-stats`; `--trace` counts them too).
    pub table_stats: bool,
    /// Cache the results of costly table searches (`--table-caching`,
    /// [`table_cache`]).
    pub table_caching: bool,
    /// Note sent ports for test harnesses ([`BuildOptions::port_notes`]):
    /// off when building a pipeline to deploy or to time.
    pub port_notes: bool,
}

/// What the emitted program records besides doing its work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Instrument {
    /// The normal build: nothing.
    #[default]
    Off,
    /// Per-table hit and miss counts only (`--table-stats`).
    TableStats,
    /// Trace records to a ring buffer, and the table counts (`--trace`).
    Trace,
}

/// How a program is built, besides its hook and extern file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    pub instrument: Instrument,
    /// Cache costly table searches ([`table_cache`]).
    pub table_caching: bool,
    /// Note each sent port in the output record, where `p4bpf test` and
    /// the packet targets read it. The notes sit behind a read-only flag a
    /// loader can turn off (`object::PortNotes::Off` in the runtime), but
    /// its load stays on the packet path: a build without them has none.
    pub port_notes: bool,
}

impl Default for BuildOptions {
    /// The test harness's build: uninstrumented, with port notes.
    fn default() -> BuildOptions {
        BuildOptions {
            instrument: Instrument::Off,
            table_caching: false,
            port_notes: true,
        }
    }
}

impl CompileOptions {
    /// The instrumentation the options ask for; `--trace` wins.
    pub fn instrument(&self) -> Instrument {
        match (self.trace, self.table_stats) {
            (true, _) => Instrument::Trace,
            (false, true) => Instrument::TableStats,
            (false, false) => Instrument::Off,
        }
    }

    /// The build the options ask for.
    pub fn build(&self) -> BuildOptions {
        BuildOptions {
            instrument: self.instrument(),
            table_caching: self.table_caching,
            port_notes: self.port_notes,
        }
    }
}

/// The files one compilation wrote.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub c_file: PathBuf,
    pub object: PathBuf,
    /// The P4Info file, when written.
    pub p4info: Option<PathBuf>,
    pub pipeline: p4bpf_layout::Pipeline,
    /// The compiler's warnings, rendered with file:line:col.
    pub warnings: Vec<String>,
}

#[derive(Debug)]
pub enum CompileError {
    /// Problems in the P4 program, located in it.
    Program {
        sources: SourceMap,
        diagnostics: Diagnostics,
    },
    /// Files, clang: a one-line explanation.
    Tool(String),
}

/// Everything generated for one program, before clang.
pub struct Generated {
    pub c: String,
    pub pipeline: p4bpf_layout::Pipeline,
    pub p4info: String,
    pub warnings: Vec<p4bpf_front::diag::Diagnostic>,
}

/// The C text, pipeline description and P4Info of an already parsed program.
pub fn generate(
    fe: &p4bpf_front::Frontend,
    name: &str,
    hook: Hook,
    extern_c: Option<&str>,
) -> Result<Generated, Diagnostics> {
    generate_with(fe, name, hook, extern_c, Instrument::Off)
}

/// [`generate`], instrumented as `instrument` says.
pub fn generate_with(
    fe: &p4bpf_front::Frontend,
    name: &str,
    hook: Hook,
    extern_c: Option<&str>,
    instrument: Instrument,
) -> Result<Generated, Diagnostics> {
    let build = BuildOptions {
        instrument,
        ..BuildOptions::default()
    };
    generate_built(fe, name, hook, extern_c, build)
}

/// [`generate`], built as `build` says (the cache's warnings among the
/// others).
pub fn generate_built(
    fe: &p4bpf_front::Frontend,
    name: &str,
    hook: Hook,
    extern_c: Option<&str>,
    build: BuildOptions,
) -> Result<Generated, Diagnostics> {
    let instrument = build.instrument;
    let Some(checked) = &fe.checked else {
        let mut diags = Diagnostics::default();
        diags.error(
            None,
            "the program was not checked, so it cannot be compiled",
        );
        return Err(diags);
    };
    let mut prog = lower::lower(
        &fe.program,
        checked,
        &fe.unit,
        &fe.sources,
        name,
        extern_c.is_some(),
    )?;
    midend::run(&mut prog);
    refuse_at_hook(&prog, hook)?;
    let mut pipeline = describe::describe(&prog, hook);
    if !build.port_notes {
        pipeline.output_record = None;
    }
    if instrument == Instrument::Trace {
        pipeline.trace = Some(emit::trace_description(&prog, &pipeline.tables));
    }
    if instrument != Instrument::Off {
        pipeline.table_stats = Some(emit::table_stats_description(&prog));
    }
    let (caches, cache_warnings) = table_cache::CachePlan::of(&prog, build.table_caching);
    prog.warnings.extend(cache_warnings);
    pipeline.table_caches = caches.describe(&prog, &pipeline);
    let c = emit::emit(
        &prog,
        &emit::EmitOptions {
            hook,
            pipeline_json: &pipeline.to_json(),
            extern_c,
            instrument,
            caches: &caches,
            port_notes: build.port_notes,
        },
    );
    Ok(Generated {
        c,
        pipeline,
        p4info: p4info::write(&prog),
        warnings: prog.warnings,
    })
}

/// What the program asks that `hook` cannot do.
fn refuse_at_hook(prog: &ir::Program, hook: Hook) -> Result<(), Diagnostics> {
    if let Some(refusal) = refuse_copies_at_xdp(prog, hook) {
        return Err(refusal);
    }
    if let (Some(at), Hook::Xdp) = (prog.skb_meta_at, hook) {
        let mut diags = Diagnostics::default();
        diags.error(
            Some(at),
            "P4TC's `skb_*` externs read and write the kernel's socket buffer, which XDP runs before: compile with --hook tc",
        );
        return Err(diags);
    }
    Ok(())
}

/// The copies XDP's devmap broadcast cannot make: an E2E clone without
/// the copies' devmaps.
fn refuse_copies_at_xdp(prog: &ir::Program, hook: Hook) -> Option<Diagnostics> {
    let i = &prog.intrinsics;
    if hook != Hook::Xdp {
        return None;
    }
    let (at, what) = match &i.clone_e2e {
        Some(e2e) if i.replication.is_none() => (
            e2e.at,
            "an E2E clone is not supported at XDP without the copies' devmaps",
        ),
        _ => return None,
    };
    let mut diags = Diagnostics::default();
    diags.error(at, format!("{what}; compile with --hook tc"));
    Some(diags)
}

/// Compiles the P4 program at `path` into `options.out_dir`.
pub fn compile_file(path: &Path, options: &CompileOptions) -> Result<Compiled, CompileError> {
    let fe = p4bpf_front::check_file(path, &options.front);
    if fe.has_errors() {
        return Err(CompileError::Program {
            sources: fe.sources,
            diagnostics: fe.diagnostics,
        });
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prog".into());
    let extern_c = match &options.extern_file {
        Some(f) => Some(std::fs::read_to_string(f).map_err(|e| {
            CompileError::Tool(format!("cannot read extern file {}: {e}", f.display()))
        })?),
        None => None,
    };
    let generated = match generate_built(
        &fe,
        &name,
        options.hook,
        extern_c.as_deref(),
        options.build(),
    ) {
        Ok(x) => x,
        Err(diagnostics) => {
            return Err(CompileError::Program {
                sources: fe.sources,
                diagnostics,
            })
        }
    };
    std::fs::create_dir_all(&options.out_dir).map_err(|e| {
        CompileError::Tool(format!("cannot create {}: {e}", options.out_dir.display()))
    })?;
    let c_file = options.out_dir.join(format!("{name}.c"));
    let object = options.out_dir.join(format!("{name}.o"));
    let p4info = options.out_dir.join(format!("{name}.p4info.txtpb"));
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text)
            .map_err(|e| CompileError::Tool(format!("cannot write {}: {e}", path.display())))
    };
    write(&c_file, &generated.c)?;
    write(&p4info, &generated.p4info)?;
    clang::compile(&c_file, &object).map_err(CompileError::Tool)?;
    let p4_text = |file: &str, line: u32| p4_line_text(&fe.sources, file, line);
    p4_lines::put_into(&object, &c_file, &p4_text).map_err(CompileError::Tool)?;
    Ok(Compiled {
        c_file,
        object,
        p4info: Some(p4info),
        pipeline: generated.pipeline,
        warnings: generated
            .warnings
            .iter()
            .map(|w| w.render(&fe.sources))
            .collect(),
    })
}

/// The text of line `line` of the source file named `file` (a file name
/// as the generated C's origins give it, without its folder).
fn p4_line_text(sources: &SourceMap, file: &str, line: u32) -> Option<String> {
    let source = sources.files().iter().find(|f| {
        f.path
            .file_name()
            .is_some_and(|n| n.to_string_lossy() == file)
    })?;
    Some(source.line_text(line).to_string())
}
