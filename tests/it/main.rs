//! Every integration test in one binary (one link instead of thirty), each
//! file a module: `cargo test --test it crash::` runs one of them.

mod common;

mod acceptance;
mod address;
mod checkpoint;
mod concurrency;
mod confidentiality;
mod conformance;
mod console;
mod crash;
mod dict;
mod docs;
mod events;
mod faults;
mod frame;
mod full_disk;
mod group_commit;
mod hostile;
mod http;
mod idempotency;
mod import;
mod instrument;
mod interactive;
mod layers;
mod model;
mod openapi;
mod packs;
mod pg;
mod pg_group;
mod profile;
mod program;
mod serve_cache;
mod sim;
mod snapshot;
mod store;
mod txn;
mod typed_output;
mod ux;
mod webhooks;
mod worker;
