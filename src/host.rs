//! [`Host`]: the names a host gives its hooks: report prefix, variables, config folder.

/// The host's names: the prefix of the report lines, of the environment
/// variables, and the config folder. nanopi's by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    name: String,
    env: EnvNames,
}

/// The names of the five variables a hook is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvNames {
    /// `NANOPI_EVENT`: the CamelCase event name, always set.
    pub event: String,
    /// `NANOPI_CWD`: the session's working directory, always set.
    pub cwd: String,
    /// `NANOPI_SESSION_ID`: when a session id exists.
    pub session_id: String,
    /// `NANOPI_TOOL_NAME`: on non-session events, empty without a tool.
    pub tool_name: String,
    /// `NANOPI_TOOL_CALL_ID`: only when a tool call id exists.
    pub tool_call_id: String,
}

impl EnvNames {
    /// The five names, in the order [`env_vars`](crate::dialect::nanopi::env_vars) sets them.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        [
            &self.event,
            &self.cwd,
            &self.session_id,
            &self.tool_name,
            &self.tool_call_id,
        ]
        .into_iter()
        .map(String::as_str)
    }
}

impl Host {
    /// A host called `name`: report lines start `name: `, variables `NAME_`, and
    /// the config folder is `.name`.
    ///
    /// ```
    /// use tower_hooks::Host;
    /// let host = Host::new("myagent");
    /// assert_eq!(host.env_names().event, "MYAGENT_EVENT");
    /// assert_eq!(host.config_dir(), ".myagent");
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let prefix: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        let var = |suffix: &str| format!("{prefix}_{suffix}");
        Host {
            env: EnvNames {
                event: var("EVENT"),
                cwd: var("CWD"),
                session_id: var("SESSION_ID"),
                tool_name: var("TOOL_NAME"),
                tool_call_id: var("TOOL_CALL_ID"),
            },
            name,
        }
    }

    /// The host name (`nanopi`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The variable names.
    pub fn env_names(&self) -> &EnvNames {
        &self.env
    }

    /// The config folder under `~` and the project (`.nanopi`).
    pub fn config_dir(&self) -> String {
        format!(".{}", self.name)
    }
}

impl Default for Host {
    fn default() -> Self {
        Host::new("nanopi")
    }
}
