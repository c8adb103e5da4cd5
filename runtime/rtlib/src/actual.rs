//! Actuality tracking (in progress).
