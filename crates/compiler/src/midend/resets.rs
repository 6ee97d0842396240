//! Which metadata fields of the per-packet state need no per-packet reset
//! ([`SkippedResets`]): those nothing reads, and those every pass writes
//! before anything reads them (the packet length, the outputs' defaults).
//! The emitter leaves them out of the reset: the state lives in a per-CPU
//! map, so clang cannot drop those stores itself.
//!
//! Conservative by construction: only scalar fields reached through plain
//! structs of a state variable are candidates (header validity, stacks,
//! unions and varbits are always reset), and a field counts as read when
//! any expression names it or anything holding it, except as the whole
//! left side of an assignment. Every place the architecture's metadata
//! names ([`Intrinsics`]: verdict, ports, clone, resubmit and
//! recirculation metadata, parser errors...) and every variable named
//! outside expressions (table hit flags, timer requests, meter colours,
//! `add_entry` arguments, action parameters) counts as read.

use super::visit::{walk_expr, walk_program, walk_stmt, Descend, Visitor};
use crate::ir::{
    CloneI2e, Expr, ExprKind, ExternKind, FieldLists, Intrinsics, Program, Replication, Resubmit,
    Stmt, Ty, VarId, VarStorage, VerdictRule,
};
use std::collections::BTreeSet;

/// A place in a state variable: the variable and the field indices down
/// from it through structs.
pub type Path = (VarId, Vec<usize>);

/// The scalar metadata fields whose reset no one would read, by path.
#[derive(Default)]
pub struct SkippedResets {
    leaves: BTreeSet<Path>,
}

impl SkippedResets {
    /// The fields of `prog`'s state that need no reset.
    pub fn of(prog: &Program) -> SkippedResets {
        let mut reads = ReadWalk::default();
        walk_program(&mut reads, prog);
        intrinsic_reads(&prog.intrinsics, &mut reads);
        reads
            .read
            .extend(vars_named_outside_expressions(prog).map(|v| (v, vec![])));
        let mut leaves = BTreeSet::new();
        for (i, v) in prog.vars.iter().enumerate() {
            if v.storage == VarStorage::State && matches!(v.ty, Ty::Struct(_)) {
                struct_leaves(prog, &v.ty, &mut (VarId(i as u32), vec![]), &mut leaves);
            }
        }
        let first_written = written_before_the_first_step(&prog.intrinsics);
        leaves.retain(|leaf| !reads.covers(leaf) || first_written.covers(leaf));
        SkippedResets { leaves }
    }

    /// Whether the scalar at `var`'s `fields` needs no reset.
    pub fn contains(&self, var: VarId, fields: &[usize]) -> bool {
        self.leaves.iter().any(|(v, f)| *v == var && f == fields)
    }
}

/// The scalar fields of struct type `ty` at `at` (bool, error, bit
/// strings), reached through structs only.
fn struct_leaves(prog: &Program, ty: &Ty, at: &mut Path, out: &mut BTreeSet<Path>) {
    match ty {
        Ty::Bool | Ty::Error | Ty::Bits { .. } => {
            out.insert(at.clone());
        }
        Ty::Struct(a) => {
            for (i, f) in prog
                .agg(*a)
                .map_or(&[][..], |g| &g.fields)
                .iter()
                .enumerate()
            {
                at.1.push(i);
                struct_leaves(prog, &f.ty, at, out);
                at.1.pop();
            }
        }
        _ => {}
    }
}

/// The places read: a path covers everything below it.
#[derive(Default)]
struct ReadWalk {
    read: BTreeSet<Path>,
}

impl ReadWalk {
    fn covers(&self, leaf: &Path) -> bool {
        self.read
            .iter()
            .any(|(v, f)| *v == leaf.0 && leaf.1.starts_with(f))
    }

    /// Whether a place read holds `path` or lies inside it.
    fn overlaps(&self, path: &Path) -> bool {
        self.read
            .iter()
            .any(|(v, f)| *v == path.0 && (path.1.starts_with(f) || f.starts_with(&path.1)))
    }

    fn read_all(&mut self, e: &Expr) {
        walk_expr(self, e);
    }
}

/// The path `e` names, when it is a variable or fields of one.
fn place(e: &Expr) -> Option<Path> {
    match &e.kind {
        ExprKind::Var(v) => Some((*v, vec![])),
        ExprKind::Field { base, field, .. } => {
            let (v, mut fields) = place(base)?;
            fields.push(*field);
            Some((v, fields))
        }
        _ => None,
    }
}

impl Visitor for ReadWalk {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        match s {
            // Storing into a whole place reads nothing of it.
            Stmt::Assign { lhs, rhs } if place(lhs).is_some() => {
                self.read_all(rhs);
                Descend::No
            }
            _ => Descend::Yes,
        }
    }

    fn expr(&mut self, e: &Expr) -> Descend {
        match place(e) {
            Some(path) => {
                self.read.insert(path);
                Descend::No
            }
            None => Descend::Yes,
        }
    }
}

/// Every place of the architecture's metadata: the target reads them
/// outside the program's code (the verdict, the ports, the passes).
/// Destructured without `..`: a new kind of metadata must be added here.
fn intrinsic_reads(i: &Intrinsics, reads: &mut ReadWalk) {
    let Intrinsics {
        ingress_port,
        packet_length,
        output_port,
        verdict,
        on_reject: _,
        parser_errors,
        truncate,
        defaults: _, // statements, walked with the program
        replication,
        clone_i2e,
        clone_e2e,
        resubmit,
        recirculate,
        mirror,
        class_of_service,
        sets_class_of_service: _, // a flag, not a place
    } = i;
    let mut places: Vec<&Expr> = vec![];
    places.extend(
        [
            ingress_port,
            packet_length,
            output_port,
            truncate,
            class_of_service,
        ]
        .into_iter()
        .flatten(),
    );
    places.push(match verdict {
        VerdictRule::Accept(place) => place,
        VerdictRule::Code { place, .. } | VerdictRule::Port { place, .. } => place,
    });
    places.extend(parser_errors.iter().map(|(_, place)| place));
    if let Some(Replication {
        group,
        replica_id,
        instance_type,
        ..
    }) = replication
    {
        places.extend([group, replica_id, instance_type]);
    }
    for CloneI2e {
        flag,
        session,
        packet_path,
        field_lists,
        ..
    } in [clone_i2e, clone_e2e].into_iter().flatten()
    {
        places.extend([flag, session, packet_path]);
        places.extend(field_list_places(field_lists.as_ref()));
    }
    for Resubmit {
        flag,
        kept,
        packet_paths,
        field_lists,
        ..
    } in [resubmit, recirculate].into_iter().flatten()
    {
        places.push(flag);
        places.extend(kept);
        places.extend(packet_paths);
        places.extend(field_list_places(field_lists.as_ref()));
    }
    places.extend(mirror.iter().flat_map(|m| &m.slots));
    places.into_iter().for_each(|e| reads.read_all(e));
}

/// The places every pass writes right after the reset, before anything
/// reads them: the packet's length and the outputs' defaults (a default
/// no earlier default reads). Their reset would be overwritten unread.
fn written_before_the_first_step(i: &Intrinsics) -> ReadWalk {
    let mut written = ReadWalk::default();
    written
        .read
        .extend(i.packet_length.as_ref().and_then(place));
    let mut read_so_far = ReadWalk::default();
    for s in &i.defaults {
        if let Stmt::Assign { lhs, rhs } = s {
            read_so_far.read_all(rhs);
            match place(lhs) {
                Some(path) if !read_so_far.overlaps(&path) => {
                    written.read.insert(path);
                }
                _ => read_so_far.read_all(lhs),
            }
        } else {
            // Anything else may read what it likes: what comes after is not first.
            walk_stmt(&mut read_so_far, s);
            break;
        }
    }
    written
}

fn field_list_places(lists: Option<&FieldLists>) -> Vec<&Expr> {
    let Some(FieldLists { chosen, lists }) = lists else {
        return vec![];
    };
    std::iter::once(chosen)
        .chain(lists.iter().flat_map(|(_, fields)| fields))
        .collect()
}

/// Variables the IR names by id outside expressions, which the emitter
/// reads directly. (A table's `hit` and `action_run` variables are
/// scalars, never candidates.)
fn vars_named_outside_expressions(prog: &Program) -> impl Iterator<Item = VarId> + '_ {
    let actions = prog.actions.iter().flat_map(|a| a.params.iter().copied());
    let requests = prog
        .entry_requests
        .iter()
        .flat_map(|r| r.args.iter().copied());
    let timers = prog
        .tables
        .iter()
        .filter_map(|t| t.entry_timer?.requests)
        .flat_map(|r| [r.request, r.profile]);
    let colours = prog.externs.iter().filter_map(|x| match &x.kind {
        ExternKind::DirectMeter { colour, .. } => Some(*colour),
        _ => None,
    });
    std::iter::once(prog.headers)
        .chain(actions)
        .chain(requests)
        .chain(timers)
        .chain(colours)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::midend::tests::lowered;

    /// The fields of `text`'s state that need no reset, each as its
    /// variable's C name and its innermost field (`user_meta.keyed`).
    fn skipped(text: &str) -> Vec<String> {
        let prog = lowered(text);
        let found = SkippedResets::of(&prog);
        let mut names = vec![];
        for (var, fields) in &found.leaves {
            let Some(v) = prog.var(*var) else { continue };
            let mut ty = v.ty.clone();
            let mut name = String::new();
            for f in fields {
                let Ty::Struct(a) = ty else { break };
                let Some(field) = prog.agg(a).and_then(|g| g.fields.get(*f)) else {
                    break;
                };
                name = field.name.clone();
                ty = field.ty.clone();
            }
            names.push(format!("{}.{name}", v.c_name));
        }
        names
    }

    /// A PSA program whose ingress does `ingress` with user metadata
    /// `meta_t` and deparses with `deparse`; resubmits when `resubmit`.
    fn psa(meta: &str, ingress: &str, deparse: &str) -> String {
        format!(
            "#include <core.p4>\n#include <psa.p4>\n\
             header eth_t {{ bit<48> dst; bit<48> src; bit<16> ty; }}\n\
             struct hs {{ eth_t eth; }}\n\
             struct meta_t {{ {meta} }}\n\
             struct kept_t {{ bit<8> again; bit<8> kept_unused; }}\n\
             struct empty_t {{}}\n\
             parser IP(packet_in p, out hs h, inout meta_t m, in psa_ingress_parser_input_metadata_t i,\n\
                 in kept_t r, in empty_t c) {{ state start {{ p.extract(h.eth); transition accept; }} }}\n\
             control I(inout hs h, inout meta_t m, in psa_ingress_input_metadata_t i,\n\
                 inout psa_ingress_output_metadata_t o) {{\n\
                 Counter<bit<32>, bit<8>>(256, PSA_CounterType_t.PACKETS) seen;\n\
                 action keep(bit<8> v) {{ m.written = v; }}\n\
                 table t {{ key = {{ m.keyed : exact; }} actions = {{ keep; NoAction; }} }}\n\
                 apply {{ {ingress} }}\n\
             }}\n\
             control ID(packet_out p, out empty_t c, out kept_t r, out empty_t n, inout hs h,\n\
                 in meta_t m, in psa_ingress_output_metadata_t o) {{\n\
                 Digest<bit<8>>() learn;\n\
                 apply {{ {deparse} p.emit(h.eth); }}\n\
             }}\n\
             parser EP(packet_in p, out hs h, inout meta_t m, in psa_egress_parser_input_metadata_t i,\n\
                 in empty_t n, in empty_t c, in empty_t c2) {{ state start {{ transition accept; }} }}\n\
             control E(inout hs h, inout meta_t m, in psa_egress_input_metadata_t i,\n\
                 inout psa_egress_output_metadata_t o) {{ apply {{ }} }}\n\
             control ED(packet_out p, out empty_t c, out empty_t r, inout hs h, in meta_t m,\n\
                 in psa_egress_output_metadata_t o, in psa_egress_deparser_input_metadata_t d) {{ apply {{ }} }}\n\
             PSA_Switch(IngressPipeline(IP(), I(), ID()), PacketReplicationEngine(),\n\
                 EgressPipeline(EP(), E(), ED()), BufferingQueueingEngine()) main;\n"
        )
    }

    const META: &str = "bit<8> written; bit<8> keyed; bit<8> counted; bit<8> sent; bit<8> sliced;";

    #[test]
    fn a_field_written_but_never_read_is_left_out() {
        let found = skipped(&psa(META, "m.written = 1; t.apply();", ""));
        assert!(found.contains(&"user_meta.written".into()), "{found:?}");
        // Never named at all.
        assert!(found.contains(&"user_meta.counted".into()), "{found:?}");
    }

    #[test]
    fn a_field_read_by_a_table_key_on_some_path_is_reset() {
        let found = skipped(&psa(
            META,
            "if (h.eth.ty == 1) { t.apply(); } m.keyed = 2;",
            "",
        ));
        assert!(!found.contains(&"user_meta.keyed".into()), "{found:?}");
        assert!(found.contains(&"user_meta.written".into()), "{found:?}");
    }

    #[test]
    fn a_field_passed_to_an_extern_is_reset() {
        let found = skipped(&psa(META, "seen.count(m.counted);", ""));
        assert!(!found.contains(&"user_meta.counted".into()), "{found:?}");
    }

    #[test]
    fn a_field_the_deparser_sends_in_a_digest_is_reset() {
        let found = skipped(&psa(META, "", "learn.pack(m.sent);"));
        assert!(!found.contains(&"user_meta.sent".into()), "{found:?}");
        assert!(found.contains(&"user_meta.counted".into()), "{found:?}");
    }

    #[test]
    fn a_slice_assignment_reads_the_rest_of_the_field() {
        let found = skipped(&psa(META, "m.sliced[3:0] = 1;", ""));
        assert!(!found.contains(&"user_meta.sliced".into()), "{found:?}");
    }

    #[test]
    fn a_whole_struct_copy_reads_every_field() {
        let meta = "bit<8> written; bit<8> keyed; bit<8> counted; bit<8> sent; bit<8> sliced; \
                    bit<8> last;";
        let ingress = "meta_t copy = m; m.last = copy.written; seen.count(m.last);";
        let found = skipped(&psa(meta, ingress, ""));
        for field in ["written", "keyed", "counted", "sent", "sliced"] {
            assert!(
                !found.contains(&format!("user_meta.{field}")),
                "{field}: {found:?}"
            );
        }
    }

    #[test]
    fn the_architecture_metadata_and_kept_resubmit_metadata_are_reset() {
        let deparse = "if (o.resubmit) { r.again = 1; }";
        let found = skipped(&psa(META, "o.resubmit = h.eth.ty == 9;", deparse));
        // Kept across the resubmission, read by the next pass's parser.
        assert!(!found.contains(&"resubmit_meta.again".into()), "{found:?}");
        assert!(
            !found.contains(&"resubmit_meta.kept_unused".into()),
            "{found:?}"
        );
        // The verdict and the passes read these outside the program's code.
        for field in ["resubmit", "egress_port"] {
            assert!(
                !found.contains(&format!("ostd.{field}")),
                "{field}: {found:?}"
            );
        }
        // What only the program reads, and it does not: the timestamp.
        assert!(
            found.contains(&"istd.ingress_timestamp".into()),
            "{found:?}"
        );
    }

    #[test]
    fn a_default_every_pass_writes_before_reading_needs_no_reset() {
        // PSA's ingress output metadata starts with drop = true: the
        // verdict reads it, but the default has always written it first.
        let found = skipped(&psa(META, "", ""));
        assert!(found.contains(&"ostd.drop".into()), "{found:?}");
        // Read by the verdict, no default: reset.
        assert!(!found.contains(&"ostd.egress_port".into()), "{found:?}");
    }

    #[test]
    #[allow(clippy::panic)] // a fixture that does not recirculate is the test's own bug
    fn metadata_kept_across_recirculation_is_reset() {
        let text = include_str!("../../../cli/tests/psa/psa_recirculate.p4");
        let found = skipped(text);
        let prog = lowered(text);
        let kept = prog
            .intrinsics
            .recirculate
            .as_ref()
            .and_then(|r| r.kept.as_ref());
        let Some(ExprKind::Var(kept)) = kept.map(|k| &k.kind) else {
            panic!("the program recirculates with metadata");
        };
        let name = prog
            .var(*kept)
            .map(|v| v.c_name.clone())
            .unwrap_or_default();
        assert!(
            !found.iter().any(|f| f.starts_with(&format!("{name}."))),
            "{found:?}"
        );
        // The egress port the program sets decides the recirculation: read.
        assert!(!found.contains(&"ostd.egress_port".into()), "{found:?}");
        assert!(!found.contains(&"istd.packet_path".into()), "{found:?}");
    }
}
