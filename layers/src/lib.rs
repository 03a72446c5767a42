//! Optional tower layers for [`tower_hooks`]: metrics, caching and audit.
