stowplan::include_model!("models/synthetic/README.md");

fn main() {}
