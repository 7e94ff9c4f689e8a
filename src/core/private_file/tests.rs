use std::os::unix::fs::{symlink, PermissionsExt};

use super::*;

fn sandbox(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ocn-private-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn folders_are_0700_and_files_0600_from_the_start() {
    let dir = sandbox("modes");
    let folder = dir.join("data").join("opencode-cursor-native");
    create_folder(&folder).unwrap();
    assert_eq!(mode(&folder), 0o700);
    assert_eq!(mode(&dir.join("data")), 0o700);
    let log = folder.join("log");
    open_append(&log).unwrap();
    assert_eq!(mode(&log), 0o600);
    let capture = folder.join("c.jsonl");
    create_new(&capture).unwrap();
    assert_eq!(mode(&capture), 0o600);
    let cache = folder.join("models.json");
    write_atomic(&cache, b"{}").unwrap();
    assert_eq!(mode(&cache), 0o600);
    assert_eq!(std::fs::read(&cache).unwrap(), b"{}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_older_wider_folder_or_file_is_narrowed() {
    let dir = sandbox("narrow");
    let folder = dir.join("opencode-cursor-native");
    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = folder.join("log");
    std::fs::write(&log, "old\n").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    create_folder(&folder).unwrap();
    open_append(&log).unwrap();
    assert_eq!((mode(&folder), mode(&log)), (0o700, 0o600));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_planted_link_is_never_followed() {
    let dir = sandbox("links");
    let target = dir.join("victim");
    std::fs::write(&target, "precious").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.join("log");
    symlink(&target, &link).unwrap();
    assert!(open_append(&link).is_err(), "appending through a link");
    assert!(create_new(&link).is_err(), "creating through a link");
    // The atomic write replaces the link itself.
    write_atomic(&link, b"mine").unwrap();
    assert!(!std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    assert_eq!(mode(&target), 0o644, "the target's mode is untouched");

    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let before = mode(&elsewhere);
    let folder_link = dir.join("captures");
    symlink(&elsewhere, &folder_link).unwrap();
    assert!(
        create_folder(&folder_link).is_err(),
        "a folder link is refused"
    );
    assert_eq!(mode(&elsewhere), before, "the link's target keeps its mode");
    let _ = std::fs::remove_dir_all(&dir);
}
