//! Writing the private folder without trusting what is already there: folders are created `0700`
//! and files with their final mode from the first byte (the token never sits in a readable file,
//! not even for a moment), each file is written beside its place under a name no one else uses
//! and renamed over it (a reader sees the old file or the new one, never half of one; two
//! preparations of one folder never share a half-written file), and a symbolic link planted where
//! a folder or file goes is refused or replaced, never followed: the plugin must not write through
//! a link into the link's target.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Folders the plugin alone reads.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Files with the bridge's token or the rules Cursor obeys.
pub const PRIVATE_FILE_MODE: u32 = 0o600;
/// The hook script Cursor runs.
pub const PRIVATE_SCRIPT_MODE: u32 = 0o700;

fn refused_link(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link; the private folder is never written through one (remove it)",
            path.display()
        ),
    )
}

/// Make `path` a private folder: created `0700` when missing (its parents too, as the host
/// gives them), refused when it is a symbolic link, and narrowed to `0700` when it exists.
pub fn ensure_private_dir(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(refused_link(path)),
        Ok(meta) if meta.is_dir() => {
            narrow(path)?;
            return Ok(());
        }
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} is not a folder", path.display()),
            ))
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            fs::create_dir_all(parent)?;
        }
    }
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(PRIVATE_DIR_MODE);
    }
    match builder.create(path) {
        // Created meanwhile by another preparation of the same folder: checked as found.
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => ensure_private_dir(path),
        other => other,
    }
}

#[cfg(unix)]
fn narrow(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::symlink_metadata(path)?.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// A name beside `path` that no other writer uses (this process, a counter): a half-written file
/// of another preparation is never truncated or renamed from under it.
fn partial_name(path: &Path) -> std::path::PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.{}-{}.partial",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Open a new file at `path` with `mode` from its creation; never an existing file or a link.
fn create_new(path: &Path, mode: u32) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode).custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)
}

/// Write `contents` to `path` with `mode`: into a new file beside it, then renamed over it (a
/// link planted at `path` is replaced, its target untouched). The folder must be one
/// [`ensure_private_dir`] made.
pub fn write_private(path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    write_private_with(path, mode, |file| file.write_all(contents))
}

/// [`write_private`] with the writing done by `fill` (tests look at the file before any byte).
pub fn write_private_with(
    path: &Path,
    mode: u32,
    fill: impl FnOnce(&mut fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let partial = partial_name(path);
    let written = create_new(&partial, mode).and_then(|mut file| {
        fill(&mut file)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| fs::rename(&partial, path));
    if renamed.is_err() {
        let _ = fs::remove_file(&partial);
    }
    renamed
}

/// Remove the file at `path` if there is one (a link is removed, not its target).
pub fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}
