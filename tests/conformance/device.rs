//! `gen --device`: the sweep as one firmware image for the DSP cores QEMU models: the Cortex-M4
//! of its `mps2-an386` board (`thumbv7em-none-eabihf`) or the Cortex-M33 of `mps2-an505`
//! (`thumbv8m.main-none-eabihf` with `-C target-cpu=cortex-m33`); for both the runtime's build
//! script sets cfg `stowplan_dsp`, so CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, int8 and
//! int16 with int8 weights, the int8 pools, the int16 MAX_POOL_2D and the int8 ADD and MUL run
//! their DSP-extension kernels. One crate builds for either (`run.py --core`).
//!
//! `DIR/firmware/` is a `#![no_std]` `#![no_main]` crate (its own workspace, with cortex-m-rt's
//! start-up, a memory map per board of its 4 MiB of code SSRAM and 4 MiB of data SSRAM, and a
//! panic and HardFault handler that exit QEMU with status 1). Every model's generated module
//! is included (`invoke = true`) with its input sets (`include_bytes!` of `DIR/inputs/<id>.bin`,
//! in flash) and its own arena in a `static` (`.bss`); no heap. The firmware runs every model on
//! every input set in order, the arena filled with `0xa5` before each set's inputs go in (so a
//! kernel that reads arena bytes it never wrote, its scratch's included, shows), and prints, on
//! semihosting's standard output:
//!
//! ```text
//! stowplan-device-sweep MODELS
//! begin ID
//! o HEX            (the outputs of every set, 64 bytes a line)
//! p OP_N = DEBUG   (each `params::OP_N` constant, as the host sweep writes them)
//! end ID BYTES
//! ...
//! done MODELS
//! ```
//!
//! and exits with status 0 (1 when a model's inputs do not fit its arena, or a panic).
//!
//! The models go into images in order: a model's arena and persistent region must fit the RAM
//! beside the earlier models' of its image ([`RAM_BYTES`] less [`STACK_BYTES`]), its input sets
//! and model file the flash ([`FLASH_BYTES`] less [`CODE_BYTES`]); a model past either starts
//! the next image. `gen --device --part K` writes image `K` (the manifest says how many there
//! are, `parts`, and each model's, `part`), and `run.py` builds and runs them one after the
//! other. A model that does not fit even an empty image is not left out silently: it is marked
//! `unrun` in the manifest, with the numbers, and `run.py` reports it as a failure.
//! `tests/conformance/run.py --device` parses it into `DIR/ours/<id>.bin` and
//! `DIR/ours/<id>.params`, the files the host sweep's binary writes, and compares them with
//! TFLite Micro's the same way.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the variants being drawn are a device sweep's ([`set_blocked`]).
static BLOCKED: AtomicBool = AtomicBool::new(false);

/// Makes the int8 CONV_2D and DEPTHWISE_CONV_2D variants take one more shape class,
/// `blocked`: the geometries the DSP kernels block (CONV_2D 1 x 1 with stride 1, the blocked
/// matrix product; DEPTHWISE_CONV_2D with depth multiplier 1, 4 or 8, channels a multiple of
/// four, no dilation, mostly 3 x 3), which the other classes draw seldom. Set by `gen --device`
/// alone, so the host suite (and its table) keeps its variants. The int16 variants keep their
/// three classes: their DSP kernels block every shape, and the class's large input sets
/// (small outputs of int16 values) would crowd the firmware's flash.
pub fn set_blocked(on: bool) {
    BLOCKED.store(on, Ordering::Relaxed);
}

/// The shape classes of an op's variants of `types`: `base`, and `blocked` in a device sweep
/// for int8 weights and activations.
pub fn shapes(base: [&'static str; 3], types: &str) -> Vec<&'static str> {
    let mut out = base.to_vec();
    if BLOCKED.load(Ordering::Relaxed) && types.starts_with("int8") && types_run(types) {
        out.push("blocked");
    }
    out
}

/// The op modules a device sweep draws from, unless `--ops` names others: those with kernels
/// for the Cortex-M DSP extension (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, MUL and
/// the pools, int8 and int16: see [`types_run`]).
pub const OPS: &[&str] = &[
    "conv",
    "depthwise_conv",
    "fully_connected",
    "add",
    "mul",
    "pooling",
];

/// Whether a variant of these types is in a device sweep: int8 or int16 activations with int8
/// weights (`int8`, `int8 per-channel`, `int8 per-tensor`, `int16`, `int16 per-channel`,
/// `int16 per-tensor`), the types the DSP kernels take (CONV_2D, DEPTHWISE_CONV_2D,
/// FULLY_CONNECTED, ADD, MUL and the pools in both; the int16 MUL blocked with both offsets 0).
/// The other types (float32, int32, int4 filters) run portable kernels, the ones the host
/// sweep proves.
pub fn types_run(types: &str) -> bool {
    let mut words = types.split_whitespace();
    matches!(words.next(), Some("int8" | "int16")) && words.all(|w| !w.contains("int4"))
}

/// Bytes of the board's data SSRAM the firmware declares (its memory map): the static arenas, the
/// persistent regions and the stack share it.
pub const RAM_BYTES: usize = 4 << 20;
/// Bytes of RAM kept for the stack (and cortex-m-rt's and the firmware's own statics): the
/// arenas may take the rest.
pub const STACK_BYTES: usize = 256 << 10;
/// Bytes of the board's code SSRAM the firmware declares (its memory map): code, the models'
/// constants and the input sets.
pub const FLASH_BYTES: usize = 4 << 20;
/// Bytes of flash kept for code (the kernels' instances, the start-up, the formatting): the
/// input sets and the model files (an upper bound on their constants) may take the rest. Three
/// times what the code takes: a slice of 40 variants of CONV_2D, DEPTHWISE_CONV_2D and
/// FULLY_CONNECTED (138 models, int8 and int16, every DSP kernel) has 259 KB of `.text`.
pub const CODE_BYTES: usize = 768 << 10;

/// One model's entry in the firmware's table of models: a function that runs it on its input
/// sets (in the static arena it owns) and prints its outputs and parameters.
pub fn entry(
    id: &str,
    n_sets: usize,
    set_bytes: usize,
    persistent: bool,
    status: bool,
    params: &[String],
) -> String {
    let (state, call) = if persistent {
        (
            format!(
                "static STATE: stowplan::StaticArena<{id}::Persistent, {{ {id}::PERSISTENT_BYTES }}> = stowplan::StaticArena::new();\n    let state = STATE.take().ok_or(\"the persistent region was taken twice\")?;\n"
            ),
            format!("{id}::invoke(arena, state)"),
        )
    } else {
        (String::new(), format!("{id}::invoke(arena)"))
    };
    // A model whose `invoke` can stop early (CIRCULAR_BUFFER) appends one byte per run after
    // its outputs, as in the host sweep: 1 when the invocation stopped, 0 when complete.
    let (call, record) = if status {
        (
            format!("let st = {call}"),
            "\n        host.output(&[u8::from(!st.is_complete())]);",
        )
    } else {
        (call, "")
    };
    let params: String = params
        .iter()
        .map(|p| format!("    host.params(\"{p}\", &{id}::params::{p});\n"))
        .collect();
    format!(
        r#"fn run_{id}(host: &mut Host) -> Result<(), &'static str> {{
    static ARENA: {id}::StaticArena = {id}::StaticArena::new();
    static SETS: &[u8] = include_bytes!("../../inputs/{id}.bin");
    let arena = ARENA.take().ok_or("the arena was taken twice")?;
    {state}host.begin("{id}");
    for k in 0..{n_sets} {{
        let set = SETS.get(k * {set_bytes}..(k + 1) * {set_bytes}).ok_or("an input set past the end of the sets")?;
        // Every byte but the inputs' not what the kernels wrote before: an op that reads arena
        // bytes it never wrote (its scratch's included) shows.
        arena.as_bytes_mut().fill(0xa5);
        feed(arena.as_bytes_mut(), {id}::TENSORS, {id}::INPUTS, set)?;
        {call};
        collect(arena.as_bytes(), {id}::TENSORS, {id}::OUTPUTS, host)?;{record}
    }}
{params}    host.end("{id}");
    Ok(())
}}
"#
    )
}

/// The firmware's `Cargo.toml`.
pub fn manifest(package: &str, runtime: &Path) -> String {
    format!(
        r#"# Written by stowplan-conformance gen --device; not part of the repository.
[package]
name = "{package}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
cortex-m = "0.7"
cortex-m-rt = "0.7"
cortex-m-semihosting = "0.5"
stowplan = {{ path = {path:?}, default-features = false, features = ["kernels"] }}

[workspace]

# Optimised as firmware is (the DSP kernels' code as it ships), without LTO (hundreds of
# models: link time) but in one codegen unit: a constant used from two units is emitted in
# each, so the models' weights took twice their bytes of flash (a slice of 40 variants of the
# convolutions and FULLY_CONNECTED overflowed it by 1 MB that way), which gen's flash budget
# (the model files as a bound on the constants) does not count. Overflow checks stay on, as in
# the host sweep: an overflow in a kernel is a failure (a panic: the firmware exits with
# status 1), not a silent wrap.
[profile.release]
opt-level = "s"
codegen-units = 1
debug = false
incremental = false
overflow-checks = true
panic = "abort"

[profile.dev]
panic = "abort"
"#,
        path = runtime.display().to_string()
    )
}

/// The firmware's `build.rs`: the board's memory map where the linker finds it, as `memory.x`
/// (`memory-an505.x` for Armv8-M Mainline, the Cortex-M33 of `mps2-an505`; `memory-an386.x`
/// for the Cortex-M4 of `mps2-an386`; neither named `memory.x`, which the linker would find in
/// the package's directory first), and cortex-m-rt's `link.x`.
pub const BUILD_RS: &str = r#"//! Written by stowplan-conformance gen --device.
fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let target = std::env::var("TARGET").expect("TARGET");
    let map = if target.starts_with("thumbv8m.main-") { "memory-an505.x" } else { "memory-an386.x" };
    std::fs::copy(map, out.join("memory.x")).expect("memory map");
    println!("cargo::rustc-link-search={}", out.display());
    println!("cargo::rustc-link-arg-bins=-Tlink.x");
    println!("cargo::rerun-if-changed=memory-an386.x");
    println!("cargo::rerun-if-changed=memory-an505.x");
}
"#;

/// The firmware's memory maps, `(file, contents)`: the same sizes on both boards
/// ([`FLASH_BYTES`], [`RAM_BYTES`]). `mps2-an505` boots in the Secure state, so its map is the
/// SSRAMs' Secure aliases (code at 0x10000000, where its vector table is looked for; SSRAM2 and
/// SSRAM3, contiguous, at 0x38000000).
pub fn memory_maps() -> [(&'static str, String); 2] {
    let map = |board: &str, flash: u32, ram: u32| {
        format!(
            "/* QEMU's {board}: code SSRAM at {flash:#010x}, data SSRAM at {ram:#010x}. */\nMEMORY\n{{\n  FLASH : ORIGIN = {flash:#010x}, LENGTH = {}K\n  RAM   : ORIGIN = {ram:#010x}, LENGTH = {}K\n}}\n",
            FLASH_BYTES >> 10,
            RAM_BYTES >> 10
        )
    };
    [
        ("memory-an386.x", map("mps2-an386", 0, 0x2000_0000)),
        (
            "memory-an505.x",
            map("mps2-an505", 0x1000_0000, 0x3800_0000),
        ),
    ]
}

/// The firmware's `src/main.rs`: the models' modules, their entries and the loop over them.
pub fn main_rs(includes: &str, entries: &str, ids: &[String]) -> String {
    let mut table = String::new();
    for id in ids {
        let _ = writeln!(table, "    run_{id},");
    }
    format!(
        r#"//! Written by stowplan-conformance gen --device: runs every model of the sweep through its
//! generated `invoke` on its input sets, on the Cortex-M4, and prints the outputs and the
//! parameter constants on semihosting's standard output (hex lines; see
//! tests/conformance/device.rs).
#![no_std]
#![no_main]
#![allow(clippy::all)]

use core::fmt::Write as _;

use cortex_m_rt::{{ExceptionFrame, entry, exception}};
use cortex_m_semihosting::{{debug, hio}};
use stowplan::{{Location, TensorInfo}};

{includes}
/// Semihosting's standard output, buffered (one host call per buffer, not per byte).
struct Host {{
    stream: hio::HostStream,
    buf: [u8; 512],
    len: usize,
    /// Output bytes of the model being run, for its `end` line.
    bytes: usize,
    /// Output bytes on the current `o` line.
    line: usize,
}}

impl Host {{
    fn flush(&mut self) {{
        if self.stream.write_all(&self.buf[..self.len]).is_err() {{
            debug::exit(debug::EXIT_FAILURE);
        }}
        self.len = 0;
    }}

    fn raw(&mut self, bytes: &[u8]) {{
        for &b in bytes {{
            if self.len == self.buf.len() {{
                self.flush();
            }}
            self.buf[self.len] = b;
            self.len += 1;
        }}
    }}

    fn close_line(&mut self) {{
        if self.line > 0 {{
            self.raw(b"\n");
            self.line = 0;
        }}
    }}

    fn begin(&mut self, id: &str) {{
        self.bytes = 0;
        let _ = writeln!(self, "begin {{id}}");
    }}

    /// Output bytes, in hex, 64 to a line.
    fn output(&mut self, bytes: &[u8]) {{
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for &b in bytes {{
            if self.line == 0 {{
                self.raw(b"o ");
            }}
            self.raw(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            self.line += 1;
            self.bytes += 1;
            if self.line == 64 {{
                self.close_line();
            }}
        }}
    }}

    fn params(&mut self, name: &str, value: &dyn core::fmt::Debug) {{
        self.close_line();
        let _ = writeln!(self, "p {{name}} = {{value:?}}");
    }}

    fn end(&mut self, id: &str) {{
        self.close_line();
        let bytes = self.bytes;
        let _ = writeln!(self, "end {{id}} {{bytes}}");
        self.flush();
    }}
}}

impl core::fmt::Write for Host {{
    fn write_str(&mut self, s: &str) -> core::fmt::Result {{
        self.raw(s.as_bytes());
        Ok(())
    }}
}}

/// Copies one input set into the arena slots of the model's inputs.
fn feed(arena: &mut [u8], tensors: &[TensorInfo], inputs: &[u32], set: &[u8]) -> Result<(), &'static str> {{
    let mut at = 0;
    for &t in inputs {{
        let Some(TensorInfo {{ location: Location::Arena {{ offset, bytes }}, .. }}) = tensors.get(t as usize) else {{
            return Err("an input is not in the arena");
        }};
        let src = set.get(at..at + *bytes).ok_or("an input set shorter than the inputs")?;
        arena.get_mut(*offset..*offset + *bytes).ok_or("an input past the arena's end")?.copy_from_slice(src);
        at += *bytes;
    }}
    if at != set.len() {{
        return Err("an input set longer than the inputs");
    }}
    Ok(())
}}

/// Prints the bytes of the model's outputs.
fn collect(arena: &[u8], tensors: &[TensorInfo], outputs: &[u32], host: &mut Host) -> Result<(), &'static str> {{
    for &t in outputs {{
        let Some(TensorInfo {{ location: Location::Arena {{ offset, bytes }}, .. }}) = tensors.get(t as usize) else {{
            return Err("an output is not in the arena");
        }};
        host.output(arena.get(*offset..*offset + *bytes).ok_or("an output past the arena's end")?);
    }}
    Ok(())
}}

{entries}
type Run = fn(&mut Host) -> Result<(), &'static str>;

const MODELS: &[Run] = &[
{table}];

#[entry]
fn main() -> ! {{
    let Ok(stream) = hio::hstdout() else {{
        debug::exit(debug::EXIT_FAILURE);
        loop {{}}
    }};
    let mut host = Host {{ stream, buf: [0; 512], len: 0, bytes: 0, line: 0 }};
    let _ = writeln!(host, "stowplan-device-sweep {{}}", MODELS.len());
    for run in MODELS {{
        if let Err(e) = run(&mut host) {{
            host.close_line();
            let _ = writeln!(host, "error {{e}}");
            host.flush();
            debug::exit(debug::EXIT_FAILURE);
        }}
    }}
    let _ = writeln!(host, "done {{}}", MODELS.len());
    host.flush();
    debug::exit(debug::EXIT_SUCCESS);
    loop {{}}
}}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {{
    if let Ok(mut out) = hio::hstdout() {{
        let _ = writeln!(out, "\npanic {{info}}");
    }}
    debug::exit(debug::EXIT_FAILURE);
    loop {{}}
}}

// cortex-m-rt requires a HardFault handler to be declared `unsafe fn`; this one does nothing
// unsafe: it reports the fault and exits QEMU with status 1.
#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {{
    if let Ok(mut out) = hio::hstdout() {{
        let _ = writeln!(out, "\nhardfault at pc {{:#010x}}", frame.pc());
    }}
    debug::exit(debug::EXIT_FAILURE);
    loop {{}}
}}
"#
    )
}
