//! Whether a body too large for any other message starts as a document sync: the
//! reader must decide that before it reads the body, from its first bytes, so that
//! only a chat's text (not, say, a request of millions of values) may be that large.

/// The methods whose bodies carry a whole document's text.
const SYNC_METHODS: [&[u8]; 2] = [b"textDocument/didOpen", b"textDocument/didChange"];

/// How much of a body is looked at: the members before `params` are short.
pub(super) const PEEK: usize = 4 << 10;

/// Whether `prefix`, the start of a JSON object, names a document sync as its method
/// before its `params` (as clients write it: `jsonrpc`, `method`, then `params`). A
/// prefix that does not tell (the params first, a member in a form not looked for) is
/// no: the body is then refused as any other message of its size.
pub(super) fn names_document_sync(prefix: &[u8]) -> bool {
    let mut rest = skip_space(prefix);
    let Some(after_brace) = rest.strip_prefix(b"{") else {
        return false;
    };
    rest = after_brace;
    loop {
        rest = skip_space(rest);
        let Some((key, after_key)) = plain_string(rest) else {
            return false;
        };
        let Some(after_colon) = skip_space(after_key).strip_prefix(b":") else {
            return false;
        };
        rest = skip_space(after_colon);
        match key {
            b"method" => {
                return plain_string(rest)
                    .is_some_and(|(method, _)| SYNC_METHODS.contains(&method));
            }
            b"params" => return false,
            _ => match scalar_end(rest) {
                Some(end) => rest = &rest[end..],
                None => return false,
            },
        }
        rest = skip_space(rest);
        match rest.strip_prefix(b",") {
            Some(after_comma) => rest = after_comma,
            None => return false,
        }
    }
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b" \t\r\n".contains(b))
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// A string without escapes at the start of `bytes` (its contents), and what follows.
fn plain_string(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let inner = bytes.strip_prefix(b"\"")?;
    let end = inner.iter().position(|&b| b == b'"' || b == b'\\')?;
    (inner[end] == b'"').then(|| (&inner[..end], &inner[end + 1..]))
}

/// Where a string, number, `true`, `false` or `null` at the start of `bytes` ends
/// (`jsonrpc`, or an `id` a notification should not have).
fn scalar_end(bytes: &[u8]) -> Option<usize> {
    if let Some(inner) = bytes.strip_prefix(b"\"") {
        let mut at = 0;
        while at < inner.len() {
            match inner[at] {
                b'\\' => at += 2,
                b'"' => return Some(at + 2),
                _ => at += 1,
            }
        }
        return None;
    }
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || b"+-.".contains(b)))?;
    (end > 0).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::names_document_sync;

    #[test]
    fn a_sync_method_before_the_params_is_seen() {
        let open = br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":"#;
        assert!(names_document_sync(open));
        let change =
            b"{ \"jsonrpc\" : \"2.0\" ,\n \"method\" : \"textDocument/didChange\", \"params\"";
        assert!(names_document_sync(change));
        assert!(names_document_sync(br#"{"method":"textDocument/didOpen""#));
    }

    #[test]
    fn anything_else_is_not_a_sync() {
        for body in [
            &br#"{"jsonrpc":"2.0","id":3,"method":"x","params":"aaaa"#[..],
            br#"{"jsonrpc":"2.0","params":{"textDocument":{"text":"method"#,
            br#"{"jsonrpc":"2.0","method":"textDocument/didOpenX","params":"#,
            br#"{"jsonrpc":"2.0","method":"textDocument\/didOpen","params":"#,
            br#"{"jsonrpc":{"method":"textDocument/didOpen"},"params":"#,
            br#"["method","textDocument/didOpen"]"#,
            br#"{"jsonrpc":"2.0","meth"#,
            b"",
        ] {
            assert!(
                !names_document_sync(body),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
