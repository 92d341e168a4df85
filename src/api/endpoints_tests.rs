//! The unit tests of the endpoint table and its routing.

use super::*;

#[test]
fn every_operation_has_a_canonical_endpoint_and_paths_are_unique() {
    for e in ENDPOINTS {
        let _ = Endpoint::of(e.op);
        let same = ENDPOINTS
            .iter()
            .filter(|o| o.path == e.path && o.method == e.method)
            .count();
        assert_eq!(same, 1, "{} {}", e.method.as_str(), e.path);
    }
}

#[test]
fn routes_match_both_spellings_and_name_allowed_methods() {
    let segs = |p: &str| -> Vec<String> { p.split('/').skip(1).map(String::from).collect() };
    match route(
        Some(Method::Post),
        &segs("/customer-profiles/csp_x/payment-instruments"),
    ) {
        Route::Found(e, params) => {
            assert_eq!(e.op, Op::InstrumentCreate);
            assert_eq!(params, ["csp_x"]);
        }
        _ => panic!("not found"),
    }
    match route(Some(Method::Delete), &segs("/customer-profiles")) {
        Route::MethodNotAllowed(m) => assert_eq!(m, [Method::Post, Method::Get]),
        _ => panic!("expected 405"),
    }
    assert!(matches!(
        route(Some(Method::Get), &segs("/nowhere")),
        Route::NotFound
    ));
}

#[test]
fn targets_encode_ids_and_queries() {
    let mut r = Request::new(Op::ProfileList);
    r.query.email = Some("a+b@x.com".into());
    r.query.page.size = 10;
    assert_eq!(
        r.target(),
        "/customer-profiles?page_size=10&email=a%2Bb%40x.com"
    );
    let r = Request::new(Op::AddressGet).at(["csp_1", "../x"]);
    assert_eq!(r.path(), "/customer-profiles/csp_1/addresses/..%2Fx");
    assert_eq!(percent_decode("a%2Bb+c", true).as_deref(), Some("a+b c"));
    assert_eq!(percent_decode("%ff", false), None);
}
