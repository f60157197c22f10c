//! What every benchmark binary shares: the input, the marks the counters watch, the report and
//! the exit. Each binary (`src/bin/NAME.rs`) is one model: `include_model!` with `invoke = true`
//! (and, with the feature `op-marks`, `op_marks = crate::marks`), then [`bench_main!`].
//!
//! A binary fills the model's input with [`fill_input`], runs `invoke` once between
//! [`icount::icount_start`] and [`icount::icount_end`] (the bracket `bench/run.sh` counts), and
//! prints through semihosting:
//!
//! ```text
//! model        ../models/vww/vww.tflite
//! arena        55296 B
//! output       [124, -124]
//! stack peak   1032 B
//! ```
//!
//! then exits QEMU with status 0 (1 on a panic or a HardFault). `bench/run.sh` compares the
//! output with TFLite Micro's (the pinned wheel's, computed in the same run by
//! `bench/tflm_outputs.py`).
//!
//! With the feature `op-marks` a binary first runs `invoke` once more, before the bracket, with
//! [`probe`] on: after each op, [`marks::op_end`] prints a checksum of the op's output tensors
//! (`op_check SUBGRAPH OP TENSOR FNV`), which `bench/run.sh` compares with TFLite Micro's
//! intermediate tensors for the same input; then the input is filled again and the counted
//! `invoke` runs with the probe off.
#![no_std]

pub use cortex_m_rt;
pub use cortex_m_semihosting;
pub use stowplan;

/// Fills `input` from xorshift32 (13, 17, 5) from state 1: the low byte of each new state as one
/// `i8` element, in order (the TFLM harness's default input, and examples/cortex-m's).
pub fn fill_input(input: &mut [i8]) {
    let mut x: u32 = 1;
    for v in input {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *v = x.to_le_bytes()[0] as i8;
    }
}

/// The bracket around `invoke`: empty functions that are never inlined, called just before and
/// just after it, so that their addresses bracket it for the counters.
pub mod icount {
    /// Called just before `invoke`.
    #[inline(never)]
    pub fn icount_start() {
        core::hint::black_box(1_u32);
    }

    /// Called just after `invoke`.
    #[inline(never)]
    pub fn icount_end() {
        core::hint::black_box(2_u32);
    }
}

/// The marks generated `invoke` calls around every op with `op_marks = crate::marks` (each
/// binary has `use stowplan_bench_firmware::marks;`): never inlined, so that their entries are
/// addresses the counters watch (`op_begin`'s k-th call is the start of the k-th op).
pub mod marks {
    /// Called just before op `op` of subgraph `subgraph` runs.
    #[inline(never)]
    pub fn op_begin(subgraph: usize, op: usize) {
        core::hint::black_box((subgraph, op, 3_u32));
    }

    /// Called just after op `op` of subgraph `subgraph` ran: with [`crate::probe`] on, prints
    /// the checksums of its outputs (after the mark's entry, which ends the op's count).
    #[inline(never)]
    pub fn op_end(subgraph: usize, op: usize, arena: &[u8]) {
        core::hint::black_box((subgraph, op, 4_u32));
        crate::probe::op_end(subgraph, op, arena);
    }
}

/// Each op's output, checked against TFLite Micro's intermediate tensors: while a model is
/// registered ([`start`]), [`marks::op_end`] prints one line per output tensor of the op that
/// just ran,
///
/// ```text
/// op_check 0 5 59 8d92a5cf
/// ```
///
/// (subgraph, op, tensor index, FNV-1a of the tensor's bytes in 8 hex digits), reading the bytes
/// where the generated module's tables (`OPS`, `TENSORS`) say they are. An op's outputs are
/// intact right after it even where the plan puts them over its inputs or over tensors that
/// die later. `bench/tflm_outputs.py` computes the same checksums from TFLite Micro with every
/// tensor preserved, and `bench/report.py` names the first op whose output differs.
pub mod probe {
    use core::cell::Cell;
    use core::sync::atomic::{AtomicBool, Ordering};

    use cortex_m::interrupt::{self, Mutex};
    use stowplan::{Location, OpInfo, TensorInfo};

    /// What `op_end` reads: the model's tables.
    #[derive(Clone, Copy)]
    struct Model {
        ops: &'static [OpInfo],
        tensors: &'static [TensorInfo],
    }

    /// The registered model, `None` while the probe is off.
    static MODEL: Mutex<Cell<Option<Model>>> = Mutex::new(Cell::new(None));
    /// Whether the probe is on: what `op_end` reads first, so that with the probe off (the
    /// counted `invoke`) a mark costs a load and a branch more.
    static ON: AtomicBool = AtomicBool::new(false);

    const FNV_OFFSET: u32 = 0x811c_9dc5;
    const FNV_PRIME: u32 = 0x0100_0193;

    /// Turns the probe on for the model whose tables are `ops` and `tensors`.
    pub fn start(ops: &'static [OpInfo], tensors: &'static [TensorInfo]) {
        let model = Model { ops, tensors };
        interrupt::free(|cs| MODEL.borrow(cs).set(Some(model)));
        ON.store(true, Ordering::Relaxed);
    }

    /// Turns the probe off.
    pub fn stop() {
        ON.store(false, Ordering::Relaxed);
        interrupt::free(|cs| MODEL.borrow(cs).set(None));
    }

    /// Prints the checksum of each output of op `op` of subgraph `subgraph`, read from `arena`
    /// (the arena's bytes as the op left them), when the probe is on.
    pub(crate) fn op_end(subgraph: usize, op: usize, arena: &[u8]) {
        if !ON.load(Ordering::Relaxed) {
            return;
        }
        let Some(model) = interrupt::free(|cs| MODEL.borrow(cs).get()) else {
            return;
        };
        let Some(info) = model
            .ops
            .iter()
            .find(|o| o.subgraph as usize == subgraph && o.index as usize == op)
        else {
            crate::fail("op_end for an op that is not in OPS")
        };
        for &t in info.outputs {
            let Some(tensor) = model.tensors.get(t as usize) else {
                crate::fail("an op output that is not in TENSORS")
            };
            let h = match tensor.location {
                Location::Arena { offset, bytes } => {
                    let Some(data) = offset
                        .checked_add(bytes)
                        .and_then(|end| arena.get(offset..end))
                    else {
                        crate::fail("an op output outside the arena")
                    };
                    fnv(data)
                }
                Location::Constant(data) => fnv(data),
                Location::None => FNV_OFFSET,
                Location::Persistent { .. } => {
                    crate::fail("an op output in the persistent region: not probed")
                }
            };
            cortex_m_semihosting::hprintln!("op_check {} {} {} {:08x}", subgraph, op, t, h);
        }
    }

    /// FNV-1a of `data`.
    fn fnv(data: &[u8]) -> u32 {
        data.iter().fold(FNV_OFFSET, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(FNV_PRIME)
        })
    }
}

/// Prints `output       [a, b, ...]`.
pub fn print_output(output: &[i8]) {
    use cortex_m_semihosting::{hprint, hprintln};
    hprint!("output       [");
    for (i, v) in output.iter().enumerate() {
        if i > 0 {
            hprint!(", ");
        }
        hprint!("{}", v);
    }
    hprintln!("]");
}

/// Exits QEMU with status 0.
pub fn pass() -> ! {
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_SUCCESS);
    loop {
        cortex_m::asm::wfi();
    }
}

/// Reports a failure and exits QEMU with status 1.
pub fn fail(why: &str) -> ! {
    cortex_m_semihosting::hprintln!("FAILED: {}", why);
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}

/// The binary's entry, panic handler and HardFault handler, for the module `$model` made by
/// `include_model!(.., name = $model, invoke = true)` (one int8 input, one int8 output, no state).
#[macro_export]
macro_rules! bench_main {
    ($model:ident) => {
        /// The arena in `.bss`, claimed once by `take`.
        static ARENA: $model::StaticArena = $model::StaticArena::new();

        #[$crate::cortex_m_rt::entry]
        fn main() -> ! {
            // First, so that the peak covers everything `main` does.
            let painted = $crate::stowplan::stack::paint();
            let Some(arena) = ARENA.take() else {
                $crate::fail("the arena was taken twice")
            };
            $crate::cortex_m_semihosting::hprintln!("model        {}", $model::MODEL_PATH);
            $crate::cortex_m_semihosting::hprintln!("arena        {} B", $model::ARENA_BYTES);
            $crate::fill_input(arena.view_mut($model::inputs::INPUT_0));
            // With the op marks: one `invoke` before the bracket with the probe on, each op's
            // output checksums printed; then the input again (`invoke` may write over it) for
            // the counted one.
            #[cfg(feature = "op-marks")]
            {
                $crate::probe::start($model::OPS, $model::TENSORS);
                $model::invoke(arena);
                $crate::probe::stop();
                $crate::fill_input(arena.view_mut($model::inputs::INPUT_0));
            }
            $crate::icount::icount_start();
            $model::invoke(arena);
            $crate::icount::icount_end();
            $crate::print_output(arena.view($model::outputs::OUTPUT_0));
            $crate::cortex_m_semihosting::hprintln!("stack peak   {} B", painted.peak_bytes());
            $crate::pass()
        }

        #[panic_handler]
        fn panic(info: &::core::panic::PanicInfo<'_>) -> ! {
            $crate::cortex_m_semihosting::hprintln!("panic: {}", info);
            $crate::fail("panic")
        }

        // cortex-m-rt requires a HardFault handler to be declared `unsafe fn`; this one does
        // nothing unsafe: it reports the fault and exits QEMU with status 1.
        #[allow(unsafe_code)]
        #[$crate::cortex_m_rt::exception]
        unsafe fn HardFault(frame: &$crate::cortex_m_rt::ExceptionFrame) -> ! {
            $crate::cortex_m_semihosting::hprintln!("HardFault at pc {:#010x}", frame.pc());
            $crate::fail("HardFault")
        }
    };
}
