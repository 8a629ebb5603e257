//! Reads the YAML text into a small tree of nodes, each with its byte range.
//!
//! We drive yaml-rust2's event parser ourselves (`next_token`) instead of `Parser::load`,
//! which recurses once per nesting level; our builder keeps its own stack and stops
//! materialising nodes below `MAX_DEPTH`, so deeply nested input cannot blow the stack
//! (not even when the tree is dropped).

use super::position::Positions;
use super::scalar::{self, ScalarAt};
use crate::document::ByteRange;
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::TScalarStyle;

/// Deeper collections are kept as empty collections (with their ranges): front matter
/// only looks two levels down.
const MAX_DEPTH: usize = 16;

pub(super) struct Node {
    pub kind: NodeKind,
    /// Offsets into the YAML text.
    pub range: ByteRange,
}

pub(super) enum NodeKind {
    Scalar {
        value: String,
        style: TScalarStyle,
        tag: Option<Tag>,
    },
    Sequence(Vec<Node>),
    Mapping(Vec<(Node, Node)>),
    Alias,
}

pub(super) enum Root {
    /// No YAML document (only blank lines and comments).
    Empty,
    /// The top-level `key: value` pairs that were read completely.
    Mapping(Vec<(Node, Node)>),
    /// A document that is not a mapping.
    Other,
}

pub(super) struct SyntaxError {
    pub range: ByteRange,
    pub message: String,
}

pub(super) struct Outline {
    pub root: Root,
    pub error: Option<SyntaxError>,
}

pub(super) fn outline(src: &str) -> Outline {
    // yaml-rust2 takes a NUL for the end of its input: read up to it, and say so.
    let nul = src.find('\0');
    let read = &src[..nul.unwrap_or(src.len())];
    let mut positions = Positions::new(read);
    let (events, mut error) = events(read, &mut positions);
    if let Some(at) = nul
        && error.as_ref().is_none_or(|e| e.range.start > at)
    {
        error = Some(SyntaxError {
            range: at..at + 1,
            message: "YAML syntax error: a NUL character (U+0000) is not allowed; remove it".into(),
        });
    }
    let mut builder = Builder {
        src,
        frames: Vec::new(),
        root: None,
        skipping: None,
    };
    let events_end = error.as_ref().map_or(src.len(), |e| e.range.start);
    let mut documents = 0;
    for (i, (event, pos)) in events.iter().enumerate() {
        let bound = events.get(i + 1).map_or(events_end, |e| e.1);
        if let Event::DocumentStart = event {
            documents += 1;
            if documents > 1 {
                error = Some(SyntaxError {
                    range: second_document(src, *pos, &positions),
                    message: "only one YAML document is allowed in front matter".into(),
                });
                break;
            }
        }
        builder.event(event, *pos, bound);
    }

    let mut root = match (builder.root, builder.frames.into_iter().next()) {
        (
            Some(Node {
                kind: NodeKind::Mapping(entries),
                ..
            }),
            _,
        ) => Root::Mapping(entries),
        (Some(_), _) => Root::Other,
        (
            None,
            Some(Frame {
                kind: FrameKind::Mapping { entries, .. },
                ..
            }),
        ) => Root::Mapping(entries),
        (None, _) => Root::Empty,
    };
    // After a syntax error, trust only values that end on an earlier line: the scanner
    // may have glued the broken line onto the value before it.
    if let (Some(error), Root::Mapping(entries)) = (&error, &mut root) {
        let line = positions.line_start(error.range.start);
        entries.retain(|(_, value)| value.range.end <= line);
    }
    Outline { root, error }
}

/// What to underline for a second document starting at `pos`: its `---`, else (a
/// document begun after `...` without one, whose event sits on its first token, such
/// as the `:` of `b: 2`) the first character of its line.
fn second_document(src: &str, pos: usize, positions: &Positions) -> ByteRange {
    if src[pos..].starts_with("---") {
        return pos..pos + 3;
    }
    let line = positions.line_start(pos);
    let start = line + src[line..pos].len() - src[line..pos].trim_start_matches([' ', '\t']).len();
    start..start + src[start..].chars().next().map_or(0, char::len_utf8)
}

/// All events with their byte offsets, and the syntax error that ended them, if any.
fn events(src: &str, positions: &mut Positions) -> (Vec<(Event, usize)>, Option<SyntaxError>) {
    let mut parser = Parser::new_from_str(src);
    let mut events = Vec::new();
    loop {
        match parser.next_token() {
            Ok((event, mark)) => {
                let end = event == Event::StreamEnd;
                events.push((event, positions.offset(&mark)));
                if end {
                    return (events, None);
                }
            }
            Err(e) => {
                let pos = positions.offset(e.marker());
                let ch = src[pos..]
                    .chars()
                    .next()
                    .filter(|c| !matches!(c, '\n' | '\r'));
                let mut message = format!("YAML syntax error: {}", e.info());
                if ch == Some('@') {
                    message.push_str(
                        " (a handle starting with `@` must be quoted, as in `\"@reviewer\"`, \
                         or written without the `@`)",
                    );
                }
                let range = pos..pos + ch.map_or(0, char::len_utf8);
                return (events, Some(SyntaxError { range, message }));
            }
        }
    }
}

struct Frame {
    start: usize,
    flow: bool,
    /// The end of the last child (or where children start); see `ScalarAt::prev_end`.
    last_end: usize,
    kind: FrameKind,
}

enum FrameKind {
    Sequence(Vec<Node>),
    Mapping {
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
    },
}

/// A collection too deep to keep: we only count nesting until it ends.
struct Skipping {
    depth: usize,
    start: usize,
    flow: bool,
    mapping: bool,
    last_end: usize,
}

struct Builder<'a> {
    src: &'a str,
    frames: Vec<Frame>,
    root: Option<Node>,
    skipping: Option<Skipping>,
}

impl Builder<'_> {
    fn event(&mut self, event: &Event, pos: usize, bound: usize) {
        if let Some(skip) = &mut self.skipping {
            match event {
                Event::SequenceStart(..) | Event::MappingStart(..) => skip.depth += 1,
                Event::SequenceEnd | Event::MappingEnd => {
                    skip.depth -= 1;
                    if skip.depth == 0 {
                        let Skipping {
                            start,
                            flow,
                            mapping,
                            last_end,
                            ..
                        } = *skip;
                        self.skipping = None;
                        // Only the bound of its last scalar is known: trim the blank after it.
                        let last_end = start.max(self.src[..last_end].trim_end().len());
                        let end = self.collection_end(flow, pos, last_end);
                        let kind = if mapping {
                            NodeKind::Mapping(Vec::new())
                        } else {
                            NodeKind::Sequence(Vec::new())
                        };
                        self.push(Node {
                            kind,
                            range: start..end,
                        });
                    }
                }
                Event::Scalar(..) => skip.last_end = bound.max(skip.last_end),
                _ => {}
            }
            return;
        }
        match event {
            Event::Scalar(value, style, _, tag) => {
                let range = scalar::extent(&ScalarAt {
                    src: self.src,
                    start: pos,
                    bound,
                    prev_end: self.prev_end(),
                    in_flow: self.in_flow(),
                    style: *style,
                    value,
                });
                let kind = NodeKind::Scalar {
                    value: value.clone(),
                    style: *style,
                    tag: tag.clone(),
                };
                self.push(Node { kind, range });
            }
            Event::Alias(_) => {
                let range = scalar::alias(self.src, pos);
                self.push(Node {
                    kind: NodeKind::Alias,
                    range,
                });
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let mapping = matches!(event, Event::MappingStart(..));
                let flow = self.src[pos..].starts_with(['[', '{']);
                // A block mapping's event sits after its first key; its children start
                // where the parent's next child would.
                let last_end = if flow {
                    pos + 1
                } else if mapping {
                    self.prev_end().min(pos)
                } else {
                    pos
                };
                if self.frames.len() >= MAX_DEPTH {
                    self.skipping = Some(Skipping {
                        depth: 1,
                        start: pos,
                        flow,
                        mapping,
                        last_end,
                    });
                    return;
                }
                let kind = if mapping {
                    FrameKind::Mapping {
                        entries: Vec::new(),
                        key: None,
                    }
                } else {
                    FrameKind::Sequence(Vec::new())
                };
                self.frames.push(Frame {
                    start: pos,
                    flow,
                    last_end,
                    kind,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.frames.pop() else {
                    return;
                };
                let end = self.collection_end(frame.flow, pos, frame.last_end);
                let kind = match frame.kind {
                    FrameKind::Sequence(items) => NodeKind::Sequence(items),
                    FrameKind::Mapping { entries, .. } => NodeKind::Mapping(entries),
                };
                let start = frame.start.min(end);
                self.push(Node {
                    kind,
                    range: start..end,
                });
            }
            _ => {}
        }
    }

    fn collection_end(&self, flow: bool, pos: usize, last_end: usize) -> usize {
        if flow && self.src[pos..].starts_with([']', '}']) {
            pos + 1
        } else if flow {
            pos
        } else {
            last_end
        }
    }

    fn prev_end(&self) -> usize {
        self.frames.last().map_or(0, |f| f.last_end)
    }

    fn in_flow(&self) -> bool {
        self.frames.last().is_some_and(|f| f.flow)
    }

    fn push(&mut self, node: Node) {
        let Some(frame) = self.frames.last_mut() else {
            self.root.get_or_insert(node);
            return;
        };
        frame.last_end = node.range.end;
        match &mut frame.kind {
            FrameKind::Sequence(items) => items.push(node),
            FrameKind::Mapping { entries, key } => match key.take() {
                None => {
                    if !frame.flow && entries.is_empty() {
                        frame.start = frame.start.min(node.range.start);
                    }
                    *key = Some(node);
                }
                Some(k) => entries.push((k, node)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::document::front_matter::{ProblemKind, locate, parse};

    /// Found by fuzzing: yaml-rust2 reads a NUL as the end of its input, so the keys
    /// after one were dropped without a problem.
    #[test]
    fn a_nul_in_front_matter_is_a_syntax_error_not_the_end() {
        let text = "---\ntitle: x\n# a\0b\nstatus: ended\n---\n## @me\n";
        let fm = parse(text, &locate(text).unwrap());
        let nul = text.find('\0').unwrap();
        assert_eq!(fm.title.map(|t| t.value).as_deref(), Some("x"));
        assert_eq!(fm.problems.len(), 1, "{:?}", fm.problems);
        assert_eq!(fm.problems[0].range, nul..nul + 1);
        assert_eq!(fm.problems[0].kind, ProblemKind::Syntax);
        assert!(
            fm.problems[0].message.contains("NUL"),
            "{}",
            fm.problems[0].message
        );
        // A syntax error right before the NUL, with text after it on the same line.
        let text = "---\nmembers: [a\u{1}\0\" b]\ntitle: x\n---\n";
        let fm = parse(text, &locate(text).unwrap());
        assert_eq!(fm.problems.len(), 1, "{:?}", fm.problems);
        assert!(fm.problems[0].range.end <= text.find('\0').unwrap() + 1);
    }

    /// Fuzzing found a problem range off a character boundary (input not kept); this is
    /// one such place: a second document begun after `... #` (no closing fence: text
    /// follows) has no `---`, and the problem's three bytes (from the `:` where its
    /// event sits) ended inside the `€` of its value.
    #[test]
    fn a_second_document_without_dashes_is_underlined_on_whole_characters() {
        let text = "---\na: 1\n... #\n  é: €\n---\n";
        let fm = parse(text, &locate(text).unwrap());
        let at = text.find('é').unwrap();
        let problems: Vec<_> = fm
            .problems
            .iter()
            .map(|p| (p.range.clone(), &*p.message))
            .collect();
        let message = "only one YAML document is allowed in front matter";
        assert_eq!(problems, [(at..at + "é".len(), message)]);
    }
}
