//! The private folder of one run's attachments:
//! `<temp>/opencode-cursor-native-<uid>/attachments/<host pid>-<random>/<random>.<ext>`.
//!
//! Outside the user's repository (Cursor's workspace in tool mode `cursor`), in the system's
//! temporary folder, which every Cursor build may read. The parent folders are the user's own
//! (0700, owned by the user, never a link: another local user cannot pre-create or widen them);
//! should another user have made `<temp>/opencode-cursor-native-<uid>` first, the folder is
//! `opencode-cursor-native/attachments/` under `$XDG_RUNTIME_DIR`, else the user's cache folder,
//! held to the same rule. A run's folder is new (0700, created once, never reused) and its files
//! are 0600. The folder is removed when its run ends, however it ends; a host killed before that
//! leaves it behind, and the next host removes every folder whose host process is gone, once,
//! before its first run.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Once;

use super::format::ATTACHMENTS_PER_RUN;
use super::placement::PlannedFile;
use crate::core::private_file::{create_folder, create_new, create_new_folder};
use crate::core::process_alive::process_exists;

/// The folders a run's folder may be made in, in the order they are tried: the temporary
/// folder's, then one only the user can write in (`$XDG_RUNTIME_DIR`, else the cache folder).
fn bases() -> Vec<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let private = var("XDG_RUNTIME_DIR")
        .or_else(|| var("XDG_CACHE_HOME"))
        .or_else(|| var("HOME").map(|home| home.join(".cache")));
    let shared = std::env::temp_dir().join(format!("opencode-cursor-native-{}", user_id()));
    let private = private.map(|folder| folder.join("opencode-cursor-native"));
    let bases = [Some(shared), private].into_iter().flatten();
    bases.map(|folder| folder.join("attachments")).collect()
}

/// The folder every run's attachments folder is made in: the first of [`bases`] that is the
/// user's own with the folder above it (made so when missing).
pub fn attachments_base() -> PathBuf {
    first_ours(&bases())
}

/// The first of `bases` that is the user's own with the folder above it, else the first.
fn first_ours(bases: &[PathBuf]) -> PathBuf {
    for (at, base) in bases.iter().enumerate() {
        let Err(error) = make_ours_with_parent(base) else {
            return base.clone();
        };
        if let Some(next) = bases.get(at + 1) {
            static WARNED: Once = Once::new();
            WARNED.call_once(|| {
                tracing::warn!(%error, refused = %base.display(), instead = %next.display(),
                    "attachments go to a folder of the user's own: another local user may have made the shared one first");
            });
        }
    }
    bases[0].clone()
}

/// `base` and the folder above it made the user's own ([`make_ours`]).
fn make_ours_with_parent(base: &Path) -> io::Result<()> {
    base.parent().map_or(Ok(()), make_ours)?;
    make_ours(base)
}

#[cfg(unix)]
fn user_id() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn user_id() -> String {
    std::env::var("USERNAME").unwrap_or_default()
}

/// A new, unused name for a run's folder under [`attachments_base`]: this host's pid (which
/// tells a later host whether its owner is gone), then a random part.
pub fn new_run_folder() -> PathBuf {
    attachments_base().join(format!(
        "{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ))
}

/// A run's attachments, written; removed when dropped.
#[derive(Debug)]
pub struct AttachmentFolder {
    path: PathBuf,
}

impl AttachmentFolder {
    /// Creates `path` (which must not exist, and must be a folder of one of [`bases`]) and
    /// writes `files` into it. On any failure nothing is left behind.
    pub fn create(path: &Path, files: &[PlannedFile]) -> io::Result<Self> {
        check(path, files)?;
        // Each folder on the way is ours: the temporary folder is shared, and whoever owns a
        // folder above the run's could swap what Cursor reads.
        make_ours_with_parent(path.parent().unwrap_or(path))?;
        // A run's folder is never shared: one already there (or a link) is an error.
        create_new_folder(path)?;
        let folder = Self {
            path: path.to_owned(),
        };
        for file in files {
            create_new(&path.join(&file.name))?.write_all(&file.data)?;
        }
        Ok(folder)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for AttachmentFolder {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_dir_all(&self.path) {
            if error.kind() != io::ErrorKind::NotFound {
                tracing::warn!(folder = %self.path.display(), %error, "attachments folder not removed");
            }
        }
    }
}

/// Refuses a folder other than a plain-named one of [`bases`], a file name that is not plain
/// (letters, digits, `-` and `.`), and more than [`ATTACHMENTS_PER_RUN`] files.
pub fn check(path: &Path, files: &[PlannedFile]) -> io::Result<()> {
    let invalid = |message: String| Err(io::Error::new(io::ErrorKind::InvalidInput, message));
    let plain = |name: &str| {
        !matches!(name, "" | "." | "..")
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    };
    let bases = bases();
    let folder_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !bases.iter().any(|base| path.parent() == Some(base)) || !plain(folder_name) {
        return invalid(format!(
            "the attachments folder must be a folder of {}, not {}",
            bases[0].display(),
            path.display()
        ));
    }
    if let Some(bad) = files.iter().find(|f| !plain(&f.name)) {
        return invalid(format!("{:?} is not a plain file name", bad.name));
    }
    if files.len() > ATTACHMENTS_PER_RUN {
        return invalid(format!(
            "{} attachments; a run takes at most {ATTACHMENTS_PER_RUN}",
            files.len()
        ));
    }
    Ok(())
}

/// `folder`, created 0700 when missing; refused when it is a link or another user's.
fn make_ours(folder: &Path) -> io::Result<()> {
    create_folder(folder)?;
    if is_ours(folder) {
        return Ok(());
    }
    let message = format!("{} belongs to another user", folder.display());
    Err(io::Error::new(io::ErrorKind::PermissionDenied, message))
}

/// Whether `path` is a folder (not a link) of the user's own: a folder another user made could
/// be read by them.
fn is_ours(path: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::uid(&meta) != user_id() {
        return false;
    }
    meta.is_dir()
}

/// Once per host process: the folders of hosts that are gone (killed before their runs ended),
/// in each of [`bases`] that is the user's own.
pub fn remove_left_behind_once() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let removed = remove_left_behind_in(&bases(), process_exists);
        if removed > 0 {
            tracing::debug!(removed, "attachments of ended hosts removed");
        }
    });
}

/// [`remove_left_behind`] in each of `bases` that is a folder of the user's own with the folder
/// above it (never through a link: it could lead to any folder of theirs).
fn remove_left_behind_in(bases: &[PathBuf], running: impl Fn(u32) -> bool) -> usize {
    let ours = bases
        .iter()
        .filter(|base| base.parent().is_none_or(is_ours) && is_ours(base));
    ours.map(|base| remove_left_behind(base, &running)).sum()
}

/// Removes the folders under `base` whose host (the pid their name starts with) is not
/// `running`; returns how many.
pub fn remove_left_behind(base: &Path, running: impl Fn(u32) -> bool) -> usize {
    let Ok(entries) = fs::read_dir(base) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !running(pid) && fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> PlannedFile {
        PlannedFile {
            name: name.to_owned(),
            data: bytes.into(),
        }
    }

    #[test]
    fn a_runs_folder_is_private_holds_the_bytes_and_goes_with_the_run() {
        let path = new_run_folder();
        let folder = AttachmentFolder::create(&path, &[file("a.png", b"\x89PNG")]).unwrap();
        assert_eq!(fs::read(path.join("a.png")).unwrap(), b"\x89PNG");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o700);
            assert_eq!(mode(&path.join("a.png")), 0o600);
            assert_eq!(mode(&attachments_base()), 0o700);
            assert_eq!(mode(attachments_base().parent().unwrap()), 0o700);
        }
        assert!(
            AttachmentFolder::create(&path, &[]).is_err(),
            "a folder is never reused"
        );
        drop(folder);
        assert!(!path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_on_the_way_is_refused_and_a_folder_of_ours_is_narrowed() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = std::env::temp_dir().join(format!("ocn-ours-{}", uuid::Uuid::new_v4()));
        let elsewhere = scratch.join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        let link = scratch.join("link");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        assert!(make_ours(&link).is_err(), "a link is not followed");
        let wide = scratch.join("wide");
        fs::create_dir(&wide).unwrap();
        fs::set_permissions(&wide, fs::Permissions::from_mode(0o777)).unwrap();
        make_ours(&wide).unwrap();
        let mode = fs::metadata(&wide).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fs::remove_dir_all(&scratch).unwrap();
    }

    #[test]
    fn only_plain_names_in_the_base_are_written() {
        let bad_folders = [
            std::env::temp_dir().join("elsewhere"),
            attachments_base().join("..").join("x"),
        ];
        for path in bad_folders {
            assert_eq!(
                AttachmentFolder::create(&path, &[]).unwrap_err().kind(),
                io::ErrorKind::InvalidInput,
                "{}",
                path.display()
            );
        }
        let path = new_run_folder();
        let err = AttachmentFolder::create(&path, &[file("../x.png", b"x")]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(!path.exists(), "nothing is left behind");
    }

    #[test]
    fn a_failed_write_leaves_nothing() {
        let path = new_run_folder();
        // The second file cannot be created: the first has its name.
        let files = [file("a.png", b"ok"), file("a.png", b"again")];
        assert!(AttachmentFolder::create(&path, &files).is_err());
        assert!(!path.exists());
    }

    #[test]
    fn folders_of_ended_hosts_are_removed_and_others_kept() {
        let base = std::env::temp_dir().join(format!("ocn-left-behind-{}", uuid::Uuid::new_v4()));
        for name in [
            "111-a",
            "222-b",
            "notapid",
            &format!("{}-own", std::process::id()),
        ] {
            fs::create_dir_all(base.join(name).join("inner")).unwrap();
        }
        let removed = remove_left_behind(&base, |pid| pid == 222);
        assert_eq!(removed, 1);
        assert!(!base.join("111-a").exists());
        assert!(base.join("222-b").exists(), "its host still runs");
        assert!(base.join("notapid").exists(), "not one of ours");
        assert!(base.join(format!("{}-own", std::process::id())).exists());
        fs::remove_dir_all(&base).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_shared_folder_another_user_made_first_gives_way_to_a_private_one_swept_alike() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = std::env::temp_dir().join(format!("ocn-fallback-{}", uuid::Uuid::new_v4()));
        let elsewhere = scratch.join("elsewhere");
        fs::create_dir_all(elsewhere.join("attachments/111-left")).unwrap();
        // Made first, as a link to a folder of someone else's choosing.
        let shared = scratch.join("opencode-cursor-native-0");
        std::os::unix::fs::symlink(&elsewhere, &shared).unwrap();
        let private = scratch.join("runtime/opencode-cursor-native/attachments");
        let bases = [shared.join("attachments"), private.clone()];
        assert_eq!(first_ours(&bases), private);
        assert_eq!(
            fs::metadata(&private).unwrap().permissions().mode() & 0o777,
            0o700
        );
        fs::create_dir_all(private.join("111-left")).unwrap();
        fs::create_dir_all(private.join("222-running")).unwrap();
        assert_eq!(remove_left_behind_in(&bases, |pid| pid == 222), 1);
        assert!(
            !private.join("111-left").exists(),
            "a killed host's folder is removed"
        );
        assert!(private.join("222-running").exists());
        assert!(
            elsewhere.join("attachments/111-left").exists(),
            "nothing is removed through a link"
        );
        fs::remove_dir_all(&scratch).unwrap();
    }
}
