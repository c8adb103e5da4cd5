//! Device layer (in progress).
