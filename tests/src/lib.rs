//! Test support for chatmd's end-to-end tests.
