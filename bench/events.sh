#!/usr/bin/env bash
# The event log's cost on a create (against the same code without it: the
# commit before the log, built once into target/bench-noevents) and its
# reads at BENCH_EVENTS events (default 1,000,000). See bench/events.py.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${BENCH_WITHOUT_EVENTS_COMMIT:-b030050}
cargo build --release --quiet
wt=target/bench-noevents/src
if [ ! -x target/bench-noevents/bin/payctl ]; then
    rm -rf "$wt"
    git worktree add --detach --force "$wt" "$base" >/dev/null
    (cd "$wt" && cargo build --release --quiet --target-dir ../target)
    mkdir -p target/bench-noevents/bin
    cp target/bench-noevents/target/release/payctl target/bench-noevents/bin/payctl
    git worktree remove --force "$wt"
fi
python3 bench/events.py target/release/payctl target/bench-noevents/bin/payctl
