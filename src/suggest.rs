//! "Did you mean …?": the closest of a few known names to a misspelled one.

/// The candidate closest to `given`, if one is close enough to be what was
/// meant: equal once case and `_`, `-` and spaces are ignored (a CamelCase
/// spelling of a snake_case name), or a few edits away.
pub(crate) fn closest<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let given = normalized(given);
    if given.is_empty() {
        return None;
    }
    // One edit in a short name, two in a longer one: closer than that, the
    // guess would be noise.
    let limit = if given.chars().count() < 6 { 1 } else { 2 };
    candidates
        .into_iter()
        .map(|candidate| (distance(&given, &normalized(candidate)), candidate))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`:
/// the optimal string alignment distance.
fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: [&str; 3] = ["tool_execution_start", "tool_execution_end", "input"];

    #[test]
    fn camel_case_and_close_misspellings_are_recognised() {
        assert_eq!(
            closest("ToolExecutionStart", EVENTS),
            Some("tool_execution_start")
        );
        assert_eq!(
            closest("tool_exection_end", EVENTS),
            Some("tool_execution_end")
        );
        assert_eq!(
            closest("tool-execution-strat", EVENTS),
            Some("tool_execution_start")
        );
        assert_eq!(closest("inptu", EVENTS), Some("input"));
        assert_eq!(closest("comand", ["command"]), Some("command"));
    }

    #[test]
    fn far_names_get_no_guess() {
        assert_eq!(closest("tool", EVENTS), None);
        assert_eq!(closest("", EVENTS), None);
        assert_eq!(closest("http", ["command"]), None);
        assert_eq!(closest("ipt", EVENTS), None);
    }

    #[test]
    fn distance_counts_a_swap_as_one_edit() {
        let d = |a: &str, b: &str| distance(&normalized(a), &normalized(b));
        assert_eq!(d("abc", "abc"), 0);
        assert_eq!(d("abc", "acb"), 1);
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("", "ab"), 2);
    }
}
