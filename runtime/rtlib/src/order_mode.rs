//! The iteration-order modes of `SAPFOR_ORDER` (runtime/rtlib/src/order.rs). This file is
//! also compiled into the `runtime` crate (`runtime::driver::parse_order`), so that
//! `sapfor build/run --order` refuses a wrong mode with the same message, without linking
//! the runtime library.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    InOrder,
    Reverse,
    Shuffle(u64),
}

/// `SAPFOR_ORDER`'s value parsed; Err: the message for a wrong value.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    let s = s.trim();
    match s {
        "" | "none" => Ok(Mode::InOrder),
        "reverse" => Ok(Mode::Reverse),
        "shuffle" => Ok(Mode::Shuffle(1)),
        _ => match s.strip_prefix("shuffle=").map(|x| x.trim().parse::<u64>()) {
            Some(Ok(seed)) => Ok(Mode::Shuffle(seed)),
            _ => Err(format!(
                "iteration order `{s}`: expected none, reverse, shuffle or shuffle=SEED (SEED a non-negative integer)"
            )),
        },
    }
}

