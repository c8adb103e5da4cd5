//! Iteration-order mode (issue 14): every PARALLEL loop of a program converted with
//! `sapfor build --order` / `sapfor run --order` asks `sapfor_order_index` for the index of
//! each iteration, so its iterations run in their own order, in reverse, or in a seeded
//! random permutation, inside each process (and inside each thread's share). A PARALLEL
//! directive asserts that the order does not matter; a directive that is wrong then changes
//! the output every time, not only when threads happen to race.
//!
//! Environment (read once):
//! - `SAPFOR_ORDER`: `none` (or unset), `reverse`, `shuffle` or `shuffle=SEED`;
//! - `SAPFOR_ORDER_LOOPS`: comma-separated loop ids (`file * 1000000 + line`, as in the
//!   profile): only these loops change their order (`sapfor run --order` narrows a
//!   difference down to one loop with it);
//! - `SAPFOR_ORDER_LOG`: a file where process 0 writes, at the end, the loops that ran with
//!   a changed order, one `id FILE:LINE` per line.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

pub use crate::order_mode::{parse_mode, Mode};

struct Order {
    mode: Mode,
    /// SAPFOR_ORDER names a mode (`none` included): the emulator follows it.
    given: bool,
    only: Option<BTreeSet<i64>>,
    log: Option<String>,
    seen: Mutex<BTreeSet<i64>>,
}

static ORDER: OnceLock<Order> = OnceLock::new();

fn order() -> &'static Order {
    ORDER.get_or_init(|| {
        let var = std::env::var("SAPFOR_ORDER").unwrap_or_default();
        let mode = match parse_mode(&var) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("sapfor runtime: SAPFOR_ORDER: {e}");
                std::process::exit(2);
            }
        };
        let only = std::env::var("SAPFOR_ORDER_LOOPS").ok().map(|v| {
            v.split(',')
                .filter_map(|x| x.trim().parse::<i64>().ok())
                .collect()
        });
        Order {
            mode,
            given: !var.trim().is_empty(),
            only,
            log: std::env::var("SAPFOR_ORDER_LOG").ok().filter(|s| !s.is_empty()),
            seen: Mutex::new(BTreeSet::new()),
        }
    })
}

/// Validate the environment at start-up (a wrong value stops the program with a message).
pub fn init() {
    let _ = order();
}

/// The mode `SAPFOR_ORDER` names, None when it is unset or empty.
pub fn requested() -> Option<Mode> {
    let o = order();
    o.given.then_some(o.mode)
}

/// splitmix64: a well-mixed 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A keyed permutation of `0..n`: a 4-round Feistel network on the smallest even number of
/// bits that holds `n - 1`, walked until the value falls below `n` (a bijection of `0..n`,
/// fewer than 4 steps on average), without storing anything.
pub fn permute(x: u64, n: u64, key: u64) -> u64 {
    if n <= 1 {
        return x;
    }
    let bits = 64 - (n - 1).leading_zeros();
    let half = bits.div_ceil(2);
    let mask = (1u64 << half) - 1;
    let mut y = x;
    loop {
        let (mut l, mut r) = (y >> half, y & mask);
        for round in 0..4u64 {
            let f = mix(r ^ key.wrapping_add(round.wrapping_mul(0x5851_f42d_4c95_7f2d))) & mask;
            let t = l ^ f;
            l = r;
            r = t;
        }
        y = (l << half) | r;
        if y < n {
            return y;
        }
    }
}

/// The index the iteration `k` of the loop `lo..=hi` (identified by `src`) runs with.
#[no_mangle]
pub extern "C" fn sapfor_order_index(k: i64, lo: i64, hi: i64, src: i64) -> i64 {
    let o = order();
    if o.mode == Mode::InOrder || hi < lo {
        return k;
    }
    if let Some(only) = &o.only {
        if !only.contains(&src) {
            return k;
        }
    }
    if o.log.is_some() {
        thread_local!(static LAST: std::cell::Cell<i64> = const { std::cell::Cell::new(i64::MIN) });
        if LAST.with(|l| l.replace(src)) != src {
            if let Ok(mut s) = o.seen.lock() {
                s.insert(src);
            }
        }
    }
    let n = (hi - lo + 1) as u64;
    let x = (k - lo) as u64;
    let y = match o.mode {
        Mode::InOrder => x,
        Mode::Reverse => n - 1 - x,
        Mode::Shuffle(seed) => permute(x, n, mix(seed ^ mix(src as u64 ^ mix(lo as u64 ^ (n << 32))))),
    };
    lo + y as i64
}

/// At the end of the program: the log of the loops whose order changed (process 0), one
/// `id FILE:LINE` line each (`name` gives the place, as in the profile).
pub fn finish(rank: usize, name: impl Fn(i64) -> String) {
    let Some(o) = ORDER.get() else { return };
    if rank != 0 {
        return;
    }
    if let Some(path) = &o.log {
        let seen = o.seen.lock().map(|s| s.clone()).unwrap_or_default();
        let text: String = seen.iter().map(|s| format!("{s} {}\n", name(*s))).collect();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("sapfor runtime: cannot write {path}: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_is_a_bijection_for_every_size_and_differs_from_the_identity() {
        for n in 1..200u64 {
            for key in [0u64, 7, 12345] {
                let mut seen = vec![false; n as usize];
                for x in 0..n {
                    let y = permute(x, n, key);
                    assert!(y < n, "n {n} key {key}: {x} -> {y}");
                    assert!(!seen[y as usize], "n {n} key {key}: {y} twice");
                    seen[y as usize] = true;
                }
                if n >= 8 {
                    assert!((0..n).any(|x| permute(x, n, key) != x), "n {n} key {key}: identity");
                }
            }
        }
        // another key, another order
        assert!((0..100).any(|x| permute(x, 100, 1) != permute(x, 100, 2)));
    }

    #[test]
    fn modes_parse_and_wrong_values_are_refused() {
        assert_eq!(parse_mode(""), Ok(Mode::InOrder));
        assert_eq!(parse_mode("reverse"), Ok(Mode::Reverse));
        assert_eq!(parse_mode("shuffle"), Ok(Mode::Shuffle(1)));
        assert_eq!(parse_mode("shuffle=42"), Ok(Mode::Shuffle(42)));
        assert!(parse_mode("shuffle=x").unwrap_err().contains("expected none, reverse"));
        assert!(parse_mode("backwards").is_err());
    }
}
