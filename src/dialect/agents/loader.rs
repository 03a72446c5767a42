//! react-agent-mini's file: `<project>/.agents/hooks.json`.

use std::path::{Path, PathBuf};

use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::{ConfigError, ConfigFile, Discovery, Format};
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Dialect {
    /// react-agent-mini (`.agents/hooks.json`).
    pub const Agents: Dialect =
        Dialect::new("agents").with_answers(crate::dialect::AnswerForm::LastLine);
}

#[allow(non_upper_case_globals)]
impl Format {
    /// react-agent-mini's `.agents/hooks.json`.
    pub const Agents: Format = Format::new("agents", Dialect::Agents);
}

/// react-agent-mini's [`Loader`].
#[derive(Debug)]
pub(crate) struct AgentsLoader;

impl Loader for AgentsLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Agents]
    }

    fn files(&self, _: Format, discovery: &Discovery) -> Vec<PathBuf> {
        vec![discovery.project().join(super::FILE)]
    }

    /// A `hooks.json` in a folder named `.agents`.
    fn detect(&self, path: &Path) -> Option<Format> {
        let in_agents = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|dir| dir == ".agents");
        let agents = path.file_name().is_some_and(|f| f == "hooks.json") && in_agents;
        agents.then_some(Format::Agents)
    }

    fn start(&self) -> Box<dyn Load> {
        Box::new(AgentsLoader)
    }
}

impl Load for AgentsLoader {
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError> {
        let path = file.path();
        let loaded = super::load(path)?;
        ctx.hooks.extend(super::specs(&loaded, path));
        ctx.warn_in(path, loaded.warnings);
        Ok(())
    }
}
