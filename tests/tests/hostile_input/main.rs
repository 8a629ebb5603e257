//! The built `chatmd lsp` against hostile input over its stdio: every malformed frame or
//! message is answered (or dropped, without an id) and the server keeps answering; it
//! exits at once on `exit`, with 0 after `shutdown` and 1 without; nothing grows
//! without bound (messages, diagnostics, role files, answers), a closed chat's memory
//! comes back, and only local files are read as files.

mod after_close;
mod large_chats;
mod limits;
mod protocol;
mod stdio;
