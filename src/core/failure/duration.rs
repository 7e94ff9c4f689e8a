//! Durations as failure messages state them: in seconds, minutes and hours, never as a
//! count of milliseconds ("1500 ms" reads to some hosts like an HTTP status and gets retried).

use std::time::Duration;

/// `0.5 s`, `1.5 s`, `59.9 s`, `2 min 5 s`, `1 h 30 min`: every number in it is below 60 but
/// the hours, and seconds keep at most one decimal.
pub fn readable_duration(duration: Duration) -> String {
    let tenths = (duration.as_millis() + 50) / 100;
    if tenths < 600 {
        let (whole, tenth) = (tenths / 10, tenths % 10);
        return if tenth == 0 {
            format!("{whole} s")
        } else {
            format!("{whole}.{tenth} s")
        };
    }
    let seconds = (duration.as_millis() + 500) / 1000;
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    match (hours, minutes, seconds) {
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    use super::readable_duration;
    use std::time::Duration;

    #[test]
    fn durations_read_in_seconds_minutes_and_hours() {
        let table: &[(u64, &str)] = &[
            (0, "0 s"),
            (500, "0.5 s"),
            (1_500, "1.5 s"),
            (1_504, "1.5 s"),
            (5_000, "5 s"),
            (59_940, "59.9 s"),
            (59_960, "1 min"),
            (125_000, "2 min 5 s"),
            (500_000, "8 min 20 s"),
            (3_600_000, "1 h"),
            (5_400_000, "1 h 30 min"),
            (86_400_000, "24 h"),
        ];
        for (ms, expected) in table {
            assert_eq!(
                readable_duration(Duration::from_millis(*ms)),
                *expected,
                "{ms} ms"
            );
        }
    }
}
