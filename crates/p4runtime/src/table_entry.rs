//! P4Runtime table entries to the runtime's entries and back. The checks
//! the specification asks of a match are made here, before the runtime
//! sees the entry: every field known and given once, exact fields present,
//! don't-care lpm and ternary fields omitted rather than given as zero, no
//! value bits outside an lpm prefix or a ternary mask, a priority exactly
//! when the table has ternary, range or optional fields.

use crate::bytestring::{self, padded, prefix_of, to_text};
use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::{
    action, field_match, table_action, Action, FieldMatch, TableAction, TableEntry,
};
use crate::schema::{ActionIds, FieldIds, TableIds};
use crate::signed;
use p4bpf_layout::{MatchKind, Table};
use p4bpf_runtime::control::Entry;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{int_value, names, value};
use std::fmt::Write as _;

/// The key of `entry` (fields and priority) as a runtime entry with a
/// placeholder action, for lookups and deletes.
pub fn key_spec(ids: &TableIds, table: &Table, entry: &TableEntry) -> Outcome<EntrySpec> {
    let (keys, priority) = match_keys(ids, entry)?;
    let placeholder = table
        .actions
        .iter()
        .position(|a| !a.default_only)
        .unwrap_or(0);
    let params = table.actions.get(placeholder).map_or(0, |a| a.params.len());
    Ok(EntrySpec {
        keys,
        action: placeholder,
        args: (0..params).map(|i| (i, "0".into())).collect(),
        priority,
    })
}

/// The whole entry: key, action and parameters.
pub fn entry_spec(ids: &TableIds, entry: &TableEntry) -> Outcome<EntrySpec> {
    let (keys, priority) = match_keys(ids, entry)?;
    let (action, args) = action_spec(ids, entry.action.as_ref())?;
    Ok(EntrySpec {
        keys,
        action,
        args,
        priority,
    })
}

/// (key field index, runtime text) of each match field given.
type KeyTexts = Vec<(usize, String)>;

/// The match fields of `entry`, checked, as runtime key texts, and its
/// priority.
fn match_keys(ids: &TableIds, entry: &TableEntry) -> Outcome<(KeyTexts, Option<u32>)> {
    let priority = priority(ids, entry)?;
    let mut keys: Vec<(usize, String)> = Vec::new();
    for field_match in &entry.r#match {
        let field = ids.field(field_match.field_id)?;
        if keys.iter().any(|(k, _)| *k == field.key) {
            return Err(Failure::invalid(format!(
                "table `{}`: match field `{}` is given twice",
                ids.name, field.name
            )));
        }
        keys.push((field.key, field_text(ids, field, field_match)?));
    }
    if let Some(missing) = ids
        .fields
        .iter()
        .find(|f| f.kind == MatchKind::Exact && !keys.iter().any(|(k, _)| *k == f.key))
    {
        return Err(Failure::invalid(format!(
            "table `{}`: exact match field `{}` is missing",
            ids.name, missing.name
        )));
    }
    Ok((keys, priority))
}

/// The action of a table entry or default entry, with its arguments.
pub fn action_spec(
    ids: &TableIds,
    table_action: Option<&TableAction>,
) -> Outcome<(usize, Vec<(usize, String)>)> {
    let action = match table_action.and_then(|a| a.r#type.as_ref()) {
        Some(table_action::Type::Action(action)) => action,
        Some(_) => {
            return Err(Failure::unimplemented(format!(
                "table `{}`: action profiles are not supported yet",
                ids.name
            )))
        }
        None => {
            return Err(Failure::invalid(format!(
                "table `{}`: the entry has no action",
                ids.name
            )))
        }
    };
    let known = ids.action(action.action_id)?;
    let mut args = Vec::new();
    for param in &action.params {
        let (_, index, bitwidth, name, signed) = known
            .params
            .iter()
            .find(|(id, ..)| *id == param.param_id)
            .ok_or_else(|| {
                Failure::invalid(format!(
                    "action `{}` has no parameter {}",
                    known.name, param.param_id
                ))
            })?;
        if args.iter().any(|(i, _)| i == index) {
            return Err(Failure::invalid(format!(
                "action `{}`: parameter `{name}` is given twice",
                known.name
            )));
        }
        let what = || format!("action `{}`, parameter `{name}`", known.name);
        args.push((
            *index,
            number_text(&param.value, *bitwidth, *signed, &what)?,
        ));
    }
    if let Some((.., name)) = known
        .params
        .iter()
        .find(|(_, index, ..)| !args.iter().any(|(i, _)| i == index))
    {
        return Err(Failure::invalid(format!(
            "action `{}`: parameter `{name}` is missing",
            known.name
        )));
    }
    Ok((known.index, args))
}

fn priority(ids: &TableIds, entry: &TableEntry) -> Outcome<Option<u32>> {
    match (ids.needs_priority, entry.priority) {
        (true, p) if p > 0 => Ok(Some(p as u32)),
        (true, p) => Err(Failure::invalid(format!(
            "table `{}` has ternary, range or optional fields: the priority must be above 0, not {p}",
            ids.name
        ))),
        (false, 0) => Ok(None),
        (false, p) => Err(Failure::invalid(format!(
            "table `{}` has only exact and lpm fields: the priority must be 0, not {p}",
            ids.name
        ))),
    }
}

fn field_text(ids: &TableIds, field: &FieldIds, given: &FieldMatch) -> Outcome<String> {
    let what = || format!("table `{}`, match field `{}`", ids.name, field.name);
    let wrong_kind = || {
        Failure::invalid(format!(
            "{}: a {:?} field cannot take this kind of match",
            what(),
            field.kind
        ))
    };
    let width = field.bitwidth;
    match (&given.field_match_type, field.kind) {
        (Some(field_match::FieldMatchType::Exact(exact)), MatchKind::Exact) => {
            number_text(&exact.value, width, field.signed, &what)
        }
        (Some(field_match::FieldMatchType::Lpm(lpm)), MatchKind::Lpm) => {
            let mut value = to_text(&lpm.value, width, &what)?;
            let prefix = u32::try_from(lpm.prefix_len).ok().filter(|p| *p <= width);
            let Some(prefix) = prefix.filter(|p| *p > 0) else {
                return Err(Failure::invalid(format!(
                    "{}: prefix length {} is not in 1..={width} (omit the field for a wildcard)",
                    what(),
                    lpm.prefix_len
                )));
            };
            outside_mask(&lpm.value, &value::prefix_mask(prefix, width), width, &what)?;
            // Appended in place: a String's `write!` cannot fail.
            let _ = write!(value, "/{prefix}");
            Ok(value)
        }
        (Some(field_match::FieldMatchType::Ternary(ternary)), MatchKind::Ternary) => {
            let value = to_text(&ternary.value, width, &what)?;
            let mask = to_text(&ternary.mask, width, &what)?;
            if bytestring::significant_bits(&ternary.mask) == 0 {
                return Err(Failure::invalid(format!(
                    "{}: an all-zero mask (omit the field for a wildcard)",
                    what()
                )));
            }
            outside_mask(&ternary.value, &ternary.mask, width, &what)?;
            Ok(format!("{value}&&&{mask}"))
        }
        (Some(field_match::FieldMatchType::Optional(optional)), MatchKind::Optional) => {
            number_text(&optional.value, width, field.signed, &what)
        }
        (Some(field_match::FieldMatchType::Range(range)), MatchKind::Range) => {
            range_text(range, width, field.signed, &what)
        }
        (None, _) => Err(Failure::invalid(format!("{}: no match given", what()))),
        _ => Err(wrong_kind()),
    }
}

/// `LO..HI`, both included, as the runtime takes a range key.
fn range_text(
    range: &field_match::Range,
    width: u32,
    signed: bool,
    what: &dyn Fn() -> String,
) -> Outcome<String> {
    if signed {
        // The runtime checks an int's bounds in signed order.
        let low = signed::to_text(&range.low, width, what)?;
        return Ok(format!(
            "{low}..{}",
            signed::to_text(&range.high, width, what)?
        ));
    }
    let (low, high) = (
        to_text(&range.low, width, what)?,
        to_text(&range.high, width, what)?,
    );
    let len = value::byte_len(width);
    if padded(&range.low, len) > padded(&range.high, len) {
        return Err(Failure::invalid(format!(
            "{}: range low 0x{} is above high 0x{}",
            what(),
            bytestring::hex(&range.low),
            bytestring::hex(&range.high)
        )));
    }
    Ok(format!("{low}..{high}"))
}

fn outside_mask(value: &[u8], mask: &[u8], width: u32, what: &dyn Fn() -> String) -> Outcome<()> {
    let len = value::byte_len(width);
    let (value, mask) = (padded(value, len), padded(mask, len));
    if value.iter().zip(&mask).any(|(v, m)| v & !m != 0) {
        return Err(Failure::invalid(format!(
            "{}: value 0x{} has bits set outside its mask or prefix",
            what(),
            bytestring::hex(&value)
        )));
    }
    Ok(())
}

/// A runtime entry of `table` back in P4Runtime terms.
pub fn table_entry(ids: &TableIds, table: &Table, entry: &Entry) -> Outcome<TableEntry> {
    let mut matches = Vec::new();
    for (name, text) in &entry.keys {
        let key = names::key_field(table, name).map_err(Failure::from)?;
        let Some(field) = ids.fields.iter().find(|f| f.key == key) else {
            continue;
        };
        if let Some(found) = field_match(field, text)? {
            matches.push(found);
        }
    }
    let action_index = names::action(table, &entry.action).map_err(Failure::from)?;
    let known = ids.action_by_index(action_index).ok_or_else(|| {
        Failure::new(
            tonic::Code::Internal,
            format!(
                "table `{}`: action `{}` is not in the P4Info",
                ids.name, entry.action
            ),
        )
    })?;
    Ok(TableEntry {
        table_id: ids.id,
        r#match: matches,
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(action_message(
                known, table, entry,
            )?)),
        }),
        priority: entry.priority.filter(|_| ids.needs_priority).unwrap_or(0) as i32,
        ..TableEntry::default()
    })
}

fn action_message(known: &ActionIds, table: &Table, entry: &Entry) -> Outcome<Action> {
    let mut params = Vec::new();
    for (name, text) in &entry.params {
        let index = names::param(table, known.index, name).map_err(Failure::from)?;
        if let Some((id, _, width, _, signed)) = known.params.iter().find(|(_, i, ..)| *i == index)
        {
            params.push(action::Param {
                param_id: *id,
                value: number_bytes(text, *width, *signed)?,
            });
        }
    }
    Ok(Action {
        action_id: known.id,
        params,
    })
}

/// An exact value or parameter as the runtime's text: an `int<W>`'s
/// two's complement as a signed number (`-5`), a bit string's in hex.
fn number_text(
    bytes: &[u8],
    width: u32,
    signed: bool,
    what: &dyn Fn() -> String,
) -> Outcome<String> {
    match signed {
        true => signed::to_text(bytes, width, what),
        false => to_text(bytes, width, what),
    }
}

/// A runtime text value (the W bits) as its canonical bytestring: an
/// `int<W>`'s the shortest two's complement that keeps the sign.
fn number_bytes(text: &str, width: u32, signed: bool) -> Outcome<Vec<u8>> {
    match signed {
        true => {
            let bits = int_value::parse_bits(text, width, true).map_err(Failure::invalid)?;
            Ok(signed::canonical(&bits, width))
        }
        false => bytestring::from_text(text, width),
    }
}

/// One decoded key text (`v`, `v/p`, `v&&&m`) as the field's match; a
/// wildcard is no match at all.
pub(crate) fn field_match(field: &FieldIds, text: &str) -> Outcome<Option<FieldMatch>> {
    use field_match::FieldMatchType as Kind;
    let width = field.bitwidth;
    let full = value::prefix_mask(width, width);
    if field.kind == MatchKind::Range {
        return range_match(field, text);
    }
    let (value_text, mask) = match (text.split_once("&&&"), text.split_once('/')) {
        (Some((v, m)), _) => (v, value::parse(m, width).map_err(Failure::invalid)?),
        (None, Some((v, p))) => {
            let prefix = p.trim().parse::<u32>().map_err(|_| {
                Failure::new(tonic::Code::Internal, format!("bad prefix in `{text}`"))
            })?;
            (v, value::prefix_mask(prefix.min(width), width))
        }
        (None, None) => (text, full.clone()),
    };
    if mask.iter().all(|b| *b == 0) {
        return Ok(None);
    }
    let exact = matches!(field.kind, MatchKind::Exact | MatchKind::Optional);
    let value = number_bytes(value_text, width, field.signed && exact)?;
    let kind = match field.kind {
        MatchKind::Exact => Kind::Exact(field_match::Exact { value }),
        MatchKind::Lpm => Kind::Lpm(field_match::Lpm {
            value,
            prefix_len: prefix_of(&mask, width).unwrap_or(width) as i32,
        }),
        MatchKind::Optional => Kind::Optional(field_match::Optional { value }),
        MatchKind::Ternary | MatchKind::Range => Kind::Ternary(field_match::Ternary {
            value,
            mask: bytestring::canonical(&mask),
        }),
    };
    Ok(Some(FieldMatch {
        field_id: field.id,
        field_match_type: Some(kind),
    }))
}

/// A range key's text (`LO..HI`, or one value) as its match; the whole
/// domain is a wildcard, no match at all.
fn range_match(field: &FieldIds, text: &str) -> Outcome<Option<FieldMatch>> {
    let width = field.bitwidth;
    let (low, high) = text.split_once("..").unwrap_or((text, text));
    let (low, high) = (
        number_bytes(low, width, field.signed)?,
        number_bytes(high, width, field.signed)?,
    );
    let full = bytestring::canonical(&value::prefix_mask(width, width));
    if low.iter().all(|b| *b == 0) && high == full {
        return Ok(None);
    }
    Ok(Some(FieldMatch {
        field_id: field.id,
        field_match_type: Some(field_match::FieldMatchType::Range(field_match::Range {
            low,
            high,
        })),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::p4::v1::field_match::{Exact, Lpm, Ternary};
    use p4bpf_layout::{ByteOrder, FieldLayout, KeyField, TableStorage};
    use tonic::Code;

    fn layout(name: &str, bits: u32, offset: u32) -> FieldLayout {
        FieldLayout {
            name: name.into(),
            bit_width: bits,
            byte_offset: offset,
            byte_len: bits.div_ceil(8),
            byte_order: ByteOrder::Network,
            signed: false,
        }
    }

    /// An lpm table on a 32-bit address with one 16-bit parameter action.
    fn routes() -> (TableIds, Table) {
        let table = Table {
            name: "Ingress.routes".into(),
            map: "routes".into(),
            storage: TableStorage::LpmTrie,
            size: 16,
            keys: vec![KeyField {
                field: layout("hdr.ipv4.dst", 32, 0),
                match_kind: MatchKind::Lpm,
            }],
            key_size: 8,
            value_size: 8,
            actions: vec![p4bpf_layout::Action {
                name: "Ingress.send".into(),
                code: 1,
                params: vec![layout("port", 16, 4)],
                default_only: false,
                table_only: false,
            }],
            default_map: None,
            default_slot: 0,
            ternary: None,
        };
        let ids = TableIds {
            id: 0x0200_0001,
            name: "Ingress.routes".into(),
            index: Some(0),
            fields: vec![FieldIds {
                id: 1,
                name: "hdr.ipv4.dst".into(),
                key: 0,
                bitwidth: 32,
                kind: MatchKind::Lpm,
                signed: false,
            }],
            actions: vec![ActionIds {
                id: 0x0100_0001,
                name: "Ingress.send".into(),
                index: 0,
                params: vec![(1, 0, 16, "port".into(), false)],
            }],
            needs_priority: false,
        };
        (ids, table)
    }

    fn entry(
        field: Option<FieldMatchType>,
        params: Vec<(u32, Vec<u8>)>,
        priority: i32,
    ) -> TableEntry {
        TableEntry {
            table_id: 0x0200_0001,
            r#match: field
                .into_iter()
                .map(|kind| FieldMatch {
                    field_id: 1,
                    field_match_type: Some(kind),
                })
                .collect(),
            action: Some(TableAction {
                r#type: Some(table_action::Type::Action(Action {
                    action_id: 0x0100_0001,
                    params: params
                        .into_iter()
                        .map(|(param_id, value)| action::Param { param_id, value })
                        .collect(),
                })),
            }),
            priority,
            ..TableEntry::default()
        }
    }

    use field_match::FieldMatchType;

    fn lpm(value: &[u8], prefix_len: i32) -> Option<FieldMatchType> {
        Some(FieldMatchType::Lpm(Lpm {
            value: value.to_vec(),
            prefix_len,
        }))
    }

    fn code(result: Outcome<EntrySpec>) -> Result<EntrySpec, Code> {
        result.map_err(|f| f.code)
    }

    #[test]
    fn lpm_entries_are_checked_as_the_specification_says() {
        let (ids, _) = routes();
        let port = vec![(1, vec![7])];
        let good = code(entry_spec(
            &ids,
            &entry(lpm(&[10, 0, 0, 0], 8), port.clone(), 0),
        ));
        assert_eq!(
            good.map(|s| s.keys),
            Ok(vec![(0, "0x0a000000/8".to_string())])
        );
        let cases = [
            (lpm(&[10, 1, 0, 0], 8), 0, Code::InvalidArgument), // bits past the prefix
            (lpm(&[10, 0, 0, 0], 0), 0, Code::InvalidArgument), // a wildcard given
            (lpm(&[10, 0, 0, 0], 33), 0, Code::InvalidArgument),
            (lpm(&[1, 10, 0, 0, 0], 8), 0, Code::OutOfRange), // 33 bits
            (lpm(&[10, 0, 0, 0], 8), 5, Code::InvalidArgument), // priority on lpm
            (
                Some(FieldMatchType::Exact(Exact { value: vec![1] })),
                0,
                Code::InvalidArgument,
            ),
        ];
        for (field, priority, expected) in cases {
            let result = code(entry_spec(
                &ids,
                &entry(field.clone(), port.clone(), priority),
            ));
            assert_eq!(result.map(|_| ()), Err(expected), "{field:?}");
        }
        // A missing lpm field is a wildcard; parameters are all checked.
        assert!(entry_spec(&ids, &entry(None, port, 0)).is_ok());
        for (params, expected) in [
            (vec![], Code::InvalidArgument),
            (vec![(2, vec![1])], Code::InvalidArgument),
            (vec![(1, vec![1]), (1, vec![2])], Code::InvalidArgument),
            (vec![(1, vec![1, 0, 0])], Code::OutOfRange),
            (vec![(1, vec![])], Code::InvalidArgument),
        ] {
            let result = code(entry_spec(
                &ids,
                &entry(lpm(&[10, 0, 0, 0], 8), params.clone(), 0),
            ));
            assert_eq!(result.map(|_| ()), Err(expected), "{params:?}");
        }
    }

    #[test]
    fn ternary_matches_need_a_mask_covering_the_value() {
        let (mut ids, _) = routes();
        ids.fields[0].kind = MatchKind::Ternary;
        ids.needs_priority = true;
        let ternary = |value: &[u8], mask: &[u8]| {
            Some(FieldMatchType::Ternary(Ternary {
                value: value.to_vec(),
                mask: mask.to_vec(),
            }))
        };
        let port = vec![(1, vec![7])];
        let good = entry_spec(
            &ids,
            &entry(ternary(&[10, 0, 0, 0], &[255, 0, 0, 0]), port.clone(), 3),
        );
        assert_eq!(
            good.map(|s| (s.keys, s.priority)).map_err(|f| f.code),
            Ok((vec![(0, "0x0a000000&&&0xff000000".to_string())], Some(3)))
        );
        let zero_mask = entry_spec(&ids, &entry(ternary(&[0], &[0]), port.clone(), 3));
        assert_eq!(
            zero_mask.map_err(|f| f.code).map(|_| ()),
            Err(Code::InvalidArgument)
        );
        let outside = entry_spec(
            &ids,
            &entry(ternary(&[10, 1, 0, 0], &[255, 0, 0, 0]), port.clone(), 3),
        );
        assert_eq!(
            outside.map_err(|f| f.code).map(|_| ()),
            Err(Code::InvalidArgument)
        );
        let no_priority = entry_spec(
            &ids,
            &entry(ternary(&[10, 0, 0, 0], &[255, 0, 0, 0]), port, 0),
        );
        assert_eq!(
            no_priority.map_err(|f| f.code).map(|_| ()),
            Err(Code::InvalidArgument)
        );
    }

    #[test]
    fn decoded_entries_come_back_canonical() {
        let (ids, table) = routes();
        let decoded = Entry {
            keys: vec![("hdr.ipv4.dst".into(), "10.0.0.0/8".into())],
            action: "Ingress.send".into(),
            params: vec![("port".into(), "7".into())],
            priority: None,
        };
        let back = table_entry(&ids, &table, &decoded).map_err(|f| f.message);
        assert_eq!(
            back,
            Ok(entry(lpm(&[10, 0, 0, 0], 8), vec![(1, vec![7])], 0))
        );
        let everything = Entry {
            keys: vec![("hdr.ipv4.dst".into(), "0.0.0.0/0".into())],
            ..decoded
        };
        let back = table_entry(&ids, &table, &everything).map_err(|f| f.message);
        assert_eq!(
            back.map(|e| e.r#match.len()),
            Ok(0),
            "a /0 route is a wildcard: no match"
        );
    }
}

#[cfg(test)]
mod range_tests {
    use super::*;
    use crate::proto::p4::v1::field_match::Range;
    use tonic::Code;

    fn port_range() -> FieldIds {
        FieldIds {
            id: 1,
            name: "hdr.udp.dst_port".into(),
            key: 0,
            bitwidth: 12,
            kind: MatchKind::Range,
            signed: false,
        }
    }

    fn ids() -> TableIds {
        TableIds {
            id: 0x0200_0001,
            name: "Ingress.ports".into(),
            index: Some(0),
            fields: vec![port_range()],
            actions: vec![],
            needs_priority: true,
        }
    }

    fn range(low: &[u8], high: &[u8]) -> FieldMatch {
        FieldMatch {
            field_id: 1,
            field_match_type: Some(field_match::FieldMatchType::Range(Range {
                low: low.to_vec(),
                high: high.to_vec(),
            })),
        }
    }

    #[test]
    fn range_matches_are_written_as_bounds_and_read_back() {
        let (ids, field) = (ids(), port_range());
        let text = field_text(&ids, &field, &range(&[0x10], &[0x0f, 0xff]));
        assert_eq!(text.as_deref().ok(), Some("0x10..0x0fff"));
        let back = field_match(&field, "0x010..0xfff").ok().flatten();
        assert_eq!(back, Some(range(&[0x10], &[0x0f, 0xff])));
        // One value is the range of it alone; the whole domain is a wildcard.
        assert_eq!(
            field_match(&field, "7").ok().flatten(),
            Some(range(&[7], &[7]))
        );
        assert_eq!(field_match(&field, "0..0xfff").ok().flatten(), None);
    }

    #[test]
    fn a_range_ending_below_its_start_or_too_wide_is_refused() {
        let (ids, field) = (ids(), port_range());
        let backwards = field_text(&ids, &field, &range(&[0x20], &[0x10]));
        let err = backwards.err().map(|f| (f.code, f.message));
        assert!(
            matches!(&err, Some((Code::InvalidArgument, m)) if m.contains("Ingress.ports") && m.contains("hdr.udp.dst_port") && m.contains("above high")),
            "{err:?}"
        );
        let wide = field_text(&ids, &field, &range(&[0], &[0x10, 0x00]));
        assert_eq!(wide.err().map(|f| f.code), Some(Code::OutOfRange));
    }
}

#[cfg(test)]
mod signed_tests {
    use super::*;
    use tonic::Code;

    fn offset() -> FieldIds {
        FieldIds {
            id: 1,
            name: "hdr.h.e".into(),
            key: 0,
            bitwidth: 12,
            kind: MatchKind::Exact,
            signed: true,
        }
    }

    fn exact(value: &[u8]) -> FieldMatch {
        FieldMatch {
            field_id: 1,
            field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
                value: value.to_vec(),
            })),
        }
    }

    fn text(value: &[u8]) -> Outcome<String> {
        let ids = TableIds {
            id: 7,
            name: "In.signs".into(),
            index: Some(0),
            fields: vec![offset()],
            actions: vec![],
            needs_priority: false,
        };
        field_text(&ids, &offset(), &exact(value))
    }

    #[test]
    fn int_keys_are_twos_complement_short_or_sign_extended() {
        assert_eq!(text(&[0xfe]).ok().as_deref(), Some("-2"));
        assert_eq!(text(&[0xff, 0xfe]).ok().as_deref(), Some("-2"));
        assert_eq!(text(&[0x07, 0xff]).ok().as_deref(), Some("2047"));
        let over = text(&[0x08, 0x00]).err();
        assert_eq!(over.as_ref().map(|f| f.code), Some(Code::OutOfRange));
        let message = over.map(|f| f.message).unwrap_or_default();
        assert!(
            message.contains("table `In.signs`, match field `hdr.h.e`"),
            "{message}"
        );
    }

    #[test]
    fn int_ranges_are_signed_bounds_both_ways() {
        let field = FieldIds {
            kind: MatchKind::Range,
            ..offset()
        };
        let ids = TableIds {
            id: 7,
            name: "In.signs".into(),
            index: Some(0),
            fields: vec![field.clone()],
            actions: vec![],
            needs_priority: true,
        };
        let range = |low: &[u8], high: &[u8]| FieldMatch {
            field_id: 1,
            field_match_type: Some(field_match::FieldMatchType::Range(field_match::Range {
                low: low.to_vec(),
                high: high.to_vec(),
            })),
        };
        let text = field_text(&ids, &field, &range(&[0xfb], &[0x05]));
        assert_eq!(text.ok().as_deref(), Some("-5..5"));
        let back = field_match(&field, "0xffb..0x005").ok().flatten();
        assert_eq!(back, Some(range(&[0xfb], &[0x05])));
    }

    #[test]
    fn int_keys_read_back_in_their_shortest_signed_form() {
        let back = field_match(&offset(), "0xffe").ok().flatten();
        assert_eq!(back, Some(exact(&[0xfe])));
        let back = field_match(&offset(), "0x07f").ok().flatten();
        assert_eq!(back, Some(exact(&[0x7f])));
        let back = field_match(&offset(), "0x080").ok().flatten();
        assert_eq!(back, Some(exact(&[0x00, 0x80])));
    }
}
