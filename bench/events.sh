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
# The binary measured is a copy of the one cargo linked: a freshly linked
# file starts 7-17% slower until its pages leave the page cache (see
# docs/src/performance, "Measuring"), and a copy starts as an installed one.
cp target/release/payctl target/bench-events/payctl-with-events
# The builds leave hundreds of MB of dirty pages: written back before the
# timing starts, not during it (a run right after the builds measured
# 1.20x where the same binaries measured 1.01-1.06x a minute later).
sync
sleep 5
python3 bench/events.py target/bench-events/payctl-with-events target/bench-events/payctl-without-events
