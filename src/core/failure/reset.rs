//! When Cursor says its usage limit resets: its own words, and the day they name as data.

/// When Cursor says its usage limit resets, in its own words ("1/1/2027"), read from a line
/// such as "It will reset when your monthly cycle ends on 1/1/2027."
pub(super) fn quota_reset(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("reset")?;
    let line_end = lower[at..].find('\n').map_or(lower.len(), |n| at + n);
    let line = &lower[at..line_end];
    let (word, start) = [" on ", " at ", " in "]
        .iter()
        .filter_map(|w| line.find(w).map(|i| (*w, i)))
        .min_by_key(|(_, i)| *i)?;
    let from = at + start + word.len();
    let rest = &text[from..line_end];
    // The sentence ends at a full stop followed by a space, or at markdown or a remark.
    let end = [rest.find(['*', ';', '(']), rest.find(". ")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    let when = rest[..end].trim().trim_end_matches('.').trim();
    (!when.is_empty()).then(|| format!("{}{when}", word.trim_start()))
}

/// The day a reset time in Cursor's words names ("on 1/1/2027": month/day/year), as epoch
/// milliseconds of its midnight UTC; `None` for anything but a real calendar date.
pub(super) fn reset_day(when: &str) -> Option<i64> {
    let date = when
        .split_whitespace()
        .find(|word| word.matches('/').count() == 2)?
        .trim_end_matches(['.', ',']);
    let mut fields = date.split('/').map(|field| field.parse::<i64>().ok());
    let (month, day, year) = (fields.next()??, fields.next()??, fields.next()??);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if !(1970..=9999).contains(&year) || !(1..=days_in_month).contains(&day) {
        return None;
    }
    Some(days_since_epoch(year, month, day) * 86_400_000)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (years counted from
/// March, so that the leap day ends a year).
fn days_since_epoch(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_reset_times_in_cursor_words() {
        let table: &[(&str, Option<&str>)] = &[
            (
                "*You've hit your free requests limit. It will reset when your monthly cycle ends on 1/1/2027.*",
                Some("on 1/1/2027"),
            ),
            ("Your limit resets at 10:00 UTC. Upgrade for more.", Some("at 10:00 UTC")),
            ("usage limit; resets in 3 hours (upgrade)", Some("in 3 hours")),
            ("You've hit your usage limit", None),
            ("the limit will reset soon", None),
        ];
        for (text, expected) in table {
            assert_eq!(quota_reset(text).as_deref(), *expected, "{text}");
        }
    }

    #[test]
    fn a_named_reset_day_is_its_midnight_utc() {
        let table: &[(&str, Option<i64>)] = &[
            ("on 1/1/2027", Some(1_798_761_600_000)),
            ("on 12/1/2026", Some(1_796_083_200_000)),
            ("on 2/29/2028", Some(1_835_395_200_000)),
            ("on 1/1/1970", Some(0)),
            ("on 2/29/2027", None),
            ("on 13/1/2027", None),
            ("on 0/10/2027", None),
            ("on 4/31/2027", None),
            ("at 10:00 UTC", None),
            ("in 3 hours", None),
            ("on 1/1", None),
        ];
        for (when, expected) in table {
            assert_eq!(reset_day(when), *expected, "{when}");
        }
    }
}
