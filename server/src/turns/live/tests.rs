use super::*;
use pretty_assertions::assert_eq;

#[test]
fn the_retry_value_counts_attempts() {
    let mut status = StatusComment::new();
    let retry = |attempt, max| Retry {
        attempt,
        max,
        reason: String::new(),
    };
    assert_eq!(retry_value(&retry(Some(3), Some(10)), &status), "3/10");
    assert_eq!(retry_value(&retry(None, None), &status), "1");
    status.set("retry", "2/5");
    assert_eq!(retry_value(&retry(None, None), &status), "3");
}
