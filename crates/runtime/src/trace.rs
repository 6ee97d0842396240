//! What a traced pipeline did with each packet, in P4 terms: its records
//! ([`p4bpf_layout::trace`]) read from the ring buffer (kernel) or the
//! host program (user space) and decoded by the pipeline description.

use crate::control::decode;
use crate::deploy::Deployment;
use crate::error::{Result, RuntimeError};
use crate::json::json_string;
use crate::map::Map;
use crate::map_source::MapSource;
use crate::packet_target::PacketTarget;
use crate::pipeline::{LoadedPipeline, PacketOutcome};
use crate::trace_ring::TraceRing;
use crate::user::UserHost;
use crate::verdict::Verdict;
use p4bpf_layout::trace::{self as layout, RecordHead, Trace};
use p4bpf_layout::{Pipeline, TableStorage};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// One packet's way through the pipeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketTrace {
    pub cpu: u32,
    pub length: u32,
    pub events: Vec<Event>,
    /// `None` while the packet's verdict record has not been read.
    pub verdict: Option<TraceVerdict>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A parser state entered, `parser.state`.
    State(String),
    Table(TableApply),
    Extern(ExternCall),
    /// Dropped before it left: longer than the output interface forwards.
    MtuDrop(MtuDrop),
}

/// A packet the deparser grew past the output interface's MTU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MtuDrop {
    /// The output interface (0: the one it came in on).
    pub ifindex: u32,
    pub mtu: u32,
    /// The packet's length as it would have left.
    pub length: u32,
}

/// An extern instance's method called, with its arguments and result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternCall {
    /// `instance.method`.
    pub name: String,
    pub args: Vec<(String, u64)>,
    pub result: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableApply {
    pub table: String,
    pub hit: bool,
    /// Key fields and their values (none for a table compiled into code).
    pub keys: Vec<(String, String)>,
    pub action: String,
    pub params: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceVerdict {
    pub verdict: Verdict,
    pub retval: u32,
    /// The architecture's output port when the packet was sent to one.
    pub port: Option<u32>,
    /// The parser error, when not `NoError`.
    pub parser_error: Option<String>,
    /// Headers valid at the end, by P4 name.
    pub valid: Vec<String>,
}

/// Where the records of a loaded pipeline come from.
pub enum TraceSource {
    Kernel(TraceRing),
    User(Rc<UserHost>),
}

impl TraceSource {
    /// The records of `pipeline`, which must be a traced build.
    pub fn open(pipeline: &LoadedPipeline) -> Result<TraceSource> {
        let trace = traced(&pipeline.description)?;
        match pipeline.user_host() {
            Some(host) => Ok(TraceSource::User(host)),
            None => Ok(TraceSource::Kernel(TraceRing::open(
                pipeline.map(&trace.ring)?.fd()?,
            )?)),
        }
    }

    /// The records of loaded pipeline `deployment` (a traced build).
    pub fn open_deployed(deployment: &Deployment) -> Result<TraceSource> {
        let trace = traced(&deployment.description)?;
        Ok(TraceSource::Kernel(TraceRing::open(
            deployment.map(&trace.ring)?.fd()?,
        )?))
    }

    /// Records written since the last call (waiting up to `timeout_ms`
    /// for one in the kernel).
    pub fn take(&mut self, timeout_ms: i32) -> Result<Vec<Vec<u8>>> {
        match self {
            TraceSource::Kernel(ring) => ring.take(timeout_ms),
            TraceSource::User(host) => host.trace_records(),
        }
    }
}

/// The trace description of `pipeline`, or why it has none.
pub fn traced(pipeline: &Pipeline) -> Result<&Trace> {
    pipeline.trace.as_ref().ok_or_else(|| {
        RuntimeError::NotSupported(format!(
            "`{}` was compiled without tracing: compile (or load) it with --trace",
            pipeline.program
        ))
    })
}

/// Assembles packets from records that may interleave across CPUs.
#[derive(Default)]
pub struct Decoder {
    open: BTreeMap<u32, PacketTrace>,
}

impl Decoder {
    /// The packets `records` complete (a record the description does not
    /// explain is an error naming it).
    pub fn feed(&mut self, pipeline: &Pipeline, records: &[Vec<u8>]) -> Result<Vec<PacketTrace>> {
        let trace = traced(pipeline)?;
        let mut done = vec![];
        for bytes in records {
            let (head, data) = RecordHead::split(bytes).ok_or_else(|| {
                bad(format!(
                    "a trace record of {} bytes is cut short",
                    bytes.len()
                ))
            })?;
            if head.kind == layout::BEGIN {
                let packet = PacketTrace {
                    cpu: head.cpu,
                    length: head.detail,
                    ..PacketTrace::default()
                };
                self.open.insert(head.cpu, packet);
                continue;
            }
            let packet = self.open.entry(head.cpu).or_insert_with(|| PacketTrace {
                cpu: head.cpu,
                ..PacketTrace::default()
            });
            match head.kind {
                layout::STATE => packet.events.push(Event::State(name_at(
                    &trace.states,
                    head.what,
                    "parser state",
                )?)),
                layout::TABLE => packet
                    .events
                    .push(Event::Table(table_apply(pipeline, trace, head, data)?)),
                layout::EXTERN => packet
                    .events
                    .push(Event::Extern(extern_call(trace, head, data)?)),
                layout::DROP => packet.events.push(drop_event(head, data)?),
                layout::VERDICT => {
                    packet.verdict = Some(verdict(pipeline, trace, head, data));
                    done.extend(self.open.remove(&head.cpu));
                }
                other => return Err(bad(format!("unknown trace record kind {other}"))),
            }
        }
        Ok(done)
    }
}

fn bad(why: String) -> RuntimeError {
    RuntimeError::BadObject(why)
}

fn name_at(names: &[String], index: u16, what: &str) -> Result<String> {
    names.get(usize::from(index)).cloned().ok_or_else(|| {
        bad(format!(
            "trace record names {what} {index}, which the description lacks"
        ))
    })
}

fn table_apply(
    pipeline: &Pipeline,
    trace: &Trace,
    head: RecordHead,
    data: &[u8],
) -> Result<TableApply> {
    let traced = trace.tables.get(usize::from(head.what)).ok_or_else(|| {
        bad(format!(
            "trace record names table {}, which the description lacks",
            head.what
        ))
    })?;
    let code = head.detail & !layout::HIT;
    let named = |code: u32| {
        traced
            .actions
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, n)| n.clone())
    };
    let mut apply = TableApply {
        table: traced.name.clone(),
        hit: head.detail & layout::HIT != 0,
        keys: vec![],
        action: named(code).unwrap_or_else(|| traced.default_action.clone()),
        params: vec![],
    };
    if !traced.code_keys.is_empty() {
        code_table_apply(traced, data, &mut apply);
        return Ok(apply);
    }
    let Some(table) = pipeline.tables.iter().find(|t| t.name == traced.name) else {
        return Ok(apply);
    };
    let (key, value) = data.split_at(data.len().min(traced.key_size as usize));
    apply.keys = lookup_key(table, key);
    if let Some(action) = table.actions.iter().find(|a| a.code == code) {
        apply.params = action
            .params
            .iter()
            .map(|p| (p.name.clone(), decode::field_text(value, p)))
            .collect();
    }
    Ok(apply)
}

fn extern_call(trace: &Trace, head: RecordHead, data: &[u8]) -> Result<ExternCall> {
    let call = trace
        .extern_calls
        .get(usize::from(head.what))
        .ok_or_else(|| {
            bad(format!(
                "trace record names extern call {}, which the description lacks",
                head.what
            ))
        })?;
    let mut values = data
        .chunks_exact(8)
        .filter_map(|b| b.try_into().ok())
        .map(u64::from_ne_bytes);
    let args = call
        .params
        .iter()
        .map(|p| (p.clone(), values.next().unwrap_or(0)))
        .collect();
    Ok(ExternCall {
        name: call.name.clone(),
        args,
        result: if call.result { values.next() } else { None },
    })
}

fn drop_event(head: RecordHead, data: &[u8]) -> Result<Event> {
    let u32_at = |at: usize| {
        data.get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes)
    };
    match (head.what, u32_at(0), u32_at(4)) {
        (layout::DROP_MTU, Some(ifindex), Some(length)) => Ok(Event::MtuDrop(MtuDrop {
            ifindex,
            mtu: head.detail,
            length,
        })),
        (reason, ..) => Err(bad(format!(
            "a drop record of reason {reason} with {} bytes is not understood",
            data.len()
        ))),
    }
}

/// A const table's key and the arguments of the entry that matched.
fn code_table_apply(traced: &layout::TracedTable, data: &[u8], apply: &mut TableApply) {
    let (key, entry) = data.split_at(data.len().min(traced.key_size as usize));
    apply.keys = traced
        .code_keys
        .iter()
        .map(|k| (k.field.name.clone(), decode::field_text(key, &k.field)))
        .collect();
    let entry = entry
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_ne_bytes);
    if let Some(args) = entry.and_then(|i| traced.entry_args.get(i as usize)) {
        apply.params = args.clone();
    }
}

/// The key fields of a lookup key struct (an LPM key after its prefix length).
fn lookup_key(table: &p4bpf_layout::Table, key: &[u8]) -> Vec<(String, String)> {
    let fields = if table.storage == TableStorage::LpmTrie {
        key.get(4..).unwrap_or_default()
    } else {
        key
    };
    table
        .keys
        .iter()
        .map(|k| (k.field.name.clone(), decode::field_text(fields, &k.field)))
        .collect()
}

fn verdict(pipeline: &Pipeline, trace: &Trace, head: RecordHead, data: &[u8]) -> TraceVerdict {
    let u32_at = |at: usize| {
        data.get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_ne_bytes)
    };
    let verdict = Verdict::from_retval(pipeline.hook, head.detail);
    let error = u32_at(4);
    let valid = trace
        .headers
        .iter()
        .enumerate()
        .filter(|(i, _)| data.get(8 + i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1))
        .map(|(_, name)| name.clone())
        .collect();
    TraceVerdict {
        verdict,
        retval: head.detail,
        port: (verdict == Verdict::Redirect).then(|| u32_at(0)),
        parser_error: (error != 0).then(|| {
            trace
                .errors
                .get(error as usize)
                .cloned()
                .unwrap_or_else(|| format!("error {error}"))
        }),
        valid,
    }
}

impl fmt::Display for PacketTrace {
    /// BMv2's log, one event a line, indented under the packet.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  trace: {} bytes in (cpu {})", self.length, self.cpu)?;
        for event in &self.events {
            match event {
                Event::State(s) => writeln!(f, "    parser state {s}")?,
                Event::Table(t) => {
                    let keys = pairs(&t.keys, " ");
                    let params = pairs(&t.params, ", ");
                    let outcome = if t.hit { "hit" } else { "miss" };
                    writeln!(
                        f,
                        "    table {} {}-> {outcome} -> {}({params})",
                        t.table,
                        if keys.is_empty() {
                            String::new()
                        } else {
                            format!("[{keys}] ")
                        },
                        t.action
                    )?;
                }
                Event::Extern(x) => {
                    let args: Vec<String> =
                        x.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, "    extern {}({})", x.name, args.join(", "))?;
                    match x.result {
                        Some(r) => writeln!(f, " -> {r}")?,
                        None => writeln!(f)?,
                    }
                }
                Event::MtuDrop(d) => writeln!(
                    f,
                    "    dropped: {} bytes do not fit MTU {} of interface {} (with its link header and a VLAN tag)",
                    d.length, d.mtu, d.ifindex
                )?,
            }
        }
        match &self.verdict {
            Some(v) => {
                write!(f, "    verdict {}", v.verdict)?;
                if let Some(port) = v.port {
                    write!(f, " port {port}")?;
                }
                if let Some(e) = &v.parser_error {
                    write!(f, " (parser error {e})")?;
                }
                write!(
                    f,
                    "; valid headers: {}",
                    if v.valid.is_empty() {
                        "none".into()
                    } else {
                        v.valid.join(" ")
                    }
                )
            }
            None => write!(f, "    (no verdict recorded)"),
        }
    }
}

fn pairs(list: &[(String, String)], sep: &str) -> String {
    list.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(sep)
}

impl PacketTrace {
    /// The trace as one JSON object.
    pub fn to_json(&self) -> String {
        let events: Vec<String> = self
            .events
            .iter()
            .map(|e| match e {
                Event::State(s) => format!("{{\"state\":{}}}", json_string(s)),
                Event::Table(t) => format!(
                    "{{\"table\":{},\"hit\":{},\"key\":{},\"action\":{},\"params\":{}}}",
                    json_string(&t.table),
                    t.hit,
                    json_object(&t.keys),
                    json_string(&t.action),
                    json_object(&t.params)
                ),
                Event::Extern(x) => {
                    let args: Vec<(String, String)> = x
                        .args
                        .iter()
                        .map(|(k, v)| (k.clone(), v.to_string()))
                        .collect();
                    format!(
                        "{{\"extern\":{},\"args\":{},\"result\":{}}}",
                        json_string(&x.name),
                        json_object(&args),
                        x.result.map_or("null".into(), |r| r.to_string())
                    )
                }
                Event::MtuDrop(d) => format!(
                    "{{\"drop\":\"mtu\",\"ifindex\":{},\"mtu\":{},\"length\":{}}}",
                    d.ifindex, d.mtu, d.length
                ),
            })
            .collect();
        let verdict =
            match &self.verdict {
                Some(v) => format!(
                "{{\"verdict\":{},\"retval\":{},\"port\":{},\"parser_error\":{},\"valid\":[{}]}}",
                json_string(&v.verdict.to_string()),
                v.retval,
                v.port.map_or("null".into(), |p| p.to_string()),
                v.parser_error.as_deref().map_or("null".into(), json_string),
                v.valid.iter().map(|h| json_string(h)).collect::<Vec<_>>().join(",")
            ),
                None => "null".into(),
            };
        format!(
            "{{\"cpu\":{},\"length\":{},\"events\":[{}],\"verdict\":{verdict}}}",
            self.cpu,
            self.length,
            events.join(",")
        )
    }
}

/// A compact JSON object of string values: one trace record a line.
fn json_object(pairs: &[(String, String)]) -> String {
    let fields: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{}", json_string(k), json_string(v)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// A loaded traced pipeline that keeps each packet's trace: what `test
/// --trace` and `run --trace` send packets through.
pub struct Traced<'p> {
    pipeline: &'p LoadedPipeline,
    source: RefCell<TraceSource>,
    decoder: RefCell<Decoder>,
    /// For each packet run, in order, the traces its records completed
    /// (one, unless the ring was full).
    pub packets: RefCell<Vec<Result<Vec<PacketTrace>>>>,
}

impl<'p> Traced<'p> {
    pub fn new(pipeline: &'p LoadedPipeline) -> Result<Traced<'p>> {
        let mut source = TraceSource::open(pipeline)?;
        // Records of packets before ours (a reused ring) are not theirs.
        source.take(0)?;
        Ok(Traced {
            pipeline,
            source: RefCell::new(source),
            decoder: RefCell::default(),
            packets: RefCell::default(),
        })
    }

    fn collect(&self) -> Result<Vec<PacketTrace>> {
        let records = self.source.borrow_mut().take(0)?;
        self.decoder
            .borrow_mut()
            .feed(&self.pipeline.description, &records)
    }
}

impl MapSource for Traced<'_> {
    fn map(&self, name: &str) -> Result<Map> {
        self.pipeline.map(name)
    }

    fn copy_program(&self) -> Result<Option<std::os::fd::OwnedFd>> {
        self.pipeline.copy_program()
    }
}

impl PacketTarget for Traced<'_> {
    fn description(&self) -> &Pipeline {
        &self.pipeline.description
    }

    fn run_packet(&self, input_port: u32, packet: &[u8]) -> Result<PacketOutcome> {
        let outcome = self.pipeline.run_packet(input_port, packet);
        self.packets.borrow_mut().push(self.collect());
        outcome
    }

    fn take_digests(&self) -> Result<Vec<crate::digest::DigestMessage>> {
        self.pipeline.take_digests()
    }
}
