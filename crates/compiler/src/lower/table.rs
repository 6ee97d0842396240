//! Tables: keys with match kinds, the actions a table may run (with their
//! codes), the default action, const entries, size and the storage the
//! target will use (hash, array, LPM trie, ternary, or code for tables whose
//! entries are all known at compile time).

use super::profile::ProfileProperties;
use super::{Binding, Lowerer};
use crate::ir::{
    self, ActionCall, ConstEntry, Expr, ExprKind, MatchKind, Stmt, Storage, TableKey, VarStorage,
};
use p4bpf_front::ast::{self, DeclKind, ExprKind as A, TablePropertyKind};

/// Entries a table holds when the program does not say.
const DEFAULT_SIZE: u32 = 1024;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn table(&mut self, decl: &'a ast::Decl) {
        let DeclKind::Table { name, properties } = &decl.kind else {
            return;
        };
        let p4 = self.control_plane_name(&decl.annotations, &name.name);
        let mut keys = vec![];
        let mut actions = vec![];
        let mut default = None;
        let mut default_is_const = false;
        let mut entries: Option<&'a [ast::Entry]> = None;
        let mut entries_const = false;
        let mut size = None;
        let mut array = false;
        let mut add_on_miss = false;
        let mut profile = ProfileProperties::default();
        let mut direct = vec![];
        let mut timer = None;
        let mut key_setup = vec![];
        for prop in properties {
            match &prop.kind {
                TablePropertyKind::Key(elems) => {
                    for k in elems {
                        if k.match_kind.name.name == "selector" {
                            profile.selector_keys.extend(self.selector_key(k));
                        } else if let Some(key) = self.table_key(k, &mut key_setup) {
                            keys.push(key);
                        }
                    }
                }
                TablePropertyKind::Actions(refs) => actions = self.actions_list(refs),
                TablePropertyKind::DefaultAction(e) => {
                    default = Some(e);
                    default_is_const = prop.is_const;
                }
                TablePropertyKind::Entries(list) => {
                    entries = Some(list);
                    entries_const = prop.is_const;
                }
                TablePropertyKind::Other {
                    name: prop_name,
                    value,
                } => match prop_name.name.as_str() {
                    "size" => size = self.env.const_u32(value, &mut self.diags),
                    "add_on_miss" => add_on_miss = self.add_on_miss_property(value),
                    "implementation" | "psa_implementation" | "pna_implementation"
                        if self.names_profile(value) =>
                    {
                        profile.profile = self.implementation_profile(prop, value, &p4);
                        profile.psa = prop_name.name == "psa_implementation";
                    }
                    "psa_empty_group_action" => {
                        profile.empty_group_action = Some(value);
                        profile.empty_group_const = prop.is_const;
                    }
                    p if Self::is_direct_property(p) => self.direct_property(p, value, &mut direct),
                    p if Self::is_timer_property(p) => {
                        timer = timer.or(self.timer_property(p, value))
                    }
                    "implementation" => match &value.kind {
                        A::Call { callee, args, .. } => {
                            let kind = match &callee.kind {
                                A::Path(p) => p.name.name.as_str(),
                                _ => "",
                            };
                            array = kind == "array_table";
                            if !matches!(kind, "array_table" | "hash_table") {
                                self.diags.error(value.span, format!("table implementation `{kind}` is not supported (use `hash_table` or `array_table`)"));
                            }
                            if let Some(a) = args.first() {
                                size = self.env.const_u32(&a.value, &mut self.diags);
                            }
                        }
                        _ => self
                            .diags
                            .error(value.span, "expected `hash_table(N)` or `array_table(N)`"),
                    },
                    _ => {}
                },
            }
        }
        let default_action = match default {
            Some(e) => self.action_call(e),
            None => match self.lookup("NoAction") {
                Some(Binding::Action(action)) => Some(ActionCall {
                    action,
                    args: vec![],
                }),
                _ => {
                    self.diags.error(
                        decl.span,
                        "table has no default action and `NoAction` is not declared",
                    );
                    None
                }
            },
        };
        let Some(default_action) = default_action else {
            return;
        };
        let mut const_entries = vec![];
        let initial_entries = match entries {
            Some(list) if !entries_const => self.initial_entries(list, &keys, properties),
            _ => vec![],
        };
        if let Some(list) = entries.filter(|_| entries_const) {
            let ranks = self.entry_ranks(list);
            let mut ranked = vec![];
            for (position, entry) in list.iter().enumerate() {
                if let Some(e) = self.const_entry(entry, &keys) {
                    let rank = ranks.as_ref().and_then(|r| r.get(position).copied());
                    ranked.push((rank, e));
                }
            }
            // Stable: equal priorities keep their written order.
            ranked.sort_by_key(|(rank, _)| *rank);
            const_entries = ranked.into_iter().map(|(_, e)| e).collect();
        }
        longest_prefix_first(&keys, &mut const_entries);
        let storage = self.storage(&keys, array, entries_const && entries.is_some(), decl);
        self.check_direct_storage(&direct, storage, decl);
        self.check_direct_uses(&actions, &direct, decl);
        let add_on_miss = (add_on_miss || self.adds_implicitly(&default_action))
            && self.add_on_miss_fits(storage, decl);
        let tc_acl = self.tc_acl(&decl.annotations);
        let entry_timer = self.entry_timer(timer, storage, decl);
        let id = ir::TableId(self.prog.tables.len() as u32);
        if !key_setup.is_empty() {
            self.key_setup.insert(id, key_setup);
        }
        let c_name = self.c_name(&p4);
        let p4_id = self.id_annotation(&decl.annotations);
        let cache = self.cache_annotation(&decl.annotations, decl.span);
        let origin = self.diags.origin(decl.span);
        let implementation = self.table_implementation(profile, id, &actions);
        let entries_here = storage == Storage::Code || !initial_entries.is_empty();
        if implementation.is_some() && (entries_here || add_on_miss) {
            self.diags.error(decl.span, "a table with an action profile or selector takes its entries from the control plane: no `entries`, no `add_on_miss`");
        }
        self.prog.tables.push(ir::Table {
            name: p4,
            c_name,
            origin,
            keys,
            actions,
            default_action,
            default_is_const,
            const_entries,
            size: size.unwrap_or(DEFAULT_SIZE).max(1),
            storage,
            p4_id,
            add_on_miss,
            tc_acl,
            implementation,
            direct,
            entry_timer,
            initial_entries,
            cache,
        });
        self.bind(&name.name, Binding::Table(id));
    }

    /// `@p4bpf_cache` or `@p4bpf_no_cache`, not both.
    fn cache_annotation(
        &mut self,
        annotations: &[ast::Annotation],
        span: p4bpf_front::source::Span,
    ) -> Option<bool> {
        match (
            Self::has_annotation(annotations, "p4bpf_cache"),
            Self::has_annotation(annotations, "p4bpf_no_cache"),
        ) {
            (true, true) => {
                self.diags.error(
                    span,
                    "a table is either `@p4bpf_cache` or `@p4bpf_no_cache`, not both",
                );
                None
            }
            (cached, uncached) => (cached || uncached).then_some(cached),
        }
    }

    fn storage(
        &mut self,
        keys: &[TableKey],
        array: bool,
        has_entries: bool,
        decl: &ast::Decl,
    ) -> Storage {
        let lpm = keys.iter().filter(|k| k.kind == MatchKind::Lpm).count();
        let ternary = keys.iter().any(|k| {
            matches!(
                k.kind,
                MatchKind::Ternary | MatchKind::Range | MatchKind::Optional
            )
        });
        if has_entries {
            return Storage::Code;
        }
        if keys.is_empty() {
            return Storage::DefaultOnly;
        }
        if lpm > 1 {
            self.diags
                .error(decl.span, "a table may have at most one `lpm` key");
        }
        if ternary {
            Storage::Ternary
        } else if lpm == 1 {
            Storage::LpmTrie
        } else if array {
            if keys.len() != 1
                || keys
                    .iter()
                    .any(|k| k.expr.ty.width().is_none_or(|w| w > 32))
            {
                self.diags.error(
                    decl.span,
                    "an `array_table` needs exactly one exact key of at most 32 bits",
                );
            }
            Storage::Array
        } else {
            Storage::Hash
        }
    }

    /// The statements computing `table`'s keys before an `apply`.
    pub(super) fn key_setup(&self, table: ir::TableId) -> Vec<Stmt> {
        self.key_setup.get(&table).cloned().unwrap_or_default()
    }

    /// One key; a key that applies a table or calls a function is computed
    /// into a variable by statements added to `setup`, which run before
    /// each `apply` (P4 evaluates the key expressions there).
    fn table_key(&mut self, k: &'a ast::KeyElement, setup: &mut Vec<Stmt>) -> Option<TableKey> {
        let mut expr = self.expr(&k.expr)?;
        if !self.pending.is_empty() {
            setup.append(&mut self.pending);
            let var = self.new_var(self.dotted("key"), expr.ty.clone(), VarStorage::State);
            let value = Expr {
                kind: ExprKind::Var(var),
                ty: expr.ty.clone(),
            };
            setup.push(Stmt::Assign {
                lhs: value.clone(),
                rhs: expr,
            });
            expr = value;
        }
        let kind = match k.match_kind.name.name.as_str() {
            "exact" => MatchKind::Exact,
            "lpm" => MatchKind::Lpm,
            "ternary" => MatchKind::Ternary,
            "optional" => MatchKind::Optional,
            "range" => MatchKind::Range,
            other => {
                self.diags.error(
                    k.match_kind.span,
                    format!("match kind `{other}` is not supported by the eBPF target"),
                );
                return None;
            }
        };
        if expr.ty.width().is_none() {
            self.diags
                .error(k.expr.span, "a table key must be a bit string or bool");
            return None;
        }
        // Bounds are compared as host integers in the data path.
        if kind == MatchKind::Range && expr.ty.width().is_some_and(|w| w > 64) {
            self.diags
                .error(k.expr.span, "a `range` key may be at most 64 bits wide");
            return None;
        }
        let name = Self::annotation_string(&k.annotations, "name")
            .unwrap_or_else(|| self.diags.text(k.expr.span));
        Some(TableKey { name, expr, kind })
    }

    /// `a` or `a(1, 2)` naming an action with all its arguments.
    pub(super) fn action_call(&mut self, e: &'a ast::Expr) -> Option<ActionCall> {
        let (callee, args): (&ast::Expr, &'a [ast::Argument]) = match &e.kind {
            A::Call { callee, args, .. } => (callee, args),
            _ => (e, &[]),
        };
        let action = match &callee.kind {
            A::Path(p) => match self.lookup(&p.name.name) {
                Some(Binding::Action(a)) => Some(a),
                _ => None,
            },
            _ => None,
        };
        let Some(action) = action else {
            self.diags.error(e.span, "expected an action");
            return None;
        };
        let (action, args) = self.table_action(action, args);
        let types = self.action_param_types(action);
        if types.len() != args.len() {
            self.diags.error(
                e.span,
                format!(
                    "action takes {} arguments, {} given",
                    types.len(),
                    args.len()
                ),
            );
            return None;
        }
        let mut lowered = vec![];
        for a in args {
            let x = self.expr(&a.value)?;
            if !matches!(x.kind, ir::ExprKind::Int(_) | ir::ExprKind::Bool(_)) {
                self.diags.error(
                    a.span,
                    "arguments of table actions must be compile-time constants",
                );
                return None;
            }
            lowered.push(x);
        }
        Some(ActionCall {
            action,
            args: lowered,
        })
    }

    pub(super) fn const_entry(
        &mut self,
        entry: &'a ast::Entry,
        keys: &[TableKey],
    ) -> Option<ConstEntry> {
        let items: Vec<&'a ast::Expr> = match &entry.keyset.kind {
            A::List(items) if keys.len() > 1 || items.len() == 1 => items.iter().collect(),
            _ => vec![&entry.keyset],
        };
        if items.len() != keys.len() {
            self.diags.error(
                entry.keyset.span,
                format!("expected {} key values", keys.len()),
            );
            return None;
        }
        let mut keysets = vec![];
        for (item, key) in items.iter().zip(keys) {
            let width = key.expr.ty.width().unwrap_or(0);
            let keyset = self.keyset(item, width)?;
            if width > 64
                && !matches!(
                    keyset,
                    ir::Keyset::Value(_) | ir::Keyset::Mask { .. } | ir::Keyset::Default
                )
            {
                self.diags.error(
                    item.span,
                    "keys wider than 64 bits take exact or masked values in const entries",
                );
                return None;
            }
            keysets.push(keyset);
        }
        let action = self.action_call(&entry.action)?;
        Some(ConstEntry { keysets, action })
    }
}

/// In a table matching one `lpm` key among exact ones, the longest prefix
/// wins whatever the order the entries are written in (as p4c and PSA-eBPF
/// match them); tables with ternary, range or optional keys keep written
/// order as priority. The sort is stable: equal prefixes keep their order.
fn longest_prefix_first(keys: &[TableKey], entries: &mut [ConstEntry]) {
    let kinds = || keys.iter().map(|k| k.kind);
    let lpm = kinds().position(|k| k == MatchKind::Lpm);
    let only_exact_besides = kinds().all(|k| matches!(k, MatchKind::Exact | MatchKind::Lpm));
    let (Some(lpm), true) = (lpm, only_exact_besides) else {
        return;
    };
    let width = keys.get(lpm).and_then(|k| k.expr.ty.width()).unwrap_or(0);
    let prefix = |e: &ConstEntry| match e.keysets.get(lpm) {
        Some(ir::Keyset::Mask { mask, .. }) => mask.count_ones(),
        Some(ir::Keyset::Value(_)) => u64::from(width),
        _ => 0,
    };
    entries.sort_by_key(|e| std::cmp::Reverse(prefix(e)));
}
