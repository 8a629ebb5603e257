use super::memory::over_cap;

const MB: u64 = 1 << 20;

#[test]
fn under_the_memory_cap_nothing_ends() {
    assert_eq!(
        over_cap(&[(1, 30 * MB), (2, 30 * MB)], 60 * MB),
        Vec::<u64>::new()
    );
    assert_eq!(over_cap(&[], 0), Vec::<u64>::new());
}

#[test]
fn over_the_memory_cap_the_least_recently_used_end_until_the_rest_fit() {
    // Used in the order 3, 1, 2 (the stamps): 3 is the oldest.
    let kept = [(5, 40 * MB), (7, 40 * MB), (3, 40 * MB)];
    assert_eq!(over_cap(&kept, 100 * MB), [3]);
    assert_eq!(over_cap(&kept, 50 * MB), [3, 5]);
}

#[test]
fn a_process_alone_over_the_memory_cap_ends_too() {
    assert_eq!(over_cap(&[(9, 2 * MB)], MB), [9]);
}
