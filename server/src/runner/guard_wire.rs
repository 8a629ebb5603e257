//! What chatmd and its agent guard say to each other over their socket (a Unix
//! `SOCK_SEQPACKET` pair, so every packet arrives whole and in order).
//!
//! chatmd → guard: a request to start an agent. Its first packet carries the agent's
//! stdin, stdout and stderr as file descriptors (`SCM_RIGHTS`), the request's number
//! and the length of what follows; the request itself (program, folder, arguments,
//! environment, settle time) follows in packets of at most [`CHUNK`] bytes, since
//! arguments can be long (a prompt passed on the command line).
//!
//! guard → chatmd: the agent started (its process id), could not start (the `errno`),
//! or ended (its raw wait status, once nothing of its process group is left).
//!
//! Every value is bytes with its length in front: nothing in a program's name, an
//! argument or a variable can be read as a field separator.

use std::ffi::OsString;
use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};

/// The most bytes of a request in one packet (well under a socket's default buffer).
pub(super) const CHUNK: usize = 32 * 1024;

/// A packet's kind and fixed fields come before its bytes.
const HEADER: usize = 1 + 8 + 8;

/// The file descriptors a start request carries: stdin, stdout, stderr.
pub(super) const STDIO: usize = 3;

/// An agent to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Start {
    /// How long what the agent started may go on by itself after the agent exited.
    pub settle_ms: u64,
    pub program: OsString,
    pub folder: PathBuf,
    pub args: Vec<OsString>,
    /// The whole environment the agent gets.
    pub env: Vec<(OsString, OsString)>,
}

/// What the guard answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reply {
    Started {
        request: u64,
        pid: i32,
    },
    /// `errno` is the start's OS error (0 when it had none).
    Failed {
        request: u64,
        errno: i32,
    },
    /// `status` is the agent's raw wait status.
    Ended {
        pid: i32,
        status: i32,
    },
}

/// A packet that is not this protocol's.
#[derive(Debug, thiserror::Error)]
#[error("the agent guard's socket carried a malformed packet")]
pub(super) struct Malformed;

/// Sends a start request with the agent's three standard streams.
pub(super) fn send_start(
    socket: BorrowedFd<'_>,
    request: u64,
    start: &Start,
    stdio: [BorrowedFd<'_>; STDIO],
) -> std::io::Result<()> {
    let body = encode_start(start);
    let mut first = Vec::with_capacity(HEADER);
    first.push(b'S');
    first.extend_from_slice(&request.to_le_bytes());
    first.extend_from_slice(&(body.len() as u64).to_le_bytes());
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(STDIO))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    control.push(SendAncillaryMessage::ScmRights(&stdio));
    rustix::net::sendmsg(
        socket,
        &[IoSlice::new(&first)],
        &mut control,
        SendFlags::NOSIGNAL,
    )?;
    for part in body.chunks(CHUNK) {
        let mut packet = Vec::with_capacity(1 + part.len());
        packet.push(b'C');
        packet.extend_from_slice(part);
        send_plain(socket, &packet)?;
    }
    Ok(())
}

/// Sends a reply (guard → chatmd).
pub(super) fn send_reply(socket: BorrowedFd<'_>, reply: Reply) -> std::io::Result<()> {
    let mut packet = Vec::with_capacity(HEADER);
    let (kind, first, second) = match reply {
        Reply::Started { request, pid } => (b'P', request, i64::from(pid)),
        Reply::Failed { request, errno } => (b'F', request, i64::from(errno)),
        Reply::Ended { pid, status } => (b'E', pid as u64, i64::from(status)),
    };
    packet.push(kind);
    packet.extend_from_slice(&first.to_le_bytes());
    packet.extend_from_slice(&second.to_le_bytes());
    send_plain(socket, &packet)
}

fn send_plain(socket: BorrowedFd<'_>, packet: &[u8]) -> std::io::Result<()> {
    let mut none = SendAncillaryBuffer::default();
    rustix::net::sendmsg(
        socket,
        &[IoSlice::new(packet)],
        &mut none,
        SendFlags::NOSIGNAL,
    )?;
    Ok(())
}

/// One packet as received: its bytes and the descriptors it carried.
pub(super) struct Packet {
    pub bytes: Vec<u8>,
    pub fds: Vec<OwnedFd>,
}

/// Receives one packet; `None` once the other end closed. Descriptors arrive
/// close-on-exec, so no other program the guard starts inherits them.
pub(super) fn receive(socket: impl AsFd) -> std::io::Result<Option<Packet>> {
    let mut bytes = vec![0u8; HEADER + CHUNK];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(STDIO))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = loop {
        match rustix::net::recvmsg(
            &socket,
            &mut [IoSliceMut::new(&mut bytes)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(carried) = message {
            fds.extend(carried);
        }
    }
    if received
        .flags
        .intersects(ReturnFlags::TRUNC | ReturnFlags::CTRUNC)
    {
        return Err(std::io::Error::other(Malformed));
    }
    if received.bytes == 0 {
        return Ok(None);
    }
    bytes.truncate(received.bytes);
    Ok(Some(Packet { bytes, fds }))
}

/// Reads a reply packet.
pub(super) fn parse_reply(packet: &[u8]) -> Result<Reply, Malformed> {
    let (&kind, rest) = packet.split_first().ok_or(Malformed)?;
    let first = u64::from_le_bytes(rest.get(..8).ok_or(Malformed)?.try_into().unwrap());
    let second = i64::from_le_bytes(rest.get(8..16).ok_or(Malformed)?.try_into().unwrap());
    let small = |value: i64| i32::try_from(value).map_err(|_| Malformed);
    match kind {
        b'P' => Ok(Reply::Started {
            request: first,
            pid: small(second)?,
        }),
        b'F' => Ok(Reply::Failed {
            request: first,
            errno: small(second)?,
        }),
        b'E' => Ok(Reply::Ended {
            pid: i32::try_from(first).map_err(|_| Malformed)?,
            status: small(second)?,
        }),
        _ => Err(Malformed),
    }
}

/// A start request being received: its first packet came, its bytes may still be
/// coming.
pub(super) struct Incoming {
    pub request: u64,
    length: usize,
    body: Vec<u8>,
    pub stdio: Vec<OwnedFd>,
}

/// What a packet from chatmd means to the guard.
pub(super) enum Received {
    /// A request that is not whole yet.
    Partial(Incoming),
    /// A whole request, with its three descriptors.
    Whole {
        request: u64,
        start: Result<Start, Malformed>,
        stdio: Vec<OwnedFd>,
    },
}

/// Takes one packet from chatmd, given the request still being received.
pub(super) fn take_packet(
    packet: Packet,
    incoming: Option<Incoming>,
) -> Result<Received, Malformed> {
    let (&kind, rest) = packet.bytes.split_first().ok_or(Malformed)?;
    let mut incoming = match (kind, incoming) {
        (b'S', None) if rest.len() == 16 && packet.fds.len() == STDIO => {
            let length = u64::from_le_bytes(rest[8..16].try_into().unwrap());
            Incoming {
                request: u64::from_le_bytes(rest[..8].try_into().unwrap()),
                length: usize::try_from(length).map_err(|_| Malformed)?,
                body: Vec::new(),
                stdio: packet.fds,
            }
        }
        (b'C', Some(mut incoming)) if packet.fds.is_empty() => {
            incoming.body.extend_from_slice(rest);
            incoming
        }
        _ => return Err(Malformed),
    };
    match incoming.body.len().cmp(&incoming.length) {
        std::cmp::Ordering::Less => Ok(Received::Partial(incoming)),
        std::cmp::Ordering::Greater => Err(Malformed),
        std::cmp::Ordering::Equal => Ok(Received::Whole {
            request: incoming.request,
            start: decode_start(&std::mem::take(&mut incoming.body)),
            stdio: incoming.stdio,
        }),
    }
}

fn encode_start(start: &Start) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&start.settle_ms.to_le_bytes());
    put(&mut out, start.program.as_bytes());
    put(&mut out, start.folder.as_os_str().as_bytes());
    out.extend_from_slice(&(start.args.len() as u64).to_le_bytes());
    for arg in &start.args {
        put(&mut out, arg.as_bytes());
    }
    out.extend_from_slice(&(start.env.len() as u64).to_le_bytes());
    for (key, value) in &start.env {
        put(&mut out, key.as_bytes());
        put(&mut out, value.as_bytes());
    }
    out
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn decode_start(mut body: &[u8]) -> Result<Start, Malformed> {
    let settle_ms = number(&mut body)?;
    let program = text(&mut body)?;
    let folder = PathBuf::from(text(&mut body)?);
    let count = number(&mut body)?;
    // Each argument takes at least its 8-byte length: a count the body cannot hold
    // is refused before anything is reserved for it.
    let fits = |count: u64| usize::try_from(count).ok().filter(|&n| n <= body.len() / 8);
    let mut args = Vec::with_capacity(fits(count).ok_or(Malformed)?);
    for _ in 0..count {
        args.push(text(&mut body)?);
    }
    let count = number(&mut body)?;
    let mut env = Vec::with_capacity(fits(count).ok_or(Malformed)?);
    for _ in 0..count {
        env.push((text(&mut body)?, text(&mut body)?));
    }
    if !body.is_empty() {
        return Err(Malformed);
    }
    Ok(Start {
        settle_ms,
        program,
        folder,
        args,
        env,
    })
}

fn number(body: &mut &[u8]) -> Result<u64, Malformed> {
    let (head, rest) = body.split_at_checked(8).ok_or(Malformed)?;
    *body = rest;
    Ok(u64::from_le_bytes(head.try_into().unwrap()))
}

fn text(body: &mut &[u8]) -> Result<OsString, Malformed> {
    let length = usize::try_from(number(body)?).map_err(|_| Malformed)?;
    let (head, rest) = body.split_at_checked(length).ok_or(Malformed)?;
    *body = rest;
    Ok(OsString::from_vec(head.to_vec()))
}

#[cfg(test)]
#[path = "guard_wire_tests.rs"]
mod tests;
