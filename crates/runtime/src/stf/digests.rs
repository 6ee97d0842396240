//! `expect_digest NAME [FIELD=VALUE...]`, p4bpf's own STF command (the
//! reference harnesses check digests in PTF, not STF): the digests the
//! script's packets send must match the `expect_digest` lines in order,
//! each naming the digest (its P4Runtime name, its type's name or its
//! last dotted part) and the fields it checks, values in the value
//! syntax (`00:aa:bb:cc:dd:ee`, `0x1`, `10.0.0.1`). A script without the
//! command does not read digests; with it, every digest must be expected.

use super::parse::{Command, Line};
use crate::digest::DigestMessage;
use crate::packet_target::PacketTarget;
use crate::value;
use p4bpf_layout::Pipeline;
use std::collections::VecDeque;

/// One `expect_digest` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigestExpect {
    pub digest: String,
    pub fields: Vec<(String, String)>,
}

/// `NAME FIELD=VALUE...` after the command word.
pub fn parse(rest: &str) -> Result<Command, String> {
    let mut words = rest.split_whitespace();
    let digest = words
        .next()
        .ok_or("usage: expect_digest NAME [FIELD=VALUE...]")?
        .to_string();
    let fields = words
        .map(|w| {
            w.split_once('=')
                .map(|(f, v)| (f.to_string(), v.to_string()))
                .ok_or_else(|| format!("expected FIELD=VALUE, got `{w}`"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Command::ExpectDigest(DigestExpect { digest, fields }))
}

struct Sent {
    line: usize,
    packet: usize,
    result: crate::Result<Vec<DigestMessage>>,
}

/// The digests a script's packets sent, and its expectations.
pub struct DigestCheck {
    expects: VecDeque<(usize, DigestExpect)>,
    sent: Vec<Sent>,
}

impl DigestCheck {
    /// `None` when the script checks no digest.
    pub fn of(script: &[Line]) -> Option<DigestCheck> {
        let expects: VecDeque<_> = script
            .iter()
            .filter_map(|l| match &l.command {
                Command::ExpectDigest(e) => Some((l.number, e.clone())),
                _ => None,
            })
            .collect();
        (!expects.is_empty()).then_some(DigestCheck {
            expects,
            sent: vec![],
        })
    }

    /// Reads what packet `packet` (at `line`) sent.
    pub fn after_packet(&mut self, target: &impl PacketTarget, line: usize, packet: usize) {
        let result = target.take_digests();
        self.sent.push(Sent {
            line,
            packet,
            result,
        });
    }

    /// Report lines `(line, text, failed)`, as `stf::run` keeps them.
    pub fn report(mut self, pipeline: &Pipeline, file: &str) -> Vec<(usize, String, bool)> {
        let mut out = vec![];
        for sent in &self.sent {
            let messages = match &sent.result {
                Ok(messages) => messages,
                Err(error) => {
                    let text = format!(
                        "digests of packet {} ({file}:{}): FAIL: {error}",
                        sent.packet, sent.line
                    );
                    out.push((sent.line, text, true));
                    continue;
                }
            };
            for message in messages {
                let head = format!("{message} (packet {}, {file}:{})", sent.packet, sent.line);
                let (text, failed) = match self.expects.pop_front() {
                    Some((at, expect)) => match differences(pipeline, &expect, message) {
                        None => (format!("{head}: ok (expect_digest at line {at})"), false),
                        Some(why) => (
                            format!("{head}: FAIL, differs from expect_digest at line {at}: {why}"),
                            true,
                        ),
                    },
                    None => (format!("{head}: FAIL, no digest was expected"), true),
                };
                out.push((sent.line, text, failed));
            }
        }
        for (at, expect) in self.expects {
            let text = format!(
                "expect_digest ({file}:{at}) {}: FAIL, no digest came for it",
                expect.digest
            );
            out.push((at, text, true));
        }
        out
    }
}

/// Why `message` does not match `expect`, or `None` when it does.
fn differences(
    pipeline: &Pipeline,
    expect: &DigestExpect,
    message: &DigestMessage,
) -> Option<String> {
    let layout = pipeline.digests.as_ref()?;
    let digest = match layout.find(&expect.digest) {
        Some(d) if d.name == message.digest => d,
        Some(d) => return Some(format!("expected digest `{}`", d.name)),
        None => return Some(format!("the program has no digest `{}`", expect.digest)),
    };
    let mut why = vec![];
    for (name, wanted) in &expect.fields {
        let Some(field) = digest.fields.iter().find(|f| &f.name == name) else {
            why.push(format!("`{}` has no field `{name}`", digest.name));
            continue;
        };
        let got = message.field(name).unwrap_or_default();
        let same = match (
            value::parse(wanted, field.bit_width),
            value::parse(got, field.bit_width),
        ) {
            (Ok(a), Ok(b)) => a == b,
            (Err(e), _) => {
                why.push(format!("{name}: {e}"));
                continue;
            }
            _ => false,
        };
        if !same {
            why.push(format!("{name} is {got}, expected {wanted}"));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}
