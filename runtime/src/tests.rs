//! Unit tests, run under miri too (`cargo +nightly miri test -p stowplan`): the views and the
//! static arena exercise every `unsafe` block of the crate.

extern crate std;

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::{Arena, Slot, StaticArena};

enum Net {}
enum Other {}

const X: Slot<Net, f32> = Slot::new(0, 4);
const W: Slot<Net, i8> = Slot::new(16, 3);
const Y: Slot<Net, i32> = Slot::new(32, 2);
const Y_LOW: Slot<Net, u16> = Slot::new(32, 4);
const Z: Slot<Net, f64> = Slot::new(48, 2);
const EMPTY: Slot<Net, u8> = Slot::new(16, 0);

fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(f).expect_err("should panic");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| (*s).into()))
        .unwrap_or_default()
}

#[test]
fn views_read_and_write_the_slot_bytes() {
    let mut arena = Arena::<Net, 64>::new();
    assert_eq!(arena.view(X), &[0.0; 4]);
    arena.view_mut(X).copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    arena.view_mut(W).copy_from_slice(&[-1, 2, -3]);
    arena.view_mut(Z)[1] = -0.5;
    assert_eq!(arena.view(X), &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(&arena.as_bytes()[4..8], &2.0f32.to_ne_bytes());
    assert_eq!(&arena.as_bytes()[16..20], &[0xff, 2, 0xfd, 0]);
    assert_eq!(&arena.as_bytes()[56..64], &(-0.5f64).to_ne_bytes());
    // The same bytes as another type: any bit pattern is a valid element.
    arena.view_mut(Y).copy_from_slice(&[0x0001_0002, -1]);
    assert_eq!(arena.view(Y_LOW), &[2, 1, 0xffff, 0xffff]);
    assert!(arena.view(EMPTY).is_empty());
    // Views are aligned for their type.
    assert_eq!(arena.view(Z).as_ptr() as usize % align_of::<f64>(), 0);
    assert_eq!(arena.as_bytes().as_ptr() as usize % 16, 0);
}

#[test]
fn a_slot_beyond_the_arena_panics() {
    let message = panic_message(|| {
        let arena = Arena::<Net, 32>::new();
        let _ = arena.view(Y);
    });
    assert_eq!(message, "slot ends beyond the arena");
    let message = panic_message(|| {
        let mut arena = Arena::<Net, 32>::new();
        let _ = arena.view_mut(Z);
    });
    assert_eq!(message, "slot ends beyond the arena");
}

#[test]
fn op_views_give_every_input_and_output_at_once() {
    static WEIGHTS: [f32; 4] = [0.5, 0.25, 2.0, -1.0];
    let mut arena = Arena::<Net, 64>::new();
    arena.view_mut(X).copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    arena.view_mut(W).copy_from_slice(&[1, 2, 3]);
    {
        // Inputs may overlap each other (X twice); outputs get mutable views.
        let ((x, again, w, bias, ()), (y, z)) = arena.views((X, X, &WEIGHTS[..], W, ()), (Y, Z));
        assert_eq!(x, again);
        let dot: f32 = x.iter().zip(w).map(|(a, b)| a * b).sum();
        y[0] = dot as i32 + i32::from(bias[2]);
        y[1] = 7;
        z[0] = f64::from(dot);
        z[1] = 1.0;
    }
    assert_eq!(arena.view(Y), &[6, 7]);
    assert_eq!(arena.view(Z), &[3.0, 1.0]);
    // No inputs, no outputs, empty slots.
    let ((), ()) = arena.views((), ());
    let ((e,), (f,)) = arena.views((EMPTY,), (EMPTY,));
    assert!(e.is_empty() && f.is_empty());
    // Output written, then read by the next op.
    let ((y,), (x,)) = arena.views((Y,), (X,));
    x[0] = y[1] as f32;
    assert_eq!(arena.view(X)[0], 7.0);
}

#[test]
fn overlapping_op_views_panic_with_both_slots_named() {
    let message = panic_message(|| {
        let mut arena = Arena::<Net, 64>::new();
        let _ = arena.views((X, Y), (Y_LOW,));
    });
    assert_eq!(
        message,
        "output 0 (bytes 32..40) overlaps input 1 (bytes 32..40) of the same op: their views would alias"
    );
    let message = panic_message(|| {
        let mut arena = Arena::<Net, 64>::new();
        let _ = arena.views((), (X, W, Slot::<Net, u8>::new(12, 8)));
    });
    assert_eq!(
        message,
        "output 0 (bytes 0..16) overlaps output 2 (bytes 12..20) of the same op: their views would alias"
    );
    let message = panic_message(|| {
        let mut arena = Arena::<Net, 40>::new();
        let _ = arena.views((X,), (Z,));
    });
    assert_eq!(
        message,
        "output 0 of the op (bytes 48..64) ends beyond the arena of 40 bytes"
    );
    let message = panic_message(|| {
        let mut arena = Arena::<Net, 40>::new();
        let _ = arena.views((Z,), (X,));
    });
    assert_eq!(
        message,
        "input 0 of the op (bytes 48..64) ends beyond the arena of 40 bytes"
    );
}

/// A tiny deterministic generator: no dependencies in the runtime, not even for tests.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn random_ops_get_views_exactly_when_outputs_are_disjoint() {
    // Property: `views` succeeds iff no output overlaps another output or an input, and then
    // every output view writes only its own bytes. Fewer cases under miri, which is slow.
    let cases = if cfg!(miri) { 40 } else { 4_000 };
    let mut rng = XorShift(0x5eed_1234_abcd_0001);
    for _ in 0..cases {
        let slot = |rng: &mut XorShift| Slot::<Net, u32>::new(4 * rng.below(16), rng.below(5));
        let (a, b, c) = (slot(&mut rng), slot(&mut rng), slot(&mut rng));
        let (d, e) = (slot(&mut rng), slot(&mut rng));
        let overlaps = |p: Slot<Net, u32>, q: Slot<Net, u32>| {
            !p.is_empty() && !q.is_empty() && p.offset() < q.end() && q.offset() < p.end()
        };
        let ok = !overlaps(d, e)
            && [a, b, c]
                .iter()
                .all(|&s| !overlaps(d, s) && !overlaps(e, s));
        let mut arena = Arena::<Net, 80>::new();
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let ((_, _, _), (dv, ev)) = arena.views((a, b, c), (d, e));
            dv.fill(0x1111_1111);
            ev.fill(0x2222_2222);
        }));
        assert_eq!(got.is_ok(), ok, "{a:?} {b:?} {c:?} -> {d:?} {e:?}");
        if ok {
            for (i, byte) in arena.as_bytes().iter().enumerate() {
                let want = if (d.offset()..d.end()).contains(&i) {
                    0x11
                } else if (e.offset()..e.end()).contains(&i) {
                    0x22
                } else {
                    0
                };
                assert_eq!(*byte, want, "byte {i}");
            }
        }
    }
}

#[test]
fn a_static_arena_is_taken_once() {
    static ARENA: StaticArena<Net, 64> = StaticArena::new();
    let arena = ARENA.take().expect("the first take gets the arena");
    arena.view_mut(X)[0] = 1.5;
    assert!(ARENA.take().is_none());
    assert!(ARENA.take().is_none());
    assert_eq!(arena.view(X)[0], 1.5);
    assert_eq!(
        format!("{ARENA:?}"),
        "StaticArena { bytes: 64, align: 16, taken: true }"
    );
    assert_eq!(size_of::<StaticArena<Net, 64>>(), 64 + 16);
}

#[test]
fn an_arena_aligned_above_16_has_its_address_aligned() {
    static ARENA: StaticArena<Net, 128, 64> = StaticArena::new();
    assert!(!ARENA.is_taken());
    let arena = ARENA.take().expect("the first take gets the arena");
    assert!(ARENA.is_taken());
    assert_eq!(arena.as_bytes().as_ptr() as usize % 64, 0);
    assert_eq!(Arena::<Net, 128, 64>::ALIGN, 64);
    assert_eq!(Arena::<Net, 128, 8>::ALIGN, 16);
    assert_eq!(size_of::<Arena<Net, 128, 64>>(), 128);
    // The flag padded to the alignment.
    assert_eq!(size_of::<StaticArena<Net, 128, 64>>(), 128 + 64);
    let local = Arena::<Net, 4096, 4096>::new();
    assert_eq!(local.as_bytes().as_ptr() as usize % 4096, 0);
    assert_eq!(
        format!("{ARENA:?}"),
        "StaticArena { bytes: 128, align: 64, taken: true }"
    );
}

#[test]
fn threads_racing_for_a_static_arena_get_it_once() {
    static ARENA: StaticArena<Other, 32> = StaticArena::new();
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                ARENA.take().map(|arena| {
                    arena.as_bytes_mut().fill(i);
                    i
                })
            })
        })
        .collect();
    let winners: Vec<u8> = threads
        .into_iter()
        .filter_map(|t| t.join().unwrap())
        .collect();
    assert_eq!(winners.len(), 1);
}

#[test]
fn take_unchecked_takes_and_blocks_later_takes() {
    static ARENA: StaticArena<Net, 16> = StaticArena::new();
    // SAFETY: the only take of this static: nothing took it before, nothing runs beside.
    let arena = unsafe { ARENA.take_unchecked() };
    arena.as_bytes_mut()[0] = 9;
    assert!(ARENA.take().is_none());
    assert_eq!(arena.as_bytes()[0], 9);
}

#[test]
fn generated_op_proof_accepts_disjoint_and_rejects_overlaps() {
    use crate::__private_v1::assert_op_disjoint;
    assert_op_disjoint(&[(0, 16), (0, 16), (16, 32)], &[(32, 48), (48, 64), (5, 5)]);
    let message = panic_message(|| assert_op_disjoint(&[(0, 16)], &[(8, 24)]));
    assert_eq!(
        message,
        "an output of an op shares bytes with one of its inputs"
    );
    let message = panic_message(|| assert_op_disjoint(&[], &[(0, 16), (8, 24)]));
    assert_eq!(message, "two outputs of one op share bytes");
}

#[test]
fn constants_are_copied_out_of_the_model_file() {
    use crate::__private_v1::{Aligned, copy_at, typed};
    const FILE: &Aligned<[u8; 24]> = &Aligned([
        0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x80, 0x3f, 7, 8, 9, 10, 11, 12, 13,
        14,
    ]);
    const INTS: &Aligned<[u8; 8]> = &copy_at::<8, 24>(FILE, 4);
    assert_eq!(typed::<i32, 8>(INTS), &[1, -1]);
    const FLOAT: &Aligned<[u8; 4]> = &copy_at::<4, 24>(FILE, 12);
    assert_eq!(typed::<f32, 4>(FLOAT), &[1.0]);
    // Any offset: the copy is 16-byte aligned whatever the file's alignment of the data.
    let odd: Aligned<[u8; 3]> = copy_at::<3, 24>(FILE, 17);
    assert_eq!(odd.0, [8, 9, 10]);
    assert_eq!(copy_at::<0, 24>(FILE, 24).0, [0u8; 0]);
    let outside = panic_message(|| {
        let _ = copy_at::<8, 24>(FILE, 20);
    });
    assert!(outside.contains("outside the model file"), "{outside}");
    let far = panic_message(|| {
        let _ = copy_at::<1, 24>(FILE, usize::MAX);
    });
    assert!(far.contains("outside the model file"), "{far}");
}

/// The slots sorted by first time, the order of their last times, and each one's `below`
/// hint, computed as the code generator does (a sweep keeping the live slots by offset).
fn proof_table(
    mut slots: Vec<(u32, u32, usize, usize)>,
) -> (Vec<crate::__private_v1::Span>, Vec<u32>) {
    use crate::__private_v1::Span;
    slots.sort_unstable();
    let mut ends: Vec<u32> = (0..slots.len() as u32).collect();
    ends.sort_by_key(|&i| (slots[i as usize].1, i));
    let mut live = std::collections::BTreeMap::new();
    let mut gone = 0;
    let mut spans = Vec::new();
    for (i, &(first, last, start, end)) in slots.iter().enumerate() {
        while gone < ends.len() && slots[ends[gone] as usize].1 < first {
            live.remove(&slots[ends[gone] as usize].2);
            gone += 1;
        }
        let span = Span::bytes(start..end).live(first..=last);
        spans.push(match live.range(..start).next_back() {
            Some((_, &j)) => span.above(j),
            None => span,
        });
        live.insert(start, i as u32);
    }
    (spans, ends)
}

fn check_proof<const N: usize>(spans: &[crate::__private_v1::Span], ends: &[u32], arena: usize) {
    let spans: [crate::__private_v1::Span; N] = spans.try_into().unwrap();
    let ends: [u32; N] = ends.try_into().unwrap();
    // In two chunks, as generated code checks many slots.
    crate::__private_v1::Disjoint::<N>::new()
        .check(&spans, &ends, N / 2, arena)
        .check(&spans, &ends, N, arena)
        .finish();
}

#[test]
fn the_disjointness_proof_accepts_a_packing_and_names_what_is_wrong() {
    use crate::__private_v1::Span;
    // Two slots share bytes 0..256 at different times; the second lies above the first.
    let (spans, ends) = proof_table(std::vec![(0, 1, 0, 256), (0, 2, 256, 512), (2, 3, 0, 256)]);
    assert_eq!(spans[2], Span::bytes(0..256).live(2..=3));
    check_proof::<3>(&spans, &ends, 512);
    let message = panic_message(|| check_proof::<3>(&spans, &ends, 500));
    assert_eq!(message, "a slot is empty or ends beyond the arena");
    // The same bytes at overlapping times.
    let (spans, ends) = proof_table(std::vec![(0, 2, 0, 256), (1, 3, 128, 384)]);
    let message = panic_message(|| check_proof::<2>(&spans, &ends, 512));
    assert_eq!(message, "two slots live at the same time share bytes");
    // A hint that names a slot which has already left, or none where one is live: never trusted.
    let (mut spans, ends) = proof_table(std::vec![(0, 0, 0, 16), (1, 2, 0, 16), (2, 2, 16, 32)]);
    spans[2].below = Some(0);
    let message = panic_message(|| check_proof::<3>(&spans, &ends, 32));
    assert_eq!(message, "a slot enters above one that is not live");
    spans[2].below = None;
    let message = panic_message(|| check_proof::<3>(&spans, &ends, 32));
    assert_eq!(message, "two slots live at the same time share bytes");
    // Slots out of order.
    let (mut spans, ends) = proof_table(std::vec![(0, 1, 0, 16), (1, 1, 16, 32)]);
    spans.swap(0, 1);
    spans[0].below = None;
    let message = panic_message(|| check_proof::<2>(&spans, &ends, 32));
    assert_eq!(message, "slots are not sorted by first time");
}

#[test]
fn the_disjointness_proof_passes_exactly_the_disjoint_packings() {
    // Random small packings, the proof against the pairwise definition, with the generator's
    // hints and with arbitrary ones (which may make a disjoint packing fail, never an
    // overlapping one pass).
    const N: usize = 6;
    let mut seed = 0x9e37_79b9_u32;
    let mut next = |m: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % m
    };
    let (mut passed, mut refused) = (0, 0);
    for _ in 0..if cfg!(miri) { 20 } else { 3000 } {
        let slots: Vec<(u32, u32, usize, usize)> = (0..N)
            .map(|_| {
                let first = next(6);
                let start = 16 * next(6) as usize;
                (
                    first,
                    first + next(3),
                    start,
                    start + 16 * (1 + next(2)) as usize,
                )
            })
            .collect();
        let disjoint = slots.iter().enumerate().all(|(i, a)| {
            slots[..i]
                .iter()
                .all(|b| a.1 < b.0 || b.1 < a.0 || a.3 <= b.2 || b.3 <= a.2)
        });
        let (mut spans, ends) = proof_table(slots);
        let proved = std::panic::catch_unwind(|| check_proof::<N>(&spans, &ends, 256)).is_ok();
        assert_eq!(proved, disjoint, "{spans:?}");
        if disjoint {
            passed += 1;
        } else {
            refused += 1;
        }
        let k = next(N as u32) as usize;
        spans[k].below = match next(N as u32 + 1) {
            0 => None,
            j => Some(j - 1),
        };
        let proved = std::panic::catch_unwind(|| check_proof::<N>(&spans, &ends, 256)).is_ok();
        assert!(disjoint || !proved, "{spans:?}");
    }
    assert!(passed > 0 && refused > 0, "{passed} {refused}");
}

#[test]
fn lent_arenas_share_the_group_bytes() {
    enum Group {}
    impl crate::Member<Group> for Net {}
    impl crate::Member<Group> for Other {}
    const O: Slot<Other, i32> = Slot::new(48, 4);
    let mut shared = Arena::<Group, 64, 32>::new();
    {
        let net: &mut Arena<Net, 64> = shared.lend();
        net.view_mut(X).copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
        net.view_mut(Z).copy_from_slice(&[5.0, 6.0]);
    }
    assert_eq!(&shared.as_bytes()[..4], &1.0f32.to_ne_bytes());
    {
        let other: &mut Arena<Other, 64, 32> = shared.lend();
        // The last 16 bytes are the first half of Z.
        assert_eq!(other.view(O)[..2], [0, 0x4014_0000]);
        // Replacing a whole lent arena writes its bytes and nothing else of the group.
        *other = Arena::new();
    }
    assert!(shared.as_bytes().iter().all(|&b| b == 0));
    let small: &mut Arena<Net, 16> = shared.lend();
    small.as_bytes_mut().fill(9);
    assert_eq!(shared.as_bytes()[15..17], [9, 0]);
}
