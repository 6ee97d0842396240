//! The ratio plot: for each study program two horizontal bars, P4 over C in
//! ns/packet and in verified instructions, each coloured by its goal
//! (1.05 and 1.2, dashed lines), with the 1.0 line. Plain SVG text, no
//! plotting library.

use super::measure::Results;
use super::report::{TIME_GOAL, VERIFIED_GOAL};
use super::suite::Family;
use std::fmt::Write;

const ROW: f64 = 40.0;
const BAR: f64 = 14.0;
const LEFT: f64 = 140.0;
const WIDTH: f64 = 440.0;
const TOP: f64 = 50.0;
const MISSED: &str = "#d64";
const TIME_COLOUR: &str = "#4a8";
const INSNS_COLOUR: &str = "#48c";

/// (program, ns ratio, verified-instruction ratio).
type Bar<'a> = (&'a str, f64, f64);

pub fn ratios(results: &Results) -> String {
    let bars: Vec<Bar> = results
        .pairs
        .iter()
        .filter(|p| p.family != Family::Routed)
        .map(|p| {
            let verified = f64::from(p.p4.facts.verified_insns)
                / f64::from(p.twin.facts.verified_insns.max(1));
            (p.name, p.p4.fine_ns() / p.twin.fine_ns(), verified)
        })
        .filter(|(_, time, _)| time.is_finite())
        .collect();
    let top = bars
        .iter()
        .map(|(_, t, v)| t.max(*v))
        .fold(1.5f64, f64::max)
        .ceil();
    let x = |ratio: f64| LEFT + WIDTH * ratio / top;
    let bottom = TOP + ROW * bars.len() as f64;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">"#,
        LEFT + WIDTH + 60.0,
        bottom + 40.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="10" y="20" font-size="14">generated P4 / hand-written C (lower is better); red: goal missed</text>"#
    );
    legend(&mut svg);
    for (i, (name, time, verified)) in bars.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{name}</text>"#,
            LEFT - 6.0,
            y + BAR + 4.0
        );
        let time_colour = if *time <= TIME_GOAL {
            TIME_COLOUR
        } else {
            MISSED
        };
        let insns_colour = if *verified <= VERIFIED_GOAL {
            INSNS_COLOUR
        } else {
            MISSED
        };
        bar(&mut svg, y + 2.0, x(*time), *time, time_colour);
        bar(
            &mut svg,
            y + 2.0 + BAR,
            x(*verified),
            *verified,
            insns_colour,
        );
    }
    let lines = [
        (1.0, "1.0", ""),
        (TIME_GOAL, "1.05", r#" stroke-dasharray="4 3""#),
        (VERIFIED_GOAL, "1.2", r#" stroke-dasharray="2 4""#),
    ];
    for (ratio, label, dash) in lines {
        let _ = writeln!(
            svg,
            r#"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="black"{dash}/>"#,
            x(ratio),
            TOP - 4.0,
            bottom
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#,
            x(ratio),
            bottom + 16.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn bar(svg: &mut String, y: f64, end: f64, ratio: f64, colour: &str) {
    let _ = writeln!(
        svg,
        r#"<rect x="{LEFT}" y="{y}" width="{:.1}" height="{}" fill="{colour}"/>"#,
        end - LEFT,
        BAR - 2.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{}" font-size="10">{ratio:.2}</text>"#,
        end + 4.0,
        y + BAR - 4.0
    );
}

fn legend(svg: &mut String) {
    for (i, (colour, text)) in [
        (TIME_COLOUR, "ns/packet (goal 1.05)"),
        (INSNS_COLOUR, "verified instructions (goal 1.2)"),
    ]
    .iter()
    .enumerate()
    {
        let x = 10.0 + 260.0 * i as f64;
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="28" width="10" height="10" fill="{colour}"/>"#
        );
        let _ = writeln!(svg, r#"<text x="{}" y="37">{text}</text>"#, x + 14.0);
    }
}
