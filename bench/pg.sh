#!/usr/bin/env bash
# The PostgreSQL benchmark: the same operations on the JSON store and on a
# PostgreSQL database, in one run, interleaved, medians (bench/pg.py):
#
# - CLI point operations as whole processes (profile get, profile create,
#   address create, program attach, txn create, profile list page 1,
#   profile list --email): PostgreSQL within 2x of the JSON store;
# - profile import of BENCH_PROFILES lines into each: PostgreSQL >= 10,000/s;
# - `payctl serve` GET and create with wrk at 16 connections on each:
#   PostgreSQL GET >= 5,000 requests/s.
#
# Prints a table with the ratios and PASS/FAIL, and the load average (the
# machine is shared: builds beside it slow both sides); exit 1 when a target
# is missed.
#
# It starts its own throwaway PostgreSQL (initdb + pg_ctl from the
# `postgresql` package, as `nobody` when run as root, a free port on
# 127.0.0.1, a temporary directory; stopped and removed at the end). The
# server keeps PostgreSQL's defaults, durability included (fsync,
# synchronous_commit and full_page_writes on), except shared_buffers=256MB;
# after the imports it runs VACUUM ANALYZE (what autovacuum does on its own
# within a minute of a large import).
#
#   bench/pg.sh                          # about 3 minutes at 100,000 profiles after the build
#   BENCH_PROFILES=20000 bench/pg.sh     # a smaller store, for a quick look
#   BENCH_RUNS=31 bench/pg.sh            # more interleaved runs per CLI operation (default 15)
#   BENCH_SECONDS=5 bench/pg.sh          # shorter wrk load per serve case (default 10)
#   BENCH_IMPORT_RUNS=3 bench/pg.sh      # median of 3 imports each (fresh stores)
#   BENCH_DIR=/srv/b BENCH_KEEP=1 bench/pg.sh   # where the stores go; keep them
#
# Needs: cargo, python3 (standard library only), PostgreSQL >= 12 server
# binaries under /usr/lib/postgresql (apt-get install postgresql), wrk
# (apt-get install wrk; without it the serve cases are skipped), pgbouncer
# (apt-get install pgbouncer, installed here when run as root; without it
# the pooled column is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "bench: python3 is needed" >&2; exit 2; }
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
    || { echo "bench: PostgreSQL is needed (apt-get install postgresql)" >&2; exit 2; }
if ! command -v pgbouncer >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "bench: installing pgbouncer (apt-get install -y pgbouncer)" >&2
    apt-get install -y -qq pgbouncer >/dev/null 2>&1 ||
        { apt-get update -qq && apt-get install -y -qq pgbouncer >/dev/null; } || true
fi
cargo build --release --quiet
# The binary measured is a copy of the one cargo linked: a freshly linked
# file starts 7-17% slower until its pages leave the page cache (see
# docs/src/performance, "Measuring"), and a copy starts as an installed one.
mkdir -p target/bench
cp target/release/payctl target/bench/payctl
exec python3 bench/pg.py "$PWD/target/bench/payctl" "$@"
