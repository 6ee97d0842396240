//! The running host program of the user-space target, spoken to over its
//! stdin and stdout (the protocol is described in `user-c/p4u_driver.c`).
//! If it dies (a sanitizer report, a crash) every later request fails with
//! its stderr, so the report names what went wrong.

use crate::error::{Result, RuntimeError};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct UserHost {
    io: RefCell<Io>,
    /// The copies the last packet made.
    copies: RefCell<Vec<Copy>>,
    /// Whether the last packet left as its copies only (an XDP broadcast).
    broadcast: Cell<bool>,
}

/// A copy of a packet (`bpf_clone_redirect` at TC, a devmap broadcast's
/// at XDP), after egress ran on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copy {
    /// The interface it was sent to.
    pub ifindex: u32,
    /// What egress returned.
    pub retval: u32,
    pub packet: Vec<u8>,
}

struct Io {
    child: Child,
    /// `None` once closed, which ends the driver loop.
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    /// Set once the program has died: why.
    dead: Option<String>,
}

/// A map's type, key size, value size and capacity.
pub type Shape = (i32, u32, u32, u32);

impl fmt::Debug for UserHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("UserHost")
    }
}

impl UserHost {
    pub fn start(binary: &Path) -> Result<UserHost> {
        let mut child = Command::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                RuntimeError::NotSupported(format!("cannot start {}: {e}", binary.display()))
            })?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(RuntimeError::NotSupported(
                "no pipes to the host program".into(),
            ));
        };
        Ok(UserHost {
            io: RefCell::new(Io {
                child,
                input: Some(input),
                output: BufReader::new(output),
                dead: None,
            }),
            copies: RefCell::default(),
            broadcast: Cell::new(false),
        })
    }

    /// One request line, one answer line (without the newline).
    fn ask(&self, request: &str) -> Result<String> {
        let mut io = self.io.borrow_mut();
        if let Some(why) = &io.dead {
            return Err(RuntimeError::NotSupported(why.clone()));
        }
        let mut answer = String::new();
        let sent = match io.input.as_mut() {
            Some(input) => writeln!(input, "{request}").and_then(|()| input.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        let got = sent.and_then(|()| io.output.read_line(&mut answer));
        if matches!(got, Ok(n) if n > 0) {
            return Ok(answer.trim_end().to_string());
        }
        let why = io.death();
        io.dead = Some(why.clone());
        Err(RuntimeError::NotSupported(why))
    }

    pub fn shape(&self, map: &str) -> Result<Option<Shape>> {
        let answer = self.ask(&format!("shape {map}"))?;
        let numbers: Vec<i64> = answer
            .split(' ')
            .skip(1)
            .filter_map(|w| w.parse().ok())
            .collect();
        Ok(match numbers.as_slice() {
            [kind, key, value, max] => {
                Some((*kind as i32, *key as u32, *value as u32, *max as u32))
            }
            _ => None,
        })
    }

    /// The kernel's return code of a map update (0 or a negative errno).
    pub fn update(&self, map: &str, key: &[u8], value: &[u8], flags: u64) -> Result<i32> {
        let answer = self.ask(&format!("update {map} {flags} {} {}", hex(key), hex(value)))?;
        Ok(answer
            .strip_prefix("status ")
            .and_then(|s| s.parse().ok())
            .unwrap_or(-22))
    }

    /// The kernel's return code of a map delete (0 or a negative errno).
    pub fn delete(&self, map: &str, key: &[u8]) -> Result<i32> {
        let answer = self.ask(&format!("delete {map} {}", hex(key)))?;
        Ok(answer
            .strip_prefix("status ")
            .and_then(|s| s.parse().ok())
            .unwrap_or(-22))
    }

    /// A new map of no definition, as the kernel's map create gives one
    /// (for maps of maps): its name, whose number is the id to store.
    pub fn create_map(&self, shape: Shape) -> Result<String> {
        let (kind, key, value, max) = shape;
        let answer = self.ask(&format!("create {kind} {key} {value} {max}"))?;
        answer
            .strip_prefix("map ")
            .map(str::to_string)
            .ok_or_else(|| RuntimeError::BadObject(format!("the host program answered `{answer}`")))
    }

    pub fn lookup(&self, map: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let answer = self.ask(&format!("lookup {map} {}", hex(key)))?;
        Ok(answer.strip_prefix("value ").map(unhex))
    }

    /// Every key of `map`.
    pub fn keys(&self, map: &str) -> Result<Vec<Vec<u8>>> {
        let answer = self.ask(&format!("keys {map}"))?;
        Ok(answer.split(' ').skip(1).map(unhex).collect())
    }

    /// The trace records the program wrote since the last call.
    pub fn trace_records(&self) -> Result<Vec<Vec<u8>>> {
        let answer = self.ask("ring")?;
        Ok(answer.split(' ').skip(1).map(unhex).collect())
    }

    /// The digest records the program sent since the last call.
    pub fn digest_records(&self) -> Result<Vec<Vec<u8>>> {
        let answer = self.ask("ring digests")?;
        Ok(answer.split(' ').skip(1).map(unhex).collect())
    }

    /// Run one packet: the program's return value and the packet after
    /// it; its copies wait for [`UserHost::take_copies`].
    pub fn run(&self, packet: &[u8]) -> Result<(u32, Vec<u8>)> {
        let answer = self.ask(&format!("run {}", hex(packet)))?;
        let bad = || RuntimeError::BadObject(format!("the host program answered `{answer}`"));
        let mut words = answer.split(' ');
        let (Some("ret"), Some(retval), Some(bytes)) = (words.next(), words.next(), words.next())
        else {
            return Err(bad());
        };
        let mut copies = Vec::new();
        let mut rest: Vec<&str> = words.collect();
        let broadcast = rest.first() == Some(&"broadcast");
        if broadcast {
            rest.remove(0);
        }
        for copy in rest.chunks(4) {
            let ["copy", ifindex, retval, bytes] = copy else {
                return Err(bad());
            };
            copies.push(Copy {
                ifindex: ifindex.parse().map_err(|_| bad())?,
                // TC's verdicts are ints; TC_ACT_UNSPEC (-1) wraps as the kernel's u32 does.
                retval: retval.parse::<i32>().map_err(|_| bad())? as u32,
                packet: unhex(bytes),
            });
        }
        *self.copies.borrow_mut() = copies;
        self.broadcast.set(broadcast);
        Ok((retval.parse().unwrap_or(u32::MAX), unhex(bytes)))
    }

    /// The copies the last packet run made, in the order it made them.
    pub fn take_copies(&self) -> Vec<Copy> {
        self.copies.take()
    }

    /// Whether the last packet run left as its copies only: an XDP
    /// broadcast sends the frame to every devmap entry, not on its own.
    pub fn left_as_copies(&self) -> bool {
        self.broadcast.get()
    }
}

impl Io {
    /// Why the program stopped answering: its exit and its stderr.
    fn death(&mut self) -> String {
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        format!(
            "the user-space program stopped ({status}):\n{}",
            stderr.trim_end()
        )
    }
}

impl Drop for UserHost {
    fn drop(&mut self) {
        let io = self.io.get_mut();
        // Closing stdin ends the driver loop; waiting leaves no zombie.
        io.input = None;
        let _ = io.child.wait();
    }
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    text.as_bytes()
        .chunks(2)
        .filter_map(|pair| std::str::from_utf8(pair).ok())
        .filter_map(|pair| u8::from_str_radix(pair, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_empty_is_a_dash() {
        assert_eq!(hex(&[]), "-");
        assert_eq!(unhex("-"), Vec::<u8>::new());
        assert_eq!(unhex(&hex(&[0, 0xab, 0x10])), [0, 0xab, 0x10]);
    }
}
