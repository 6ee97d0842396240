//! A parser's state machine: one node per state listing what it does,
//! edges labelled with the `select` cases that take them.

use super::dot::{Graph, NodeId, Shape};
use super::Text;
use p4bpf_front::ast::{ParserState, Transition};
use std::collections::HashMap;

pub fn graph(name: &str, states: &[ParserState], text: &Text) -> Graph {
    let mut g = Graph::new(name);
    let mut nodes: HashMap<&str, NodeId> = HashMap::new();
    for state in states {
        let mut lines = vec![state.name.name.clone()];
        lines.extend(state.stmts.iter().map(|s| text.of(s.span)));
        if let Some(Transition::Select { exprs, .. }) = &state.transition {
            let keys: Vec<String> = exprs.iter().map(|e| text.of(e.span)).collect();
            lines.push(format!("select({})", keys.join(", ")));
        }
        nodes.insert(&state.name.name, g.node(lines, Shape::Box));
    }
    for state in states {
        let from = nodes[state.name.name.as_str()];
        for (target, label) in transitions(state, text) {
            let to = match nodes.get(target) {
                Some(to) => *to,
                None => {
                    // `accept` and `reject` are never declared.
                    let end = g.node(vec![target.to_string()], Shape::Final);
                    nodes.insert(target, end);
                    end
                }
            };
            g.edge(from, to, label);
        }
    }
    g
}

/// Each state the parser can go to next, with the keysets leading there
/// (joined when several cases share a target).
fn transitions<'s>(state: &'s ParserState, text: &Text) -> Vec<(&'s str, String)> {
    let mut out: Vec<(&str, String)> = vec![];
    match &state.transition {
        None => {}
        Some(Transition::Direct(path)) => out.push((&path.name.name, String::new())),
        Some(Transition::Select { cases, .. }) => {
            for case in cases {
                let keyset = text.of(case.keyset.span);
                match out.iter_mut().find(|(t, _)| *t == case.state.name.name) {
                    Some((_, label)) => {
                        label.push_str(" | ");
                        label.push_str(&keyset);
                    }
                    None => out.push((&case.state.name.name, keyset)),
                }
            }
        }
    }
    out
}
