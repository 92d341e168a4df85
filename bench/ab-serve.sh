#!/usr/bin/env bash
# A/B of two builds of `payctl serve` (GET of one profile at 64 connections,
# wrk -t2), with nginx serving the very same answer as a static file as the
# machine's limit, interleaved round by round (A, B, nginx), medians last.
# Both servers read one store of BENCH_PROFILES profiles (default 100,000,
# imported by A once and kept in BENCH_DIR for the next run).
#
#   bash bench/ab-serve.sh /tmp/payctl-before target/release/payctl [ROUNDS] [SECONDS]
#
# BENCH_MODE=create: durable creates with unique keys (a wrk Lua script)
# instead, each server on its own copy of the store, no nginx.
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
if [ "${BENCH_MODE:-get}" = create ]; then
    cat > "$dir/create.lua" <<'LUA'
local counter = 0
function setup(thread) counter = counter + 1; thread:set("wid", counter) end
function init(args) n = 0; run = tostring(os.time()) end
function request()
  n = n + 1
  local body = string.format('{"customer_type_id":1,"customer_key":"ab%s-%d-%d","customer_profile_individual":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","date_of_birth":"1990-12-10","mobile_phone":"+15551234567"}}', run, wid, n)
  return wrk.format("POST", "/customer-profiles", {["Content-Type"]="application/json"}, body)
end
LUA
    rm -rf "$dir/store-a" "$dir/store-b"
    cp -a "$dir/store" "$dir/store-a"; cp -a "$dir/store" "$dir/store-b"
    "$A" --data-dir "$dir/store-a" serve --listen 127.0.0.1:18081 --no-worker --quiet 2>"$dir/a.log" & pa=$!
    "$B" --data-dir "$dir/store-b" serve --listen 127.0.0.1:18082 --no-worker --quiet 2>"$dir/b.log" & pb=$!
    sleep 1.5
    w() { wrk -t2 -c64 -d"${secs}s" --latency -s "$dir/create.lua" "$1" | awk '/Requests\/sec/{r=$2} /^ +99%/{p=$2} END{print r, p}'; }
    echo "| round | A creates/s | A p99 | B creates/s | B p99 |"
    echo "|---|---|---|---|---|"
    : > "$dir/rounds"
    for i in $(seq "$rounds"); do
        a=$(w "http://127.0.0.1:18081/customer-profiles")
        b=$(w "http://127.0.0.1:18082/customer-profiles")
        echo "$a $b" >> "$dir/rounds"
        echo "| $i | ${a/ / | } | ${b/ / | } |"
    done
    python3 - "$dir/rounds" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
a, b = (statistics.median(float(r[k]) for r in rows) for k in (0, 2))
print(f"| median | {a:.0f} | | {b:.0f} | |\n\nB/A {b / a:.2f}x")
PY
    for s in a b; do "$A" --data-dir "$dir/store-$s" -o json store check > /dev/null && echo "store check $s: clean" >&2; done
    rm -rf "$dir/store-a" "$dir/store-b"
    exit 0
fi
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
