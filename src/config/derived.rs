//! What the JSON dialects' derived config types share.
//!
//! A field's `Deserialize` checks its value and, when it is wrong, raises a
//! [`refuse`] error that says what the value must be and what it is; the
//! loader reads the file through `serde_path_to_error`, so the error comes
//! back with its JSON path, and [`Refused::read`] turns it into the loader's
//! [`ConfigErrorKind`] with the place worded as the dialect words it. serde
//! carries an error raised inside a `Deserialize` as its message only, so the
//! refusal travels as text: what the value must be, a separator no
//! expectation contains, and the description of the value.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{describe_json, ConfigErrorKind};

/// Between what a value must be and what it is, in a refusal's message.
const SEPARATOR: char = '\u{1f}';

/// The error a field's `Deserialize` raises for `found`, which must be
/// `expected`.
pub(crate) fn refuse<E: de::Error>(expected: &'static str, found: &Value) -> E {
    refuse_described(expected, &describe_json(found))
}

/// [`refuse`], with the value already described (`a string with one`).
pub(crate) fn refuse_described<E: de::Error>(expected: &'static str, found: &str) -> E {
    E::custom(format_args!("{expected}{SEPARATOR}{found}"))
}

/// A refusal read back from a path-tracked error.
#[derive(Debug)]
pub(crate) struct Refused<'a> {
    /// The JSON path of the refused value.
    pub(crate) path: &'a serde_path_to_error::Path,
    /// What it must be.
    pub(crate) expected: &'static str,
    /// What it is.
    pub(crate) found: String,
}

impl<'a> Refused<'a> {
    /// The refusal in `err`, whose expectation is one of `expected` (those
    /// the file's types raise); `None` for any other error.
    pub(crate) fn read(
        err: &'a serde_path_to_error::Error<serde_json::Error>,
        expected: &[&'static str],
    ) -> Option<Refused<'a>> {
        let message = err.inner().to_string();
        let (want, found) = message.split_once(SEPARATOR)?;
        let expected = expected.iter().copied().find(|e| *e == want)?;
        Some(Refused {
            path: err.path(),
            expected,
            found: found.to_owned(),
        })
    }

    /// [`ConfigErrorKind::InvalidValue`] at `at`.
    pub(crate) fn at(self, at: String) -> ConfigErrorKind {
        ConfigErrorKind::InvalidValue {
            at,
            expected: self.expected,
            found: self.found,
        }
    }
}

/// A visitor for a JSON array or object that refuses every other value
/// with `expected`; `null` is [`null`](Self::null).
pub(crate) trait Shape<'de>: Sized {
    /// What the value must be: `an array of hook entries`.
    const EXPECTED: &'static str;

    /// The value of `null` (refused unless overridden).
    fn null<E: de::Error>() -> Result<Self, E> {
        Err(refuse_described(Self::EXPECTED, "null"))
    }

    /// Reads an array.
    fn seq<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        drop(seq);
        Err(refuse_described(Self::EXPECTED, "an array"))
    }

    /// Reads an object.
    fn map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        drop(map);
        Err(refuse_described(Self::EXPECTED, "an object"))
    }
}

/// Deserializes a [`Shape`].
pub(crate) fn shaped<'de, T: Shape<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(ShapeVisitor(std::marker::PhantomData))
}

struct ShapeVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Shape<'de>> Visitor<'de> for ShapeVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }

    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        T::null()
    }

    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        T::null()
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Err(refuse(T::EXPECTED, &Value::from(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Err(refuse(T::EXPECTED, &Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Err(refuse(T::EXPECTED, &Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(refuse(T::EXPECTED, &Value::from(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Err(refuse(T::EXPECTED, &Value::from(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::map(map)
    }
}
