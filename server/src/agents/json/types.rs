//! The field types of the typed views, each reading a value the way a `Value` accessor
//! would: strings, numbers, booleans, objects, arrays, and "present and not `null`".

use std::borrow::Cow;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess};

use super::lenient::{Lenient, lenient};

/// A string field: `Value::as_str` of the field.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl Str<'_> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub fn is(&self, expected: &str) -> bool {
        self.get() == Some(expected)
    }
}

impl<'de: 'a, 'a> Lenient<'de> for Str<'a> {
    fn other() -> Self {
        Str(None)
    }

    fn borrowed_str(text: &'de str) -> Self {
        Str(Some(Cow::Borrowed(text)))
    }

    fn transient_str(text: &str) -> Self {
        Str(Some(Cow::Owned(text.to_owned())))
    }

    fn owned_string(text: String) -> Self {
        Str(Some(Cow::Owned(text)))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A number field: `Value::as_u64` of the field.
#[derive(Debug, Default, Clone, Copy)]
pub struct U64(pub Option<u64>);

impl U64 {
    /// The number, 0 when absent (usage fields are optional everywhere).
    pub fn or_zero(self) -> u64 {
        self.0.unwrap_or(0)
    }
}

impl Lenient<'_> for U64 {
    fn other() -> Self {
        U64(None)
    }

    fn unsigned(v: u64) -> Self {
        U64(Some(v))
    }

    fn signed(v: i64) -> Self {
        U64(u64::try_from(v).ok())
    }
}

impl<'de> Deserialize<'de> for U64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A number field: `Value::as_i64` of the field.
#[derive(Debug, Default, Clone, Copy)]
pub struct I64(pub Option<i64>);

impl Lenient<'_> for I64 {
    fn other() -> Self {
        I64(None)
    }

    fn unsigned(v: u64) -> Self {
        I64(i64::try_from(v).ok())
    }

    fn signed(v: i64) -> Self {
        I64(Some(v))
    }
}

impl<'de> Deserialize<'de> for I64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A number field: `Value::as_f64` of the field (integers too).
#[derive(Debug, Default, Clone, Copy)]
pub struct F64(pub Option<f64>);

impl Lenient<'_> for F64 {
    fn other() -> Self {
        F64(None)
    }

    fn unsigned(v: u64) -> Self {
        F64(Some(v as f64))
    }

    fn signed(v: i64) -> Self {
        F64(Some(v as f64))
    }

    fn float(v: f64) -> Self {
        F64(Some(v))
    }
}

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A boolean field: `Value::as_bool` of the field.
#[derive(Debug, Default, Clone, Copy)]
pub struct Bool(pub Option<bool>);

impl Lenient<'_> for Bool {
    fn other() -> Self {
        Bool(None)
    }

    fn boolean(v: bool) -> Self {
        Bool(Some(v))
    }
}

impl<'de> Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A field whose value is an object read into `T`. Unlike `Option`, it tells a field
/// that is there but `null` (or not an object) from a missing one, as `Value::get` does.
#[derive(Debug, Default)]
pub enum Obj<T> {
    #[default]
    Absent,
    /// Present, but not an object.
    Other,
    Object(T),
}

impl<T> Obj<T> {
    /// The object, when the field is one.
    pub fn get(&self) -> Option<&T> {
        match self {
            Obj::Object(inner) => Some(inner),
            _ => None,
        }
    }

    /// The object, when the field is one, by value.
    pub fn into_inner(self) -> Option<T> {
        match self {
            Obj::Object(inner) => Some(inner),
            _ => None,
        }
    }

    /// Whether the field is there at all (`Value::get(..).is_some()`).
    pub fn is_present(&self) -> bool {
        !matches!(self, Obj::Absent)
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for Obj<T> {
    fn other() -> Self {
        Obj::Other
    }

    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Obj::Object)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// An array field: its elements, none when the field is not an array.
#[derive(Debug)]
pub struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for List<T> {
    fn other() -> Self {
        List::default()
    }

    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(List(items))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}

/// A field whose value is only tested for being there and not `null`
/// (`Value::get(..).is_some_and(|v| !v.is_null())`).
#[derive(Debug, Default, Clone, Copy)]
pub struct NonNull(pub bool);

impl Lenient<'_> for NonNull {
    fn other() -> Self {
        NonNull(true)
    }

    fn null() -> Self {
        NonNull(false)
    }
}

impl<'de> Deserialize<'de> for NonNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d)
    }
}
