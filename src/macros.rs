//! Macros shared by the crate's services.

/// The accessors of a service that wraps another one, `S`, in a field
/// (`inner` unless named): `get_ref`, `get_mut` (left out with `ref_only`)
/// and `into_inner`, documented as "the `what`". Used inside `impl<S, ..>`
/// blocks, as tower-http's `define_inner_service_accessors!`.
macro_rules! define_inner_service_accessors {
    () => {
        define_inner_service_accessors!(inner, "inner service");
    };
    ($field:ident, $what:literal) => {
        define_inner_service_accessors!(@get_ref $field, $what);
        define_inner_service_accessors!(@get_mut $field, $what);
        define_inner_service_accessors!(@into_inner $field, $what);
    };
    ($field:ident, $what:literal, ref_only) => {
        define_inner_service_accessors!(@get_ref $field, $what);
        define_inner_service_accessors!(@into_inner $field, $what);
    };
    (@get_ref $field:ident, $what:literal) => {
        #[doc = concat!("The ", $what, ".")]
        pub fn get_ref(&self) -> &S {
            &self.$field
        }
    };
    (@get_mut $field:ident, $what:literal) => {
        #[doc = concat!("The ", $what, ", mutably.")]
        pub fn get_mut(&mut self) -> &mut S {
            &mut self.$field
        }
    };
    (@into_inner $field:ident, $what:literal) => {
        #[doc = concat!("Unwraps the ", $what, ".")]
        pub fn into_inner(self) -> S {
            self.$field
        }
    };
}

/// `Deserialize` for types read by their
/// [`Shape`](crate::config::derived::Shape): an array or an object goes to
/// the shape, any other value is refused with what the shape expects.
macro_rules! deserialize_by_shape {
    ($($ty:ty),+ $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::config::derived::shaped(d)
            }
        }
    )+};
}
