//! Tensors sized at run time: `dynamic = "cache"` leaves them out of the plan and the generated
//! module describes them; without it `shape` is planned (TFLM's placeholder) or a `-1` in it is
//! an error naming the option.

use stowplan::cache::{BufferCache, Region};
use stowplan_planner::graph::Placement;
use stowplan_planner::{Options, plan_model};
use stowplan_tests::repo_root;

fn model(rel: &str) -> Vec<u8> {
    std::fs::read(repo_root().join(rel)).unwrap()
}

#[test]
fn the_cache_takes_what_the_signature_leaves_open() {
    let bytes = model("tests/models/dynamic_batch/dynamic_batch.tflite");
    // Default: TFLM's placeholder batch of 1 is planned, everything in the arena.
    let planned = plan_model(&bytes, &Options::default()).unwrap();
    assert_eq!(planned.buffer_tensors.len(), 5);
    assert_eq!(planned.arena_bytes(), 128);
    let cached = plan_model(
        &bytes,
        &Options {
            dynamic_cache: true,
            ..Options::default()
        },
    )
    .unwrap();
    let dynamic: Vec<&str> = cached
        .model
        .tensors
        .iter()
        .zip(&cached.tensors)
        .filter(|(_, i)| i.placement == Placement::Dynamic)
        .map(|(t, i)| {
            assert!(i.bytes.is_none() && i.shape.contains(&-1), "{}", t.name);
            t.name.as_str()
        })
        .collect();
    assert_eq!(
        dynamic,
        ["serving_default_queries:0", "mul", "PartitionedCall:0"]
    );
    // The static branch stays: context and the hidden vector.
    assert_eq!(cached.buffer_tensors.len(), 2);
    assert_eq!(cached.arena_bytes(), 96);
}

#[test]
fn a_minus_one_in_shape_is_an_error_naming_both_ways_out() {
    let bytes = model("tests/models/synthetic/dynamic_dim.tflite");
    let err = plan_model(&bytes, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("has a dynamic shape [-1,10]"), "{err}");
    assert!(err.contains("--shape x=1x96x96x1"), "{err}");
    assert!(err.contains("dynamic = \"cache\""), "{err}");
    let cached = plan_model(
        &bytes,
        &Options {
            dynamic_cache: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(
        cached
            .tensors
            .iter()
            .any(|i| i.placement == Placement::Dynamic)
    );
}

stowplan::include_model!(
    "models/dynamic_batch/dynamic_batch.tflite",
    name = batch,
    dynamic = "cache"
);

#[test]
fn generated_code_describes_dynamic_tensors_and_sizes_them() {
    assert_eq!(batch::ARENA_BYTES, 96);
    let q = batch::dynamic::SERVING_DEFAULT_QUERIES_0;
    assert_eq!(q.name, "serving_default_queries:0");
    assert_eq!(q.dtype, "float32");
    assert_eq!(q.shape, &[None, Some(8)]);
    assert_eq!(q.bytes(&[5]).unwrap(), 5 * 8 * 4);
    assert!(q.bytes(&[]).is_err());
    assert!(q.bytes(&[usize::MAX]).is_err());
    let out = batch::dynamic::PARTITIONEDCALL_0;
    assert_eq!(out.shape, &[None, Some(3)]);

    let mut memory = [0u8; 2048];
    let cache: BufferCache<Region<'_>> = BufferCache::new(Region::new(&mut memory));
    let mut buffer = q.alloc(&cache, &[3]).unwrap();
    assert_eq!(buffer.view_mut::<f32>().unwrap().len(), 24);
    cache.free(buffer).unwrap();
    // The same size again comes from the pool.
    let again = q.alloc(&cache, &[3]).unwrap();
    assert_eq!(cache.stats().hits, 1);
    drop(again);
    let err = q.alloc(&cache, &[1, 2]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor `serving_default_queries:0` has 1 run-time dimensions, 2 were given"
    );
}
