use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn asked(questions: &mut Questions, id: i64, params: Value) -> PermissionRequest {
    match questions.ask(RequestId::Number(id), &params) {
        Elicited::User(request) => request,
        Elicited::Answered { why, .. } => panic!("answered at once: {why}"),
    }
}

fn line(bytes: Option<Vec<u8>>) -> String {
    String::from_utf8(bytes.expect("an answer line")).expect("utf-8")
}

fn names(request: &PermissionRequest) -> Vec<(&str, &str, &str)> {
    request
        .options
        .iter()
        .map(|o| (o.id.as_str(), o.name.as_str(), o.kind.as_str()))
        .collect()
}

#[test]
fn a_choice_answers_accept_with_its_value() {
    let mut questions = Questions::default();
    let request = asked(
        &mut questions,
        4,
        json!({
            "sessionId": "s1", "mode": "form", "message": "Which color?\nPick one",
            "requestedSchema": {"type": "object", "properties": {"color": {
                "type": "string", "title": "Color",
                "oneOf": [{"const": "blue", "title": "Blue"}, {"const": "red", "title": "Red · warm"}]
            }}, "required": ["color"]}
        }),
    );
    assert_eq!(request.summary, "asks (Color): Which color? Pick one");
    assert_eq!(request.kind, "question");
    assert!(request.is_question());
    assert_eq!(
        names(&request),
        vec![
            ("choice-1", "Blue", "answer"),
            ("choice-2", "Red · warm", "answer"),
            ("decline", "Decline", "reject_once"),
        ]
    );
    let key = request.id.clone();
    assert_eq!(
        line(questions.answer(&key, &PermissionOutcome::Selected("choice-2".into()))),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"action\":\"accept\",\"content\":{\"color\":\"red\"}}}\n"
    );
    // Answered: no second answer.
    assert_eq!(
        questions.answer(&key, &PermissionOutcome::Selected("choice-1".into())),
        None
    );
}

#[test]
fn booleans_enums_and_urls_have_their_options_and_decline_declines() {
    let mut questions = Questions::default();
    let yes_no = asked(
        &mut questions,
        1,
        json!({"mode": "form", "message": "Go on?", "requestedSchema":
            {"properties": {"go": {"type": "boolean"}}}}),
    );
    assert_eq!(
        names(&yes_no),
        vec![
            ("yes", "Yes", "answer"),
            ("no", "No", "answer"),
            ("decline", "Decline", "reject_once")
        ]
    );
    let plain = asked(
        &mut questions,
        2,
        json!({"mode": "form", "message": "Size?", "requestedSchema":
            {"properties": {"size": {"type": "string", "enum": ["S", "M"]}}}}),
    );
    assert_eq!(plain.summary, "asks (size): Size?");
    let url = asked(
        &mut questions,
        3,
        json!({"mode": "url", "sessionId": "s", "elicitationId": "e1",
               "url": "https://example.com/login", "message": "Sign in"}),
    );
    assert_eq!(
        url.summary,
        "asks you to open `https://example.com/login`: Sign in"
    );
    assert_eq!(
        line(questions.answer(&yes_no.id, &PermissionOutcome::Selected("no".into()))),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{\"go\":false}}}\n"
    );
    assert_eq!(
        line(questions.answer(&url.id, &PermissionOutcome::Selected("open".into()))),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"action\":\"accept\"}}\n"
    );
    assert_eq!(
        line(questions.answer(&plain.id, &PermissionOutcome::Selected(DECLINE.into()))),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"action\":\"decline\"}}\n"
    );
}

#[test]
fn what_the_file_cannot_answer_is_declined_and_a_cancel_cancels_the_rest() {
    let mut questions = Questions::default();
    let free = json!({"mode": "form", "message": "Name?", "requestedSchema":
        {"properties": {"name": {"type": "string"}}}});
    let Elicited::Answered { line, why } = questions.ask(RequestId::Number(7), &free) else {
        panic!("a free-text form is not asked");
    };
    assert_eq!(
        String::from_utf8(line).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"action\":\"decline\"}}\n"
    );
    assert_eq!(
        why,
        "a form asking `name` as free input, which chatmd cannot show as choices"
    );
    asked(
        &mut questions,
        8,
        json!({"mode": "form", "message": "Sure?", "requestedSchema": {"properties": {}}}),
    );
    assert_eq!(
        String::from_utf8(questions.cancel_all()).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"action\":\"cancel\"}}\n"
    );
    assert_eq!(questions.cancel_all(), Vec::<u8>::new());
}

#[test]
fn claude_agent_acps_ask_user_question_is_answered_by_its_choice_without_the_other_field() {
    // The request as claude-agent-acp 0.101.0 sends it for one AskUserQuestion
    // question (its elicitation.js): the choice `question_0` and an optional free-text
    // "Other" beside it, `question_0_custom`, and no `required`.
    let mut questions = Questions::default();
    let request = asked(
        &mut questions,
        0,
        json!({
            "mode": "form", "sessionId": "s1", "toolCallId": "toolu_mock_1",
            "message": "Which color should the button be?",
            "requestedSchema": {"type": "object", "properties": {
                "question_0": {"type": "string", "title": "Color", "oneOf": [
                    {"const": "Blue", "title": "Blue", "description": "cool"},
                    {"const": "Red", "title": "Red"}
                ]},
                "question_0_custom": {"type": "string", "title": "Other", "description":
                    "Type your own answer, or add a note to the option you chose above (optional)."}
            }}
        }),
    );
    assert_eq!(
        request.summary,
        "asks (Color): Which color should the button be?"
    );
    assert_eq!(request.tool.as_deref(), Some("toolu_mock_1"));
    assert_eq!(
        names(&request),
        vec![
            ("choice-1", "Blue", "answer"),
            ("choice-2", "Red", "answer"),
            ("decline", "Decline", "reject_once"),
        ]
    );
    assert_eq!(
        line(questions.answer(&request.id, &PermissionOutcome::Selected("choice-2".into()))),
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"action\":\"accept\",\"content\":{\"question_0\":\"Red\"}}}\n"
    );
    // A free-text field the agent requires still cannot be answered from the file.
    let required = json!({"mode": "form", "message": "Which?", "requestedSchema": {
        "properties": {"pick": {"type": "string", "enum": ["a"]}, "why": {"type": "string"}},
        "required": ["why"]}});
    assert!(matches!(
        questions.ask(RequestId::Number(1), &required),
        Elicited::Answered { .. }
    ));
}
