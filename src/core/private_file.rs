//! Files and folders only the user may read: the log, captures, the data folder.
//!
//! As OpenSSH does with `~/.ssh`: a folder is created 0700 and a file 0600 from its first byte
//! (the mode is given to `mkdir`/`open`, never set afterwards, so there is no moment another
//! local user could open it), an existing one of ours is narrowed to that mode, and a symbolic
//! link planted where one of them goes is refused rather than followed (`O_NOFOLLOW`, `lstat`):
//! following it would make the package write, or widen, whatever the link names. On Windows
//! the user's profile folders are private already and the calls are the plain ones.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The mode of a private folder.
pub const FOLDER_MODE: u32 = 0o700;
/// The mode of a private file.
pub const FILE_MODE: u32 = 0o600;

/// Creates `folder` and any missing parent, each new one 0700. The folder itself must not be a
/// symbolic link; when it already exists it is narrowed to 0700.
pub fn create_folder(folder: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, FOLDER_MODE);
    refuse_link(folder)?;
    builder.create(folder)?;
    // Created by someone else in between, or by an older release with a wider mode.
    refuse_link(folder)?;
    narrow(folder, FOLDER_MODE)
}

/// Opens `path` for appending, created 0600 when missing; an existing file is narrowed to
/// 0600. A symbolic link at `path` is refused.
pub fn open_append(path: &Path) -> io::Result<File> {
    let file = options().create(true).append(true).open(path)?;
    narrow_open(&file)?;
    Ok(file)
}

/// Creates `path`, which must not exist yet (a link there counts as existing), 0600.
pub fn create_new(path: &Path) -> io::Result<File> {
    options().write(true).create_new(true).open(path)
}

/// Replaces `path` with `bytes` at once: written into a new 0600 file beside it, then renamed
/// over it, so a reader sees the old content or the new, and a link at `path` is replaced,
/// never followed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let partial = partial_path(path);
    let written = create_new(&partial).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&partial, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    renamed
}

/// A name beside `path` no other writer uses.
fn partial_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".{}.{}.partial",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    path.with_file_name(name)
}

fn options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE).custom_flags(libc::O_NOFOLLOW);
    }
    options
}

fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is a symbolic link where a private folder belongs",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn narrow(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.permissions().mode() & 0o777 & !mode != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn narrow_open(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = file.metadata()?;
    if meta.permissions().mode() & 0o777 & !FILE_MODE != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow_open(_: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests;
