//! The capture folder: names, rotation by total size, and finding a capture by its name.

use std::path::{Path, PathBuf};

/// A capture file's extension.
pub const EXTENSION: &str = "ndjson";

/// Default of the folder's total size: 200 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 200 * 1024 * 1024;

/// How much of the folder's limit one capture may use: a quarter, so that the captures
/// already there, pruned to make room for it, and the new one together stay within the limit.
pub fn per_capture_limit(max_bytes: u64) -> u64 {
    max_bytes / 4
}

const CONSONANTS: &[u8] = b"bdfghjklmnprstvz";
const VOWELS: &[u8] = b"aeiou";

/// A new capture name: `cap-` and two six-letter words (about 10^12 names), without digits.
/// A failure's message names its capture, and OpenCode's retry rules read numbers in messages
/// ("500", "429"), so the name must not carry any.
pub fn fresh_name() -> String {
    let bits = uuid::Uuid::new_v4().as_u128();
    let mut name = String::from("cap-");
    let mut rest = bits;
    for word in 0..2 {
        if word > 0 {
            name.push('-');
        }
        for _ in 0..3 {
            let c = CONSONANTS[(rest % CONSONANTS.len() as u128) as usize];
            rest /= CONSONANTS.len() as u128;
            let v = VOWELS[(rest % VOWELS.len() as u128) as usize];
            rest /= VOWELS.len() as u128;
            name.push(c as char);
            name.push(v as char);
        }
    }
    name
}

/// What a failure adds to its message about its capture.
pub fn failure_note(name: &str) -> String {
    format!(
        "The run was captured as {name}: `npx opencode-cursor-native replay {name}` shows \
         where it went wrong."
    )
}

/// The file of capture `name` in `folder`.
pub fn capture_path(folder: &Path, name: &str) -> PathBuf {
    folder.join(format!("{name}.{EXTENSION}"))
}

/// Removes the oldest captures in `folder` until the rest leave room for one more capture
/// within `max_bytes`. Returns how many were removed. Files that are not captures stay, and
/// so does `keep` (a capture that has just ended is not the oldest, whatever the clock says).
pub fn prune(folder: &Path, max_bytes: u64, keep: Option<&Path>) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut captures: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|e| e == EXTENSION))
        .filter_map(|entry| {
            let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
            Some((meta.modified().ok()?, meta.len(), entry.path()))
        })
        .collect();
    captures.sort();
    let room = max_bytes.saturating_sub(per_capture_limit(max_bytes));
    let mut total: u64 = captures.iter().map(|(_, len, _)| len).sum();
    let mut removed = 0;
    for (_, len, path) in captures {
        if total <= room {
            break;
        }
        if keep == Some(path.as_path()) {
            continue;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_no_digits_and_differ() {
        let names: std::collections::HashSet<String> = (0..200).map(|_| fresh_name()).collect();
        assert_eq!(names.len(), 200);
        for name in &names {
            let shaped = name.starts_with("cap-") && name.len() <= 64;
            assert!(shaped, "{name}");
            let safe_to_join = name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
            assert!(safe_to_join, "{name}");
            assert!(!failure_note(name).bytes().any(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn pruning_removes_the_oldest_until_one_more_fits() {
        let folder = std::env::temp_dir().join(format!("ocn-prune-{}", fresh_name()));
        std::fs::create_dir_all(&folder).unwrap();
        let now = std::time::SystemTime::now();
        for (i, name) in ["cap-a", "cap-b", "cap-c", "cap-d"].iter().enumerate() {
            let path = capture_path(&folder, name);
            std::fs::write(&path, vec![b'x'; 300]).unwrap();
            let age = std::time::Duration::from_secs(100 - i as u64 * 10);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(now - age)
                .unwrap();
        }
        std::fs::write(folder.join("notes.txt"), vec![b'x'; 5000]).unwrap();
        // A limit of 1000: room for 750 beside the next capture, so two of 300 must go.
        assert_eq!(prune(&folder, 1000, None), 2);
        let left: Vec<bool> = ["cap-a", "cap-b", "cap-c", "cap-d"]
            .iter()
            .map(|n| capture_path(&folder, n).exists())
            .collect();
        assert_eq!(left, [false, false, true, true], "the oldest went first");
        assert!(folder.join("notes.txt").exists(), "other files stay");
        assert_eq!(prune(&folder, 1000, None), 0);
        // The capture to keep counts, but stays even when its clock says it is the oldest.
        let keep = capture_path(&folder, "cap-c");
        std::fs::write(capture_path(&folder, "cap-e"), vec![b'x'; 300]).unwrap();
        assert_eq!(prune(&folder, 1000, Some(&keep)), 1);
        assert!(keep.exists(), "kept");
        assert!(
            !capture_path(&folder, "cap-d").exists(),
            "the oldest of the others went"
        );
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
