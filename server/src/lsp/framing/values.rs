//! Reading JSON values without building them: each value is counted (a message may
//! hold at most [`MAX_VALUES`]) and dropped, except the few scalars the checks of
//! `message` need.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The most JSON values (numbers, strings, array items, object members...) one message
/// may hold. A 10 MB chat opened in the editor is a handful; a change of 100k watched
/// files about 300k. Parsed, a million values take about 100 MB.
pub(super) const MAX_VALUES: usize = 1 << 20;

/// A top-level member's value, as much as the checks need.
#[derive(Debug, PartialEq)]
pub(super) enum Scalar {
    Null,
    Int(i64),
    Str(String),
    /// Anything else: a fraction, an integer beyond i64, a bool, an array, an object.
    Other(&'static str),
}

#[derive(Default)]
pub(super) struct Count {
    values: usize,
    pub(super) over: bool,
}

impl Count {
    pub(super) fn add<E: de::Error>(&mut self) -> Result<(), E> {
        self.values += 1;
        if self.values > MAX_VALUES {
            self.over = true;
            return Err(E::custom("too many values"));
        }
        Ok(())
    }
}

/// Any value, counted and dropped as it is read (nothing is built).
pub(super) struct Counted<'a>(pub(super) &'a mut Count);

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.add()?;
        while map.next_key_seed(Counted(&mut *self.0))?.is_some() {
            map.next_value_seed(Counted(&mut *self.0))?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.add()?;
        while seq.next_element_seed(Counted(&mut *self.0))?.is_some() {}
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.add()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.add()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.add()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.add()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.0.add()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.add()
    }
}

/// `jsonrpc`, `id` or `method`: kept when it is a scalar, counted otherwise.
pub(super) struct Small<'a>(pub(super) &'a mut Count);

impl<'de> DeserializeSeed<'de> for Small<'_> {
    type Value = Scalar;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Small<'_> {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar, A::Error> {
        Counted(self.0).visit_map(map)?;
        Ok(Scalar::Other("an object"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar, A::Error> {
        Counted(self.0).visit_seq(seq)?;
        Ok(Scalar::Other("an array"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scalar, E> {
        self.0.add()?;
        Ok(Scalar::Other("a bool"))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
        self.0.add()?;
        Ok(Scalar::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
        self.0.add()?;
        Ok(i64::try_from(v).map_or(Scalar::Other("too large"), Scalar::Int))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Scalar, E> {
        self.0.add()?;
        Ok(Scalar::Other("not a whole number"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
        self.0.add()?;
        Ok(Scalar::Str(v.to_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
        self.0.add()?;
        Ok(Scalar::Null)
    }
}

/// A response's `error`: an object of an integer `code`, a string `message` and an
/// optional `data`, nothing else (tower-lsp-server denies other members).
pub(super) struct ErrorObject<'a>(pub(super) &'a mut Count);

impl<'de> DeserializeSeed<'de> for ErrorObject<'_> {
    type Value = Result<(), String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ErrorObject<'_> {
    type Value = Result<(), String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an error object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        self.0.add()?;
        let (mut code, mut message, mut problem) = (0, 0, None);
        while let Some(key) = map.next_key::<String>()? {
            self.0.add()?;
            let value = map.next_value_seed(Small(&mut *self.0))?;
            match (key.as_str(), value) {
                ("code", Scalar::Int(_)) => code += 1,
                ("message", Scalar::Str(_)) => message += 1,
                ("data", _) => {}
                ("code" | "message", _) => {
                    problem.get_or_insert(format!("its error has a `{key}` of the wrong type"));
                }
                (other, _) => {
                    problem.get_or_insert(format!("its error has an unknown member `{other}`"));
                }
            }
        }
        Ok(match (problem, code, message) {
            (Some(problem), _, _) => Err(problem),
            (None, 1, 1) => Ok(()),
            _ => Err("its error needs one integer `code` and one string `message`".into()),
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Small(self.0).visit_seq(seq)?;
        Ok(Err("its error is not an object".into()))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        self.not_object()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        self.not_object()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        self.not_object()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        self.not_object()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        self.not_object()
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.not_object()
    }
}

impl ErrorObject<'_> {
    fn not_object<E: de::Error>(self) -> Result<Result<(), String>, E> {
        self.0.add()?;
        Ok(Err("its error is not an object".into()))
    }
}
