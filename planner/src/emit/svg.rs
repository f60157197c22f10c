//! The SVG picture of a plan: time across, address up, one rectangle per buffer.
//!
//! Every rectangle carries a `<title>` (its name, bytes, offset and lifetime: a tooltip in a
//! browser); the name is also written inside when the rectangle is large enough to hold it, so
//! a plan of ten tensors is labelled in full and one of a thousand stays readable. The lower
//! bound is a dashed line across, the arena the top edge, and the peak time a dashed line up.
//! Fixed buffers (from an offline plan) have a dashed outline. The output depends only on the
//! plan, so it is byte-stable.
//!
//! A model's picture counts time as its text report does (TFLite Micro's scopes: op `k` of
//! subgraph 0 at `k`, the inputs' arrival at -1), in the axis, the tooltips and the peak; each
//! time label sits under the middle of its step. Labels inside rectangles are clipped to them, so
//! a long name never runs into its neighbour's.

use std::fmt::Write as _;

use super::thousands;
use crate::ModelPlan;
use crate::plan::{LiveProfile, Plan, Problem, Time};

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 600.0;
const LEFT: f64 = 96.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 48.0;

/// One rectangle of the picture.
struct Block {
    label: String,
    first: Time,
    last: Time,
    offset: u64,
    bytes: u64,
    fixed: bool,
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// About `count` round tick values from 0 to `max`.
fn ticks(max: u64, count: u64) -> Vec<u64> {
    if max == 0 {
        return vec![0];
    }
    let raw = (max / count.max(1)).max(1);
    let magnitude = 10u64.pow(raw.ilog10());
    let step = [5, 2, 1]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s <= raw)
        .unwrap_or(magnitude);
    (0..=max / step).map(|k| k * step).collect()
}

/// Width of the column that shows the persistent region, when the model has one.
const STATE_W: f64 = 110.0;

/// One item of the persistent region.
struct StateBlock {
    label: String,
    offset: u64,
    bytes: u64,
}

/// How the picture counts time: a problem's own times, or a model's scopes (time `t` of the
/// abstract problem is scope `t - 1`, as the text report shows it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clock {
    Problem,
    Scopes,
}

impl Clock {
    fn label(self, t: u64) -> String {
        match self {
            Self::Problem => thousands(t),
            Self::Scopes => t.checked_sub(1).map_or_else(|| "-1".to_owned(), thousands),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn render(
    clock: Clock,
    title: &str,
    blocks: &[Block],
    arena: u64,
    bound: u64,
    peak: Option<Time>,
    state: &[StateBlock],
    state_bytes: u64,
) -> String {
    let state_w = if state_bytes > 0 { STATE_W } else { 0.0 };
    let plot_w = WIDTH - LEFT - RIGHT - state_w;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let t0 = blocks.iter().map(|b| u64::from(b.first)).min().unwrap_or(0);
    let t1 = blocks
        .iter()
        .map(|b| u64::from(b.last) + 1)
        .max()
        .unwrap_or(1)
        .max(t0 + 1);
    let top = arena.max(bound).max(1);
    let x = |t: u64| LEFT + (t.saturating_sub(t0)) as f64 * plot_w / (t1 - t0) as f64;
    let y = |a: u64| TOP + plot_h - a as f64 * plot_h / top as f64;

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="20" font-size="14">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="36">arena {} B, lower bound {} B, {} buffers{}</text>"#,
        thousands(arena),
        thousands(bound),
        blocks.len(),
        if state_bytes > 0 {
            format!(
                "; state {} B, RAM {} B",
                thousands(state_bytes),
                thousands(arena.saturating_add(state_bytes))
            )
        } else {
            String::new()
        }
    );
    // Axes and grid.
    let _ = writeln!(out, r##"<g stroke="#d0d0d0" stroke-width="0.5">"##);
    for a in ticks(top, 5) {
        let _ = writeln!(
            out,
            r#"<line x1="{LEFT:.1}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}"/>"#,
            y(a),
            LEFT + plot_w
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, r#"<g text-anchor="end">"#);
    for a in ticks(top, 5) {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            LEFT - 6.0,
            y(a) + 4.0,
            thousands(a)
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, r#"<g text-anchor="middle">"#);
    // Each label under the middle of its time step, as the rectangles of that step are; the last
    // step is `t1 - 1`.
    for t in ticks(t1 - t0 - 1, 10) {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            (x(t0 + t) + x(t0 + t + 1)) / 2.0,
            TOP + plot_h + 16.0,
            clock.label(t0 + t)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}">time</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 10.0
    );
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r#"<text x="14" y="{:.1}" transform="rotate(-90 14 {0:.1})" text-anchor="middle">offset (bytes)</text>"#,
        TOP + plot_h / 2.0
    );
    // The buffers. Outlines are dropped when there are many, so the colours still show.
    let stroke = if blocks.len() > 200 { "0" } else { "0.75" };
    let _ = writeln!(out, r##"<g stroke="#ffffff" stroke-width="{stroke}">"##);
    for (i, b) in blocks.iter().enumerate() {
        let (bx, by) = (x(u64::from(b.first)), y(b.offset.saturating_add(b.bytes)));
        let w = x(u64::from(b.last) + 1) - bx;
        let h = (y(b.offset) - by).max(0.5);
        // Golden-angle hues: neighbours get distinct colours, deterministically.
        let hue = (i as u64 * 137) % 360;
        let dash = if b.fixed {
            r##" stroke="#000000" stroke-dasharray="3 2""##
        } else {
            ""
        };
        let _ = writeln!(
            out,
            r#"<rect x="{bx:.1}" y="{by:.1}" width="{w:.1}" height="{h:.1}" fill="hsl({hue},60%,72%)"{dash}><title>{}: {} B at offset {}, time {}..={}{}</title></rect>"#,
            escape(&b.label),
            thousands(b.bytes),
            thousands(b.offset),
            clock.label(u64::from(b.first)),
            clock.label(u64::from(b.last)),
            if b.fixed {
                ", fixed by the offline plan"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(out, "</g>");
    // Labels inside the rectangles that can hold them, each clipped to its rectangle.
    let _ = writeln!(out, r##"<g fill="#202020" stroke="none">"##);
    for (i, b) in blocks.iter().enumerate() {
        let (bx, by) = (x(u64::from(b.first)), y(b.offset.saturating_add(b.bytes)));
        let w = x(u64::from(b.last) + 1) - bx;
        let h = y(b.offset) - by;
        if w < 24.0 || h < 12.0 {
            continue;
        }
        let chars = ((w - 6.0) / 6.2).floor() as usize;
        let mut label: String = b.label.chars().take(chars).collect();
        if label.chars().count() < b.label.chars().count() && chars > 1 {
            label = label.chars().take(chars - 1).collect();
            label.push('…');
        }
        let _ = writeln!(
            out,
            r#"<clipPath id="label-{i}"><rect x="{bx:.1}" y="{by:.1}" width="{w:.1}" height="{h:.1}"/></clipPath><text x="{:.1}" y="{:.1}" clip-path="url(#label-{i})">{}</text>"#,
            bx + 3.0,
            by + h.min(26.0) / 2.0 + 4.0,
            escape(&label)
        );
    }
    let _ = writeln!(out, "</g>");
    // Lower bound, arena and peak.
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT:.1}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#c00000" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
        y(bound),
        LEFT + plot_w
    );
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" fill="#c00000" text-anchor="end" stroke="#ffffff" stroke-width="3" paint-order="stroke">lower bound {} B</text>"##,
        LEFT + plot_w - 4.0,
        // Above its line, or below it when the line is at the top, clear of the peak's label.
        if y(bound) - TOP >= 14.0 {
            y(bound) - 4.0
        } else {
            y(bound) + 12.0
        },
        thousands(bound)
    );
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT:.1}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#000000" stroke-width="1"/>"##,
        y(arena),
        LEFT + plot_w
    );
    if let Some(peak) = peak {
        let px = (x(u64::from(peak)) + x(u64::from(peak) + 1)) / 2.0;
        let _ = writeln!(
            out,
            r##"<line x1="{px:.1}" y1="{TOP:.1}" x2="{px:.1}" y2="{:.1}" stroke="#0050c0" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
            TOP + plot_h
        );
        // Above the plot, clear of the labels inside it; anchored to stay inside the picture.
        let anchor = if px > LEFT + plot_w * 0.75 {
            "end"
        } else {
            "start"
        };
        let _ = writeln!(
            out,
            r##"<text x="{px:.1}" y="{:.1}" fill="#0050c0" text-anchor="{anchor}">peak at time {}</text>"##,
            TOP - 4.0,
            clock.label(u64::from(peak))
        );
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT:.1}" y="{TOP:.1}" width="{plot_w:.1}" height="{plot_h:.1}" fill="none" stroke="#808080" stroke-width="1"/>"##
    );
    if state_bytes > 0 {
        // The persistent region: a column of its own (own scale), every item live throughout.
        let cx = LEFT + plot_w + 24.0;
        let cw = state_w - 32.0;
        let sy = |a: u64| TOP + plot_h - a as f64 * plot_h / state_bytes as f64;
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">state {} B</text>"#,
            cx + cw / 2.0,
            TOP - 4.0,
            thousands(state_bytes)
        );
        let _ = writeln!(out, r##"<g stroke="#ffffff" stroke-width="0.75">"##);
        for (i, b) in state.iter().enumerate() {
            let (top_y, bottom_y) = (sy(b.offset.saturating_add(b.bytes)), sy(b.offset));
            let hue = (i as u64 * 137 + 60) % 360;
            let _ = writeln!(
                out,
                r#"<rect x="{cx:.1}" y="{top_y:.1}" width="{cw:.1}" height="{:.1}" fill="hsl({hue},45%,80%)"><title>{}: {} B at state offset {}, kept across invocations</title></rect>"#,
                (bottom_y - top_y).max(0.5),
                escape(&b.label),
                thousands(b.bytes),
                thousands(b.offset)
            );
        }
        let _ = writeln!(out, "</g>");
        let _ = writeln!(
            out,
            r##"<rect x="{cx:.1}" y="{TOP:.1}" width="{cw:.1}" height="{plot_h:.1}" fill="none" stroke="#808080" stroke-width="1"/>"##
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">persistent</text>"#,
            cx + cw / 2.0,
            TOP + plot_h + 16.0
        );
    }
    out.push_str("</svg>\n");
    out
}

/// One block per buffer of `problem` with bytes; `labels` names them.
fn blocks(problem: &Problem, plan: &Plan, labels: &[String]) -> Vec<Block> {
    problem
        .buffers()
        .iter()
        .zip(plan.offsets())
        .enumerate()
        .filter(|(_, (b, _))| b.size > 0)
        .map(|(i, (b, &offset))| Block {
            label: labels.get(i).cloned().unwrap_or_else(|| i.to_string()),
            first: b.lifetime.first,
            last: b.lifetime.last,
            offset,
            bytes: problem.aligned_size(b.size),
            fixed: b.fixed_offset.is_some(),
        })
        .collect()
}

/// The picture of an abstract problem's plan; `labels` names each buffer (CSV ids), `title` heads
/// the picture.
#[must_use]
pub fn plan_svg(
    problem: &Problem,
    plan: &Plan,
    profile: &LiveProfile,
    labels: &[String],
    title: &str,
) -> String {
    render(
        Clock::Problem,
        title,
        &blocks(problem, plan, labels),
        plan.arena_bytes(),
        profile.aligned_bytes,
        profile.peak_time,
        &[],
        0,
    )
}

/// Pictures made by [`model_svg`] or [`plan_svg`] (one per model of a group), one below the
/// other in one picture.
#[must_use]
pub fn stack_svg(pictures: &[String]) -> String {
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{}" viewBox="0 0 {WIDTH} {}">"#,
        HEIGHT * pictures.len() as f64,
        HEIGHT * pictures.len() as f64
    );
    out.push('\n');
    for (k, picture) in pictures.iter().enumerate() {
        let placed = picture.replacen("<svg ", &format!(r#"<svg y="{}" "#, HEIGHT * k as f64), 1);
        out.push_str(&placed);
        if !placed.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str("</svg>\n");
    out
}

/// The picture of a model's plan: one rectangle per planned tensor, labelled with its name, and
/// for a stateful model a column beside it with the persistent region's items.
#[must_use]
pub fn model_svg(plan: &ModelPlan, title: &str) -> String {
    let labels: Vec<String> = plan
        .buffer_tensors
        .iter()
        .map(|&id| {
            plan.model
                .tensors
                .get(id.get())
                .map_or_else(|| id.to_string(), |t| format!("{} {}", t.id, t.name))
        })
        .collect();
    let state: Vec<StateBlock> = plan
        .state
        .items(&plan.model, &plan.tensors)
        .into_iter()
        .map(|item| StateBlock {
            label: item.label,
            offset: item.offset,
            bytes: item.bytes,
        })
        .collect();
    render(
        Clock::Scopes,
        title,
        &blocks(&plan.problem, &plan.plan, &labels),
        plan.arena_bytes(),
        plan.profile.aligned_bytes,
        plan.profile.peak_time,
        &state,
        plan.state.bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Buffer, Planner, lower_bound};
    use crate::verify::solve;

    /// A small well-formedness check: every tag closes in order, attributes are quoted, and text
    /// holds no bare `<` or `&`.
    fn well_formed(xml: &str) -> Result<usize, String> {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = xml;
        let mut elements = 0;
        let check_text = |text: &str| -> Result<(), String> {
            let mut t = text;
            while let Some(at) = t.find('&') {
                let tail = &t[at..];
                let end = tail.find(';').ok_or("bare &")?;
                let entity = &tail[1..end];
                if !["amp", "lt", "gt", "quot", "apos"].contains(&entity) {
                    return Err(format!("unknown entity &{entity};"));
                }
                t = &tail[end + 1..];
            }
            Ok(())
        };
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open])?;
            let close = rest[open..].find('>').ok_or("unclosed tag")? + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let top = stack.pop().ok_or(format!("stray </{name}>"))?;
                if top != name {
                    return Err(format!("</{name}> closes <{top}>"));
                }
                continue;
            }
            let self_closing = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad tag name in <{tag}>"));
            }
            // Attributes: name="value" pairs.
            let mut attrs = body[name.len()..].trim();
            while !attrs.is_empty() {
                let eq = attrs
                    .find('=')
                    .ok_or(format!("attribute without value in <{tag}>"))?;
                let value = attrs[eq + 1..]
                    .strip_prefix('"')
                    .ok_or("unquoted attribute")?;
                let end = value.find('"').ok_or("unterminated attribute")?;
                check_text(&value[..end])?;
                if value[..end].contains('<') {
                    return Err("< in attribute".into());
                }
                attrs = value[end + 1..].trim_start();
            }
            elements += 1;
            if !self_closing {
                stack.push(name);
            }
        }
        check_text(rest)?;
        if stack.is_empty() && rest.trim().is_empty() {
            Ok(elements)
        } else {
            Err(format!("unclosed elements {stack:?}"))
        }
    }

    #[test]
    fn the_checker_rejects_broken_xml() {
        assert!(well_formed("<a><b/></a>").is_ok());
        assert!(well_formed("<a><b></a>").is_err());
        assert!(well_formed("<a x=1/>").is_err());
        assert!(well_formed("<a>x & y</a>").is_err());
        assert!(well_formed("<a>x &amp; y</a>").is_ok());
    }

    fn picture(n: usize) -> String {
        let buffers: Vec<Buffer> = (0..n)
            .map(|i| {
                let first = (i * 7 % n.max(1)) as u32;
                Buffer::new(16 + (i as u64 * 37) % 500, first, first + (i % 9) as u32)
            })
            .collect();
        let problem = Problem::new(buffers, 16).unwrap();
        let plan = solve(&problem, Planner::Greedy).unwrap();
        let labels: Vec<String> = (0..n).map(|i| format!("t{i} <a&b>")).collect();
        plan_svg(
            &problem,
            &plan,
            &lower_bound(&problem),
            &labels,
            "test & \"plan\"",
        )
    }

    #[test]
    fn pictures_are_well_formed_for_10_and_1000_buffers() {
        for n in [0, 1, 10, 1000] {
            let svg = picture(n);
            let elements = well_formed(&svg).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert!(elements > n, "{n}");
            // One rectangle per buffer, the background and the frame; each label's clip path
            // holds one more, and every clipped label uses its own.
            let clips = svg.matches("<clipPath ").count();
            assert_eq!(
                svg.matches("<rect ").count() - clips,
                n + 2,
                "{n}: one rectangle per buffer"
            );
            assert_eq!(svg.matches("clip-path=\"url(#label-").count(), clips, "{n}");
            assert!(svg.contains("lower bound"));
            if n > 0 {
                assert!(svg.contains("peak at time"));
            }
        }
        // Ten buffers are labelled inside their rectangles; names are escaped.
        let svg = picture(10);
        assert!(svg.contains("&lt;a&amp;b&gt;"));
        assert_eq!(picture(10), svg, "deterministic");
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(
            ticks(1_048_576, 5),
            [0, 200_000, 400_000, 600_000, 800_000, 1_000_000]
        );
        assert_eq!(ticks(7, 10), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(ticks(0, 10), [0]);
    }
}
