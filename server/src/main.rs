//! The `chatmd` binary: everything lives in the library so tests can reach it.

/// mimalloc rather than the system allocator: a long chat's parse builds a few
/// megabytes of lists, and glibc gives such blocks back to the system when they are
/// freed, so the next parse pays a page fault for every fresh page (a fifth of a
/// parse's time, and more when parts are parsed on several threads at once, whose
/// faults contend in the kernel). mimalloc keeps the memory for reuse. The
/// benchmark uses it too, to measure the server as shipped.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    chatmd::cli::main()
}
