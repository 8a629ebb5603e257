//! What a frame's body holds, checked the way tower-lsp-server will decode it, without
//! building it. A body that tower-lsp-server cannot decode ends its reader for good (an
//! id that is a fraction, a bool, an object or 2^64; a member given twice; an error
//! object with a member it does not know), so such a body is found here and answered
//! instead. A body with more values than anyone sends is refused before it is built:
//! each value costs tens of bytes once parsed.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

pub(super) use super::values::MAX_VALUES;
use super::values::{Count, Counted, ErrorObject, Scalar, Small};

/// JSON-RPC error codes used in the answers.
pub(super) const PARSE_ERROR: i64 = -32700;
pub(super) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
pub(super) const INTERNAL_ERROR: i64 = -32603;

/// What to do with one body.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// Well-formed: passed on untouched. `exit` for the `exit` notification.
    Pass { exit: bool },
    /// Not passed on: answered with this error, for `id` (`None`: JSON-RPC's null id,
    /// the id could not be told).
    Answer {
        id: Option<Value>,
        code: i64,
        message: String,
    },
    /// The client's answer to one of the server's requests, malformed: it becomes an
    /// error answer for that request, which would otherwise wait for its timeout.
    FailedResponse { id: Value, message: String },
    /// A malformed notification (or answer) with no id to answer: dropped.
    Drop(String),
}

/// A body's verdict, and for one that passes, what it is.
pub(super) struct Inspected {
    pub(super) verdict: Verdict,
    /// The method, when the body passes and names one.
    pub(super) method: Option<String>,
    /// Whether it has an id (a request, when it has a method).
    pub(super) has_id: bool,
}

/// Checks one body.
#[cfg(test)]
pub(super) fn check(body: &[u8]) -> Verdict {
    inspect(body).verdict
}

/// [`check`], telling also the method of a body that passes.
pub(super) fn inspect(body: &[u8]) -> Inspected {
    let mut fields = Fields::default();
    let verdict = verdict(body, &mut fields);
    let method = match (&verdict, fields.method) {
        (Verdict::Pass { .. }, Some(Scalar::Str(method))) => Some(method),
        _ => None,
    };
    Inspected {
        verdict,
        method,
        has_id: fields.id.is_some(),
    }
}

fn verdict(body: &[u8], fields: &mut Fields) -> Verdict {
    if let Err(e) = std::str::from_utf8(body) {
        return answer(None, PARSE_ERROR, format!("the message is not UTF-8: {e}"));
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let parsed = Top(fields).deserialize(&mut de).and_then(|()| de.end());
    let id = fields.usable_id();
    if let Err(e) = parsed {
        return if fields.count.over {
            answer(
                id,
                INVALID_REQUEST,
                format!("the message holds more than {MAX_VALUES} JSON values; chatmd refuses it"),
            )
        } else {
            answer(
                id,
                PARSE_ERROR,
                format!("the message is not valid JSON: {e}"),
            )
        };
    }
    if !fields.object {
        return answer(
            None,
            INVALID_REQUEST,
            "a message must be one JSON-RPC object".into(),
        );
    }
    let is_response = fields.id.is_some() && (fields.result || fields.error.is_some());
    if is_response {
        return match fields.response_problem() {
            None => Verdict::Pass { exit: false },
            Some(problem) => match id {
                Some(id) => Verdict::FailedResponse {
                    id,
                    message: format!("the editor's answer was malformed: {problem}"),
                },
                None => Verdict::Drop(format!("an answer without a usable id: {problem}")),
            },
        };
    }
    if let Some(problem) = fields.request_problem() {
        return match (id, fields.id.is_some()) {
            (Some(id), _) => answer(Some(id), INVALID_REQUEST, problem),
            // An id that cannot be used: JSON-RPC answers with a null id.
            (None, true) => answer(None, INVALID_REQUEST, problem),
            (None, false) => Verdict::Drop(format!("a malformed notification: {problem}")),
        };
    }
    let method = match &fields.method {
        Some(Scalar::Str(m)) => m.as_str(),
        _ => "",
    };
    // tower-lsp-server leaves an unknown `$/` request unanswered; the client waits.
    if let (true, Some(id)) = (method.starts_with("$/"), id) {
        return answer(
            Some(id),
            METHOD_NOT_FOUND,
            format!("unknown request `{method}`"),
        );
    }
    Verdict::Pass {
        exit: method == "exit",
    }
}

fn answer(id: Option<Value>, code: i64, message: String) -> Verdict {
    Verdict::Answer { id, code, message }
}

/// The top-level members tower-lsp-server reads. Filled as the body is read, so what
/// came before a syntax error (often the id) is known.
#[derive(Default)]
struct Fields {
    count: Count,
    object: bool,
    duplicate: Option<String>,
    id_twice: bool,
    jsonrpc: Option<Scalar>,
    id: Option<Scalar>,
    method: Option<Scalar>,
    result: bool,
    /// The `error` member: `Err` says what is wrong with it.
    error: Option<Result<(), String>>,
}

impl Fields {
    fn usable_id(&self) -> Option<Value> {
        if self.id_twice {
            return None;
        }
        match &self.id {
            Some(Scalar::Null) => Some(Value::Null),
            Some(Scalar::Int(n)) => Some(Value::from(*n)),
            Some(Scalar::Str(s)) => Some(Value::from(s.as_str())),
            _ => None,
        }
    }

    fn common_problem(&self) -> Option<String> {
        if let Some(key) = &self.duplicate {
            return Some(format!("the member `{key}` is given twice"));
        }
        if self.jsonrpc != Some(Scalar::Str("2.0".into())) {
            return Some(r#"the message lacks "jsonrpc": "2.0""#.into());
        }
        match &self.id {
            Some(Scalar::Other(what)) => Some(format!(
                "the id is {what}; an id must be an integer (within 64 bits) or a string"
            )),
            _ => None,
        }
    }

    fn request_problem(&self) -> Option<String> {
        self.common_problem().or_else(|| match &self.method {
            Some(Scalar::Str(_)) => None,
            None => Some("the message has no method".into()),
            Some(_) => Some("the method is not a string".into()),
        })
    }

    fn response_problem(&self) -> Option<String> {
        self.common_problem().or_else(|| match &self.error {
            Some(Err(problem)) if !self.result => Some(problem.clone()),
            _ => None,
        })
    }
}

/// The whole body: an object's members are looked at, anything else only counted.
struct Top<'a>(&'a mut Fields);

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let fields = self.0;
        fields.object = true;
        fields.count.add()?;
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            fields.count.add()?;
            if !seen.insert(key.clone()) {
                fields.id_twice |= key == "id";
                fields.duplicate.get_or_insert(key.clone());
            }
            let count = &mut fields.count;
            match key.as_str() {
                "jsonrpc" => fields.jsonrpc = Some(map.next_value_seed(Small(count))?),
                "id" => fields.id = Some(map.next_value_seed(Small(count))?),
                "method" => fields.method = Some(map.next_value_seed(Small(count))?),
                "error" => fields.error = Some(map.next_value_seed(ErrorObject(count))?),
                "result" => {
                    fields.result = true;
                    map.next_value_seed(Counted(count))?;
                }
                _ => map.next_value_seed(Counted(count))?,
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Counted(&mut self.0.count).visit_seq(seq)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.count.add()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.count.add()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.count.add()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.count.add()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.0.count.add()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.count.add()
    }
}

#[cfg(test)]
#[path = "message_tests.rs"]
mod tests;
