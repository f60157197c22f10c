//! `TFLite_Detection_PostProcess` (custom op): TFLM's `detection_postprocess.cc`
//! (`DetectionPostProcessEval`: `DecodeCenterSizeBoxes`, then the fast or the regular
//! non-max suppression), float inputs and outputs.
//!
//! TFLM keeps eleven scratch buffers its `Prepare` requests (the decoded boxes, sorted indices,
//! per-class scores and selections); this kernel keeps none of its own beyond a small stack:
//!
//! - boxes are decoded where they are needed, with TFLM's arithmetic (so the same bits);
//! - the candidates of a non-max suppression are visited in TFLM's order (decreasing score, then
//!   increasing row: its stable merge sort of the boxes above the score threshold, whose scores
//!   are never NaN) by scans that each take the next [`BATCH`] in that order;
//! - the fast path keeps the boxes it selects (their rows and decoded corners) in slots of the
//!   outputs that its last step overwrites, and writes the outputs from the last detection
//!   back, so that nothing is overwritten before it is read;
//! - the regular path keeps a class's selected rows on the stack (at most
//!   [`MAX_DETECTIONS_PER_CLASS`]) and the running top `max_detections` in the score and class
//!   outputs, merged as TFLM's `DecreasingPartialArgSort` orders them (score, then position).
//!
//! The top classes of a box (fast path) are chosen by TFLM's `std::partial_sort` with its
//! comparator, replayed step for step as libstdc++ performs it (heap select, then heap sort),
//! so that NaN scores, which make the comparator inconsistent, give the same classes; at most
//! [`MAX_CLASSES_PER_DETECTION`] of them.
//!
//! Where TFLM's `Eval` fails at run time (a decoded box with `ymin >= ymax` or `xmin >= xmax`)
//! this writes nothing, as TFLM writes nothing before it fails (it also reports the error,
//! which a kernel cannot). Like TFLM, the fast path writes only the detections it makes
//! (`num_detections` entries); the rest of its outputs keep what they held. With more than one
//! class per detection TFLM spreads its entries (entry `j` at `k * j + j % k`):
//! the same positions are written here, those past an output's end dropped (TFLM writes past
//! it).

use super::shared::check::{KernelError, check, elements, length, require};
use stowplan_math::exp;

use super::shared::at;

/// The most classes per detection the fast path takes (the planner refuses more).
pub const MAX_CLASSES_PER_DETECTION: usize = 32;

/// The most boxes the regular path selects per class (`min(num_boxes, detections_per_class)`;
/// the planner refuses more).
pub const MAX_DETECTIONS_PER_CLASS: usize = 128;

/// The candidates one scan takes.
const BATCH: usize = 32;

/// Parameters of `TFLite_Detection_PostProcess`: its options (the custom op's flexbuffer, read
/// at build time as TFLM's `DetectionPostProcessInit` reads it) and the shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DetectionPostProcess {
    /// Boxes (anchors): the box encodings' dimension 1.
    pub num_boxes: usize,
    /// Values per box encoding (its dimension 2, at least 4; the first 4 are `y, x, h, w`).
    pub box_stride: usize,
    /// `num_classes`.
    pub num_classes: usize,
    /// The class predictions' dimension 2: `num_classes`, or one more with a background class
    /// first.
    pub num_classes_with_background: usize,
    /// `max_detections`.
    pub max_detections: usize,
    /// `max_classes_per_detection` (fast path).
    pub max_classes_per_detection: usize,
    /// `detections_per_class` (regular path; 100 when the options have none).
    pub detections_per_class: usize,
    /// `use_regular_nms` (false when the options have none).
    pub use_regular_nms: bool,
    /// `nms_score_threshold`.
    pub score_threshold: f32,
    /// `nms_iou_threshold`.
    pub iou_threshold: f32,
    /// `y_scale`.
    pub y_scale: f32,
    /// `x_scale`.
    pub x_scale: f32,
    /// `h_scale`.
    pub h_scale: f32,
    /// `w_scale`.
    pub w_scale: f32,
}

/// A box's corners `[ymin, xmin, ymax, xmax]` (TFLM's `BoxCornerEncoding`).
type Corners = [f32; 4];

/// The inputs, checked to hold what the parameters say.
struct Inputs<'a> {
    p: &'a DetectionPostProcess,
    boxes: &'a [f32],
    scores: &'a [f32],
    anchors: &'a [f32],
}

impl Inputs<'_> {
    /// TFLM's `DecodeCenterSizeBoxes` for box `i`: the center in double (`y / y_scale *
    /// anchor.h + anchor.y`), the half sizes `0.5 * exp(h / h_scale) * anchor.h` in double,
    /// each rounded to float, then the corners in float.
    fn decode(&self, i: usize) -> Corners {
        let p = self.p;
        let b = i.wrapping_mul(p.box_stride);
        let a = i.wrapping_mul(4);
        let (y, x, h, w) = (
            f64::from(at(self.boxes, b)),
            f64::from(at(self.boxes, b.wrapping_add(1))),
            f64::from(at(self.boxes, b.wrapping_add(2))),
            f64::from(at(self.boxes, b.wrapping_add(3))),
        );
        let (ay, ax, ah, aw) = (
            f64::from(at(self.anchors, a)),
            f64::from(at(self.anchors, a.wrapping_add(1))),
            f64::from(at(self.anchors, a.wrapping_add(2))),
            f64::from(at(self.anchors, a.wrapping_add(3))),
        );
        let ycenter = (y / f64::from(p.y_scale) * ah + ay) as f32;
        let xcenter = (x / f64::from(p.x_scale) * aw + ax) as f32;
        let half_h = (0.5 * exp(h / f64::from(p.h_scale)) * ah) as f32;
        let half_w = (0.5 * exp(w / f64::from(p.w_scale)) * aw) as f32;
        [
            ycenter - half_h,
            xcenter - half_w,
            ycenter + half_h,
            xcenter + half_w,
        ]
    }

    /// TFLM's `ValidateBoxes`: every decoded box has `ymin < ymax` and `xmin < xmax` (NaN
    /// corners pass, as the C++ comparisons are false).
    fn boxes_valid(&self) -> bool {
        (0..self.p.num_boxes).all(|i| {
            let [ymin, xmin, ymax, xmax] = self.decode(i);
            !(ymin >= ymax || xmin >= xmax)
        })
    }

    /// The score of class column `col` (after the label offset) of box `row`.
    fn score(&self, row: usize, col: usize) -> f32 {
        let p = self.p;
        let offset = p.num_classes_with_background - p.num_classes;
        at(
            self.scores,
            row.wrapping_mul(p.num_classes_with_background)
                .wrapping_add(col)
                .wrapping_add(offset),
        )
    }
}

/// The 4 corners of detection slot `at` in a boxes output (`None` past its end).
fn corners_mut(out: &mut [f32], at: usize) -> Option<&mut [f32]> {
    let start = at.checked_mul(4)?;
    out.get_mut(start..start.checked_add(4)?)
}

/// The corners kept in detection slot `at` of a boxes output (0 past its end).
fn corners_at(out: &[f32], at: usize) -> Corners {
    core::array::from_fn(|c| super::shared::at(out, at.wrapping_mul(4).wrapping_add(c)))
}

/// `std::max<float>(a, b)`: `a < b ? b : a`.
fn max_f(a: f32, b: f32) -> f32 {
    if a < b { b } else { a }
}

/// `std::min<float>(a, b)`: `b < a ? b : a`.
fn min_f(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

/// TFLM's `ComputeIntersectionOverUnion(decoded_boxes, i, j)`, in float, `i` the selected box.
fn iou(i: &Corners, j: &Corners) -> f32 {
    let area_i = (i[2] - i[0]) * (i[3] - i[1]);
    let area_j = (j[2] - j[0]) * (j[3] - j[1]);
    if area_i <= 0.0 || area_j <= 0.0 {
        return 0.0;
    }
    let ymin = max_f(i[0], j[0]);
    let xmin = max_f(i[1], j[1]);
    let ymax = min_f(i[2], j[2]);
    let xmax = min_f(i[3], j[3]);
    let intersection = max_f(ymax - ymin, 0.0) * max_f(xmax - xmin, 0.0);
    intersection / (area_i + area_j - intersection)
}

/// Visits the rows `0..n` whose score is at least `threshold`, in decreasing score and then
/// increasing row (TFLM's stable `DecreasingArgSort` of the kept scores, which are never NaN),
/// until `visit(row, score)` returns false. Each scan over the rows takes the next [`BATCH`]
/// in that order.
// `!(s >= threshold)` drops NaN scores, as TFLM's `values[i] >= threshold` keeps only others.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn in_order(
    n: usize,
    score: impl Fn(usize) -> f32,
    threshold: f32,
    mut visit: impl FnMut(usize, f32) -> bool,
) {
    // `(score, row)` comes before `(s, r)`: a higher score, or the same and a lower row.
    let before = |a: (f32, usize), b: (f32, usize)| a.0 > b.0 || (a.0 == b.0 && a.1 < b.1);
    let mut cursor: Option<(f32, usize)> = None;
    loop {
        let mut batch = [(0.0_f32, 0_usize); BATCH];
        let mut len = 0;
        for row in 0..n {
            let s = score(row);
            if !(s >= threshold) {
                continue;
            }
            if cursor.is_some_and(|c| !before(c, (s, row))) {
                continue;
            }
            // Insert into the sorted batch (rows come in increasing order, so ties go last).
            let at = batch
                .get(..len)
                .unwrap_or(&[])
                .iter()
                .position(|&e| before((s, row), e))
                .unwrap_or(len);
            if at >= BATCH {
                continue;
            }
            let end = len.min(BATCH - 1);
            if let Some(tail) = batch.get_mut(at..=end) {
                tail.rotate_right(1);
                if let Some(first) = tail.first_mut() {
                    *first = (s, row);
                }
            }
            len = (len + 1).min(BATCH);
        }
        for &(s, row) in batch.get(..len).unwrap_or(&[]) {
            if !visit(row, s) {
                return;
            }
        }
        match batch.get(len.wrapping_sub(1)) {
            Some(&last) if len == BATCH => cursor = Some(last),
            _ => return,
        }
    }
}

/// libstdc++'s `std::partial_sort(indices, indices + k, indices + n, comp)` of `indices =
/// iota(n)` with TFLM's `DecreasingPartialArgSort` comparator (`std::tie(values[i], j) >
/// std::tie(values[j], i)`), replayed operation for operation (`__heap_select`, then
/// `__sort_heap`, with `__make_heap`, `__pop_heap`, `__adjust_heap` and `__push_heap`); the
/// first `k` indices go to `out`. Positions from `k` on hold their own index when they are read.
// The comparator's `!(va < vb)` is C++'s, NaN included.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn partial_arg_sort(values: impl Fn(usize) -> f32, n: usize, out: &mut [usize]) {
    let k = out.len();
    // tie(v[a], b) > tie(v[b], a): v[b] < v[a], or neither less and a < b.
    let comp = |a: usize, b: usize| {
        let (va, vb) = (values(a), values(b));
        vb < va || (!(va < vb) && a < b)
    };
    for (i, o) in out.iter_mut().enumerate() {
        *o = i;
    }
    let get = |h: &[usize], i: usize| at(h, i);
    let push_heap = |h: &mut [usize], mut hole: usize, top: usize, value: usize| {
        let mut parent = hole.saturating_sub(1) / 2;
        while hole > top && comp(get(h, parent), value) {
            let v = get(h, parent);
            if let Some(slot) = h.get_mut(hole) {
                *slot = v;
            }
            hole = parent;
            parent = hole.saturating_sub(1) / 2;
        }
        if let Some(slot) = h.get_mut(hole) {
            *slot = value;
        }
    };
    let adjust_heap = |h: &mut [usize], mut hole: usize, len: usize, value: usize| {
        let top = hole;
        let mut second = hole;
        while second < len.saturating_sub(1) / 2 {
            second = 2 * (second + 1);
            if comp(get(h, second), get(h, second - 1)) {
                second -= 1;
            }
            let v = get(h, second);
            if let Some(slot) = h.get_mut(hole) {
                *slot = v;
            }
            hole = second;
        }
        if len & 1 == 0 && len >= 2 && second == (len - 2) / 2 {
            second = 2 * (second + 1);
            let v = get(h, second - 1);
            if let Some(slot) = h.get_mut(hole) {
                *slot = v;
            }
            hole = second - 1;
        }
        push_heap(h, hole, top, value);
    };
    // __make_heap(first, middle).
    if k >= 2 {
        let mut parent = (k - 2) / 2;
        loop {
            let value = get(out, parent);
            adjust_heap(out, parent, k, value);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    // __heap_select: a better element replaces the top (__pop_heap(first, middle, i)).
    if k >= 1 {
        for i in k..n {
            if comp(i, get(out, 0)) {
                adjust_heap(out, 0, k, i);
            }
        }
    }
    // __sort_heap(first, middle).
    let mut last = k;
    while last > 1 {
        last -= 1;
        let value = get(out, last);
        let top = get(out, 0);
        if let Some(slot) = out.get_mut(last) {
            *slot = top;
        }
        adjust_heap(out, 0, last, value);
    }
}

/// [`detection_postprocess`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
#[allow(clippy::too_many_arguments)]
pub const fn check_detection_postprocess(
    p: &DetectionPostProcess,
    boxes: usize,
    scores: usize,
    anchors: usize,
    out_boxes: usize,
    out_classes: usize,
    out_scores: usize,
    num_detections: usize,
) -> Result<(), KernelError> {
    let n = p.num_boxes;
    check!(require(p.box_stride >= 4, "the box stride is below 4"));
    check!(length("boxes", elements(&[n, p.box_stride]), boxes));
    check!(length(
        "scores",
        elements(&[n, p.num_classes_with_background]),
        scores
    ));
    let anchors_hold = match n.checked_mul(4) {
        Some(need) => need <= anchors,
        None => false,
    };
    check!(require(
        anchors_hold,
        "the anchors hold fewer than 4 values per box"
    ));
    check!(require(
        p.num_classes_with_background >= p.num_classes
            && p.num_classes_with_background - p.num_classes <= 1,
        "num_classes_with_background is neither num_classes nor one more"
    ));
    check!(require(
        num_detections >= 1,
        "the detection count has no element"
    ));
    let (detections, per_detection) = if p.use_regular_nms {
        let per_class = if p.detections_per_class < n {
            p.detections_per_class
        } else {
            n
        };
        check!(require(
            p.detections_per_class >= 1 && per_class <= MAX_DETECTIONS_PER_CLASS,
            "detections_per_class is 0 or above MAX_DETECTIONS_PER_CLASS"
        ));
        (p.max_detections, 1)
    } else {
        let k = if p.max_classes_per_detection < p.num_classes {
            p.max_classes_per_detection
        } else {
            p.num_classes
        };
        check!(require(
            k >= 1 && k <= MAX_CLASSES_PER_DETECTION,
            "the classes per detection are 0 or above MAX_CLASSES_PER_DETECTION"
        ));
        let capacity = if n < p.max_detections {
            n
        } else {
            p.max_detections
        };
        (capacity, k)
    };
    let Some(entries) = detections.checked_mul(per_detection) else {
        return Err(KernelError::Parameters("the detections' count overflows"));
    };
    let boxes_hold = match entries.checked_mul(4) {
        Some(need) => need <= out_boxes,
        None => false,
    };
    check!(require(
        boxes_hold,
        "the boxes output is shorter than the detections"
    ));
    check!(require(
        entries <= out_classes,
        "the classes output is shorter than the detections"
    ));
    require(
        entries <= out_scores,
        "the scores output is shorter than the detections",
    )
}

/// `TFLite_Detection_PostProcess`: TFLM's `DetectionPostProcessEval` for float inputs.
///
/// `boxes` are the box encodings `[1, num_boxes, box_stride]`, `scores` the class predictions
/// `[1, num_boxes, num_classes_with_background]`, `anchors` `[num_boxes, 4]` (`y, x, h, w`);
/// the outputs are TFLM's: the detections' corners (4 per detection), classes and scores, and
/// their count.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_detection_postprocess`]) hold: `boxes` holds `num_boxes × box_stride` values
/// (`box_stride >= 4`), `scores` `num_boxes × num_classes_with_background`, `anchors` at least
/// `4 × num_boxes`; `num_classes_with_background` is `num_classes` or one more; the outputs
/// hold at least `max_detections` detections (regular path) or `min(num_boxes, max_detections)
/// × min(max_classes_per_detection, num_classes)` (fast path), `num_detections` at least one
/// value; `max_classes_per_detection` (fast path) or `detections_per_class` (regular path) is
/// positive, and within [`MAX_CLASSES_PER_DETECTION`] and [`MAX_DETECTIONS_PER_CLASS`]. Where
/// TFLM's `ValidateBoxes` fails (a decoded box is empty, which depends on the values) TFLM's
/// `Eval` fails, and nothing is written.
#[allow(clippy::too_many_arguments)]
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn detection_postprocess(
    p: &DetectionPostProcess,
    boxes: &[f32],
    scores: &[f32],
    anchors: &[f32],
    out_boxes: &mut [f32],
    out_classes: &mut [f32],
    out_scores: &mut [f32],
    num_detections: &mut [f32],
) -> Result<(), KernelError> {
    check_detection_postprocess(
        p,
        boxes.len(),
        scores.len(),
        anchors.len(),
        out_boxes.len(),
        out_classes.len(),
        out_scores.len(),
        num_detections.len(),
    )?;
    proven::detection_postprocess(
        p,
        boxes,
        scores,
        anchors,
        out_boxes,
        out_classes,
        out_scores,
        num_detections,
    );
    Ok(())
}

/// TFLM's `NonMaxSuppressionMultiClassFastHelper`.
fn fast(
    inputs: &Inputs<'_>,
    out_boxes: &mut [f32],
    out_classes: &mut [f32],
    out_scores: &mut [f32],
    num_detections: &mut [f32],
) {
    let p = inputs.p;
    let k = p.max_classes_per_detection.min(p.num_classes);
    let capacity = p.num_boxes.min(p.max_detections);
    let holds = |len: usize, each: usize| {
        capacity
            .checked_mul(k)
            .and_then(|c| c.checked_mul(each))
            .is_some_and(|x| x <= len)
    };
    if k == 0
        || k > MAX_CLASSES_PER_DETECTION
        || !holds(out_boxes.len(), 4)
        || !holds(out_classes.len(), 1)
        || !holds(out_scores.len(), 1)
    {
        return;
    }
    if !inputs.boxes_valid() {
        return;
    }
    // The top classes of a box, and its highest score (`box_scores[class_indices[0]]`).
    let top_classes = |row: usize, out: &mut [usize]| {
        partial_arg_sort(|c| inputs.score(row, c), p.num_classes, out);
    };
    let max_score = |row: usize| {
        let mut top = [0usize; MAX_CLASSES_PER_DETECTION];
        let top = top.get_mut(..k).unwrap_or(&mut []);
        top_classes(row, top);
        inputs.score(row, at(top, 0))
    };
    // Where TFLM writes entry `j` (see below); selection `i` keeps its row in
    // `out_classes[slot(i)]` and its corners in `out_boxes[4 slot(i)..]`, entry `i`'s position,
    // which the writes below overwrite only after reading it.
    let slot = |i: usize| k.wrapping_mul(i).wrapping_add(i % k);
    // NonMaxSuppressionSingleClassHelper on the highest scores.
    let mut selected = 0usize;
    in_order(p.num_boxes, max_score, p.score_threshold, |row, _| {
        if selected >= p.max_detections {
            return false;
        }
        let corners = inputs.decode(row);
        for s in 0..selected {
            let chosen = corners_at(out_boxes, slot(s));
            if iou(&chosen, &corners) > p.iou_threshold {
                return true;
            }
        }
        let at_ = slot(selected);
        if let Some(kept) = corners_mut(out_boxes, at_) {
            kept.copy_from_slice(&corners);
        }
        if let Some(kept) = out_classes.get_mut(at_) {
            *kept = f32::from_bits(row as u32);
        }
        selected += 1;
        selected < p.max_detections
    });
    // The outputs, from the last detection back. TFLM's `box_offset` is `k * output_box_index
    // + col` with `output_box_index` counting entries (it grows in the class loop): entry `j =
    // i * k + col` lands at `k * j + col`, which for `k > 1` leaves gaps and reaches past
    // `selected * k` (TFLM writes past its outputs' ends there; these writes are dropped). Every
    // entry of detection i lies at `k^2 * i` and on, never below the slots of the detections
    // before it, nor the slots they are kept in.
    for i in (0..selected).rev() {
        let row = at(out_classes, slot(i)).to_bits() as usize;
        let corners = corners_at(out_boxes, slot(i));
        let mut top = [0usize; MAX_CLASSES_PER_DETECTION];
        let top = top.get_mut(..k).unwrap_or(&mut []);
        top_classes(row, top);
        for (col, &class) in top.iter().enumerate() {
            let at_ = k
                .wrapping_mul(i.wrapping_mul(k).wrapping_add(col))
                .wrapping_add(col);
            if let Some(slot) = corners_mut(out_boxes, at_) {
                slot.copy_from_slice(&corners);
            }
            if let Some(slot) = out_classes.get_mut(at_) {
                *slot = class as f32;
            }
            if let Some(slot) = out_scores.get_mut(at_) {
                *slot = inputs.score(row, class);
            }
        }
    }
    if let Some(count) = num_detections.first_mut() {
        *count = (selected * k) as f32;
    }
}

/// TFLM's `NonMaxSuppressionMultiClassRegularHelper`.
fn regular(
    inputs: &Inputs<'_>,
    out_boxes: &mut [f32],
    out_classes: &mut [f32],
    out_scores: &mut [f32],
    num_detections: &mut [f32],
) {
    let p = inputs.p;
    let d = p.max_detections;
    let per_class = p.detections_per_class.min(p.num_boxes);
    let holds = |len: usize, each: usize| d.checked_mul(each).is_some_and(|x| x <= len);
    if p.detections_per_class == 0
        || per_class > MAX_DETECTIONS_PER_CLASS
        || !holds(out_boxes.len(), 4)
        || !holds(out_classes.len(), 1)
        || !holds(out_scores.len(), 1)
    {
        return;
    }
    // The helper validates the boxes for every class (none: no validation).
    if p.num_classes > 0 && !inputs.boxes_valid() {
        return;
    }
    let ncwb = p.num_classes_with_background;
    let offset = ncwb - p.num_classes;
    // The running top `d`: scores in `out_scores[..size]`, flat indices (`row * ncwb + col +
    // offset`) as bits in `out_classes[..size]`, in TFLM's order.
    let mut size = 0usize;
    for col in 0..p.num_classes {
        let mut chosen = [0usize; MAX_DETECTIONS_PER_CLASS];
        let mut count = 0usize;
        in_order(
            p.num_boxes,
            |row| inputs.score(row, col),
            p.score_threshold,
            |row, score| {
                if count >= p.detections_per_class {
                    return false;
                }
                let corners = inputs.decode(row);
                for &s in chosen.get(..count).unwrap_or(&[]) {
                    if iou(&inputs.decode(s), &corners) > p.iou_threshold {
                        return true;
                    }
                }
                if let Some(slot) = chosen.get_mut(count) {
                    *slot = row;
                }
                count += 1;
                // DecreasingPartialArgSort of the running list and this class's selections:
                // after every entry with at least this score (earlier positions first).
                let at_ = (0..size)
                    .position(|e| at(out_scores, e) < score)
                    .unwrap_or(size);
                if at_ < d {
                    let end = size.min(d - 1);
                    let flat = (row * ncwb + col + offset) as u32;
                    if let Some(tail) = out_scores.get_mut(at_..=end) {
                        tail.rotate_right(1);
                        if let Some(first) = tail.first_mut() {
                            *first = score;
                        }
                    }
                    if let Some(tail) = out_classes.get_mut(at_..=end) {
                        tail.rotate_right(1);
                        if let Some(first) = tail.first_mut() {
                            *first = f32::from_bits(flat);
                        }
                    }
                    size = (size + 1).min(d);
                }
                count < p.detections_per_class
            },
        );
    }
    for i in 0..d {
        if i < size {
            let flat = at(out_classes, i).to_bits() as usize;
            let anchor = flat / ncwb;
            let class = flat - anchor * ncwb - offset;
            let corners = inputs.decode(anchor);
            if let Some(slot) = corners_mut(out_boxes, i) {
                slot.copy_from_slice(&corners);
            }
            if let Some(slot) = out_classes.get_mut(i) {
                *slot = class as f32;
            }
        } else {
            if let Some(slot) = corners_mut(out_boxes, i) {
                slot.fill(0.0);
            }
            if let Some(slot) = out_classes.get_mut(i) {
                *slot = 0.0;
            }
            if let Some(slot) = out_scores.get_mut(i) {
                *slot = 0.0;
            }
        }
    }
    if let Some(count) = num_detections.first_mut() {
        *count = size as f32;
    }
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`detection_postprocess`](super::detection_postprocess), its [`check`](super::check_detection_postprocess) proven.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn detection_postprocess(
        p: &DetectionPostProcess,
        boxes: &[f32],
        scores: &[f32],
        anchors: &[f32],
        out_boxes: &mut [f32],
        out_classes: &mut [f32],
        out_scores: &mut [f32],
        num_detections: &mut [f32],
    ) {
        debug_assert!(
            super::check_detection_postprocess(
                p,
                boxes.len(),
                scores.len(),
                anchors.len(),
                out_boxes.len(),
                out_classes.len(),
                out_scores.len(),
                num_detections.len()
            )
            .is_ok()
        );
        let n = p.num_boxes;
        let holds = |len: usize, count: usize, each: usize| {
            count.checked_mul(each).is_some_and(|x| x <= len)
        };
        if !holds(boxes.len(), n, p.box_stride)
            || p.box_stride < 4
            || !holds(scores.len(), n, p.num_classes_with_background)
            || !holds(anchors.len(), n, 4)
            || p.num_classes_with_background < p.num_classes
            || p.num_classes_with_background - p.num_classes > 1
            || num_detections.is_empty()
        {
            return;
        }
        let inputs = Inputs {
            p,
            boxes,
            scores,
            anchors,
        };
        if p.use_regular_nms {
            regular(&inputs, out_boxes, out_classes, out_scores, num_detections);
        } else {
            fast(&inputs, out_boxes, out_classes, out_scores, num_detections);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indices of TFLM's comparator order, by a plain stable sort (no NaN).
    fn reference_top(values: &[f32], k: usize) -> [usize; 8] {
        let mut idx: [usize; 8] = core::array::from_fn(|i| i);
        let n = values.len();
        idx[..n].sort_by(|&a, &b| {
            values[b]
                .partial_cmp(&values[a])
                .unwrap_or(core::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        let mut out = [0; 8];
        out[..k].copy_from_slice(&idx[..k]);
        out
    }

    #[test]
    fn partial_sort_matches_a_sort_without_nan() {
        let values = [0.5, 2.0, -1.0, 2.0, 0.5, 7.0, -0.0, 0.0];
        for k in 1..=8 {
            let mut out = [0usize; 8];
            partial_arg_sort(|i| values[i], 8, &mut out[..k]);
            assert_eq!(out[..k], reference_top(&values, k)[..k], "k {k}");
        }
    }

    #[test]
    fn partial_sort_with_nan_is_deterministic() {
        // With NaN the comparator is inconsistent: the result is libstdc++'s (checked against
        // TFLM by the conformance suite); here only that it is a selection of distinct indices.
        let values = [1.0, f32::NAN, 3.0, f32::NAN, 2.0];
        let mut out = [0usize; 3];
        partial_arg_sort(|i| values[i], 5, &mut out);
        assert!(out[0] != out[1] && out[1] != out[2] && out[0] != out[2]);
        // k = 1 is the first strict maximum (NaN never replaces, and is never replaced first).
        let mut one = [0usize; 1];
        partial_arg_sort(|i| values[i], 5, &mut one);
        assert_eq!(one, [2]);
    }

    #[test]
    fn in_order_visits_by_score_then_row_across_batches() {
        let n = 3 * BATCH + 5;
        let score = |r: usize| ((r * 7) % 11) as f32;
        let mut seen = [0usize; 3 * BATCH + 5];
        let mut count = 0;
        in_order(n, score, 2.0, |row, s| {
            assert_eq!(s, score(row));
            seen[count] = row;
            count += 1;
            true
        });
        let kept = (0..n).filter(|&r| score(r) >= 2.0).count();
        assert_eq!(count, kept);
        for w in seen[..count].windows(2) {
            let (a, b) = (w[0], w[1]);
            assert!(score(a) > score(b) || (score(a) == score(b) && a < b));
        }
    }

    fn params(regular: bool) -> DetectionPostProcess {
        DetectionPostProcess {
            num_boxes: 3,
            box_stride: 4,
            num_classes: 2,
            num_classes_with_background: 3,
            max_detections: 2,
            max_classes_per_detection: 1,
            detections_per_class: 2,
            use_regular_nms: regular,
            score_threshold: 0.1,
            iou_threshold: 0.5,
            y_scale: 10.0,
            x_scale: 10.0,
            h_scale: 5.0,
            w_scale: 5.0,
        }
    }

    #[test]
    fn suppresses_overlapping_boxes() {
        // Boxes 0 and 1 on the same anchor; box 2 elsewhere. Class scores (after background).
        let boxes = [0.0; 12];
        let anchors = [0.5, 0.5, 0.2, 0.2, 0.5, 0.5, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1];
        let scores = [0.0, 0.9, 0.1, 0.0, 0.8, 0.7, 0.0, 0.3, 0.6];
        for regular in [false, true] {
            let p = params(regular);
            let (mut b, mut c, mut s, mut n) = ([9.0f32; 8], [9.0f32; 2], [9.0f32; 2], [9.0f32]);
            detection_postprocess(
                &p, &boxes, &scores, &anchors, &mut b, &mut c, &mut s, &mut n,
            )
            .unwrap();
            // Fast: box 0 (0.9, class 0) suppresses box 1 (same anchor), then box 2 (0.6, class
            // 1). Regular: class 0 keeps boxes 0 (0.9) and 2 (0.3); class 1 boxes 1 (0.7) and
            // 2 (0.6); the top two are 0.9 and 0.7.
            assert_eq!(n, [2.0]);
            assert_eq!(c, [0.0, 1.0]);
            assert_eq!(s, if regular { [0.9, 0.7] } else { [0.9, 0.6] });
            assert_eq!(b[..4], [0.4, 0.4, 0.6, 0.6]);
        }
        // An invalid box (zero height) writes nothing.
        let flat = [0.5, 0.5, 0.0, 0.2, 0.5, 0.5, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1];
        let (mut b, mut c, mut s, mut n) = ([9.0f32; 8], [9.0f32; 2], [9.0f32; 2], [9.0f32]);
        detection_postprocess(
            &params(false),
            &boxes,
            &scores,
            &flat,
            &mut b,
            &mut c,
            &mut s,
            &mut n,
        )
        .unwrap();
        assert_eq!(n, [9.0]);
    }

    #[test]
    fn several_classes_land_where_tflm_writes_them() {
        // Two boxes in separate places, 2 classes per detection: entry j at 2 j + j % 2:
        // 0, 3 (detection 0), 4, 7 (detection 1); the positions between keep their values.
        let boxes = [0.0; 8];
        let anchors = [0.2, 0.2, 0.1, 0.1, 0.7, 0.7, 0.1, 0.1];
        let scores = [0.9, 0.2, 0.1, 0.8];
        let p = DetectionPostProcess {
            num_boxes: 2,
            num_classes: 2,
            num_classes_with_background: 2,
            max_classes_per_detection: 2,
            ..params(false)
        };
        let (mut b, mut c, mut s, mut n) = ([9.0f32; 32], [9.0f32; 8], [9.0f32; 8], [9.0f32]);
        detection_postprocess(
            &p, &boxes, &scores, &anchors, &mut b, &mut c, &mut s, &mut n,
        )
        .unwrap();
        assert_eq!(n, [4.0]);
        assert_eq!(s, [0.9, 9.0, 9.0, 0.2, 0.8, 9.0, 9.0, 0.1]);
        assert_eq!(c, [0.0, 9.0, 9.0, 1.0, 1.0, 9.0, 9.0, 0.0]);
        assert_eq!(b[12..16], b[..4]);
        assert_eq!(b[4..8], [9.0; 4]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        // boxes, scores, anchors, then the outputs: boxes, classes, scores, count.
        for regular in [false, true] {
            let p = params(regular);
            let boxes = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            let anchors = [0.5, 0.5, 0.2, 0.2, 0.5, 0.5, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1];
            refuses(
                [12, 9, 12, 8, 2, 2, 1],
                [Exact, Exact, AtLeast, AtLeast, AtLeast, AtLeast, AtLeast],
                |[bx, sc, an, ob, oc, os, on]| {
                    let (mut b, mut c, mut s, mut n) =
                        (vec![9.0; ob], vec![9.0; oc], vec![9.0; os], vec![9.0; on]);
                    let (bx, an) = (vec![0.0; bx], anchors.get(..an).unwrap_or(&anchors));
                    let bx = if bx.len() == 12 { boxes.to_vec() } else { bx };
                    let r = detection_postprocess(
                        &p,
                        &bx,
                        &vec![0.5; sc],
                        an,
                        &mut b,
                        &mut c,
                        &mut s,
                        &mut n,
                    );
                    (
                        r,
                        untouched(&b, 9.0)
                            && untouched(&c, 9.0)
                            && untouched(&s, 9.0)
                            && untouched(&n, 9.0),
                    )
                },
            );
        }
    }
}
