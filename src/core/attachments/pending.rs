//! The files a plan names, kept in this process until a run saves them: a plan handed to the host
//! carries only their names and sizes, so a picture's bytes never cross into JS and back.
//!
//! A plan is run right after it is made, and once more only when the run's connection dropped
//! before anything was answered, so a few plans' files are all that need keeping. The newest
//! plans' are kept, within [`KEPT_PLANS`] and [`KEPT_BYTES`] (the newest always, whatever its
//! size); a run handed an older plan's attachments is refused with a message that says so.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::placement::PlannedFile;

/// How many plans' files are kept.
pub const KEPT_PLANS: usize = 16;

/// How many bytes of files are kept in all: two plans with 8 pictures of the largest size.
pub const KEPT_BYTES: usize = 160 * 1024 * 1024;

/// Each kept plan's folder and files, oldest first.
#[derive(Debug, Default)]
struct Kept(VecDeque<(String, Vec<PlannedFile>)>);

impl Kept {
    const fn new() -> Self {
        Self(VecDeque::new())
    }

    fn keep(&mut self, folder: &str, files: Vec<PlannedFile>) {
        self.0.retain(|(kept, _)| kept != folder);
        self.0.push_back((folder.to_owned(), files));
        let size = |files: &[PlannedFile]| files.iter().map(|f| f.data.len()).sum::<usize>();
        let mut bytes: usize = self.0.iter().map(|(_, files)| size(files)).sum();
        while self.0.len() > KEPT_PLANS || (bytes > KEPT_BYTES && self.0.len() > 1) {
            if let Some((_, evicted)) = self.0.pop_front() {
                bytes -= size(&evicted);
            }
        }
    }

    fn get(&self, folder: &str) -> Option<Vec<PlannedFile>> {
        let found = self.0.iter().find(|(kept, _)| kept == folder);
        found.map(|(_, files)| files.clone())
    }
}

static KEPT: Mutex<Kept> = Mutex::new(Kept::new());

/// Keeps `files` for the plan whose folder is `folder`, evicting the oldest plans past the limits.
pub fn keep(folder: &str, files: Vec<PlannedFile>) {
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    kept.keep(folder, files);
}

/// The files kept for `folder` (their bytes shared, not copied), if they still are.
pub fn kept(folder: &str) -> Option<Vec<PlannedFile>> {
    let kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    kept.get(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(bytes: usize) -> Vec<PlannedFile> {
        vec![PlannedFile {
            name: "a.png".into(),
            data: vec![0u8; bytes].into(),
        }]
    }

    #[test]
    fn the_newest_plans_are_kept_within_the_limits() {
        let mut kept = Kept::new();
        let folder = |n: usize| format!("folder-{n}");
        for n in 0..=KEPT_PLANS {
            kept.keep(&folder(n), files(1));
        }
        assert!(
            kept.get(&folder(0)).is_none(),
            "past the count, the oldest goes"
        );
        assert_eq!(kept.get(&folder(1)).unwrap(), files(1));
        // One plan larger than every byte kept evicts the rest, and is kept itself.
        kept.keep(&folder(100), files(KEPT_BYTES + 1));
        assert!(kept.get(&folder(KEPT_PLANS)).is_none());
        assert_eq!(
            kept.get(&folder(100)).unwrap()[0].data.len(),
            KEPT_BYTES + 1
        );
        // Within the bytes, the newest plans stay side by side; a folder planned again
        // replaces its files.
        kept.keep(&folder(101), files(KEPT_BYTES / 2));
        kept.keep(&folder(102), files(KEPT_BYTES / 2));
        assert!(kept.get(&folder(100)).is_none());
        assert!(kept.get(&folder(101)).is_some());
        kept.keep(&folder(102), files(2));
        assert_eq!(kept.get(&folder(102)).unwrap(), files(2));
    }

    #[test]
    fn the_process_store_hands_back_what_it_keeps() {
        let folder = format!("folder-{}", uuid::Uuid::new_v4().simple());
        keep(&folder, files(3));
        assert_eq!(kept(&folder).unwrap(), files(3));
        assert!(kept("never-planned").is_none());
    }
}
