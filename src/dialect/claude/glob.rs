//! The `*` patterns of permission rules and of `allowedHttpHookUrls`.

/// `*` matches any run of characters (none included); every other character
/// matches itself.
///
/// Linear in the lengths of both (a backtracking matcher is quadratic, and
/// both come from hooks files): the text must start with the part before the
/// first `*` and end with the part after the last, and each part between
/// is found, in order, after the one before it; taking each at its first
/// place leaves the most room for the rest.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let Some((first, after_first)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let (middle, last) = after_first.rsplit_once('*').unwrap_or(("", after_first));
    if text.len() < first.len() + last.len() || !text.starts_with(first) || !text.ends_with(last) {
        return false;
    }
    // Both ends matched whole text at char boundaries, and they do not overlap.
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in middle.split('*').filter(|part| !part.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}
