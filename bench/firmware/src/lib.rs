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
//! output with TFLite Micro's (`bench/tflm-outputs.txt`).
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

    /// Called just after op `op` of subgraph `subgraph` ran.
    #[inline(never)]
    pub fn op_end(subgraph: usize, op: usize) {
        core::hint::black_box((subgraph, op, 4_u32));
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
