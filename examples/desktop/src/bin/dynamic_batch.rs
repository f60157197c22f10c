//! A model with a dynamic batch (`tests/models/dynamic_batch`): its static tensors live in the
//! planned arena, its dynamic ones (`queries` is `[-1, 8]`, and so are the MUL and
//! FULLY_CONNECTED after it) come from a `BufferCache` with MLX's rules, once the batch size is
//! known. It runs the model for several batch sizes with the runtime's reference kernels,
//! checks each output against the one TFLite computed (`batches.json`, made by the fixture
//! script), and prints the cache statistics after each run.
//!
//! ```text
//! cargo run -p stowplan-example-desktop --bin dynamic-batch
//! ```
#![forbid(unsafe_code)]

use std::process::ExitCode;

use stowplan::cache::{BufferCache, System};
use stowplan::kernels::{BinaryF32, BinaryShape, FullyConnectedF32, fully_connected_f32, mul_f32};

stowplan::include_model!(
    "../../tests/models/dynamic_batch/dynamic_batch.tflite",
    name = net,
    dynamic = "cache",
    budget = 256
);

/// The inputs and, per batch size, TFLite's output (written by tests/models/make_models.py).
const BATCHES: &str = include_str!("../../../../tests/models/dynamic_batch/batches.json");

/// The numbers of the JSON array after `"key":` (the file's layout is fixed by the script).
fn numbers_after(text: &str, key: &str) -> Vec<f32> {
    let Some(at) = text.find(&format!("\"{key}\":")) else {
        return Vec::new();
    };
    let rest = &text[at..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    rest[open + 1..close]
        .split(',')
        .filter_map(|n| n.trim().parse::<f64>().ok())
        .map(|n| n as f32)
        .collect()
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let context = numbers_after(BATCHES, "context");
    let queries = numbers_after(BATCHES, "queries");
    println!(
        "model {}: arena {} B for the static tensors; dynamic: {}",
        net::MODEL_PATH,
        net::ARENA_BYTES,
        [
            net::dynamic::SERVING_DEFAULT_QUERIES_0,
            net::dynamic::MUL,
            net::dynamic::PARTITIONEDCALL_0
        ]
        .iter()
        .map(|t| format!("{} {:?}", t.name, t.shape))
        .collect::<Vec<_>>()
        .join(", ")
    );

    // The static branch, once: context [1, 16] -> FULLY_CONNECTED + RELU -> h [1, 8].
    let mut arena = net::Arena::new();
    arena
        .view_mut(net::SERVING_DEFAULT_CONTEXT_0)
        .copy_from_slice(&context);
    {
        let ((x, w, b), (h,)) = net::ops::op_0(&mut arena);
        let p = FullyConnectedF32 {
            batches: 1,
            accum_depth: 16,
            output_depth: 8,
            act_min: 0.0,
            act_max: f32::MAX,
        };
        fully_connected_f32(&p, x, w, Some(b), h)?;
    }
    let h = arena.view(net::MATMUL_6);

    let cache: BufferCache<System> = BufferCache::new(System);
    let runs = BATCHES.split("{\"batch\": ").skip(1);
    let mut failures = 0;
    for run in runs {
        let batch: usize = run.split(',').next().unwrap_or("0").trim().parse()?;
        let expected = numbers_after(run, "output");

        // queries [batch, 8] -> MUL with h -> [batch, 8] -> FULLY_CONNECTED -> [batch, 3].
        let mut q = net::dynamic::SERVING_DEFAULT_QUERIES_0.alloc(&cache, &[batch])?;
        q.view_mut::<f32>()?
            .copy_from_slice(queries.get(..batch * 8).ok_or("too few queries")?);
        let mut product = net::dynamic::MUL.alloc(&cache, &[batch])?;
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, batch, 8],
            input2: [1, 1, 1, 1, 1, 8],
            output: [1, 1, 1, 1, batch, 8],
        };
        let p = BinaryF32 {
            shape,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        mul_f32(&p, q.view()?, h, product.view_mut()?)?;
        cache.free(q)?; // its last reader ran
        let mut out = net::dynamic::PARTITIONEDCALL_0.alloc(&cache, &[batch])?;
        let p = FullyConnectedF32 {
            batches: batch,
            accum_depth: 8,
            output_depth: 3,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        fully_connected_f32(
            &p,
            product.view()?,
            net::MATMUL_1,
            Some(net::ADD_1),
            out.view_mut()?,
        )?;
        cache.free(product)?;

        let got = out.view::<f32>()?;
        let worst = got
            .iter()
            .zip(&expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        let ok = got.len() == expected.len() && worst <= 1e-5;
        failures += usize::from(!ok);
        let s = cache.stats();
        println!(
            "batch {batch:>2}: output {} values, max |diff| vs TFLite {worst:.1e} {}; cache: active {} B, cached {} B, peak {} B, hits {}, misses {}",
            got.len(),
            if ok { "ok" } else { "MISMATCH" },
            s.active_bytes,
            s.cached_bytes,
            s.peak_bytes,
            s.hits,
            s.misses
        );
        cache.free(out)?;
    }
    if failures > 0 {
        return Err(format!("{failures} batch sizes differ from TFLite").into());
    }
    Ok(())
}
