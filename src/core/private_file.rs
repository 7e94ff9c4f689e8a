//! Files and folders only the user may read: the log, captures, the data folder, and the tool
//! bridge's private folder (its token, and the rules Cursor obeys).
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
/// The mode of a private program (the hook script Cursor runs).
pub const SCRIPT_MODE: u32 = 0o700;

/// Creates `folder` and any missing parent, each new one 0700. The folder itself must not be a
/// symbolic link; when it already exists it is narrowed to 0700.
pub fn create_folder(folder: &Path) -> io::Result<()> {
    let mut builder = folder_builder();
    builder.recursive(true);
    refuse_link(folder)?;
    builder.create(folder)?;
    // Created by someone else in between, or by an older release with a wider mode.
    refuse_link(folder)?;
    narrow(folder, FOLDER_MODE)
}

/// Creates `folder`, which must not exist yet (a link there counts as existing), 0700; its
/// parent must exist.
pub fn create_new_folder(folder: &Path) -> io::Result<()> {
    folder_builder().create(folder)
}

/// Makes folders 0700 from their creation.
fn folder_builder() -> std::fs::DirBuilder {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, FOLDER_MODE);
    builder
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
    create_new_with_mode(path, FILE_MODE)
}

fn create_new_with_mode(path: &Path, mode: u32) -> io::Result<File> {
    options_with_mode(mode)
        .write(true)
        .create_new(true)
        .open(path)
}

/// Replaces `path` with `bytes` at once: written into a new 0600 file beside it, then renamed
/// over it, so a reader sees the old content or the new, and a link at `path` is replaced,
/// never followed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with_mode(path, bytes, FILE_MODE)
}

/// [`write_atomic`] with another mode (given at the file's creation, like 0600's).
pub fn write_atomic_with_mode(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    write_atomic_with(path, mode, |file| file.write_all(bytes))
}

/// [`write_atomic_with_mode`] with the writing done by `fill` (tests look at the file before
/// its first byte). Each write has a name of its own beside `path`: two writers of one file
/// never share a half-written one.
pub fn write_atomic_with(
    path: &Path,
    mode: u32,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let partial = partial_path(path);
    let written = create_new_with_mode(&partial, mode).and_then(|mut file| {
        fill(&mut file)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&partial, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    renamed
}

/// Removes the file at `path` if there is one (a link is removed, not its target).
pub fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
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
    options_with_mode(FILE_MODE)
}

fn options_with_mode(mode: u32) -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode).custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    let _ = mode;
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
