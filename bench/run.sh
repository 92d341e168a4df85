#!/usr/bin/env bash
# The scale benchmark: payctl at 100,000 customer profiles and 100,000
# transactions against the sqlite3 shell running the equivalent statements on
# tables with the same rows, side by side, interleaved, medians of whole-process
# wall times; plus import and worker throughput, peak memory, and get at 1,000
# vs 100,000 profiles. Prints a table with the ratios and PASS/FAIL; exit 1 when
# a target is missed.
#
#   bench/run.sh                    # 3 to 5 minutes after the release build
#   BENCH_RUNS=31 bench/run.sh      # more interleaved runs per operation (default 15)
#   BENCH_PROFILES=20000 bench/run.sh   # a smaller store, for a quick look
#   BENCH_IMPORT_RUNS=1 bench/run.sh    # one 100,000-line import instead of three
#   BENCH_DIR=/srv/b bench/run.sh   # where the stores go, kept (default: a new
#                                   # directory under /var/tmp, removed at the end;
#                                   # ~3.5 GB at full size)
#   BENCH_KEEP=1 bench/run.sh       # keep the stores (the path is printed)
#
# The 1M mode: BENCH_PROFILES=1000000 (one import instead of three; ~5 GB of
# stores, kept off /work under /var/tmp; check `df` first). It measures, side by
# side with sqlite3 given the same indexes (customer_key unique, e-mail and
# names without regard to case, tags): get, list pages, the filtered lists
# (--email, --first-name, --last-name, --tag), create, the import's rate and
# peak RSS, store check against PRAGMA integrity_check (time and peak RSS),
# and 4 parallel create loops against sqlite3 with a busy timeout; it says
# whether the page cache could hold the store (its size against MemAvailable).
#   BENCH_RESULTS=r100k.json bench/run.sh                 # keep the figures
#   BENCH_PROFILES=1000000 BENCH_BASELINE=r100k.json bench/run.sh
#                                   # ... and print how each kind of command grew
#   BENCH_TXNS=1                    # no transactions (a quicker 1M run)
#   BENCH_PARALLEL_SECONDS=20       # each side's parallel create time (4 interleaved rounds)
#
# Needs: cargo, python3 (standard library only), sqlite3 (apt-get install sqlite3).
#
# On ext4 without a journal (as on these machines) creating files is slow for a
# minute or more after many files were removed (the allocator skips recently
# freed inodes): the numbers of a run started within minutes of a large rm -rf
# (a previous run's clean-up included), or beside builds and test suites that
# create and remove files, are pessimistic. So the bench probes file creation
# before the imports and waits (every 20 s, at most BENCH_SETTLE_WAIT seconds,
# default 420) until it is healthy; the table says when it was still slow.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v sqlite3 >/dev/null || { echo "bench: sqlite3 is needed (apt-get install sqlite3)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench: python3 is needed" >&2; exit 2; }
cargo build --release --quiet
# The binary measured is a copy of the one cargo linked: a freshly linked
# file starts 7-17% slower until its pages leave the page cache (see
# docs/src/performance, "Measuring"), and a copy starts as an installed one.
mkdir -p target/bench
cp target/release/payctl target/bench/payctl
exec python3 bench/bench.py "$PWD/target/bench/payctl" "$@"
