use super::*;

#[test]
fn covered_ranges_leave_only_their_gaps() {
    let mut covered = Covered::default();
    covered.add(5..8);
    covered.add(10..12);
    assert_eq!(covered.gaps(0..20), vec![0..5, 8..10, 12..20]);
    assert_eq!(covered.gaps(6..11), vec![8..10]);
    covered.add(8..10);
    assert_eq!(covered.0, vec![5..12]);
    assert_eq!(covered.gaps(5..12), Vec::<std::ops::Range<usize>>::new());
}
