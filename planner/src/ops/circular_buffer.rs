//! `CIRCULAR_BUFFER`: TFLM's custom op (`micro/kernels/circular_buffer.cc`,
//! `circular_buffer_common.cc`: `CircularBufferInit`, `CircularBufferPrepare`,
//! `CircularBufferReset`), for the kernel `stowplan::kernels::circular_buffer_s8` (int8).
//!
//! Each invocation shifts the output (`[batch, num_slots, h, depth]`) one slot towards the
//! start and copies the input (`[batch, 1, h, depth]`) into the last slot, so the output is the
//! window of the last `num_slots` inputs: it is state, kept in the persistent region (in TFLM
//! it is an ordinary arena tensor that nothing else happens to overwrite). Then the op counts
//! down `cycles_until_run`: until it reaches 0 the kernel returns `kTfLiteAbort` and the rest
//! of the graph does not run this invocation, so the generated `invoke` returns
//! `stowplan::Invoked::Stopped`. The counter is kernel state (one word, its reset value is
//! TFLM's `Reset`: `cycles_until_run = cycles_max`).
//!
//! `cycles_max` is the first value of the custom options' FlexBuffers map (`'cycles_max'`), 0
//! without options. When it is not positive, TFLM's Prepare picks 1 or 2 from the output's
//! shape and a counter of such Prepares that is a `static` of the process ([`cycles_max`]):
//! stowplan computes what a process that builds one interpreter for the model sees.

use quote::quote;

use super::signal_options::{int32, options_of};
use super::{Call, Lower, OpKind, Refusal, invalid, unsupported};
use crate::tflite::{DType, Model, Op, Tensor};

/// The op's custom code.
pub const CODE: &str = crate::tflite::CIRCULAR_BUFFER;

/// `CIRCULAR_BUFFER`.
pub const CIRCULAR_BUFFER: OpKind = OpKind {
    state: Some(state_bytes),
    ..super::kernel("circular_buffer", lower)
};

/// `kCircularBufferCyclesMaxIndex`: the position of `cycles_max` among the options' values.
const CYCLES_MAX: usize = 0;

/// Whether `op` is a `CIRCULAR_BUFFER` ([`Op::is_circular_buffer`]).
#[must_use]
pub fn is_circular_buffer(op: &Op) -> bool {
    op.is_circular_buffer()
}

/// The kernel state: `cycles_until_run` as a count of invocations since the graph last ran.
pub(super) fn state_bytes(_: &Model, _: &[u8], _: &Op) -> Option<u64> {
    Some(4)
}

/// `cycles_max` as `CircularBufferInit` reads it: `ElementAsInt32(0)` of the options, 0 when
/// there are none (no or empty `custom_options`).
fn init_cycles_max(file: &[u8], op: &Op) -> Result<i32, Refusal> {
    let Some(range) = op.custom_options.clone() else {
        return Ok(0);
    };
    if range.is_empty() {
        return Ok(0);
    }
    let bytes = file
        .get(range)
        .ok_or_else(|| Refusal::Invalid("its custom_options lie outside the file".to_owned()))?;
    let map = options_of(bytes).map_err(Refusal::Invalid)?;
    int32(&map, CYCLES_MAX, "cycles_max")
}

/// The output's `dims->data[i]` as TFLM's Prepare reads it (`None` past its shape).
fn dim(model: &Model, op: &Op, i: usize) -> Option<i32> {
    let t = model.tensor(op.subgraph, *op.outputs.first()?)?;
    t.shape.get(i).copied()
}

/// `cycles_max` after `CircularBufferPrepare` of `target`: the options' value when positive;
/// otherwise TFLM counts such Prepares in `static int cb_prepare_count` and takes 1 (and sets
/// the count back to 0) for an output with 5, 13 or 25 slots or, at the fifth count, of
/// `dims[2] == 2` and `dims[3] == 96`; 2 otherwise. The count is the process's: TFLM's
/// `AllocateTensors` prepares subgraph 0's ops in order first, and stowplan counts from 0 over
/// the `CIRCULAR_BUFFER` ops before `target` in that order, which is what a process that builds
/// one interpreter for this model sees (a second interpreter in the same process, or another
/// model's before it, continues the count).
///
/// # Errors
///
/// An Invalid refusal when the options of `target` or of a `CIRCULAR_BUFFER` before it cannot be
/// read as TFLM reads them.
pub fn cycles_max(model: &Model, file: &[u8], target: &Op) -> Result<i32, Refusal> {
    let mut count: usize = 0;
    for op in model.ops.iter().filter(|o| o.subgraph.0 == 0) {
        if !is_circular_buffer(op) {
            continue;
        }
        let mut cycles = init_cycles_max(file, op)?;
        if cycles <= 0 {
            count = count.saturating_add(1);
            let slots = dim(model, op, 1);
            if matches!(slots, Some(5 | 13 | 25))
                || (count == 5 && dim(model, op, 2) == Some(2) && dim(model, op, 3) == Some(96))
            {
                cycles = 1;
                count = 0;
            } else {
                cycles = 2;
            }
        }
        if op.subgraph == target.subgraph && op.index == target.index {
            return Ok(cycles);
        }
    }
    // Not in subgraph 0 (refused before this is asked) or not a CIRCULAR_BUFFER.
    init_cycles_max(file, target)
}

/// The tensor's shape, which must have 4 dimensions (TFLM's Prepare reads `dims->data[0..4]`).
fn shape4(cx: &Lower<'_>, t: &Tensor, role: &str) -> Result<[usize; 4], Refusal> {
    let s = cx.shape(t)?;
    match <[usize; 4]>::try_from(s.as_slice()) {
        Ok(d) => Ok(d),
        Err(_) => unsupported(format!(
            "{} ({role} of {}) has {} dimensions: TFLM's Prepare and Eval read dimensions 0 to 3, past the end of a shorter shape; stowplan takes 4",
            t.desc(),
            CODE,
            s.len()
        )),
    }
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    if cx.op.subgraph.0 != 0 {
        return unsupported(format!(
            "{CODE} in subgraph {}: TFLM's IF, WHILE and CALL_ONCE pass its kTfLiteAbort on, ending the whole invocation without copying the called subgraph's outputs; stowplan runs {CODE} only in the main subgraph",
            cx.op.subgraph.0
        ));
    }
    // CircularBufferPrepare: TF_LITE_ENSURE(input != nullptr), (output != nullptr).
    let input = match cx.op.inputs.first() {
        Some(Some(_)) => cx.input(0)?,
        _ => {
            return invalid(format!("{CODE} has no input 0; TFLM's Prepare requires it"));
        }
    };
    if cx.op.outputs.is_empty() {
        return invalid(format!(
            "{CODE} has no output 0; TFLM's Prepare requires it"
        ));
    }
    let output = cx.output(0)?;
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return unsupported(format!(
            "{CODE} with {} inputs and {} outputs: TFLM's kernel uses input 0 and output 0 and ignores the rest; stowplan takes exactly one of each",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let i = shape4(cx, input, "input")?;
    let o = shape4(cx, output, "output")?;
    let [ib, ir, ih, id] = i;
    let [ob, slots, oh, od] = o;
    let check = |ok: bool, what: String| if ok { Ok(()) } else { invalid(what) };
    check(
        ib == ob,
        format!(
            "{} (input of {CODE}) has dims[0] {ib} and {} (output) {ob}; TFLM's Prepare requires them equal",
            input.desc(),
            output.desc()
        ),
    )?;
    check(
        ir == 1,
        format!(
            "{} (input of {CODE}) has dims[1] {ir}; TFLM's Prepare requires 1",
            input.desc()
        ),
    )?;
    check(
        ih == oh,
        format!(
            "{} (input of {CODE}) has dims[2] {ih} and {} (output) {oh}; TFLM's Prepare requires them equal",
            input.desc(),
            output.desc()
        ),
    )?;
    check(
        id == od,
        format!(
            "{} (input of {CODE}) has dims[3] {id} and {} (output) {od}; TFLM's Prepare requires them equal",
            input.desc(),
            output.desc()
        ),
    )?;
    // TF_LITE_ENSURE_TYPES_EQ(input->type, output->type), then (input->type, kTfLiteInt8).
    if input.dtype != output.dtype {
        return invalid(format!(
            "{} (input of {CODE}) is {} and {} (output) {}; TFLM's Prepare requires the same type",
            input.desc(),
            input.dtype,
            output.desc(),
            output.dtype
        ));
    }
    cx.expect_type(input, DType::Int8, "input")?;
    if ob != 1 {
        return unsupported(format!(
            "{} (output of {CODE}) has a batch of {ob}: TFLM's kernel moves only the first batch's window and leaves the others with whatever its arena held; stowplan takes a batch of 1",
            output.desc()
        ));
    }
    if slots == 0 {
        return invalid(format!(
            "{} (output of {CODE}) has 0 slots (dims[1]); TFLM's Eval moves (num_slots - 1) * depth bytes, a negative count",
            output.desc()
        ));
    }
    let depth = oh
        .checked_mul(od)
        .ok_or_else(|| Refusal::Invalid(format!("{} is too large", output.desc())))?;
    let cycles = cycles_max(cx.model, cx.bytes, cx.op)?;
    // Prepare leaves cycles_max positive (its own <= 0 case picks 1 or 2).
    let cycles = u32::try_from(cycles)
        .map_err(|_| Refusal::Invalid(format!("cycles_max is {cycles} after TFLM's Prepare")))?;
    let (n, d, c) = (
        proc_macro2::Literal::usize_unsuffixed(slots),
        proc_macro2::Literal::usize_unsuffixed(depth),
        proc_macro2::Literal::u32_unsuffixed(cycles),
    );
    let rt = cx.rt;
    let index = proc_macro2::Literal::usize_unsuffixed(cx.op.index.get());
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::CircularBuffer = #k::CircularBuffer {
                num_slots: #n,
                depth: #d,
                cycles_max: #c,
            };
        }),
        body: quote! {
            if !#k::proven::circular_buffer_s8(i0, &params::#pname, o0, p0) {
                return #rt::Invoked::Stopped { op: #index };
            }
        },
        reads: vec![0],
        check: Some(quote!(#k::check_circular_buffer_s8(i0, &#pname, o0, p0))),
    })
}
