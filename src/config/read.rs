//! Reading a configuration file without trusting what is at its path.
//!
//! A configuration may come from an untrusted repository (`./.nanopi/config.toml`),
//! and `hooks list` / `hooks check` are how a person inspects one. So the
//! reader refuses anything that is not a regular file after following symlinks
//! (a FIFO would block forever, `/dev/zero` would never end), never blocks while
//! opening, and reads at most one byte past the size cap. The `hooks` CLI reads
//! and writes its other files (`--payload-file`, `--audit`) by the same rules.

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use super::error::ConfigErrorKind;

/// The largest configuration file the loader reads, in bytes (1 MiB).
pub const MAX_CONFIG_SIZE: u64 = 1 << 20;

/// Why a file was not read or opened.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileError {
    /// The path could not be read or opened.
    Io(io::Error),
    /// The path is not a regular file: what it is instead (`a FIFO`, …).
    NotAFile(&'static str),
    /// It holds more than this many bytes.
    TooLarge(u64),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(err) => err.fmt(f),
            FileError::NotAFile(what) => write!(f, "it is {what}, not a regular file"),
            FileError::TooLarge(limit) => write!(f, "it is larger than {} MiB", limit >> 20),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Io(err) => Some(err),
            _ => None,
        }
    }
}

/// The text of the configuration file at `path`, at most `cap` bytes of UTF-8:
/// what every dialect's loader reads its files with.
///
/// A missing file is [`ConfigErrorKind::Io`] with [`io::ErrorKind::NotFound`],
/// which discovery skips.
pub(crate) fn read_config(path: &Path, cap: u64) -> Result<String, ConfigErrorKind> {
    let bytes = read_regular(path, cap).map_err(|err| match err {
        FileError::Io(err) => ConfigErrorKind::Io(err),
        FileError::NotAFile(what) => ConfigErrorKind::NotAFile { what },
        FileError::TooLarge(limit) => ConfigErrorKind::TooLarge { limit },
    })?;
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let line = 1 + err.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        ConfigErrorKind::InvalidUtf8 { offset, line }
    })
}

/// Reads the regular file at `path` (after following symlinks), at most `cap`
/// bytes. A FIFO is never opened, no open blocks, and what was opened is checked
/// again, so a swap between the check and the open is caught too.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    read_capped(open_regular(path)?, cap)
}

/// Opens the regular file at `path` (after following symlinks) for reading, by
/// the rules of [`read_regular`], for a caller that streams it instead of
/// reading it whole (`hooks replay`'s session files).
pub fn open_regular(path: &Path) -> Result<File, FileError> {
    regular(&std::fs::metadata(path).map_err(FileError::Io)?)?;
    let file = open_nonblocking(path).map_err(FileError::Io)?;
    regular(&file.metadata().map_err(FileError::Io)?)?;
    Ok(file)
}

/// Reads `reader` to its end, failing once it gives more than `cap` bytes.
pub fn read_capped(reader: impl Read, cap: u64) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::new();
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(FileError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge(cap));
    }
    Ok(bytes)
}

/// Opens `path` for appending, creating it if needed; an existing path must be
/// a regular file (a FIFO would block the open, or take the writes elsewhere).
pub fn open_append(path: &Path) -> Result<File, FileError> {
    match std::fs::metadata(path) {
        Ok(metadata) => regular(&metadata)?,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(FileError::Io(err)),
    }
    // A FIFO put there since the check fails the open at once (ENXIO without a
    // reader) instead of blocking; appends to a regular file do not change.
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(nonblock())
        .open(path)
        .map_err(FileError::Io)?;
    regular(&file.metadata().map_err(FileError::Io)?)?;
    Ok(file)
}

/// Opens `path` for reading with `O_NONBLOCK`, which makes opening a FIFO
/// return at once; it changes nothing for a regular file.
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(nonblock())
        .open(path)
}

fn nonblock() -> i32 {
    i32::try_from(rustix::fs::OFlags::NONBLOCK.bits()).expect("O_NONBLOCK fits an int")
}

fn regular(metadata: &Metadata) -> Result<(), FileError> {
    if metadata.file_type().is_file() {
        return Ok(());
    }
    Err(FileError::NotAFile(file_kind(metadata)))
}

/// What a file is, in words: `a regular file`, `a FIFO`, `a character
/// device`, `a block device`, `a directory`, `a socket` or `a special file`.
pub fn file_kind(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_file() {
        "a regular file"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// The entries of a JSON object being read, in the order written (a
/// `serde_json::Map` sorts its keys). A key written twice keeps its last value,
/// where it first stood, as JavaScript's `JSON.parse` has it: the configuration
/// loaders keep the events of a file in the order their hooks run.
pub(crate) fn entries_in_order<'de, A: serde::de::MapAccess<'de>>(
    mut map: A,
) -> Result<Vec<(String, serde_json::Value)>, A::Error> {
    let mut entries: Vec<(String, serde_json::Value)> = Vec::new();
    while let Some(key) = map.next_key::<String>()? {
        let value: serde_json::Value = map.next_value()?;
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => entries.push((key, value)),
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
    }

    #[test]
    fn a_regular_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "a = 1\n").unwrap();
        assert_eq!(read_config(&path, 100).unwrap(), "a = 1\n");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        mkfifo(&path);
        let start = Instant::now();
        let err = read_config(&path, MAX_CONFIG_SIZE).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert!(
            matches!(err, ConfigErrorKind::NotAFile { what: "a FIFO" }),
            "{err:?}"
        );
    }

    #[test]
    fn the_nonblocking_open_does_not_block_on_a_fifo() {
        // The second line of defence, should a FIFO appear after the check.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        mkfifo(&path);
        let file = open_nonblocking(&path).unwrap();
        assert!(regular(&file.metadata().unwrap()).is_err());
    }

    #[test]
    fn a_symlink_to_dev_zero_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let err = read_config(&path, MAX_CONFIG_SIZE).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigErrorKind::NotAFile {
                    what: "a character device"
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn a_file_over_the_cap_is_refused_and_one_at_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "#".repeat(11)).unwrap();
        assert!(matches!(
            read_config(&path, 10).unwrap_err(),
            ConfigErrorKind::TooLarge { limit: 10 }
        ));
        assert_eq!(read_config(&path, 11).unwrap().len(), 11);
    }

    #[test]
    fn invalid_utf8_names_the_byte_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, b"a = 1\nb = \"\xff\"\n").unwrap();
        let err = read_config(&path, 100).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigErrorKind::InvalidUtf8 {
                    offset: 11,
                    line: 2
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "not valid UTF-8 at byte 11 (line 2): a configuration must be UTF-8 text"
        );
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        match read_config(&dir.path().join("none.toml"), 100).unwrap_err() {
            ConfigErrorKind::Io(err) => assert_eq!(err.kind(), io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
    }
}
