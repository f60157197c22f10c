#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| stowplan_tests::fuzz::in_place(data));
