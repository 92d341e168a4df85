#!/usr/bin/env bash
# The event log's cost on a create (against the same code built with the
# `bench-no-events` feature, which records nothing) and its reads at
# BENCH_EVENTS events (default 1,000,000). See bench/events.py.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target/bench-events
cargo build --release --quiet --features bench-no-events
cp target/release/payctl target/bench-events/payctl-without-events
cargo build --release --quiet
python3 bench/events.py target/release/payctl target/bench-events/payctl-without-events
