//! Plans the bundled model at build time: writes `OUT_DIR/cnn.rs` and keeps the committed
//! review copy `src/generated/cnn.rs` in sync (`STOWPLAN_BLESS=1 cargo build` rewrites it).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    stowplan_build::Config::new()
        .model("../../tests/models/cnn_int8/cnn_int8.tflite")
        .name("cnn")
        .budget(1024)
        .review_copy("src/generated/cnn.rs")
        .generate()?;
    Ok(())
}
