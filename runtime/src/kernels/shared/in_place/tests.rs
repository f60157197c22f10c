//! The in-place driver's own tests: the least displacement is the most any pixel needs, the
//! chunks never write an element before its last read, `fits` is where the driver runs, and
//! the elementwise and binary walks read every element before writing over it.

extern crate std;
use std::vec;

use super::*;
use crate::kernels::shared::testing::window::{
    CASES, Rng, displacements, elements, first_reads, random_geometry,
};

/// The constant-time maxima are the maxima over every pixel and every row: `D` with each
/// pixel's read base the least first read of it and every later pixel.
#[test]
fn min_displacement_is_the_most_any_pixel_needs() {
    let mut rng = Rng(0x0d15_7ace);
    for case in 0..CASES * 4 {
        let g = random_geometry(&mut rng, case % 2 == 1);
        let [_, oh, ow, oc] = g.output;
        let reads = first_reads(&g);
        let mut later = usize::MAX;
        let mut every = 0;
        for (p, &r) in reads.iter().enumerate().rev() {
            later = later.min(r);
            every = every.max(((p + 1) * oc).saturating_sub(later));
        }
        assert_eq!(min_displacement(&g), Some(every), "{g:?}");
        let pointwise = Walk::of(&g).unwrap().pointwise;
        let rows = if pointwise {
            reads.len() * oc
        } else {
            (0..reads.len() / ow)
                .map(|row| ((row + 1) * ow * oc).saturating_sub(reads[row * ow]))
                .max()
                .unwrap()
        };
        assert_eq!(row_displacement(&g), Some(rows), "{g:?}");
        assert!(rows >= every && oh > 0);
    }
}

/// One output pixel past the least displacement (what the planner adds for int8 convolutions,
/// `Options::chunk_pixels` 2), every chunk holds two output pixels or more, but a row's last
/// pixel (a batch's last row, for one-pixel-wide outputs): the blocked kernels take pairs.
#[test]
fn one_pixel_more_gives_chunks_of_two_pixels() {
    let mut rng = Rng(0x0c4a_2002);
    // Geometries whose chunks at the least displacement include a pixel alone mid-row.
    let mut alone_at_least = 0;
    for case in 0..CASES {
        let g = random_geometry(&mut rng, case % 2 == 1);
        let [_, oh, ow, oc] = g.output;
        let least = min_displacement(&g).unwrap();
        let (input, output) = (elements(g.input), elements(g.output));
        let pointwise = Walk::of(&g).unwrap().pointwise;
        // The last pixel of its row, or of its batch when each row is one pixel.
        let last = |pixel: usize| {
            if pointwise {
                pixel + 1 == output / oc
            } else if ow > 1 {
                (pixel + 1).is_multiple_of(ow)
            } else {
                (pixel + 1).is_multiple_of(oh)
            }
        };
        for d in [least, least + oc] {
            let mut buf = vec![0_i8; d + input.max(output)];
            let (mut pixel, mut alone) = (0, false);
            let ran = overlapped(&g, &mut buf, d, 0, |_, _, _, out| {
                let pixels = out.len() / oc;
                alone |= pixels < 2 && !last(pixel);
                pixel += pixels;
            });
            assert!(ran && pixel * oc == output, "{g:?} at d = {d}");
            if d == least {
                alone_at_least += usize::from(alone);
            } else {
                assert!(!alone, "{g:?}: a pixel alone mid-row at d = {d}");
            }
        }
    }
    assert!(alone_at_least > CASES / 8, "{alone_at_least} of {CASES}");
}

#[test]
fn displacements_of_the_person_detect_shapes() {
    let g = |input, filter: [usize; 2], output: [usize; 4], stride, pad| ConvGeometry {
        input,
        filter: [output[3], filter[0], filter[1], 1],
        output,
        stride_h: stride,
        stride_w: stride,
        dilation_h: 1,
        dilation_w: 1,
        pad_h: pad,
        pad_w: pad,
        depth_multiplier: 1,
    };
    // 1 x 1, 8 -> 16 channels on 48 x 48: the last pixel's 16 outputs end 8 elements past
    // its input's start (2304 · 16 − 2303 · 8).
    let conv = g([1, 48, 48, 8], [1, 1], [1, 48, 48, 16], 1, 0);
    assert_eq!(min_displacement(&conv), Some(2304 * 16 - 2303 * 8));
    // 3 x 3, stride 1, SAME: from row 1 on, pixel x (x ≥ 1) ends one row and two pixels
    // past its window's corner, input pixel x − 1 of the row above; whole rows end two
    // input rows past the start of the row above.
    let dw = g([1, 48, 48, 8], [3, 3], [1, 48, 48, 8], 1, 1);
    assert_eq!(min_displacement(&dw), Some(48 * 8 + 2 * 8));
    assert_eq!(row_displacement(&dw), Some(2 * 48 * 8));
    // Stride 2 halving the rows, 1 -> 8 channels: pixel (y, x) ends at
    // (48y + x + 1) · 8 and reads from input pixel (2y, 2x) (of one element); row y ends
    // at (y + 1) · 384 and reads from input row 2y (of 96 elements).
    let first = g([1, 96, 96, 1], [3, 3], [1, 48, 48, 8], 2, 0);
    assert_eq!(min_displacement(&first), Some(2304 * 8 - (94 * 96 + 94)));
    let rows = (0..48).map(|y| (y + 1) * 384 - 2 * y * 96).max();
    assert_eq!(row_displacement(&first), rows);
    // Zero dimensions and windows of padding only have no walk.
    let empty = g([1, 0, 4, 1], [1, 1], [1, 0, 4, 1], 1, 0);
    assert_eq!(min_displacement(&empty), None);
    let padding = g([1, 2, 2, 1], [1, 1], [1, 4, 2, 1], 1, 2);
    assert_eq!(min_displacement(&padding), None);
    assert!(!overlapped(
        &padding,
        &mut [0_u8; 64],
        8,
        0,
        |_, _, _, _| {}
    ));
}

/// Shadow memory: every element carries what it holds (an input element's index, or the
/// output element written there). A chunk's kernel sees only its two slices; each input
/// element it is given must still be the input (not yet written over), and it writes its
/// output elements in order. So no element is written before its last read, every output
/// element is written once, and the sub-geometries match the slices.
#[test]
fn no_element_is_written_before_its_last_read() {
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Cell {
        Free,
        Input(usize),
        Output(usize),
    }
    let mut rng = Rng(0x5eed_0f0e_71a5);
    // Chunks of pixels of one row, and those with pixels skipped.
    let (mut runs, mut skipping) = (0, 0);
    for case in 0..CASES {
        let g = random_geometry(&mut rng, case % 2 == 1);
        let least = min_displacement(&g).expect("a walk");
        let (input, output) = (elements(g.input), elements(g.output));
        for d in displacements(&mut rng, least, output) {
            let len = (d + input).max(output);
            let mut buf = vec![Cell::Free; len];
            for (k, x) in buf[d..d + input].iter_mut().enumerate() {
                *x = Cell::Input(k);
            }
            let (mut written, mut read_from) = (0, 0);
            let done = overlapped(&g, &mut buf, d, 0, |sub, part, i, o| {
                let skipped = part.skip * sub.input[3];
                assert_eq!(
                    i.len(),
                    elements(sub.input) - skipped,
                    "{g:?} d {d}: {sub:?}"
                );
                if part != Part::WHOLE {
                    runs += 1;
                    skipping += usize::from(part.skip > 0);
                    // A run of one row's pixels.
                    assert_eq!(sub.output[1], 1, "{g:?} d {d}: {sub:?}");
                    assert!(
                        part.x0 + sub.output[2] <= g.output[2],
                        "{g:?} d {d}: {part:?}"
                    );
                }
                assert_eq!(o.len(), elements(sub.output), "{g:?} d {d}: {sub:?}");
                // The chunk's input: consecutive input elements, none written over, never
                // before the previous chunk's first.
                let Some(&Cell::Input(first)) = i.first() else {
                    panic!("{g:?} d {d}: a chunk's input starts with {:?}", i.first());
                };
                assert!(first >= read_from, "{g:?} d {d}");
                read_from = first;
                for (k, x) in i.iter().enumerate() {
                    assert_eq!(*x, Cell::Input(first + k), "{g:?} d {d}: {sub:?}");
                }
                for y in o.iter_mut() {
                    *y = Cell::Output(written);
                    written += 1;
                }
            });
            assert!(done, "{g:?} at d = {d} (D = {least})");
            for (k, y) in buf[..output].iter().enumerate() {
                assert_eq!(*y, Cell::Output(k), "{g:?} d {d}");
            }
        }
        // One element less: the driver stops before a unit it cannot run.
        if least > 0 && least < output {
            let mut buf = vec![Cell::Free; (least - 1 + input).max(output)];
            for (k, x) in buf[least - 1..least - 1 + input].iter_mut().enumerate() {
                *x = Cell::Input(k);
            }
            let done = overlapped(&g, &mut buf, least - 1, 0, |_, _, i, _| {
                assert!(i.iter().all(|x| matches!(x, Cell::Input(_))));
            });
            assert!(!done, "{g:?} at D − 1 = {}", least - 1);
        }
    }
    assert!(
        runs > CASES && skipping > CASES / 4,
        "{runs} runs, {skipping} skipping"
    );
}

/// `fits` says exactly where the driver runs: disjoint, or at least `D` above.
#[test]
fn fits_is_where_the_driver_runs() {
    let mut rng = Rng(0x0f17_5000);
    for case in 0..CASES {
        let g = random_geometry(&mut rng, case % 2 == 1);
        let least = min_displacement(&g).unwrap();
        let (input, output) = (elements(g.input), elements(g.output));
        let len = input + output + least;
        for (i, o) in [
            (least, 0),
            (least.saturating_sub(1), 0),
            (0, input),
            (output, 0),
            (0, 1),
            (len - input, 0),
        ] {
            let mut buf = vec![0_i8; len.max(i + input).max(o + output)];
            let runs = overlapped(&g, &mut buf, i, o, |_, _, _, _| {});
            assert_eq!(fits(&g, i, o), runs, "{g:?} input at {i}, output at {o}");
        }
    }
}
