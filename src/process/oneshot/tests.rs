use super::*;

fn job(command: &str, deadline: Duration) -> Job {
    Job {
        program: Program::Bash,
        command: command.into(),
        stdin: b"{}\n".to_vec(),
        env: Vec::new(),
        env_remove: Vec::new(),
        event_env: Vec::new(),
        host_env: Vec::new(),
        current_dir: None,
        deadline: Some(crate::request::Deadline {
            at: tokio::time::Instant::now() + deadline,
            timeout: deadline,
        }),
    }
}

fn stdout_of(job: Job) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let finished = runtime.block_on(ProcessRunner::new().run(job)).unwrap();
    assert_eq!(finished.termination, Termination::Exited(0), "{finished:?}");
    String::from_utf8(finished.stdout).unwrap()
}

#[test]
fn bash_and_sh_run_the_command_under_their_own_names() {
    let mut bash = job(
        r#"printf '%s|' "$0" "$BASH_VERSION""#,
        Duration::from_secs(10),
    );
    let out = stdout_of(bash.clone());
    assert!(
        out.starts_with("bash|") && out.len() > "bash||".len(),
        "{out}"
    );
    bash.program = Program::Sh;
    bash.command = r#"printf '%s|' "$0""#.into();
    assert_eq!(stdout_of(bash), "sh|");
}

#[test]
fn the_exec_form_passes_its_arguments_untouched() {
    let mut exec = job("printf", Duration::from_secs(10));
    exec.program = Program::Exec(["%s|", "a b", "$HOME", "'q'", "*"].map(String::from).into());
    assert_eq!(stdout_of(exec.clone()), "a b|$HOME|'q'|*|");
    // In a working directory too, through `sh`'s `exec "$0" "$@"`.
    let dir = tempfile::tempdir().unwrap();
    exec.current_dir = Some(dir.path().into());
    assert_eq!(stdout_of(exec.clone()), "a b|$HOME|'q'|*|");
    exec.command = "pwd".into();
    exec.program = Program::Exec(Arc::from([]));
    let pwd = stdout_of(exec);
    assert_eq!(
        std::fs::canonicalize(pwd.trim_end()).unwrap(),
        std::fs::canonicalize(dir.path()).unwrap()
    );
}

#[test]
fn a_program_that_is_not_on_the_path_is_an_error() {
    let mut exec = job("no-such-program-here", Duration::from_secs(10));
    exec.program = Program::Exec(Arc::from([]));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let err = runtime
        .block_on(ProcessRunner::new().run(exec))
        .unwrap_err();
    assert_eq!(err.to_string(), "no-such-program-here not found on PATH");
}

#[test]
fn the_kept_tail_grows_with_the_request() {
    let limits = Limits::default();
    assert_eq!(limits.stdout_tail_for(0), limits.stdout_tail);
    assert_eq!(limits.stdout_tail_for(10), limits.stdout_tail);
    assert_eq!(limits.stdout_tail_for(2_500_000), 5_000_000 + TAIL_MARGIN);
    assert_eq!(limits.stdout_tail_for(usize::MAX), usize::MAX);
}

/// Without a pidfd, a run waits on a thread of its own: a blocking pool
/// held by the host's own work does not turn a quick answer into a timeout.
#[test]
fn a_busy_blocking_pool_does_not_delay_the_waiter_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let runner = ProcessRunner {
        exit_watch: WatchKind::Thread,
        ..ProcessRunner::default()
    };
    let finished = runtime.block_on(async {
        let (busy, release) = std::sync::mpsc::channel::<()>();
        // The host's one blocking thread is taken for ten seconds.
        let hog = tokio::task::spawn_blocking(move || {
            let _ = release.recv_timeout(Duration::from_secs(10));
        });
        let finished = runner.run(job("exit 0", Duration::from_secs(3))).await;
        drop(busy);
        let _ = hog.await;
        finished
    });
    assert_eq!(finished.unwrap().termination, Termination::Exited(0));
}
