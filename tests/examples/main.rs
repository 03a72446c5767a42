//! The examples print what their text says: each runs here, and its output is asserted.

// `main` and the printing helpers are the example's own; the test calls `run`.
#[allow(dead_code)]
#[path = "../../examples/custom_layer.rs"]
mod custom_layer;

#[tokio::test]
async fn custom_layer_per_hook_layers_see_only_the_hooks_that_run() {
    let report = custom_layer::run().await.unwrap();

    let outcomes: Vec<&str> = report.outcomes.iter().map(|line| line.trim_end()).collect();
    assert_eq!(
        outcomes,
        [
            "turn_start             allow     -          [first-turn (in-process): allow]",
            "tool_execution_start   allow     -          [guard (bash): allow, slow (bash): allow]",
            "tool_execution_start   block     no rm -rf  [guard (bash): block, slow (bash): not_run]",
            "tool_execution_start   allow     -          [guard (bash): skipped, slow (bash): allow]",
            "turn_end               allow     -          []",
            "turn_start             allow     -          [first-turn (in-process): skipped]",
        ]
    );

    let summary = |measured: &[custom_layer::Measured]| -> Vec<String> {
        measured
            .iter()
            .map(|m| format!("{}: {}", m.label, m.answers))
            .collect()
    };
    // Around the call: every event, whatever its hooks did.
    assert_eq!(
        summary(&report.per_call),
        [
            "tool_execution_start: allow ×2, block ×1",
            "turn_end: allow ×1",
            "turn_start: allow ×2",
        ]
    );
    // Around each hook: only the runs. The guard is skipped for `read` and the
    // slow hook does not run after the block, so each has two runs of three
    // calls; the in-process hook runs on turn 1 only.
    assert_eq!(
        summary(&report.per_hook),
        [
            "tool_execution_start guard (bash) (matcher ^bash$): allow ×1, block ×1",
            "tool_execution_start slow (bash) (matcher *): allow ×2",
            "turn_start first-turn (in-process) (matcher ^1$): allow ×1",
        ]
    );
    // The slow hook sleeps 50 ms in each of its runs.
    let slow = &report.per_hook[1];
    assert!(
        slow.mean >= std::time::Duration::from_millis(50),
        "{slow:?}"
    );
}
