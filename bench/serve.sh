#!/usr/bin/env bash
# The server benchmark: `payctl serve` on a store of BENCH_PROFILES profiles
# (default 100,000), loaded by wrk at 16 connections: GET of one profile, then
# profile create (every answered create is durable: concurrent creates share
# group commits, see docs/src/performance/index.md, "The HTTP server").
# Prints requests/s and p99 latency per case, and PASS/FAIL against the targets
# of issue 15 (GET >= 10,000/s with p99 <= 10 ms; create >= 1,000/s), and keeps
# the table as a file of bench/results/ (bench/record.py).
#
#   bench/serve.sh                         # about 1 minute after the release build and the import
#   BENCH_PROFILES=20000 bench/serve.sh    # a smaller store, for a quick look
#   BENCH_SECONDS=5 bench/serve.sh         # shorter load per case (default 10)
#
# Needs wrk (installed with apt-get when missing, as root). Run it on an idle
# machine: wrk and the server share the cores, and builds beside it halve the
# numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v wrk >/dev/null; then
    echo "bench: installing wrk (apt-get install -y wrk)" >&2
    apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk; }
fi
cargo build --release --quiet
# The binary measured is a copy of the one cargo linked: a freshly linked
# file starts 7-17% slower until its pages leave the page cache (see
# docs/src/performance, "Measuring"), and a copy starts as an installed one.
mkdir -p target/bench
cp target/release/payctl target/bench/payctl
bin="$PWD/target/bench/payctl"
profiles=${BENCH_PROFILES:-100000}
seconds=${BENCH_SECONDS:-10}
dir=$(mktemp -d /var/tmp/payctl-serve-bench.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

echo "bench: importing $profiles profiles" >&2
python3 - "$profiles" > "$dir/profiles.jsonl" <<'EOF'
import json, sys
for i in range(int(sys.argv[1])):
    print(json.dumps({"customer_type_id": 1, "customer_key": f"bench-{i:07d}",
        "customer_profile_individual": {"first_name": "Ada", "last_name": "Lovelace",
        "email": f"ada{i}@example.com", "date_of_birth": "1990-12-10",
        "mobile_phone": "+15551234567"}}))
EOF
"$bin" --data-dir "$dir/store" -o json profile import "$dir/profiles.jsonl" > "$dir/ids.json"
csp=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['data']; print(d[len(d)//2]['id'])" "$dir/ids.json")

"$bin" --data-dir "$dir/store" serve --listen 127.0.0.1:0 --no-worker --quiet 2> "$dir/serve.log" &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$dir/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^listening on //p' "$dir/serve.log")

cat > "$dir/create.lua" <<'EOF'
local counter, id = 0, 0
function setup(thread) id = id + 1; thread:set("tid", id) end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  counter = counter + 1
  local body = string.format('{"customer_type_id":1,"customer_key":"load-%d-%d","customer_profile_individual":{"first_name":"Ada","last_name":"Lovelace","email":"load@example.com","date_of_birth":"1990-12-10","mobile_phone":"+15551234567"}}', tid, counter)
  return wrk.format(nil, nil, nil, body)
end
function done(summary, latency, requests)
  io.write(string.format("p99_us %d\nerrors %d\n", latency:percentile(99),
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
EOF
cat > "$dir/get.lua" <<'EOF'
function done(summary, latency, requests)
  io.write(string.format("p99_us %d\nerrors %d\n", latency:percentile(99),
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
EOF

run() { # name, lua, path, min rps, max p99 ms
    local out rps p99 errors verdict
    out=$(wrk -t2 -c16 -d"${seconds}s" --latency -s "$2" "$base$3")
    rps=$(echo "$out" | sed -n 's/^Requests\/sec: *//p')
    p99=$(echo "$out" | sed -n 's/^p99_us //p')
    errors=$(echo "$out" | sed -n 's/^errors //p')
    verdict=$(python3 -c "print('PASS' if float('$rps') >= $4 and $p99/1000 <= $5 and $errors == 0 else 'FAIL')")
    printf "| %-22s | %10.0f | %8.2f | %6s | %s |\n" "$1" "$rps" "$(python3 -c "print($p99/1000)")" "$errors" "$verdict"
}
{
    echo "| case ($profiles profiles, 16 conn) | requests/s | p99 ms | errors | target |"
    echo "|---|---|---|---|---|"
    run "GET /customer-profiles/{id}" "$dir/get.lua" "/customer-profiles/$csp" 10000 10
    run "POST /customer-profiles" "$dir/create.lua" "/customer-profiles" 1000 1000000
} | tee "$dir/table.md"
# The run is kept as a file of bench/results/ (bench/record.py; BENCH_SAVE=0: not kept).
python3 bench/record.py serve "$profiles" < "$dir/table.md"
"$bin" --data-dir "$dir/store" -o json store check > /dev/null && echo "store check: clean" >&2
