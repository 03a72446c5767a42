//! Fuzzes the substitution of paths into hook commands: any command text with
//! `${X}` references, any path.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run substitution -- -dict=fuzz/substitution.dict -max_total_time=600`
//!
//! The input is the command, a `0xff` byte, then the path (no `0xff`: the
//! rest is the command). Besides "no panic", it checks what the scanner can
//! tell without running a shell: under `sh` and bash, the command with the
//! path ends in the same quoting context as with a plain path, wherever the
//! scanner can follow the command (the path
//! never opened or closed a quote, never started a comment, a substitution or
//! a here-document); a plain path and exec form are the text with the path in
//! it; text without a reference is returned as it is. nanopi's home
//! expansion is checked the same way.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::config::expand_home;
use tower_hooks::process::substitute::{placeholders, quoting_at_end, substitute, Form};

const PLAIN: &str = "/fuzz/p-1_2.x";

fuzz_target!(|data: &[u8]| {
    let (command, path) = match data.iter().position(|&b| b == 0xff) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"/a b"[..]),
    };
    let (Ok(command), Ok(path)) = (std::str::from_utf8(command), std::str::from_utf8(path)) else {
        return;
    };
    let vars = [("X", path)];
    let plain_vars = [("X", PLAIN)];
    let with_path = |form| substitute(command, form, placeholders(&vars));
    let with_plain = |form| substitute(command, form, placeholders(&plain_vars));

    if !command.contains("${X}") {
        for form in [Form::Sh, Form::Bash, Form::Exec] {
            assert_eq!(with_path(form), command);
        }
        return;
    }
    assert_eq!(with_path(Form::Exec), command.replace("${X}", path));
    for form in [Form::Sh, Form::Bash] {
        let plain = with_plain(form);
        assert_eq!(plain, command.replace("${X}", PLAIN));
        let (ends, plain_ends) = (
            quoting_at_end(&with_path(form), form),
            quoting_at_end(&plain, form),
        );
        // Where the scanner cannot follow the command itself, a plain path
        // still goes in as text: compare what both outputs have.
        if quoting_at_end(command, form).is_some() || (ends.is_some() && plain_ends.is_some()) {
            assert_eq!(ends, plain_ends, "{command:?} with {path:?}");
        }
    }
    if quoting_at_end(command, Form::Bash).is_some() {
        assert_eq!(
            quoting_at_end(&expand_home(command, Some(path)), Form::Bash),
            quoting_at_end(&expand_home(command, Some(PLAIN)), Form::Bash),
            "{command:?} with home {path:?}"
        );
    }
});
