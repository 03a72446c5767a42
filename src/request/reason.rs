//! Why a session started or ended, and why a conversation was compacted.

/// Why a session started (`session_start`'s `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StartReason {
    /// The process started.
    Startup,
    /// `/new`.
    New,
    /// `/resume`.
    Resume,
    /// `/fork`.
    Fork,
    /// `/import`.
    Import,
}

/// Why a session is shutting down (`session_shutdown`'s `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShutdownReason {
    /// The process is exiting: the only real exit.
    Quit,
    /// `/new`.
    New,
    /// `/resume`.
    Resume,
    /// `/fork`.
    Fork,
    /// `/import`.
    Import,
}

/// Why compaction runs (`reason` of the two compaction events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompactionReason {
    /// The context crossed its size threshold.
    Threshold,
    /// The user asked for it.
    Manual,
}

impl StartReason {
    /// The wire value.
    pub const fn as_str(self) -> &'static str {
        match self {
            StartReason::Startup => "startup",
            StartReason::New => "new",
            StartReason::Resume => "resume",
            StartReason::Fork => "fork",
            StartReason::Import => "import",
        }
    }
}

impl ShutdownReason {
    /// The wire value.
    pub const fn as_str(self) -> &'static str {
        match self {
            ShutdownReason::Quit => "quit",
            ShutdownReason::New => "new",
            ShutdownReason::Resume => "resume",
            ShutdownReason::Fork => "fork",
            ShutdownReason::Import => "import",
        }
    }
}

impl CompactionReason {
    /// The wire value.
    pub const fn as_str(self) -> &'static str {
        match self {
            CompactionReason::Threshold => "threshold",
            CompactionReason::Manual => "manual",
        }
    }
}
