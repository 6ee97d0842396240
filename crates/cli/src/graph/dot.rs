//! A small directed graph with labelled nodes and edges, printed as DOT.

use std::fmt::Write;

/// How a node is drawn: states and tables as boxes, conditions as
/// diamonds, the ends of a flow as ovals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Box,
    Diamond,
    Oval,
    /// `accept` and `reject`: the parser's final states.
    Final,
    /// Extern method calls such as `packet.emit(h)` or `c.count(i)`.
    Note,
}

impl Shape {
    fn attributes(self) -> &'static str {
        match self {
            Shape::Box => "shape=box",
            Shape::Diamond => "shape=diamond",
            Shape::Oval => "shape=ellipse",
            Shape::Final => "shape=doublecircle",
            Shape::Note => "shape=note",
        }
    }
}

pub type NodeId = usize;

#[derive(Debug)]
struct Node {
    /// Lines of the label, the first one the node's name.
    lines: Vec<String>,
    shape: Shape,
}

#[derive(Debug)]
struct Edge {
    from: NodeId,
    to: NodeId,
    label: String,
}

#[derive(Debug)]
pub struct Graph {
    name: String,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
}

impl Graph {
    pub fn new(name: &str) -> Graph {
        Graph {
            name: name.to_string(),
            nodes: vec![],
            edges: vec![],
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn node(&mut self, lines: Vec<String>, shape: Shape) -> NodeId {
        self.nodes.push(Node { lines, shape });
        self.nodes.len() - 1
    }

    pub fn edge(&mut self, from: NodeId, to: NodeId, label: impl Into<String>) {
        self.edges.push(Edge {
            from,
            to,
            label: label.into(),
        });
    }

    /// The graph in Graphviz's DOT language; labels are left-aligned lines.
    pub fn to_dot(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "digraph {} {{", quote(&self.name));
        let _ = writeln!(out, "  label={};", quote(&self.name));
        out.push_str("  node [fontname=\"monospace\"];\n");
        out.push_str("  edge [fontname=\"monospace\"];\n");
        for (id, node) in self.nodes.iter().enumerate() {
            let label: String = node.lines.iter().map(|l| escape(l) + "\\l").collect();
            let _ = writeln!(
                out,
                "  n{id} [{} label=\"{label}\"];",
                node.shape.attributes()
            );
        }
        for edge in &self.edges {
            let _ = write!(out, "  n{} -> n{}", edge.from, edge.to);
            if !edge.label.is_empty() {
                let _ = write!(out, " [label={}]", quote(&edge.label));
            }
            out.push_str(";\n");
        }
        out.push_str("}\n");
        out
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn quote(text: &str) -> String {
    format!("\"{}\"", escape(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_left_aligned() {
        let mut g = Graph::new("p");
        let a = g.node(
            vec!["start".into(), "extract(hdr.\"x\")".into()],
            Shape::Box,
        );
        let b = g.node(vec!["accept".into()], Shape::Final);
        g.edge(a, b, "0x800 &&& 0xfff");
        let dot = g.to_dot();
        assert!(dot.contains("n0 [shape=box label=\"start\\lextract(hdr.\\\"x\\\")\\l\"];"));
        assert!(dot.contains("n0 -> n1 [label=\"0x800 &&& 0xfff\"];"));
    }
}
