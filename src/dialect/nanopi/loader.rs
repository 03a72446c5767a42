//! nanopi's files: `config.toml` and `settings.toml` in the host's folder
//! ([`default_paths`]), any `*.toml` by name.

use std::path::{Path, PathBuf};

use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::{default_paths, ConfigError, ConfigFile, Discovery, Format};
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Format {
    /// nanopi's TOML (`config.toml`, `settings.toml`).
    pub const Nanopi: Format = Format::new("nanopi", Dialect::Nanopi);
}

/// nanopi's [`Loader`].
#[derive(Debug)]
pub(crate) struct NanopiLoader;

impl Loader for NanopiLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Nanopi]
    }

    fn files(&self, _: Format, discovery: &Discovery) -> Vec<PathBuf> {
        default_paths(discovery.host(), discovery.home(), discovery.project())
    }

    fn detect(&self, path: &Path) -> Option<Format> {
        let toml = path.extension().is_some_and(|ext| ext == "toml");
        toml.then_some(Format::Nanopi)
    }

    /// nanopi v0.12: any problem with a file stops the load, naming the file.
    fn broken_file_fails_the_load(&self) -> bool {
        true
    }

    fn start(&self) -> Box<dyn Load> {
        Box::new(NanopiLoader)
    }
}

impl Load for NanopiLoader {
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError> {
        let config = crate::config::load_file(file.path(), ctx.home_text)?;
        ctx.merge(config);
        Ok(())
    }
}
