//! Unit tests of the journal.
use super::*;

fn sample() -> Journal {
    Journal {
        ops: vec![
            Op::Put {
                path: "index/keys/3f.log".into(),
                data: "abcde csp_1\n".into(),
            },
            put_json(
                "customers/ab/csp_ab.json".into(),
                &serde_json::json!({"id": "csp_ab", "note": "a \"quoted\" word"}),
            ),
            Op::Delete {
                path: "queue/1.att.x.y".into(),
            },
            Op::Append {
                path: "index/profiles.log".into(),
                base_len: 42,
                data: "{}\n".into(),
            },
        ],
    }
}

#[test]
fn a_record_is_kept_as_json_and_every_op_reads_back() {
    let text = serde_json::to_string(&sample()).unwrap();
    // The record's document stands in the journal as it is, not escaped.
    assert!(
        text.contains(r#""json":{"id":"csp_ab","note":"a \"quoted\" word"}"#),
        "{text}"
    );
    let back: Journal = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    match &back.ops[1] {
        Op::PutJson { json, .. } => assert_eq!(
            json_file(json),
            b"{\"id\":\"csp_ab\",\"note\":\"a \\\"quoted\\\" word\"}\n"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_journal_of_the_string_form_still_reads() {
    let old = r#"{"ops":[{"op":"put","path":"customers/ab/csp_ab.json","data":"{\"id\":1}\n"}]}"#;
    let j: Journal = serde_json::from_str(old).unwrap();
    assert!(matches!(&j.ops[0], Op::Put { data, .. } if data == "{\"id\":1}\n"));
}

#[test]
fn a_malformed_operation_is_refused() {
    for bad in [
        r#"{"ops":[{"op":"put","path":"a"}]}"#,
        r#"{"ops":[{"op":"put","path":"a","data":"x","json":{}}]}"#,
        r#"{"ops":[{"op":"append","path":"a","data":"x"}]}"#,
        r#"{"ops":[{"op":"rename","path":"a"}]}"#,
        r#"{"ops":[{"op":"delete","path":"/etc/passwd"}]}"#,
        r#"{"ops":[{"op":"delete","path":"index/../../x"}]}"#,
        r#"{"ops":[{"op":"put","path":"index//x","data":""}]}"#,
        r#"{"ops":[{"op":"put","path":"","data":""}]}"#,
    ] {
        assert!(serde_json::from_str::<Journal>(bad).is_err(), "{bad}");
    }
}
