//! File `if` patterns: paths matched component by component.

use super::super::glob::glob;

// ---- paths and hosts -------------------------------------------------------

/// A file `if` pattern against a path (see the module docs).
pub(super) fn path_matches(pattern: &str, path: &str, cwd: Option<&str>) -> bool {
    let mut pattern = pattern.trim().to_owned();
    if pattern.ends_with('/') {
        pattern.push_str("**");
    }
    let pattern = pattern.strip_prefix("./").unwrap_or(&pattern).to_owned();
    let (anchored, rest): (Option<String>, &str) = if let Some(abs) = pattern.strip_prefix("//") {
        (Some(String::new()), abs)
    } else if let Some(abs) = pattern.strip_prefix('/') {
        (Some(String::new()), abs)
    } else if let Some(home) = pattern.strip_prefix("~/") {
        match std::env::var("HOME") {
            Ok(dir) => (Some(dir.trim_end_matches('/').to_owned()), home),
            Err(_) => return false,
        }
    } else if !pattern.contains('/') {
        // A file name at any depth.
        let name = path.rsplit('/').next().unwrap_or(path);
        return glob_component(&pattern, name);
    } else {
        match cwd {
            Some(dir) => (Some(dir.trim_end_matches('/').to_owned()), pattern.as_str()),
            None => (None, pattern.as_str()),
        }
    };
    let rest: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let path_parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match anchored {
        Some(base) => {
            let base: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
            if path_parts.len() < base.len() || path_parts[..base.len()] != base[..] {
                return false;
            }
            components_match(&rest, &path_parts[base.len()..])
        }
        None => (0..=path_parts.len()).any(|start| components_match(&rest, &path_parts[start..])),
    }
}

/// Path components against pattern components, `**` spanning any number.
fn components_match(pattern: &[&str], path: &[&str]) -> bool {
    // Reachable positions in `path` after each pattern component (a small
    // table, no backtracking blow-up on many `**`).
    let mut reach = vec![false; path.len() + 1];
    reach[0] = true;
    for part in pattern {
        let mut next = vec![false; path.len() + 1];
        if *part == "**" {
            let mut on = false;
            for j in 0..=path.len() {
                on |= reach[j];
                next[j] = on;
            }
        } else {
            for j in 0..path.len() {
                if reach[j] && glob_component(part, path[j]) {
                    next[j + 1] = true;
                }
            }
        }
        reach = next;
    }
    reach[path.len()]
}

/// One path component against a pattern component: `*` within it.
fn glob_component(pattern: &str, name: &str) -> bool {
    glob(pattern, name)
}
