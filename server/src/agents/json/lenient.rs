//! How a field type reads each kind of JSON value, so that no value of an unexpected
//! type is refused: the [`Lenient`] trait, and [`lenient`] to deserialize with it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// How a field type reads each kind of JSON value; everything not overridden reads as
/// [`Lenient::other`].
pub trait Lenient<'de>: Sized {
    /// A value of a kind the field does not take (and `null`, unless [`Lenient::null`]
    /// says otherwise).
    fn other() -> Self;

    fn null() -> Self {
        Self::other()
    }

    fn boolean(_: bool) -> Self {
        Self::other()
    }

    /// A non-negative integer that fits u64 (`serde_json` gives negatives as i64 and
    /// everything else as f64).
    fn unsigned(_: u64) -> Self {
        Self::other()
    }

    fn signed(_: i64) -> Self {
        Self::other()
    }

    /// A number with a fraction (or too large for the integer kinds).
    fn float(_: f64) -> Self {
        Self::other()
    }

    /// A string borrowed from the input (it had no escapes).
    fn borrowed_str(text: &'de str) -> Self {
        Self::transient_str(text)
    }

    /// A string that lives only for the call (unescaped into a scratch buffer).
    fn transient_str(_: &str) -> Self {
        Self::other()
    }

    fn owned_string(text: String) -> Self {
        Self::transient_str(&text)
    }

    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::other())
    }

    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::other())
    }
}

struct LenientVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient<'de>> Visitor<'de> for LenientVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<T, E> {
        Ok(T::boolean(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<T, E> {
        Ok(T::signed(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<T, E> {
        Ok(T::unsigned(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<T, E> {
        Ok(T::float(v))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<T, E> {
        Ok(T::borrowed_str(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<T, E> {
        Ok(T::transient_str(v))
    }

    fn visit_string<E>(self, v: String) -> Result<T, E> {
        Ok(T::owned_string(v))
    }

    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::null())
    }

    fn visit_none<E>(self) -> Result<T, E> {
        Ok(T::null())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::array(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::object(map)
    }
}

pub fn lenient<'de, D: Deserializer<'de>, T: Lenient<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(LenientVisitor(PhantomData))
}
