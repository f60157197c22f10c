//! Prints docs/planning.md's planner benchmarks as Markdown tables, all from one run:
//! `cargo run --release -p stowplan-tests --bin bench-planners [SHARED_DIR]`
//! (SHARED_DIR defaults to ../shared; the tables that need it are skipped when it is absent).
//!
//! 1. every planner on the shared real models: bytes against greedy and the lower bound, time
//!    against greedy;
//! 2. every planner on random problems of 100, 1,000 and 10,000 buffers;
//! 3. the whole pipeline on person_detect with the default planner;
//! 4. MiniMalloc's hard instances with `auto`, at capacity 1,048,576 and without a capacity.
//!
//! Times are wall-clock, the best of a few runs, on whatever machine runs it.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use stowplan_planner::emit::thousands;
use stowplan_planner::plan::{self, Buffer, Planner, Problem, Settings};
use stowplan_planner::{Options, plan_model, problem_csv};

/// Best wall time of `runs` runs of `f`, and its last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed());
        out = Some(r);
    }
    match out {
        Some(r) => (best, r),
        None => unreachable!("runs >= 1"),
    }
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 10_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

fn percent(a: u64, b: u64) -> String {
    if b == 0 {
        return "–".to_owned();
    }
    format!("{:+.1} %", (a as f64 - b as f64) * 100.0 / b as f64)
}

fn ratio(a: Duration, b: Duration) -> String {
    format!("{:.1}×", a.as_secs_f64() / b.as_secs_f64().max(1e-9))
}

fn shared_models(shared: &Path) {
    let Ok(entries) = std::fs::read_dir(shared.join("models")) else {
        println!("(no models in {}: table skipped)\n", shared.display());
        return;
    };
    let mut models: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::read(&p).ok()?))
        })
        .collect();
    models.sort();
    println!(
        "### Every planner on the {} shared models (whole pipeline: parse, lifetimes, plan, verify)\n",
        models.len()
    );
    println!(
        "| planner | at the lower bound | total arena | vs greedy | vs lower bound | total time | time vs greedy |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|");
    let mut greedy: Option<(u64, Duration)> = None;
    for planner in Planner::ALL {
        let options = Options {
            planner,
            ..Options::default()
        };
        let (mut arena, mut bound, mut at_bound, mut time) = (0u64, 0u64, 0usize, Duration::ZERO);
        for (name, bytes) in &models {
            let (t, result) = timed(5, || plan_model(bytes, &options));
            match result {
                Ok(p) => {
                    arena += p.arena_bytes();
                    bound += plan::proven_bound(&p.problem);
                    at_bound += usize::from(p.plan.proven_optimal());
                    time += t;
                }
                Err(e) => println!("| {planner} | error on {name}: {e} ||||||"),
            }
        }
        if planner == Planner::Greedy {
            greedy = Some((arena, time));
        }
        let (g_arena, g_time) = greedy.unwrap_or((arena, time));
        println!(
            "| `{planner}` | {at_bound} of {} | {} | {} | {} | {} | {} |",
            models.len(),
            thousands(arena),
            percent(arena, g_arena),
            percent(arena, bound),
            ms(time),
            ratio(time, g_time)
        );
    }
    println!(
        "\n\"At the lower bound\": plans proven optimal. The bound is the proven one, which for the \
         Vela model counts its deliberately aliased offline tensors once (74,464 B). Linear comes \
         before greedy in the list, so it is compared with itself.\n"
    );
}

/// `n` buffers, a fixed seed: lifetimes of 1 to 32 steps starting anywhere in `0..n/2`, sizes 1
/// to 64 KiB, alignment 16.
pub fn random_problem(n: usize, seed: u64) -> Problem {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let span = (n as u64 / 2).max(1);
    let buffers = (0..n)
        .map(|_| {
            let first = (next() % span) as u32;
            let len = (next() % 32) as u32;
            let size = 1 + next() % 65_536;
            Buffer::new(size, first, first + len)
        })
        .collect();
    match Problem::new(buffers, 16) {
        Ok(p) => p,
        Err(e) => unreachable!("random problems are valid: {e}"),
    }
}

fn random_problems() {
    println!("### Every planner on random problems (default search budget)\n");
    println!(
        "| buffers | planner | arena | vs greedy | vs lower bound | time | time vs greedy | search steps | proven optimal |"
    );
    println!("|--:|---|--:|--:|--:|--:|--:|--:|--:|");
    for n in [100usize, 1_000, 10_000] {
        let problem = random_problem(n, n as u64);
        let bound = plan::lower_bound(&problem).aligned_bytes;
        let mut greedy: Option<(u64, Duration)> = None;
        let runs = if n >= 10_000 { 1 } else { 3 };
        for planner in Planner::ALL {
            let settings = Settings::new(planner);
            let (t, result) = timed(runs, || {
                stowplan_planner::verify::solve_with(&problem, &settings)
            });
            let p = match result {
                Ok(p) => p,
                Err(e) => {
                    println!("| {n} | {planner} | failed verification: {e} |||||||");
                    continue;
                }
            };
            if planner == Planner::Greedy {
                greedy = Some((p.arena_bytes(), t));
            }
            let (g_arena, g_time) = greedy.unwrap_or((p.arena_bytes(), t));
            println!(
                "| {} | `{planner}` | {} | {} | {} | {} | {} | {} | {} |",
                thousands(n as u64),
                thousands(p.arena_bytes()),
                percent(p.arena_bytes(), g_arena),
                percent(p.arena_bytes(), bound),
                ms(t),
                ratio(t, g_time),
                thousands(p.search_steps()),
                if p.proven_optimal() { "yes" } else { "no" }
            );
        }
    }
    println!(
        "\nTimes include the verifier. Random problems: lifetimes of 1 to 32 steps starting \
         anywhere in the first half of as many steps as buffers, sizes 1 B to 64 KiB, alignment 16.\n"
    );
}

fn person_detect(shared: &Path) {
    let path = shared.join("models/tflm_person_detect_int8.tflite");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("({} absent: pipeline timing skipped)\n", path.display());
        return;
    };
    let (t, result) = timed(20, || plan_model(&bytes, &Options::default()));
    match result {
        Ok(p) => println!(
            "### Whole pipeline on person_detect, default planner\n\n\
             `tflm_person_detect_int8.tflite`: read, validate, lifetimes, `auto` ({} won), verify in \
             {} (best of 20; target < 50 ms); arena {} B = lower bound, proven optimal: {}.\n",
            p.plan.winner(),
            ms(t),
            thousands(p.arena_bytes()),
            p.plan.proven_optimal()
        ),
        Err(e) => println!("person_detect failed: {e}\n"),
    }
}

fn minimalloc(shared: &Path) {
    let dir = shared.join("benchmarks/minimalloc");
    let names = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"];
    if !dir.join("A.1048576.csv").is_file() {
        println!("(MiniMalloc instances absent: table skipped)\n");
        return;
    }
    println!(
        "### MiniMalloc's hard instances (`auto`, default budget of {} steps)\n",
        thousands(plan::DEFAULT_SEARCH_STEPS)
    );
    println!(
        "| instance | buffers | lower bound | greedy | `--capacity 1048576`: arena | time | search steps | proven optimal | no capacity: arena | time | search steps | proven optimal |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    let (mut total_cap, mut total_free) = (Duration::ZERO, Duration::ZERO);
    let mut packed = 0;
    for name in names {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("{name}.1048576.csv"))) else {
            continue;
        };
        let csv = match problem_csv::read_csv(&text, 1) {
            Ok(c) => c,
            Err(e) => {
                println!("| {name} | {e} |||||||||||");
                continue;
            }
        };
        let problem = &csv.problem;
        let bound = plan::lower_bound(problem).aligned_bytes;
        let greedy = plan::run(problem, Planner::Greedy).arena_bytes();
        let with_cap = Settings {
            capacity: Some(1_048_576),
            ..Settings::default()
        };
        let (tc, cap) = timed(1, || {
            stowplan_planner::verify::solve_with(problem, &with_cap)
        });
        let (tf, free) = timed(1, || {
            stowplan_planner::verify::solve_with(problem, &Settings::default())
        });
        let (Ok(cap), Ok(free)) = (cap, free) else {
            println!("| {name} | failed verification |||||||||||");
            continue;
        };
        total_cap += tc;
        total_free += tf;
        packed += usize::from(cap.arena_bytes() <= 1_048_576);
        let yes = |b: bool| if b { "yes" } else { "no" };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            problem.buffers().len(),
            thousands(bound),
            thousands(greedy),
            thousands(cap.arena_bytes()),
            ms(tc),
            thousands(cap.search_steps()),
            yes(cap.proven_optimal()),
            thousands(free.arena_bytes()),
            ms(tf),
            thousands(free.search_steps()),
            yes(free.proven_optimal())
        );
    }
    println!(
        "| all | | | | {packed} of 11 within 1,048,576 | {} | | | | {} | | |",
        ms(total_cap),
        ms(total_free)
    );
    println!(
        "\nMiniMalloc's own C++ solver: 0.5 to 4.8 s per instance, 27.3 s for all eleven on a \
         2-core machine like this one.\n"
    );
}

fn main() {
    let shared = std::env::args().nth(1).map_or_else(
        || stowplan_tests::repo_root().join("../shared"),
        PathBuf::from,
    );
    shared_models(&shared);
    random_problems();
    person_detect(&shared);
    minimalloc(&shared);
}
