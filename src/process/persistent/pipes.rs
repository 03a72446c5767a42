//! What goes over a persistent process's pipes: request lines out, answer
//! lines in, stderr to the log, and the watch that fails the waiters when the
//! process ends.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::net::unix::pipe;
use tokio::sync::oneshot;

use super::{Answer, Lost, Waiters, ANSWER_GRACE, ENDED};
use crate::process::oneshot::Group;
use crate::process::Job;
use crate::process::KILL_GRACE;
use crate::sync::lock;

/// `{"id": N, "input": <the one-shot stdin>, "env": {<per-event variables>}}`
/// and a newline. The input is written as the bytes a one-shot run would read
/// (a JSON object the engine made), without parsing it again; the variables
/// are written as they come, in the order of a JSON map's keys (sorted, the
/// last value of a name winning), with no map built on the way: this runs on
/// every call of a persistent hook.
pub(super) fn request_line(id: u64, job: &Job) -> Vec<u8> {
    let input = trim_ascii(&job.stdin);
    let mut env: Vec<(&str, &str)> = job
        .env
        .iter()
        .filter(|(k, _)| job.event_env.contains(k))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    // Stable: of the same name, the later stays later, and wins.
    env.sort_by(|a, b| a.0.cmp(b.0));
    env.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            *earlier = *later;
        }
        same
    });
    let env_len: usize = env.iter().map(|(k, v)| k.len() + v.len() + 6).sum();
    let mut line = Vec::with_capacity(input.len() + env_len + 48);
    // Writing to a Vec cannot fail.
    let _ = write!(line, "{{\"id\":{id},\"input\":");
    if input.is_empty() {
        line.extend_from_slice(b"{}");
    } else {
        line.extend_from_slice(input);
    }
    line.extend_from_slice(b",\"env\":{");
    for (i, (name, value)) in env.iter().enumerate() {
        if i > 0 {
            line.push(b',');
        }
        write_json_str(&mut line, name);
        line.push(b':');
        write_json_str(&mut line, value);
    }
    line.extend_from_slice(b"}}\n");
    line
}

/// `text` as a JSON string, escaped as serde_json escapes it.
fn write_json_str(out: &mut Vec<u8>, text: &str) {
    // Writing to a Vec cannot fail, and a str always serializes.
    serde_json::to_writer(out, text).expect("a string serializes into a Vec");
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &bytes[start..end]
}

/// Reads answer lines and hands each to its waiter. A line longer than the
/// bound (the least `max_line`, else twice the longest request and 64 KiB: a
/// hook that rewrites a big payload answers with a line about as long) ends the
/// process (a crash; `kill` carries the bound); the end of stdout ends the
/// reader (`kill` carries `None`).
pub(super) async fn read_answers(
    mut stdout: pipe::Receiver,
    waiters: Waiters,
    (max_line, longest_request): (usize, Arc<std::sync::atomic::AtomicUsize>),
    kill: oneshot::Sender<Option<usize>>,
    crashed: Arc<AtomicBool>,
) {
    use tokio::io::AsyncReadExt;
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = Vec::with_capacity(16 * 1024);
    loop {
        chunk.clear();
        match stdout.read_buf(&mut chunk).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        let mut rest = &chunk[..];
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            line.extend_from_slice(&rest[..end]);
            deliver(&line, &waiters);
            line.clear();
            rest = &rest[end + 1..];
        }
        line.extend_from_slice(rest);
        let bound = longest_request
            .load(Ordering::Relaxed)
            .saturating_mul(2)
            .saturating_add(64 * 1024)
            .max(max_line);
        if line.len() > bound {
            tracing::warn!(
                bound,
                "a persistent hook wrote an answer line over the limit; ending it"
            );
            crashed.store(true, Ordering::Release);
            let _ = kill.send(Some(bound));
            return;
        }
    }
    // Its stdout is closed: it cannot answer any more.
    crashed.store(true, Ordering::Release);
    let _ = kill.send(None);
}

/// One answer line: a JSON object with an integer `id` of a request in
/// flight, an integer `exit` and string `stdout` and `stderr` when present.
/// Anything else is ignored and logged.
fn deliver(line: &[u8], waiters: &Waiters) {
    let text = String::from_utf8_lossy(line);
    if text.trim().is_empty() {
        return;
    }
    match parse_answer(&text) {
        Some((id, answer)) => match lock(waiters).remove(&id) {
            Some(waiter) => {
                let _ = waiter.send(Ok(answer));
            }
            None => tracing::debug!(id, "persistent hook answered an id not in flight"),
        },
        None => {
            let shown: String = text.chars().take(200).collect();
            tracing::debug!(line = %shown, "persistent hook wrote a line that is no answer");
        }
    }
}

pub(super) fn parse_answer(text: &str) -> Option<(u64, Answer)> {
    let Value::Object(map) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    // `"id": "1"` and `"id": 1.0` are not id 1.
    let id = match map.get("id")? {
        Value::Number(n) if n.is_u64() => n.as_u64()?,
        _ => return None,
    };
    let exit = match map.get("exit") {
        None => 0,
        Some(Value::Number(n)) if n.is_i64() => i32::try_from(n.as_i64()?).ok()?,
        Some(_) => return None,
    };
    let text_field = |key: &str| match map.get(key) {
        None => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => None,
    };
    Some((
        id,
        Answer {
            exit,
            stdout: text_field("stdout")?,
            stderr: text_field("stderr")?,
        },
    ))
}

/// The most of one stderr line that is logged; the rest of it is dropped.
const STDERR_LINE: usize = 1000;

/// What the process writes on its own stderr, to `tracing`, line by line, each
/// cut to [`STDERR_LINE`] bytes: a flood without line breaks costs no memory.
pub(super) async fn log_stderr(mut stderr: pipe::Receiver, pid: i32) {
    use tokio::io::AsyncReadExt;
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = Vec::with_capacity(16 * 1024);
    let log = |line: &[u8]| {
        let shown = String::from_utf8_lossy(line);
        tracing::info!(pid, line = %shown, "persistent hook stderr");
    };
    loop {
        chunk.clear();
        match stderr.read_buf(&mut chunk).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        for piece in chunk.split_inclusive(|b| *b == b'\n') {
            let (text, ends) = match piece.strip_suffix(b"\n") {
                Some(text) => (text, true),
                None => (piece, false),
            };
            let room = STDERR_LINE.saturating_sub(line.len());
            line.extend_from_slice(&text[..text.len().min(room)]);
            if ends {
                log(&line);
                line.clear();
            }
        }
    }
    if !line.is_empty() {
        log(&line);
    }
}

/// How a process came to end, for the requests still in flight on it.
enum End {
    /// It exited or closed its stdout by itself, or wrote a line too long:
    /// the oldest request in flight (the one it was answering) fails with
    /// this; the others may go again.
    Crashed(String),
    /// Killed on purpose (another request's timeout, a replaced or dropped
    /// handle): every request in flight may go again.
    Killed,
    /// Shut down: every request in flight fails.
    Shutdown,
}

/// The error of the request a process ended on for an answer line too long.
fn too_long(bound: usize) -> String {
    format!(
        "the persistent hook wrote an answer line longer than {bound} bytes (the limit) and was ended"
    )
}

/// Why the process ended by itself, from what the reader said (`None`: it has
/// said nothing, or its stdout closed).
fn crash_why(said: Option<Option<usize>>) -> String {
    match said {
        Some(Some(bound)) => too_long(bound),
        _ => ENDED.to_owned(),
    }
}

/// Owns the process group: waits until the process ends by itself, or is told
/// to end it (gracefully after its stdin was closed, or at once), then kills
/// what is left of the group, reaps it, and tells the requests in flight.
pub(super) async fn watch(
    group: Group,
    stop: oneshot::Receiver<Option<Duration>>,
    mut kill: oneshot::Receiver<Option<usize>>,
    waiters: Waiters,
    ended: Arc<AtomicBool>,
    crashed: Arc<AtomicBool>,
    done: oneshot::Sender<()>,
) {
    let mut exit = match group.exit_watch() {
        Ok(exit) => exit,
        Err(err) => {
            tracing::warn!(%err, "cannot watch a persistent hook; ending it");
            fail_waiters(&waiters, &ended, &End::Shutdown);
            drop(group);
            let _ = done.send(());
            return;
        }
    };
    let (end, graceful) = tokio::select! {
        () = exit.exited() => {
            crashed.store(true, Ordering::Release);
            // Answers it wrote just before it exited are still in the pipe:
            // let the reader get to their end (bounded: a child of its group
            // may hold the pipe open).
            let said = tokio::time::timeout(ANSWER_GRACE, &mut kill).await;
            (End::Crashed(crash_why(said.ok().and_then(Result::ok))), None)
        }
        said = &mut kill => (End::Crashed(crash_why(said.ok())), None),
        told = stop => match told {
            Ok(Some(grace)) => (End::Shutdown, Some(grace)),
            _ => (End::Killed, None),
        },
    };
    if let Some(grace) = graceful {
        if tokio::time::timeout(grace, exit.exited()).await.is_err() {
            group.signal_term();
            if tokio::time::timeout(KILL_GRACE, exit.exited())
                .await
                .is_err()
            {
                group.signal_kill();
                let _ = tokio::time::timeout(KILL_GRACE * 4, exit.exited()).await;
            }
        }
    }
    fail_waiters(&waiters, &ended, &end);
    group.end().await;
    let _ = done.send(());
}

/// Marks the process ended and tells each request still in flight why it
/// gets no answer. Under the waiters' lock, so that a request comes in before
/// or sees the end.
fn fail_waiters(waiters: &Waiters, ended: &AtomicBool, end: &End) {
    let mut waiters = lock(waiters);
    ended.store(true, Ordering::Release);
    let oldest = waiters.keys().min().copied();
    for (id, waiter) in waiters.drain() {
        let lost = match end {
            End::Crashed(why) if Some(id) == oldest => Lost {
                why: why.clone(),
                again: false,
            },
            End::Crashed(_) => Lost {
                why: "the persistent hook ended while it answered an older request".to_owned(),
                again: true,
            },
            End::Killed => Lost {
                why: "the persistent hook was ended (another request on it timed out)".to_owned(),
                again: true,
            },
            End::Shutdown => Lost {
                why: "the persistent hook was shut down before it answered".to_owned(),
                again: false,
            },
        };
        let _ = waiter.send(Err(lost));
    }
}
