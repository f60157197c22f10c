//! Plans the bundled model at build time: writes `OUT_DIR/cnn.rs` and keeps the committed
//! review copy `src/generated/cnn.rs` in sync (`STOWPLAN_BLESS=1 cargo build` rewrites it).
//! The CNN's module has `invoke` (the runtime's kernels). Also writes `OUT_DIR/io.rs`: each
//! model's input and the output TFLite computed for it.

#[path = "../shared/io_json.rs"]
mod io_json;

const IO_JSON: &str = "../../tests/models/mlp_float/io.json";
const CNN_IO_JSON: &str = "../../tests/models/cnn_int8/io.json";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    stowplan_build::Config::new()
        .model("../../tests/models/cnn_int8/cnn_int8.tflite")
        .name("cnn")
        .budget(1024)
        .invoke(true)
        .review_copy("src/generated/cnn.rs")
        .generate()?;
    println!("cargo::rerun-if-changed={IO_JSON}");
    println!("cargo::rerun-if-changed={CNN_IO_JSON}");
    let json = std::fs::read_to_string(IO_JSON)?;
    let cnn_json = std::fs::read_to_string(CNN_IO_JSON)?;
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    std::fs::write(
        out.join("io.rs"),
        io_json::constants(&json, "tests/models/mlp_float/io.json")
            + &io_json::int8_constants(&cnn_json, "tests/models/cnn_int8/io.json", "CNN"),
    )?;
    Ok(())
}
