//! The chat file on disk, read and written so that nothing in it is lost when another
//! program writes it at the same time:
//!
//! - only a regular file is read (a FIFO would block for ever, `/dev/zero` never ends);
//! - a file that no program has open for writing is read at once, under a read lease
//!   (Linux grants one only then, and holds back a writer's open while it is held);
//! - otherwise (a writer has it open, or the file system has no leases) a text that
//!   changed is read again until it stays the same: a program that saves in place
//!   truncates the file and then writes it, and the empty or half-written file in
//!   between is not the truth (an empty file must stay empty for a while);
//! - a write goes to a temporary file that is renamed over the chat only if the chat
//!   is still the text the edit was made for, compared right before the rename; a
//!   program that wrote into the old file just as it was replaced is noticed after the
//!   rename, and its text is put back;
//! - a failed write (disk full) leaves no temporary file behind.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use crate::turns::PortError;

/// How long a file must go unwritten to be taken as whole: a save in place (truncate,
/// then write) is over well within it.
const SETTLE: Duration = Duration::from_millis(20);
/// How far a file's modification time may lag behind the write that set it: the
/// kernel stamps files from a clock that ticks once a jiffy (10 ms at HZ=100).
const TIMESTAMP_TICK: Duration = Duration::from_millis(10);
/// How long a file that became empty, or lost its end, must stay so to be believed:
/// that is what a file looks like between another program's truncate and its write.
const SUSPECT_SETTLE: Duration = Duration::from_secs(1);
/// A file rewritten without pause for this long is taken as last read (if not empty).
const MAX_SETTLE: Duration = Duration::from_secs(3);

/// What tells a file's content may have changed without reading it: its inode (a save
/// that renames a new file over it), size and modification time (a write in place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    inode: u64,
    len: u64,
    modified: SystemTime,
}

impl Stamp {
    pub fn of(path: &Path) -> Option<Stamp> {
        Self::from_meta(&std::fs::metadata(path).ok()?)
    }

    fn from_meta(meta: &std::fs::Metadata) -> Option<Stamp> {
        Some(Stamp {
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }

    /// Whether the file cannot have changed unseen: a write in place within the same
    /// clock tick as the last one keeps size and time, so a recent stamp proves nothing.
    pub fn is_settled(&self) -> bool {
        SystemTime::now()
            .duration_since(self.modified)
            .is_ok_and(|age| age > Duration::from_secs(1))
    }

    /// How much longer the file must go unwritten to have been quiet for [`SETTLE`]
    /// (zero: it has been). A time in the future proves nothing: a whole [`SETTLE`].
    fn unsettled_for(&self) -> Duration {
        match SystemTime::now().duration_since(self.modified) {
            Ok(age) => (SETTLE + TIMESTAMP_TICK).saturating_sub(age).min(SETTLE),
            Err(_) => SETTLE,
        }
    }
}

/// Opens `path` for reading if it is a regular file (without blocking on a FIFO).
pub fn open_regular(path: &Path) -> Result<File, PortError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY)
        .open(path)
        .map_err(|source| read_error(path, source))?;
    let meta = file.metadata().map_err(|source| read_error(path, source))?;
    if !meta.is_file() {
        return Err(PortError::NotAFile {
            path: path.display().to_string(),
            kind: kind(&meta.file_type()).to_string(),
        });
    }
    Ok(file)
}

/// What a file that is not a regular file is, for the user.
pub fn kind(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

fn read_error(path: &Path, source: std::io::Error) -> PortError {
    PortError::Read {
        path: path.display().to_string(),
        source,
    }
}

/// A file's bytes and its stamp as read.
type Contents = (Vec<u8>, Option<Stamp>);

/// Reads an open file from its start.
fn read_from(mut file: &File, path: &Path) -> Result<Contents, PortError> {
    use std::io::Seek;
    file.rewind().map_err(|e| read_error(path, e))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| read_error(path, e))?;
    let stamp = file.metadata().ok().and_then(|m| Stamp::from_meta(&m));
    Ok((bytes, stamp))
}

fn read_once(path: &Path) -> Result<Contents, PortError> {
    read_from(&open_regular(path)?, path)
}

/// The file's text once it stays the same, and its stamp. `known` is the text chatmd
/// had: the same text again is taken at once, and a file that became empty or lost its
/// end must stay so for a while (without `known`, an empty file must).
pub fn read_settled(
    path: &Path,
    known: Option<&str>,
) -> Result<(String, Option<Stamp>), PortError> {
    let file = open_regular(path)?;
    let mut first = Some(match read_unwritten(&file, path)? {
        Some((bytes, stamp)) => {
            if let Some(known) = known.filter(|k| k.as_bytes() == bytes) {
                return Ok((known.to_string(), stamp));
            }
            // Empty or cut short, yet closed: a program that truncates and writes in
            // two opens may not be done. The settle below tells.
            if !looks_cut(known, &bytes) {
                return Ok((decode(path, bytes)?, stamp));
            }
            (bytes, stamp)
        }
        // Someone writes it (or no lease can tell): the settle's first read is of the
        // file already open, later ones open the path again.
        None => read_from(&file, path)?,
    });
    settle(known, path, || match first.take() {
        Some(read) => Ok(read),
        None => read_once(path),
    })
}

/// The open `file` as read while no program has it open for writing, or `None` when
/// that cannot be known: a program has it open for writing, or the file system or
/// kernel has no leases (NFS, some FUSE file systems), or the file is another user's.
/// A `chatmd send` right after a script wrote the chat no longer waits 20 ms for it.
fn read_unwritten(file: &File, path: &Path) -> Result<Option<Contents>, PortError> {
    let Ok(_lease) = chatmd_os::read_lease(file) else {
        return Ok(None);
    };
    read_from(file, path).map(Some)
}

/// Whether `bytes` look like a file caught between a truncate and its write: empty
/// (without a text to compare with), or the start of the text chatmd had.
fn looks_cut(known: Option<&str>, bytes: &[u8]) -> bool {
    match known {
        Some(k) => k.len() > bytes.len() && k.as_bytes().starts_with(bytes),
        None => bytes.is_empty(),
    }
}

/// The same for a file chatmd holds open (the one it just replaced).
fn read_settled_from(
    file: &mut File,
    path: &Path,
    known: &str,
) -> Result<(String, Option<Stamp>), PortError> {
    settle(Some(known), path, || read_from(file, path))
}

fn settle(
    known: Option<&str>,
    path: &Path,
    mut read: impl FnMut() -> Result<Contents, PortError>,
) -> Result<(String, Option<Stamp>), PortError> {
    let (mut bytes, mut stamp) = read()?;
    if known.is_some_and(|k| k.as_bytes() == bytes) {
        return Ok((known.unwrap_or_default().to_string(), stamp));
    }
    // Nothing to compare with, but nobody has written the file for a SETTLE: a save
    // in progress would have moved its time. (Every `chatmd send` read its chat twice,
    // a SETTLE apart, before the turn: +20 ms measured with the real CLIs.)
    let mut first_wait = SETTLE;
    if known.is_none()
        && !bytes.is_empty()
        && let Some(stamp) = stamp
    {
        first_wait = stamp.unsettled_for();
        if first_wait.is_zero() {
            return Ok((decode(path, bytes)?, Some(stamp)));
        }
    }
    // Empty, or the start of what chatmd had: maybe a save in place half done.
    let suspect = |bytes: &[u8]| looks_cut(known, bytes);
    let started = Instant::now();
    let mut same_since = Instant::now();
    // Without a text to compare with, the longest one seen is the likeliest whole.
    let mut longest = bytes.clone();
    loop {
        // The first wait only makes up the quiet time the file has not had yet.
        std::thread::sleep(std::mem::replace(&mut first_wait, SETTLE));
        let (again, again_stamp) = read()?;
        if let Some(known) = known.filter(|k| k.as_bytes() == again) {
            // Back to the text chatmd knows: a save in place of the same text.
            return Ok((known.to_string(), again_stamp));
        }
        // The same text, and no write since (a program saving the same text again
        // and again is not done yet).
        if again == bytes && again_stamp == stamp {
            let needed = if suspect(&bytes) {
                SUSPECT_SETTLE
            } else {
                Duration::ZERO
            };
            if same_since.elapsed() >= needed {
                break;
            }
        } else {
            (bytes, stamp) = (again, again_stamp);
            same_since = Instant::now();
            if bytes.len() > longest.len() {
                longest = bytes.clone();
            }
        }
        if started.elapsed() > MAX_SETTLE {
            if known.is_none() && !longest.is_empty() {
                bytes = longest;
                break;
            }
            if !suspect(&bytes) {
                tracing::warn!(path = %path.display(), "the file keeps changing; taking it as last read");
                break;
            }
            if started.elapsed() > 10 * MAX_SETTLE {
                return Err(PortError::KeepsEmptied {
                    path: path.display().to_string(),
                });
            }
        }
    }
    Ok((decode(path, bytes)?, stamp))
}

/// The file's bytes as text (a BOM dropped), or why they are not.
fn decode(path: &Path, bytes: Vec<u8>) -> Result<String, PortError> {
    let text = crate::document::decode(&bytes).map_err(|source| PortError::NotUtf8 {
        path: path.display().to_string(),
        source,
    })?;
    Ok(text.to_string())
}

/// How a write went.
#[derive(Debug)]
pub enum Written {
    /// The file holds the new text; its stamp.
    Done(Option<Stamp>),
    /// The file was no longer the text the edit was made for: nothing was written.
    Changed,
    /// Another program wrote into the file just as it was replaced: this is its text
    /// (the file on disk holds chatmd's; see [`write`]'s caller).
    Raced(String),
}

/// Writes `new` over `path`, which must still hold `base`.
pub fn write(path: &Path, base: &str, new: &str) -> Result<Written, PortError> {
    let err = |source| PortError::Write {
        path: path.display().to_string(),
        source,
    };
    let temp = Temp::create(path).map_err(err)?;
    let mut out = temp.file.as_ref().expect("created");
    out.write_all(new.as_bytes()).map_err(err)?;
    // Errors of a full disk or a quota show here, before the chat is replaced.
    out.sync_data().map_err(err)?;
    let new_stamp = out.metadata().ok().and_then(|m| Stamp::from_meta(&m));
    // Right before the rename: is the chat still the text the edit was made for?
    let mut current = open_regular(path)?;
    let (bytes, before) = read_from(&current, path)?;
    if bytes != base.as_bytes() {
        return Ok(Written::Changed);
    }
    if let Ok(meta) = current.metadata() {
        let _ = temp
            .file
            .as_ref()
            .expect("created")
            .set_permissions(meta.permissions());
    }
    temp.rename_over(path).map_err(err)?;
    // A program that opened the chat before the rename writes into the old file.
    let after = current.metadata().ok().and_then(|m| Stamp::from_meta(&m));
    if after != before {
        let (theirs, _) = read_settled_from(&mut current, path, base)?;
        // An old file left empty or cut short is not a save to put back.
        let cut = base.len() > theirs.len() && base.starts_with(theirs.as_str());
        if theirs != base && !cut {
            return Ok(Written::Raced(theirs));
        }
    }
    Ok(Written::Done(new_stamp))
}

/// A temporary file next to the chat, removed unless it was renamed over it.
struct Temp {
    path: PathBuf,
    file: Option<File>,
}

impl Temp {
    fn create(chat: &Path) -> std::io::Result<Temp> {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let name = chat
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("chat.md");
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let path = chat.with_file_name(format!(".{name}.chatmd-{}-{n}", std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        Ok(Temp {
            path,
            file: Some(file),
        })
    }

    fn rename_over(mut self, chat: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, chat)?;
        self.file = None;
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
#[path = "disk_tests.rs"]
mod tests;
