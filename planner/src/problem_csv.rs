//! MiniMalloc's CSV problem format: a header `id,lower,upper,size`, then one buffer per line
//! that holds `size` bytes during the half-open time range `[lower, upper)`.
//!
//! Times become inclusive lifetimes `lower..=upper-1`. Ids are kept as text for reports.

use std::fmt;

use crate::plan::{Buffer, Problem, ProblemError, Time};

/// A problem read from CSV, with the id of each buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvProblem {
    /// The id column, one per buffer.
    pub ids: Vec<String>,
    /// The problem.
    pub problem: Problem,
}

/// A CSV problem file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadProblemError {
    /// The first line is not the expected header.
    BadHeader {
        /// The line found.
        found: String,
    },
    /// A line that cannot be read.
    BadLine {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The buffers do not form a valid problem.
    Problem(ProblemError),
}

impl fmt::Display for ReadProblemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadHeader { found } => {
                write!(
                    f,
                    "problem CSV must start with the header id,lower,upper,size, found {found:?}"
                )
            }
            Self::BadLine { line, reason } => write!(f, "problem CSV line {line}: {reason}"),
            Self::Problem(e) => write!(f, "problem CSV: {e}"),
        }
    }
}

impl std::error::Error for ReadProblemError {}

/// Reads MiniMalloc's CSV format.
///
/// # Errors
///
/// [`ReadProblemError`] naming the line of a missing or extra column, a value that is not a
/// non-negative integer, an empty time range, a duplicate id, or an invalid alignment.
///
/// ```
/// use stowplan_planner::problem_csv::read_csv;
///
/// let csv = "id,lower,upper,size\nA,0,2,16\nB,2,4,16\n";
/// let p = read_csv(csv, 1)?;
/// assert_eq!(p.ids, ["A", "B"]);
/// assert_eq!(p.problem.buffers()[0].lifetime.last, 1); // [0, 2) is 0..=1
/// # Ok::<(), stowplan_planner::problem_csv::ReadProblemError>(())
/// ```
pub fn read_csv(text: &str, alignment: u64) -> Result<CsvProblem, ReadProblemError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let header = lines.next().map(|(_, l)| l.trim()).unwrap_or_default();
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    if columns != ["id", "lower", "upper", "size"] {
        return Err(ReadProblemError::BadHeader {
            found: header.chars().take(80).collect(),
        });
    }
    let mut ids = Vec::new();
    let mut buffers = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (n, line) in lines {
        let line_no = n + 1;
        let bad = |reason: String| ReadProblemError::BadLine {
            line: line_no,
            reason,
        };
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [id, lower, upper, size] = fields.as_slice() else {
            return Err(bad(format!("expected 4 columns, found {}", fields.len())));
        };
        let number = |name: &str, value: &str| {
            value
                .parse::<u64>()
                .map_err(|_| bad(format!("{name} {value:?} is not a non-negative integer")))
        };
        let (lower, upper, size) = (
            number("lower", lower)?,
            number("upper", upper)?,
            number("size", size)?,
        );
        if upper <= lower {
            return Err(bad(format!("time range [{lower}, {upper}) is empty")));
        }
        let (Ok(first), Ok(last)) = (Time::try_from(lower), Time::try_from(upper - 1)) else {
            return Err(bad(format!(
                "time range [{lower}, {upper}) goes beyond {}",
                Time::MAX
            )));
        };
        if !seen.insert((*id).to_owned()) {
            return Err(bad(format!("id {id:?} appears twice")));
        }
        ids.push((*id).to_owned());
        buffers.push(Buffer::new(size, first, last));
    }
    let problem = Problem::new(buffers, alignment).map_err(ReadProblemError::Problem)?;
    Ok(CsvProblem { ids, problem })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_converts_half_open_ranges() {
        let p = read_csv("id,lower,upper,size\r\n0,5,6,10\r\n1,0,100,3\r\n", 1).unwrap();
        assert_eq!(
            p.problem.buffers(),
            [Buffer::new(10, 5, 5), Buffer::new(3, 0, 99)]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("id,lower,upper\n", "header"),
            ("id,lower,upper,size\n0,1,2\n", "line 2: expected 4 columns"),
            (
                "id,lower,upper,size\n0,1,2,3\n1,2,2,3\n",
                "line 3: time range [2, 2) is empty",
            ),
            ("id,lower,upper,size\n0,1,x,3\n", "line 2: upper \"x\""),
            (
                "id,lower,upper,size\n0,1,2,3\n0,1,2,3\n",
                "line 3: id \"0\" appears twice",
            ),
            ("id,lower,upper,size\n0,0,99999999999,3\n", "goes beyond"),
        ];
        for (text, expected) in cases {
            let err = read_csv(text, 1).unwrap_err().to_string();
            assert!(
                err.contains(expected),
                "{err:?} should contain {expected:?}"
            );
        }
    }
}
