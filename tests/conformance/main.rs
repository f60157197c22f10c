//! `stowplan-conformance gen`: draws the conformance suite's single-op models from a seed, and
//! writes them with their input sets and a crate (the sweep) that runs every one of them
//! through its generated `invoke`. `stowplan-conformance overlap-kinds` prints the op kinds
//! whose kernels run with the output over the input they consume, as the planner's registry
//! declares them (`stowplan_planner::ops::overwrites`), as JSON: the suite counts the models
//! of each that ran so.
//!
//! ```text
//! stowplan-conformance gen --out DIR [--seed N] [--slice K] [--ops conv,add] [--values N]
//!                          [--runtime PATH] [--device [--part K]]
//! stowplan-conformance overlap-kinds
//! ```
//!
//! `DIR/manifest.json` lists the variants and their models; `DIR/models/<id>.tflite` are the
//! models, `DIR/inputs/<id>.bin` their input sets (each set the bytes of every model input, in
//! order, sets one after another); `DIR/sweep/` is a crate (its own workspace) whose binary
//! `stowplan-conformance-sweep-<dir name> DIR` writes `DIR/ours/<id>.bin` (the outputs of every set, in
//! order) and `DIR/ours/<id>.params` (the `Debug` form of every `params::OP_N` constant the
//! generated module has). `tests/conformance/run.py` drives all of it against TFLite Micro.
//!
//! `--slice K` keeps about K variants, spread over the ops and types and chosen with the seed
//! (only those are drawn); the models of a variant do not depend on the slice, so a slice is a
//! subset of the full sweep, model for model.
//!
//! `--device` writes the sweep as firmware for QEMU's DSP cores (the Cortex-M4 or M33) instead
//! (`DIR/firmware/`, see `device.rs`), with the variants of the op modules that run there
//! (`device::OPS`, unless `--ops` names others) of int8 and int16 types (`device::types_run`); the slice
//! is chosen among those alone. A slice larger than one image's RAM or flash is spread over
//! several: `--part K` writes image `K` (from 0; the manifest's `parts` says how many).
#![forbid(unsafe_code)]

mod activations;
mod add;
mod batch_matmul;
mod concatenation;
mod conv;
mod depthwise_conv;
mod dequantize;
mod detection_postprocess;
mod device;
mod fully_connected;
mod logistic;
mod mul;
mod pad;
mod pooling;
mod quantize;
mod reduce;
mod reshape;
mod softmax;
mod suite;
mod svdf;
mod transpose;
// The elementwise family (ops-b).
mod add_n;
mod cast;
mod comparisons;
mod div;
mod fill;
mod floor_div;
mod floor_mod;
mod logical;
mod maximum_minimum;
mod prelu;
mod select_v2;
mod squared_difference;
mod sub;
mod zeros_like;

mod ceil;
mod elementwise;
mod elu;
mod exp;
mod floor;
mod hard_swish;
mod l2norm;
mod leaky_relu;
mod log_softmax;
mod neg;
mod round;
mod tanh;
// Data movement, indexing and the other reductions.
mod arg_min_max;
mod batch_to_space_nd;
mod broadcast_args;
mod broadcast_to;
mod cumsum;
mod depth_to_space;
mod dynamic_update_slice;
mod embedding_lookup;
mod gather;
mod gather_nd;
mod l2_pool;
mod mirror_pad;
mod pack;
mod resize_bilinear;
mod resize_nearest_neighbor;
mod reverse;
mod shape;
mod slice;
mod space_to_batch_nd;
mod space_to_depth;
mod split;
mod split_v;
mod strided_slice;
mod transpose_conv;
mod unidirectional_sequence_lstm;
mod unpack;
// TFLM's signal library (custom ops).
mod signal_delay;
mod signal_energy;
mod signal_fft_auto_scale;
mod signal_filter_bank;
mod signal_filter_bank_log;
mod signal_filter_bank_spectral_subtraction;
mod signal_filter_bank_square_root;
mod signal_pcan;
mod signal_rfft;
mod signal_window;
// TFLM's other custom ops.
mod circular_buffer;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use suite::{Rng, Target, Variant};

/// An op's variants, drawn from the seed.
type Variants = fn(u64, Target) -> Vec<Variant>;

/// Every op's variants, in the suite's order.
fn all_variants(seed: u64, target: Target, ops: Option<&[String]>) -> Vec<Variant> {
    let table: &[(&str, Variants)] = &[
        ("conv", conv::variants),
        ("depthwise_conv", depthwise_conv::variants),
        ("fully_connected", fully_connected::variants),
        ("add", add::variants),
        ("mul", mul::variants),
        ("quantize", quantize::variants),
        ("dequantize", dequantize::variants),
        ("activations", activations::variants),
        ("concatenation", concatenation::variants),
        ("pad", pad::variants),
        ("transpose", transpose::variants),
        ("reshape", reshape::variants),
        ("logistic", logistic::variants),
        ("pooling", pooling::variants),
        ("reduce", reduce::variants),
        ("softmax", softmax::variants),
        ("sub", sub::variants),
        ("div", div::variants),
        ("floor_div", floor_div::variants),
        ("floor_mod", floor_mod::variants),
        ("maximum_minimum", maximum_minimum::variants),
        ("squared_difference", squared_difference::variants),
        ("comparisons", comparisons::variants),
        ("logical", logical::variants),
        ("select_v2", select_v2::variants),
        ("add_n", add_n::variants),
        ("prelu", prelu::variants),
        ("cast", cast::variants),
        ("zeros_like", zeros_like::variants),
        ("fill", fill::variants),
        ("elementwise", elementwise::variants),
        ("neg", neg::variants),
        ("ceil", ceil::variants),
        ("floor", floor::variants),
        ("round", round::variants),
        ("exp", exp::variants),
        ("tanh", tanh::variants),
        ("elu", elu::variants),
        ("hard_swish", hard_swish::variants),
        ("leaky_relu", leaky_relu::variants),
        ("log_softmax", log_softmax::variants),
        ("l2norm", l2norm::variants),
        ("slice", slice::variants),
        ("strided_slice", strided_slice::variants),
        ("split", split::variants),
        ("split_v", split_v::variants),
        ("pack", pack::variants),
        ("unpack", unpack::variants),
        ("gather", gather::variants),
        ("gather_nd", gather_nd::variants),
        ("depth_to_space", depth_to_space::variants),
        ("space_to_depth", space_to_depth::variants),
        ("batch_to_space_nd", batch_to_space_nd::variants),
        ("space_to_batch_nd", space_to_batch_nd::variants),
        ("mirror_pad", mirror_pad::variants),
        ("reverse", reverse::variants),
        ("pad", pad::more_variants),
        ("broadcast_to", broadcast_to::variants),
        ("broadcast_args", broadcast_args::variants),
        ("shape", shape::variants),
        ("embedding_lookup", embedding_lookup::variants),
        ("dynamic_update_slice", dynamic_update_slice::variants),
        ("cumsum", cumsum::variants),
        ("arg_min_max", arg_min_max::variants),
        ("reduce", reduce::more_variants),
        ("resize_nearest_neighbor", resize_nearest_neighbor::variants),
        ("resize_bilinear", resize_bilinear::variants),
        ("svdf", svdf::variants),
        (
            "unidirectional_sequence_lstm",
            unidirectional_sequence_lstm::variants,
        ),
        ("batch_matmul", batch_matmul::variants),
        ("transpose_conv", transpose_conv::variants),
        ("detection_postprocess", detection_postprocess::variants),
        ("signal_window", signal_window::variants),
        ("signal_fft_auto_scale", signal_fft_auto_scale::variants),
        ("signal_rfft", signal_rfft::variants),
        ("signal_energy", signal_energy::variants),
        ("signal_filter_bank", signal_filter_bank::variants),
        (
            "signal_filter_bank_square_root",
            signal_filter_bank_square_root::variants,
        ),
        ("signal_delay", signal_delay::variants),
        (
            "signal_filter_bank_spectral_subtraction",
            signal_filter_bank_spectral_subtraction::variants,
        ),
        ("signal_pcan", signal_pcan::variants),
        ("signal_filter_bank_log", signal_filter_bank_log::variants),
        ("l2_pool", l2_pool::variants),
        ("circular_buffer", circular_buffer::variants),
    ];
    table
        .iter()
        .filter(|(name, _)| ops.is_none_or(|o| o.iter().any(|x| x == name)))
        .flat_map(|(_, f)| f(seed, target))
        .collect()
}

/// About `k` variants, chosen with the seed: the (op, types) groups in a seeded order, one
/// variant of each (chosen with the seed) round after round until `k` are chosen, so a small
/// slice still spreads over the ops and types, and each seed covers others. The shape class
/// `blocked` (device sweeps alone) is a group of its own, so every round has one.
fn slice(variants: Vec<Variant>, k: usize, seed: u64) -> Vec<Variant> {
    let mut groups: Vec<(String, Vec<Variant>)> = Vec::new();
    for v in variants {
        let mut g = format!("{}/{}", v.op, v.types);
        if v.shape == "blocked" {
            g.push_str("/blocked");
        }
        match groups.iter_mut().find(|(k, _)| *k == g) {
            Some((_, list)) => list.push(v),
            None => groups.push((g, vec![v])),
        }
    }
    let mut rng = Rng::for_key(seed, "slice");
    // A seeded shuffle of the groups (Fisher-Yates).
    for i in (1..groups.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        groups.swap(i, j);
    }
    let mut out = Vec::new();
    while out.len() < k && groups.iter().any(|(_, l)| !l.is_empty()) {
        for (_, list) in &mut groups {
            if out.len() >= k {
                break;
            }
            if list.is_empty() {
                continue;
            }
            let i = rng.below(list.len() as u64) as usize;
            out.push(list.swap_remove(i));
        }
    }
    out.sort_by_key(|v| (v.op, v.key()));
    out
}

struct Args {
    out: PathBuf,
    seed: u64,
    slice: Option<usize>,
    ops: Option<Vec<String>>,
    values: usize,
    runtime: Option<PathBuf>,
    device: bool,
    /// The firmware image to write (`--part`, device sweeps): a slice larger than one image's
    /// RAM or flash is spread over several, image 0 first.
    part: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    if it.next().as_deref() != Some("gen") {
        return Err("usage: stowplan-conformance gen --out DIR [--seed N] [--slice K] [--ops a,b] [--values N] [--runtime PATH] [--device [--part K]], or stowplan-conformance overlap-kinds".into());
    }
    let mut args = Args {
        out: PathBuf::new(),
        seed: 1,
        slice: None,
        ops: None,
        values: suite::TARGET.values,
        runtime: None,
        device: false,
        part: 0,
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--out" => args.out = PathBuf::from(value()?),
            "--seed" => args.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--slice" => args.slice = Some(value()?.parse().map_err(|e| format!("--slice: {e}"))?),
            "--ops" => args.ops = Some(value()?.split(',').map(str::to_owned).collect()),
            "--values" => args.values = value()?.parse().map_err(|e| format!("--values: {e}"))?,
            "--runtime" => args.runtime = Some(PathBuf::from(value()?)),
            "--device" => args.device = true,
            "--part" => args.part = value()?.parse().map_err(|e| format!("--part: {e}"))?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.out.as_os_str().is_empty() {
        return Err("--out DIR is required".into());
    }
    if args.part > 0 && !args.device {
        return Err("--part is for --device sweeps".into());
    }
    Ok(args)
}

/// The registry of kernels on one buffer, one JSON object per op kind in the op table's order:
/// `{"op": "CONV_2D", "module": "conv", "order": "window", "input": 0, "fits": "fits",
/// "entries": ["conv2d_s8", ..]}` (`fits` is the compile-time check generated code asserts,
/// `kernels::overlap::<fits>`; `entries` the one-buffer entry of each kernel variant).
fn overlap_kinds() -> String {
    let kinds: Vec<serde_json::Value> = stowplan_planner::ops::overwrites()
        .into_iter()
        .map(|(op, module, o)| {
            serde_json::json!({
                "op": op,
                "module": module,
                "order": o.order.name(),
                "input": o.input,
                "fits": o.fits,
                "entries": o.entries,
            })
        })
        .collect();
    serde_json::Value::Array(kinds).to_string()
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("overlap-kinds") {
        println!("{}", overlap_kinds());
        return ExitCode::SUCCESS;
    }
    match parse_args().and_then(|a| generate(&a)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn generate(args: &Args) -> Result<(), String> {
    let target = Target {
        values: args.values,
        models: suite::TARGET.models,
    };
    let device_ops: Vec<String>;
    let ops = match (&args.ops, args.device) {
        (Some(ops), _) => Some(ops.as_slice()),
        (None, true) => {
            device_ops = device::OPS.iter().map(|&o| o.to_owned()).collect();
            Some(device_ops.as_slice())
        }
        (None, false) => None,
    };
    // A device sweep: the int8 variants alone (chosen before the slice, so it spreads over them).
    let kept = |v: &Variant| !args.device || device::types_run(&v.types);
    device::set_blocked(args.device);
    let variants = if let Some(k) = args.slice {
        // List the variants without drawing, choose the slice, draw only it.
        suite::set_draw(suite::Draw::Dry);
        let mut listed = all_variants(args.seed, target, ops);
        listed.retain(kept);
        let keys = slice(listed, k.max(1), args.seed)
            .iter()
            .map(Variant::key)
            .collect();
        suite::set_draw(suite::Draw::Only(keys));
        all_variants(args.seed, target, ops)
            .into_iter()
            .filter(|v| !v.cases.is_empty() && kept(v))
            .collect()
    } else {
        let mut all = all_variants(args.seed, target, ops);
        all.retain(kept);
        all
    };
    let out = &args.out;
    let sweep = out.join(if args.device { "firmware" } else { "sweep" });
    // Nothing of an earlier sweep survives: its models, inputs, outputs and generated modules
    // (a device sweep's later images keep the outputs the earlier ones wrote).
    let outputs = [out.join("ours"), out.join("tflm")];
    let written = [
        out.join("inputs"),
        sweep.join("models"),
        sweep.join("src/gen"),
    ];
    let first = args.part == 0;
    for (dir, clear) in written
        .iter()
        .map(|d| (d, true))
        .chain(outputs.iter().map(|d| (d, first)))
    {
        if clear && dir.exists() {
            std::fs::remove_dir_all(dir)
                .map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let runtime = match &args.runtime {
        Some(p) => p.clone(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime"),
    };
    let runtime = runtime
        .canonicalize()
        .map_err(|e| format!("the runtime crate at {}: {e}", runtime.display()))?;

    // A package name of its own per sweep directory: cargo keeps one fingerprint per package
    // name in a shared target dir, and would take another sweep's build as fresh.
    let tag: String = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let package = format!("stowplan-conformance-sweep-{tag}");
    let mut manifest = Vec::new();
    let mut includes = String::new();
    let mut table = String::new();
    let mut entries = String::new();
    let mut ids = Vec::new();
    // Bytes of RAM the device sweep's static arenas and persistent regions take so far in the
    // current firmware image (`part`, with `in_part` models), and of flash its input sets and
    // model files (an upper bound on the constants kept) take; a model that does not fit
    // starts the next image. The written image's totals.
    let (mut part, mut in_part) = (0usize, 0usize);
    let mut ram = 0u64;
    let ram_budget = (device::RAM_BYTES - device::STACK_BYTES) as u64;
    let mut flash = 0u64;
    let flash_budget = (device::FLASH_BYTES - device::CODE_BYTES) as u64;
    let (mut part_ram, mut part_flash) = (0u64, 0u64);
    let mut n = 0usize;
    for v in &variants {
        let mut models = Vec::new();
        for case in &v.cases {
            let id = format!("m{n:05}");
            n += 1;
            let rel = format!("models/{id}.tflite");
            write(&sweep.join(&rel), &case.model)?;
            let inputs: Vec<u8> = case.inputs.concat();
            write(&out.join("inputs").join(format!("{id}.bin")), &inputs)?;
            let set_bytes = case.inputs.first().map_or(0, Vec::len);
            // Every other model planned without rounding (alignment 1) and with one-pixel
            // chunks: a pair whose output lies over its input then sits at exactly its least
            // displacement, where a kernel or the in-place driver one element off shows. The
            // others as users' models are planned (alignment 16, pixel pairs).
            let align = if n.is_multiple_of(2) { 1 } else { 16 };
            let chunk = if align == 1 {
                1
            } else {
                stowplan_planner::DEFAULT_CHUNK_PIXELS
            };
            // Every fourth model planned without outputs over inputs (unless drawn otherwise:
            // `suite::Draft::overlap`): their ops take the kernels chosen for two buffers (the
            // widened 1 x 1 pixel pairs among them, which an op on one buffer never takes).
            let overlap = case.overlap.unwrap_or(n % 4 != 1);
            let rendered = stowplan_build::Config::new()
                .manifest_dir(&sweep)
                .model(&rel)
                .name(&id)
                .invoke(true)
                .align(align)
                .chunk_pixels(chunk)
                .overlap(overlap)
                .render();
            let mut statuses = false;
            let mut unrun = serde_json::Value::Null;
            let mut image = serde_json::Value::Null;
            let (refused, params) = match rendered {
                Ok((text, generated)) if args.device => {
                    let params = param_names(&text);
                    statuses = stops_early(&text);
                    // Each region 16-byte aligned in `.bss`.
                    let bytes = generated.arena_bytes.div_ceil(16) * 16
                        + generated.persistent_bytes.div_ceil(16) * 16;
                    // A FULLY_CONNECTED filter re-laid for its kernel is a second copy of its
                    // bytes beside the model's (which the firmware's tensor table keeps).
                    let data = (inputs.len() + case.model.len() + relaid_bytes(&text)) as u64;
                    if in_part > 0 && (ram + bytes > ram_budget || flash + data > flash_budget) {
                        (part, in_part, ram, flash) = (part + 1, 0, 0, 0);
                    }
                    if bytes > ram_budget {
                        unrun = serde_json::Value::String(format!(
                            "its arena and persistent region ({bytes} B) do not fit a \
                             firmware image's RAM ({ram_budget} B)"
                        ));
                    } else if data > flash_budget {
                        unrun = serde_json::Value::String(format!(
                            "its input sets and model ({data} B) do not fit a firmware \
                             image's flash ({flash_budget} B)"
                        ));
                    } else {
                        ram += bytes;
                        flash += data;
                        in_part += 1;
                        image = serde_json::json!(part);
                    }
                    // Every image's modules (`run.py` reads them all), the firmware includes
                    // this one's.
                    if !image.is_null() {
                        write(&sweep.join(format!("src/gen/{id}.rs")), text.as_bytes())?;
                    }
                    if image == serde_json::json!(args.part) {
                        (part_ram, part_flash) = (ram, flash);
                        let _ = writeln!(includes, "include!(\"gen/{id}.rs\");");
                        entries.push_str(&device::entry(
                            &id,
                            case.inputs.len(),
                            set_bytes,
                            generated.persistent_bytes > 0,
                            statuses,
                            &params,
                        ));
                        ids.push(id.clone());
                    }
                    (serde_json::Value::Null, params)
                }
                Ok((text, generated)) => {
                    write(&sweep.join(format!("src/gen/{id}.rs")), text.as_bytes())?;
                    let params = param_names(&text);
                    let _ = writeln!(includes, "include!(\"gen/{id}.rs\");");
                    let dumps: String = params
                        .iter()
                        .map(|p| format!("(\"{p}\", format!(\"{{:?}}\", {id}::params::{p})),"))
                        .collect();
                    // One arena (and state) for all sets, as TFLM's interpreter is one: a model
                    // with state carries it from set to set.
                    let (state, call) = if generated.persistent_bytes > 0 {
                        (
                            format!("let mut state = Box::new({id}::PersistentArena::new()); "),
                            format!("{id}::invoke(&mut arena, &mut state)"),
                        )
                    } else {
                        (String::new(), format!("{id}::invoke(&mut arena)"))
                    };
                    // A model whose `invoke` can stop early (CIRCULAR_BUFFER) appends one byte
                    // per run after its outputs: 1 when the invocation stopped, 0 when complete.
                    let status = stops_early(&text);
                    let (call, record) = if status {
                        (
                            format!("let st = {call}"),
                            "out.push(u8::from(!st.is_complete()));",
                        )
                    } else {
                        (call, "")
                    };
                    let _ = writeln!(
                        table,
                        "    (\"{id}\", {set_bytes}, {n_sets}, |out, sets, size, n| {{ let mut arena = Box::new({id}::Arena::new()); {state}for k in 0..n {{ let set = sets.get(k * size..(k + 1) * size).unwrap_or(&[]); feed(arena.as_bytes_mut(), {id}::TENSORS, {id}::INPUTS, set)?; {call}; collect(arena.as_bytes(), {id}::TENSORS, {id}::OUTPUTS, out)?; {record} }} Ok(()) }}, || vec![{dumps}]),",
                        n_sets = case.inputs.len()
                    );
                    statuses = status;
                    (serde_json::Value::Null, params)
                }
                Err(e) => (serde_json::Value::String(e.to_string()), Vec::new()),
            };
            models.push(serde_json::json!({
                "id": id,
                "model": format!("{}/{rel}", if args.device { "firmware" } else { "sweep" }),
                "inputs": format!("inputs/{id}.bin"),
                "sets": case.inputs.len(),
                "set_bytes": set_bytes,
                "output_values": case.output_values,
                "note": case.note,
                "refused": refused,
                "params": params,
                "status": statuses,
                "unrun": unrun,
                "part": image,
            }));
        }
        manifest.push(serde_json::json!({
            "key": v.key(),
            "op": v.op,
            "builtin": v.builtin,
            "types": v.types,
            "options": v.options,
            "shape": v.shape,
            "values": v.values(),
            "models": models,
        }));
    }
    let manifest = serde_json::json!({
        "package": package,
        "seed": args.seed,
        "slice": args.slice,
        "device": args.device,
        "part": args.part,
        "parts": part + usize::from(in_part > 0),
        "ram_bytes": part_ram,
        "flash_bytes": part_flash,
        "variants": manifest,
    });
    write(
        &out.join("manifest.json"),
        serde_json::to_string_pretty(&manifest)
            .map_err(|e| e.to_string())?
            .as_bytes(),
    )?;
    if args.device {
        write(
            &sweep.join("Cargo.toml"),
            device::manifest(&package, &runtime).as_bytes(),
        )?;
        write(&sweep.join("build.rs"), device::BUILD_RS.as_bytes())?;
        for (file, map) in device::memory_maps() {
            write(&sweep.join(file), map.as_bytes())?;
        }
        // A `memory.x` an older `gen` wrote would be found before the build script's map.
        let stale = sweep.join("memory.x");
        if stale.exists() {
            std::fs::remove_file(&stale).map_err(|e| format!("{}: {e}", stale.display()))?;
        }
        write(
            &sweep.join("src/main.rs"),
            device::main_rs(&includes, &entries, &ids).as_bytes(),
        )?;
    } else {
        write(
            &sweep.join("Cargo.toml"),
            sweep_manifest(&package, &runtime).as_bytes(),
        )?;
        write(
            &sweep.join("src/main.rs"),
            sweep_main(&includes, &table).as_bytes(),
        )?;
    }
    let values: usize = variants.iter().map(Variant::values).sum();
    println!(
        "{} variants, {n} models, {values} output values -> {}",
        variants.len(),
        out.display()
    );
    Ok(())
}

/// The `params::OP_N` constants a generated module has.
/// The bytes of the filters a generated module re-lays for their kernel
/// (`__private_v1::interleave_at::<N, ..>`, each `N` bytes).
fn relaid_bytes(text: &str) -> usize {
    text.split("interleave_at::<")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '_')
                .filter(|c| *c != '_')
                .collect();
            digits.parse::<usize>().ok()
        })
        .sum()
}

fn param_names(text: &str) -> Vec<String> {
    let Some(start) = text.find("pub mod params {") else {
        return Vec::new();
    };
    let body = &text[start..];
    let end = body.find("\n    }\n").unwrap_or(body.len());
    body[..end]
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("pub const ")?;
            let name = rest.split(':').next()?.trim();
            // A re-laid filter (`OP_N_FILTER`) is weights, not a parameter TFLM computes.
            (name.starts_with("OP_") && !name.ends_with("_FILTER")).then(|| name.to_owned())
        })
        .collect()
}

fn sweep_manifest(package: &str, runtime: &Path) -> String {
    format!(
        r#"# Written by stowplan-conformance gen; not part of the repository.
[package]
name = "{package}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
stowplan = {{ path = {path:?}, default-features = false, features = ["kernels"] }}

[workspace]

[profile.dev]
debug = false
incremental = false
# Overflow checks stay on: an overflow in a kernel is a failure, not a silent wrap.
overflow-checks = true
"#,
        path = runtime.display().to_string()
    )
}

fn sweep_main(includes: &str, table: &str) -> String {
    format!(
        r#"//! Written by stowplan-conformance gen: runs every model of the sweep through its generated
//! `invoke` on its input sets and writes the outputs and the parameter constants.
#![allow(clippy::all)]

use stowplan::{{Location, TensorInfo}};

{includes}
/// Copies one input set into the arena slots of the model's inputs.
fn feed(arena: &mut [u8], tensors: &[TensorInfo], inputs: &[u32], set: &[u8]) -> Result<(), String> {{
    let mut at = 0;
    for &t in inputs {{
        let Some(TensorInfo {{ location: Location::Arena {{ offset, bytes }}, .. }}) = tensors.get(t as usize) else {{
            return Err(format!("input {{t}} is not in the arena"));
        }};
        let src = set.get(at..at + *bytes).ok_or("an input set shorter than the inputs")?;
        arena[*offset..*offset + *bytes].copy_from_slice(src);
        at += *bytes;
    }}
    if at != set.len() {{
        return Err(format!("an input set of {{}} bytes for inputs of {{at}}", set.len()));
    }}
    Ok(())
}}

/// Appends the bytes of the model's outputs.
fn collect(arena: &[u8], tensors: &[TensorInfo], outputs: &[u32], out: &mut Vec<u8>) -> Result<(), String> {{
    for &t in outputs {{
        let Some(TensorInfo {{ location: Location::Arena {{ offset, bytes }}, .. }}) = tensors.get(t as usize) else {{
            return Err(format!("output {{t}} is not in the arena"));
        }};
        out.extend_from_slice(&arena[*offset..*offset + *bytes]);
    }}
    Ok(())
}}

type Run = fn(&mut Vec<u8>, &[u8], usize, usize) -> Result<(), String>;
type Params = fn() -> Vec<(&'static str, String)>;

const MODELS: &[(&str, usize, usize, Run, Params)] = &[
{table}];

fn main() {{
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: stowplan-conformance-sweep DIR"));
    let mut failed = 0;
    for &(id, set_bytes, n_sets, run, params) in MODELS {{
        let sets = std::fs::read(dir.join("inputs").join(format!("{{id}}.bin"))).expect("input sets");
        let mut out = Vec::new();
        let result = run(&mut out, &sets, set_bytes, n_sets);
        if let Err(e) = result {{
            eprintln!("{{id}}: {{e}}");
            failed += 1;
            continue;
        }}
        std::fs::write(dir.join("ours").join(format!("{{id}}.bin")), &out).expect("write outputs");
        let text: String = params().iter().map(|(name, value)| format!("{{name}} = {{value}}\n")).collect();
        std::fs::write(dir.join("ours").join(format!("{{id}}.params")), text).expect("write params");
    }}
    if failed > 0 {{
        eprintln!("{{failed}} models failed to run");
        std::process::exit(1);
    }}
}}
"#
    )
}

/// Whether a generated module's `invoke` returns `Invoked` (its model has an op that can end
/// an invocation early).
fn stops_early(text: &str) -> bool {
    text.replace(char::is_whitespace, "")
        .contains("Invoked::Complete")
}
