//! How chatmd writes durations and sizes, in one place: `took=12.4s` in a status
//! comment and in the editor's progress, `10 min` in a message, `1.2 KB` of answer.

use std::time::Duration;

/// `12.4s` (tenths), or `3m05s` past a minute: a turn's time in a status comment
/// (`took=`) and in its progress, one word with no space.
pub fn took(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        let whole = d.as_secs();
        format!("{}m{:02}s", whole / 60, whole % 60)
    }
}

/// `300 ms`, `12 s`, `1.5 s`, `10 min`, `1 h 5 min`: a duration as a message shows it.
pub fn duration(d: Duration) -> String {
    let millis = d.as_millis();
    let secs = d.as_secs();
    if millis < 1000 {
        format!("{millis} ms")
    } else if secs < 60 {
        let tenths = millis / 100;
        if tenths.is_multiple_of(10) {
            format!("{secs} s")
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    } else if secs < 3600 {
        if secs.is_multiple_of(60) {
            format!("{} min", secs / 60)
        } else {
            format!("{} min {} s", secs / 60, secs % 60)
        }
    } else {
        format!("{} h {} min", secs / 3600, secs % 3600 / 60)
    }
}

/// `640 B`, `1.2 KB`, `3.4 MB` (decimal units): how much text an answer has.
pub fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} KB", b as f64 / 1000.0),
        b => format!("{:.1} MB", b as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_times_are_one_word() {
        let times = [Duration::from_millis(12_449), Duration::from_secs(185)];
        assert_eq!(times.map(took), ["12.4s", "3m05s"]);
    }

    #[test]
    fn durations_read_like_a_person_wrote_them() {
        let millis = [300, 12_000, 1500, 600_000, 90_000, 3_900_000];
        assert_eq!(
            millis.map(|ms| duration(Duration::from_millis(ms))),
            [
                "300 ms",
                "12 s",
                "1.5 s",
                "10 min",
                "1 min 30 s",
                "1 h 5 min"
            ]
        );
    }

    #[test]
    fn sizes_in_decimal_units() {
        let sizes = [640, 1234, 3_400_000];
        assert_eq!(sizes.map(size), ["640 B", "1.2 KB", "3.4 MB"]);
    }
}
