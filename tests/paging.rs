//! Paging through any sort and order visits every model exactly once, in list order, with
//! unavailable keys after available ones and ties by model ID.

mod common;

use model_demand::query::{sorted_indices, Order, SortKey};
use model_demand::records::Catalog;
use model_demand::render::Api;
use proptest::prelude::*;
use serde_json::Value;

fn catalogs() -> Vec<Catalog> {
    [
        ("tests/fixtures/small", common::SMALL_NOW),
        ("tests/fixtures/edge", "2026-10-05T12:00:00Z"),
    ]
    .iter()
    .map(|(dir, now)| common::load_fixture(dir).catalog(model_demand::parse_now(now).expect("now")))
    .collect()
}

fn page(api: &Api, sort: SortKey, order: Order, limit: u64, offset: u64) -> Value {
    let q = format!(
        "sort={}&order={}&limit={limit}&offset={offset}",
        sort.as_str(),
        order.as_str()
    );
    serde_json::from_slice(&api.answer(&q).body).expect("json")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn paging_visits_every_model_once_in_order(
        which in 0usize..2,
        sort in prop::sample::select(SortKey::ALL.to_vec()),
        order in prop::sample::select(Order::ALL.to_vec()),
        limit in 1u64..=100,
    ) {
        let catalogs = catalogs();
        let catalog = &catalogs[which];
        let api = Api::new(catalog);
        let mut seen: Vec<String> = Vec::new();
        let mut offset = 0;
        loop {
            let body = page(&api, sort, order, limit, offset);
            let models = body["models"].as_array().expect("models");
            prop_assert!(models.len() as u64 <= limit);
            prop_assert_eq!(body["pagination"]["returned_count"].as_u64(), Some(models.len() as u64));
            prop_assert_eq!(body["pagination"]["total_matching_models"].as_u64(), Some(catalog.records.len() as u64));
            seen.extend(models.iter().map(|m| m["model_id"].as_str().expect("id").to_string()));
            if body["pagination"]["has_next_page"] != Value::Bool(true) {
                break;
            }
            offset += limit;
        }
        let expected: Vec<String> = sorted_indices(catalog, sort, order)
            .into_iter()
            .map(|i| catalog.records[i].model_id.clone())
            .collect();
        prop_assert_eq!(&seen, &expected);
        let mut unique = seen.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), catalog.records.len());
    }
}

#[test]
fn list_order_puts_unknown_keys_last_and_breaks_ties_by_id() {
    for catalog in catalogs() {
        for sort in SortKey::ALL {
            for order in Order::ALL {
                let ids = sorted_indices(&catalog, sort, order);
                let keys: Vec<Option<u128>> =
                    ids.iter().map(|&i| sort.of(&catalog.keys[i])).collect();
                let first_unknown = keys.iter().position(Option::is_none).unwrap_or(keys.len());
                assert!(
                    keys[first_unknown..].iter().all(Option::is_none),
                    "{sort:?} {order:?}"
                );
                for pair in ids.windows(2) {
                    let (a, b) = (&catalog.records[pair[0]], &catalog.records[pair[1]]);
                    let (ka, kb) = (
                        sort.of(&catalog.keys[pair[0]]),
                        sort.of(&catalog.keys[pair[1]]),
                    );
                    match (ka, kb) {
                        (Some(x), Some(y)) if x == y => assert!(a.model_id < b.model_id),
                        (Some(x), Some(y)) => {
                            assert!(if order == Order::Asc { x < y } else { x > y })
                        }
                        (None, None) => assert!(a.model_id < b.model_id),
                        (Some(_), None) => {}
                        (None, Some(_)) => panic!("unknown before known"),
                    }
                }
            }
        }
    }
}
