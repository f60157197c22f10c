//! The golden generated files under `tests/expected/`: which model each comes from and how.

use stowplan_build::Config;

/// A golden file: `tests/expected/<name>.rs`, generated from `model` (relative to the `Cargo.toml`
/// of the crate that compiles it: `tests/`, or `tests/hygiene/` for `hygiene`).
#[derive(Clone, Copy, Debug)]
pub struct Golden {
    /// Module and file name.
    pub name: &'static str,
    /// Model path relative to the compiling crate's `Cargo.toml`.
    pub model: &'static str,
    /// Shape overrides.
    pub shapes: &'static [&'static str],
    /// The runtime crate path, if not `::stowplan`.
    pub runtime: Option<&'static str>,
    /// A budget.
    pub budget: Option<u64>,
    /// Generate `invoke` (the runtime's kernels; ops with constant inputs folded).
    pub invoke: bool,
}

const fn g(name: &'static str, model: &'static str) -> Golden {
    Golden {
        name,
        model,
        shapes: &[],
        runtime: None,
        budget: None,
        invoke: false,
    }
}

/// Every golden file.
pub const GOLDEN: &[Golden] = &[
    Golden {
        budget: Some(4096),
        ..g("chain", "models/synthetic/chain.tflite")
    },
    g("residual", "models/synthetic/residual.tflite"),
    g("branches", "models/synthetic/branches.tflite"),
    g("if_else", "models/synthetic/if_else.tflite"),
    g("while_loop", "models/synthetic/while_loop.tflite"),
    g("call_once", "models/synthetic/call_once.tflite"),
    g("variables", "models/synthetic/variables.tflite"),
    g("offline_plan", "models/synthetic/offline_plan.tflite"),
    g("all_types", "models/synthetic/all_types.tflite"),
    Golden {
        shapes: &["x=2x10", "1=2x10", "y=2x10"],
        ..g("dynamic_dim", "models/synthetic/dynamic_dim.tflite")
    },
    g("mlp_float", "models/mlp_float/mlp_float.tflite"),
    g("mlp_int8", "models/mlp_int8/mlp_int8.tflite"),
    g("cnn_int8", "models/cnn_int8/cnn_int8.tflite"),
    g("tf_cond_if", "models/cond_if/cond_if.tflite"),
    g("tf_while_loop", "models/while_loop/while_loop.tflite"),
    g("tf_call_once", "models/call_once/call_once.tflite"),
    g("tf_streaming", "models/streaming/streaming.tflite"),
    Golden {
        invoke: true,
        ..g("fold_f16_conv", "models/synthetic/fold_f16_conv.tflite")
    },
    Golden {
        invoke: true,
        ..g("fold_densify", "models/synthetic/fold_densify.tflite")
    },
    Golden {
        invoke: true,
        ..g("circular_buffer", "models/synthetic/circular_buffer.tflite")
    },
    Golden {
        invoke: true,
        ..g(
            "streaming_window_f32",
            "models/synthetic/streaming_window_f32.tflite",
        )
    },
    Golden {
        invoke: true,
        ..g(
            "streaming_window_s8",
            "models/synthetic/streaming_window_s8.tflite",
        )
    },
    Golden {
        runtime: Some("::renamed_runtime"),
        ..g("hygiene", "../models/synthetic/residual.tflite")
    },
];

impl Golden {
    /// The build configuration that makes this file.
    #[must_use]
    pub fn config(&self) -> Config {
        let mut c = Config::new();
        // The hygiene crate lives in tests/hygiene; the others are compiled by the tests crate.
        let manifest = if self.name == "hygiene" {
            "tests/hygiene"
        } else {
            "tests"
        };
        c.model(self.model)
            .manifest_dir(crate::repo_root().join(manifest));
        c.name(if self.name == "hygiene" {
            "residual"
        } else {
            self.name
        });
        for s in self.shapes {
            c.shape(*s);
        }
        if let Some(r) = self.runtime {
            c.runtime_crate(r);
        }
        if let Some(b) = self.budget {
            c.budget(b);
        }
        c.invoke(self.invoke);
        c
    }
}
