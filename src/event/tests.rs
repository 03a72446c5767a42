use super::*;

#[test]
fn table_rows_are_in_enum_order() {
    for (i, event) in Event::ALL.iter().enumerate() {
        assert_eq!(TABLE[i].event, *event);
        assert_eq!(event.index(), i);
    }
}

#[test]
fn names_round_trip() {
    for event in Event::NANOPI {
        assert_eq!(event.name().parse::<Event>().unwrap(), event);
        assert_eq!(event.to_string(), event.name());
    }
    for event in Event::ALL {
        assert_eq!(Event::from_neutral_name(event.name()), Some(event));
    }
    // The other points are no nanopi events: a nanopi config cannot name them.
    assert!("stop".parse::<Event>().is_err());
    assert_eq!(Event::NANOPI, Event::ALL[..11]);
    assert!(Event::ALL.iter().all(|e| e.is_nanopi() == (e.index() < 11)));
}

#[test]
fn camel_case_names_do_not_parse() {
    assert!("ToolExecutionStart".parse::<Event>().is_err());
}

#[test]
fn camel_case_and_misspelled_names_suggest_the_snake_case_one() {
    let suggestion = |name: &str| name.parse::<Event>().unwrap_err().suggestion();
    for event in Event::NANOPI {
        assert_eq!(suggestion(event.camel_name()), Some(event));
    }
    assert_eq!(
        suggestion("tool_exection_start"),
        Some(Event::ToolExecutionStart)
    );
    assert_eq!(suggestion("turnstart"), Some(Event::TurnStart));
    // A v0.11 name in CamelCase points at its v0.12 replacement.
    assert_eq!(suggestion("PreToolUse"), Some(Event::ToolExecutionStart));
    assert_eq!(suggestion("bogus"), None);
    // The retired names keep their own message, without a guess.
    let err = "pre_tool_use".parse::<Event>().unwrap_err();
    assert_eq!(err.suggestion(), None);
    assert!(!err.to_string().contains("did you mean"));
    let err = "TurnEnd".parse::<Event>().unwrap_err().to_string();
    assert!(
        err.starts_with("unknown hook event \"TurnEnd\" (did you mean \"turn_end\"?); expected one of: session_start, "),
        "{err}"
    );
}

#[test]
fn unknown_name_lists_all_eleven() {
    let err = "turn_startt".parse::<Event>().unwrap_err().to_string();
    for event in Event::NANOPI {
        assert!(err.contains(event.name()), "{err}");
    }
    assert!(!err.contains("permission_request"), "{err}");
}

#[test]
fn retired_name_error_names_the_replacement() {
    let err = "pre_tool_use".parse::<Event>().unwrap_err().to_string();
    assert!(err.contains("renamed to \"tool_execution_start\""), "{err}");
}

#[test]
fn only_three_events_enforce_blocks() {
    let enforced: Vec<_> = Event::NANOPI
        .into_iter()
        .filter(|e| e.block_policy() == BlockPolicy::Enforced)
        .collect();
    assert_eq!(
        enforced,
        [
            Event::BeforeAgentStart,
            Event::Input,
            Event::ToolExecutionStart
        ]
    );
    for e in [
        Event::SessionStart,
        Event::SessionShutdown,
        Event::SessionBeforeCompact,
        Event::SessionCompact,
    ] {
        assert_eq!(e.block_policy(), BlockPolicy::Advisory);
    }
    for e in [
        Event::TurnStart,
        Event::TurnEnd,
        Event::MessageEnd,
        Event::ToolExecutionEnd,
    ] {
        assert_eq!(e.block_policy(), BlockPolicy::Ignored);
    }
}

#[test]
fn refusal_messages_match_the_spec() {
    assert_eq!(
        Event::ToolExecutionStart.refusal_message("r").unwrap(),
        "blocked by hook: r"
    );
    assert_eq!(
        Event::Input.refusal_message("r").unwrap(),
        "your `input` hook refused this prompt (policy, not a failure) \u{2014} r"
    );
    assert_eq!(Event::SessionStart.refusal_message("r"), None);
}

#[test]
fn matcher_subjects_follow_the_spec() {
    use MatcherSubject::*;
    let want = [
        SessionId,
        SessionId,
        TurnCount,
        Empty,
        TurnCount,
        ToolName,
        ToolName,
        TurnCount,
        TurnCount,
        CompactionReason,
        CompactionReason,
    ];
    for (event, subject) in Event::ALL.into_iter().zip(want) {
        assert_eq!(event.matcher_subject(), subject, "{event}");
    }
}
