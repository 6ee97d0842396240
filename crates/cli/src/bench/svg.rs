//! The ratio plot: one horizontal bar per study program, P4 ns over C ns,
//! with the 1.0 line and the 1.05 goal line. Plain SVG text, no plotting
//! library.

use super::measure::Results;
use super::report::TIME_GOAL;
use std::fmt::Write;

const ROW: f64 = 28.0;
const LEFT: f64 = 140.0;
const WIDTH: f64 = 420.0;
const TOP: f64 = 40.0;

pub fn ratios(results: &Results) -> String {
    let bars: Vec<(&str, f64)> = results
        .pairs
        .iter()
        .filter(|p| p.study)
        .map(|p| (p.name, p.p4.fine_ns() / p.twin.fine_ns()))
        .filter(|(_, r)| r.is_finite())
        .collect();
    let top = bars.iter().map(|(_, r)| *r).fold(1.5f64, f64::max).ceil();
    let x = |ratio: f64| LEFT + WIDTH * ratio / top;
    let height = TOP + ROW * bars.len() as f64 + 40.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="sans-serif" font-size="12">"#,
        LEFT + WIDTH + 60.0
    );
    let _ = writeln!(svg, r#"<text x="10" y="20" font-size="14">ns/packet, generated P4 / hand-written C (lower is better)</text>"#);
    for (i, (name, ratio)) in bars.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let colour = if *ratio <= TIME_GOAL { "#4a8" } else { "#d64" };
        let _ = writeln!(svg, r#"<text x="{}" y="{}" text-anchor="end">{name}</text>"#, LEFT - 6.0, y + 15.0);
        let _ = writeln!(
            svg,
            r#"<rect x="{LEFT}" y="{}" width="{:.1}" height="{}" fill="{colour}"/>"#,
            y + 3.0,
            x(*ratio) - LEFT,
            ROW - 8.0
        );
        let _ = writeln!(svg, r#"<text x="{:.1}" y="{}">{ratio:.3}</text>"#, x(*ratio) + 4.0, y + 15.0);
    }
    let bottom = TOP + ROW * bars.len() as f64;
    for (ratio, label, dash) in [(1.0, "1.0", ""), (TIME_GOAL, "goal", r#" stroke-dasharray="4 3""#)] {
        let _ = writeln!(
            svg,
            r#"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="black"{dash}/>"#,
            x(ratio),
            TOP - 4.0,
            bottom
        );
        let _ = writeln!(svg, r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#, x(ratio), bottom + 16.0);
    }
    svg.push_str("</svg>\n");
    svg
}
