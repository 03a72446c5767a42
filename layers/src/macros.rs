//! The accessors every layer's service has.

/// `get_ref`, `get_mut` and `into_inner` of a service that wraps another one,
/// `S`, in its field `inner`. Used inside `impl<S>` blocks, as tower-http's
/// `define_inner_service_accessors!` (tower-hooks has its own copy).
macro_rules! define_inner_service_accessors {
    () => {
        /// The inner service.
        pub fn get_ref(&self) -> &S {
            &self.inner
        }

        /// The inner service, mutably.
        pub fn get_mut(&mut self) -> &mut S {
            &mut self.inner
        }

        /// Unwraps the inner service.
        pub fn into_inner(self) -> S {
            self.inner
        }
    };
}
