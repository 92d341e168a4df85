#!/usr/bin/env bash
# A/B of two builds of `payctl serve` (GET of one profile at 64 connections,
# wrk -t2), with nginx serving the very same answer as a static file as the
# machine's limit, interleaved round by round (A, B, nginx), medians last.
# Both servers read one store of BENCH_PROFILES profiles (default 100,000,
# imported by A once and kept in BENCH_DIR for the next run).
#
#   bash bench/ab-serve.sh /tmp/payctl-before target/release/payctl [ROUNDS] [SECONDS]
#
# The table goes to stdout; keep it with `| python3 bench/record.py ab 100000`.
# Needs wrk, nginx and curl (Debian packages).
set -euo pipefail
A=$1; B=$2; rounds=${3:-3}; secs=${4:-8}
n=${BENCH_PROFILES:-100000}
dir=${BENCH_DIR:-/var/tmp/payctl-ab-serve-$n}
mkdir -p "$dir"
if [ ! -s "$dir/ids.json" ]; then
    python3 - "$n" > "$dir/p.jsonl" <<'PY'
import json, sys
for i in range(int(sys.argv[1])):
    print(json.dumps({"customer_type_id": 1, "customer_key": "sp-%07d" % i,
        "customer_profile_tags": [{"key": "segment", "value": "retail"}],
        "customer_profile_individual": {"first_name": "First%d" % i, "middle_name": "",
        "last_name": "Last%d" % (i % 5000), "email": "user%07d@example.com" % i,
        "date_of_birth": "1980-01-%02d" % (1 + i % 28), "ssn": "%09d" % (100000000 + i),
        "mobile_phone": "+1202555%04d" % (i % 10000)}}))
PY
    "$A" --data-dir "$dir/store" --no-input -o json profile import "$dir/p.jsonl" > "$dir/ids.json"
fi
csp=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['data']; print(d[len(d)//2]['id'])" "$dir/ids.json")
pa=""; pb=""; pn=""
trap 'kill $pa $pb $pn 2>/dev/null || true' EXIT
"$A" --data-dir "$dir/store" serve --listen 127.0.0.1:18081 --no-worker --quiet 2>"$dir/a.log" & pa=$!
"$B" --data-dir "$dir/store" serve --listen 127.0.0.1:18082 --no-worker --quiet 2>"$dir/b.log" & pb=$!
sleep 1.5
mkdir -p "$dir/www/customer-profiles"
curl -sf "http://127.0.0.1:18081/customer-profiles/$csp" > "$dir/www/customer-profiles/$csp"
cmp <(curl -sf "http://127.0.0.1:18082/customer-profiles/$csp") "$dir/www/customer-profiles/$csp" >&2
cat > "$dir/nginx.conf" <<NG
worker_processes 2; daemon off; pid $dir/nginx.pid; error_log $dir/nginx.err;
events { worker_connections 1024; }
http { access_log off; default_type application/json;
  server { listen 127.0.0.1:18083; root $dir/www; } }
NG
nginx -c "$dir/nginx.conf" & pn=$!
sleep 1
w() { wrk -t2 -c64 -d"${secs}s" --latency "$1" | awk '/Requests\/sec/{r=$2} /^ +99%/{p=$2} END{print r, p}'; }
echo "| round | A req/s | A p99 | B req/s | B p99 | nginx req/s | nginx p99 |"
echo "|---|---|---|---|---|---|---|"
: > "$dir/rounds"
for i in $(seq "$rounds"); do
    a=$(w "http://127.0.0.1:18081/customer-profiles/$csp")
    b=$(w "http://127.0.0.1:18082/customer-profiles/$csp")
    x=$(w "http://127.0.0.1:18083/customer-profiles/$csp")
    echo "$a $b $x" >> "$dir/rounds"
    echo "| $i | ${a/ / | } | ${b/ / | } | ${x/ / | } |"
done
python3 - "$dir/rounds" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda k: statistics.median(float(r[k]) for r in rows)
a, b, x = med(0), med(2), med(4)
print(f"| median | {a:.0f} | | {b:.0f} | | {x:.0f} | |")
print(f"\nB/A {b / a:.2f}x; A {a / x:.2f}x nginx, B {b / x:.2f}x nginx")
PY
