//! `file://` URIs as editors send them: absolute paths, percent-encoded bytes.
//! Only unreserved characters and `/` stay literal, as VS Code does.

use std::path::{Path, PathBuf};

/// The `file://` URI of `path` (made absolute against the current directory), with every byte
/// outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded: `/tmp/a b/é` → `file:///tmp/a%20b/%C3%A9`.
pub fn file_uri(path: &Path) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .expect("the current directory is readable")
            .join(path)
    };
    let mut uri = String::from("file://");
    for &byte in absolute.as_os_str().as_encoded_bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The path of a `file://` URI, decoding percent escapes. Panics on anything else, because a
/// test that meets another scheme has found a bug.
pub fn file_path(uri: &str) -> PathBuf {
    let rest = uri
        .strip_prefix("file://")
        .unwrap_or_else(|| panic!("not a file URI: {uri}"));
    // `file://host/path` names a host; editors send `file:///path`.
    assert!(rest.starts_with('/'), "file URI with a host: {uri}");
    let mut bytes = Vec::with_capacity(rest.len());
    let mut input = rest.bytes();
    while let Some(byte) = input.next() {
        if byte == b'%' {
            let hex = [input.next(), input.next()];
            let [Some(hi), Some(lo)] = hex else {
                panic!("truncated percent escape in {uri}");
            };
            let hex = std::str::from_utf8(&[hi, lo])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            bytes.push(hex.unwrap_or_else(|| panic!("bad percent escape in {uri}")));
        } else {
            bytes.push(byte);
        }
    }
    let path = String::from_utf8(bytes).unwrap_or_else(|_| panic!("non-UTF-8 path in {uri}"));
    PathBuf::from(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_an_editor() {
        assert_eq!(
            file_uri(Path::new("/tmp/a b/ré#1@x.chat.md")),
            "file:///tmp/a%20b/r%C3%A9%231%40x.chat.md"
        );
        assert_eq!(
            file_uri(Path::new("/w/Team_A~1/x-y.md")),
            "file:///w/Team_A~1/x-y.md"
        );
    }

    #[test]
    fn relative_paths_become_absolute() {
        let uri = file_uri(Path::new("x.chat.md"));
        assert!(uri.starts_with("file:///"), "{uri}");
        assert!(uri.ends_with("/x.chat.md"), "{uri}");
    }

    #[test]
    fn decodes_what_it_encodes() {
        for path in ["/tmp/a b/ré#1@x.chat.md", "/plain", "/日本/🎉 %25"] {
            assert_eq!(file_path(&file_uri(Path::new(path))), PathBuf::from(path));
        }
        assert_eq!(file_path("file:///A%c3%a9"), PathBuf::from("/Aé"));
    }
}
