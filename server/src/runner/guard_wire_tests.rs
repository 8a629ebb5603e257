use std::io::{Read, Write};
use std::os::fd::AsFd;

use rustix::net::{AddressFamily, SocketFlags, SocketType};

use super::*;

fn pair() -> (OwnedFd, OwnedFd) {
    rustix::net::socketpair(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC,
        None,
    )
    .unwrap()
}

/// Receives packets as the guard does until a request is whole.
fn receive_request(socket: &OwnedFd) -> (u64, Result<Start, Malformed>, Vec<OwnedFd>, usize) {
    let mut incoming = None;
    let mut packets = 0;
    loop {
        let packet = receive(socket).unwrap().expect("a packet");
        packets += 1;
        match take_packet(packet, incoming.take()).unwrap() {
            Received::Partial(more) => incoming = Some(more),
            Received::Whole {
                request,
                start,
                stdio,
            } => return (request, start, stdio, packets),
        }
    }
}

fn start_with(args: Vec<OsString>) -> Start {
    Start {
        settle_ms: 1500,
        program: OsString::from("/usr/bin/claude"),
        folder: PathBuf::from("/work/team/reviewer"),
        args,
        env: vec![
            (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
            (OsString::from("EMPTY"), OsString::new()),
            // Not UTF-8, and a byte that would end a C string: carried as it is.
            (
                OsString::from_vec(b"ODD\xff".to_vec()),
                OsString::from_vec(b"a\0b=c".to_vec()),
            ),
        ],
    }
}

#[test]
fn a_request_arrives_whole_with_its_three_streams() {
    let (chatmd, guard) = pair();
    let (mut read, mut write) = std::io::pipe().unwrap();
    let null = std::fs::File::open("/dev/null").unwrap();
    let start = start_with(vec![OsString::from("-p"), OsString::from("--verbose")]);
    send_start(
        chatmd.as_fd(),
        7,
        &start,
        [null.as_fd(), write.as_fd(), write.as_fd()],
    )
    .unwrap();
    let (request, got, stdio, packets) = receive_request(&guard);
    assert_eq!(request, 7);
    assert_eq!(got.unwrap(), start);
    assert_eq!(packets, 2);
    assert_eq!(stdio.len(), STDIO);
    // The descriptors are the very pipe: what is written to the received stdout
    // comes out of the read end chatmd kept.
    let mut received_stdout = std::fs::File::from(stdio.into_iter().nth(1).unwrap());
    received_stdout.write_all(b"hello").unwrap();
    drop(received_stdout);
    write.write_all(b"!").unwrap();
    drop(write);
    let mut text = String::new();
    read.read_to_string(&mut text).unwrap();
    assert_eq!(text, "hello!");
}

#[test]
fn long_arguments_are_sent_in_packets_and_put_back_together() {
    let (chatmd, guard) = pair();
    let null = std::fs::File::open("/dev/null").unwrap();
    // A prompt on the command line several packets long, with every byte value but 0.
    let prompt: Vec<u8> = (0..3 * CHUNK + 17).map(|i| (i % 255 + 1) as u8).collect();
    let start = start_with(vec![OsString::from("-p"), OsString::from_vec(prompt)]);
    let sender = std::thread::spawn(move || {
        let null = null;
        send_start(
            chatmd.as_fd(),
            u64::MAX,
            &start,
            [null.as_fd(), null.as_fd(), null.as_fd()],
        )
        .unwrap();
        start
    });
    let (request, got, _, packets) = receive_request(&guard);
    let start = sender.join().unwrap();
    assert_eq!(request, u64::MAX);
    assert_eq!(got.unwrap(), start);
    assert_eq!(packets, 1 + 4);
}

#[test]
fn replies_go_both_ways_and_the_end_of_the_socket_is_seen() {
    let (chatmd, guard) = pair();
    let replies = [
        Reply::Started {
            request: 3,
            pid: 4242,
        },
        Reply::Failed {
            request: 4,
            errno: 2,
        },
        Reply::Ended {
            pid: 4242,
            status: 9 | 0x80,
        },
    ];
    for reply in replies {
        send_reply(guard.as_fd(), reply).unwrap();
    }
    for reply in replies {
        let packet = receive(&chatmd).unwrap().unwrap();
        assert_eq!(parse_reply(&packet.bytes).unwrap(), reply);
    }
    drop(guard);
    assert!(receive(&chatmd).unwrap().is_none());
}

#[test]
fn malformed_packets_are_refused() {
    let fds = || Vec::new();
    let packet = |bytes: &[u8]| Packet {
        bytes: bytes.to_vec(),
        fds: fds(),
    };
    // A continuation with no request begun, a start without its descriptors, an
    // unknown kind, an empty packet.
    for bytes in [&b"Cabc"[..], &[b'S'; 17][..], b"X", b""] {
        assert!(take_packet(packet(bytes), None).is_err(), "{bytes:?}");
    }
    assert!(parse_reply(b"P1234").is_err());
    assert!(parse_reply(&[b'Z'; 17]).is_err());
    // A body that claims more arguments than it could hold is refused before room is
    // made for them; so is one with bytes after its end.
    let mut body = encode_start(&start_with(Vec::new()));
    let count_at = 8 + 8 + "/usr/bin/claude".len() + 8 + "/work/team/reviewer".len();
    body[count_at..count_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(decode_start(&body).is_err());
    let mut body = encode_start(&start_with(Vec::new()));
    body.push(0);
    assert!(decode_start(&body).is_err());
    assert_eq!(
        decode_start(&encode_start(&start_with(Vec::new()))).unwrap(),
        start_with(Vec::new())
    );
}
