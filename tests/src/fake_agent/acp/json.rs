//! A JSON value that keeps the order of object keys, so the fake prints every message
//! with its keys in the order the real agent prints them (`serde_json::Value` sorts
//! them, and the workspace does not enable `preserve_order`).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

/// An ordered JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(Number),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// An ordered object: `obj! { "a": 1, "b": "x" }`; values are anything `Into<J>`.
macro_rules! obj {
    ($($key:literal : $value:expr),* $(,)?) => {
        $crate::fake_agent::acp::json::J::Obj(vec![
            $(($key.to_string(), $crate::fake_agent::acp::json::J::from($value))),*
        ])
    };
}
pub(crate) use obj;

impl J {
    /// Parses `text` (a template); panics on invalid JSON, which is a bug in the fake.
    pub fn parse(text: &str) -> J {
        serde_json::from_str(text).expect("the fake's JSON templates are valid")
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The member `key`, which a template must have.
    pub fn at(&self, key: &str) -> J {
        self.get(key)
            .cloned()
            .unwrap_or_else(|| panic!("the fake's template lacks {key:?}"))
    }

    /// Sets member `key` in place (or appends it), keeping the order of the others.
    pub fn set(&mut self, key: &str, value: impl Into<J>) {
        if let J::Obj(members) = self {
            let value = value.into();
            match members.iter_mut().find(|(k, _)| k == key) {
                Some((_, slot)) => *slot = value,
                None => members.push((key.to_string(), value)),
            }
        }
    }

    /// The elements of an array (empty for anything else).
    pub fn items(&self) -> &[J] {
        match self {
            J::Arr(items) => items,
            _ => &[],
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    /// One line of compact JSON.
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("JSON serialization cannot fail")
    }
}

impl fmt::Display for J {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line())
    }
}

impl From<&str> for J {
    fn from(s: &str) -> J {
        J::Str(s.to_string())
    }
}

impl From<String> for J {
    fn from(s: String) -> J {
        J::Str(s)
    }
}

impl From<&String> for J {
    fn from(s: &String) -> J {
        J::Str(s.clone())
    }
}

impl From<bool> for J {
    fn from(b: bool) -> J {
        J::Bool(b)
    }
}

impl From<u64> for J {
    fn from(n: u64) -> J {
        J::Num(n.into())
    }
}

impl From<i64> for J {
    fn from(n: i64) -> J {
        J::Num(n.into())
    }
}

impl From<f64> for J {
    fn from(n: f64) -> J {
        Number::from_f64(n).map_or(J::Null, J::Num)
    }
}

impl From<Vec<J>> for J {
    fn from(items: Vec<J>) -> J {
        J::Arr(items)
    }
}

impl<T: Into<J>> From<Option<T>> for J {
    fn from(value: Option<T>) -> J {
        value.map_or(J::Null, Into::into)
    }
}

impl From<&J> for J {
    fn from(value: &J) -> J {
        value.clone()
    }
}

/// A `serde_json::Value` (what the client sent), with its keys in sorted order.
impl From<&Value> for J {
    fn from(value: &Value) -> J {
        match value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => J::Num(n.clone()),
            Value::String(s) => J::Str(s.clone()),
            Value::Array(items) => J::Arr(items.iter().map(J::from).collect()),
            Value::Object(map) => {
                J::Obj(map.iter().map(|(k, v)| (k.clone(), J::from(v))).collect())
            }
        }
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => serializer.serialize_unit(),
            J::Bool(b) => serializer.serialize_bool(*b),
            J::Num(n) => n.serialize(serializer),
            J::Str(s) => serializer.serialize_str(s),
            J::Arr(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            J::Obj(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<J, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = J;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<J, E> {
        Ok(J::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<J, E> {
        Ok(J::Num(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<J, E> {
        Ok(J::Num(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<J, E> {
        Ok(J::from(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<J, E> {
        Ok(J::Str(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<J, E> {
        Ok(J::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(J::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, J>()? {
            members.push((k, v));
        }
        Ok(J::Obj(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_through_a_round_trip() {
        let text = r#"{"z":1,"a":{"y":[true,null,"s"],"b":2.5},"m":"x"}"#;
        assert_eq!(J::parse(text).line(), text);
        let mut built = obj! { "sessionUpdate": "usage_update", "used": 5u64 };
        built.set("size", 10u64);
        built.set("used", 6u64);
        assert_eq!(
            built.line(),
            r#"{"sessionUpdate":"usage_update","used":6,"size":10}"#
        );
    }
}
