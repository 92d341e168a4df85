#!/usr/bin/env python3
"""A/B of bench.py's 4 parallel create loops: two payctl binaries, each on
its own 100,000-profile store (made by its own import), alternating A B,
B A, ... so that the machine's drift falls on both.

    python3 bench/ab-parallel.py OLD_BINARY NEW_BINARY   # SECS=15 ROUNDS=3

The stores and bodies go to $AB_DIR (default /var/tmp/par). Standard library
only; the figures are printed, to be kept by hand in bench/results/."""
import json, os, subprocess, sys, threading, time
A, B = sys.argv[1], sys.argv[2]
SECS = float(os.environ.get("SECS", "15"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
root = os.environ.get("AB_DIR", "/var/tmp/par")
os.makedirs(root, exist_ok=True)
def body(i, key):
    return {"customer_type_id": 1, "customer_key": key,
            "customer_profile_tags": [{"key": "segment", "value": "retail"}],
            "customer_profile_individual": {"first_name": "First%d" % i, "middle_name": "", "last_name": "Last%d" % (i % 5000),
                "email": "user%07d@example.com" % i, "date_of_birth": "1980-01-01", "ssn": "%09d" % (100000000 + i),
                "mobile_phone": "+1202555%04d" % (i % 10000)}}
jl = os.path.join(root, "imp.jsonl")
if not os.path.exists(jl):
    with open(jl, "w") as f:
        for i in range(100000):
            f.write(json.dumps(body(i, "perf-%07d" % i)) + "\n")
stores = {}
for name, b in (("A", A), ("B", B)):
    d = os.path.join(root, "store-" + name)
    subprocess.run(["rm", "-rf", d])
    subprocess.run([b, "--data-dir", d, "--no-input", "-o", "json", "profile", "import", jl], stdout=subprocess.DEVNULL, check=True)
    stores[name] = (b, d)
counter = [0]
def loops(b, d, tag):
    done = [0] * 4
    end = time.perf_counter() + SECS
    def loop(w):
        n = 0
        while time.perf_counter() < end:
            n += 1
            counter[0] += 1
            p = os.path.join(root, f"par-{tag}-{w}.json")
            with open(p, "w") as f:
                json.dump(body(300000 + counter[0], f"par-{tag}-{w}-{n}-{counter[0]}"), f)
            r = subprocess.run([b, "--data-dir", d, "--no-input", "-o", "json", "profile", "create", "--body", p],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            done[w] += r.returncode == 0
    t = time.perf_counter()
    ths = [threading.Thread(target=loop, args=(w,)) for w in range(4)]
    [x.start() for x in ths]; [x.join() for x in ths]
    return sum(done) / (time.perf_counter() - t)
res = {"A": [], "B": []}
for r in range(ROUNDS):
    for name in (("A", "B") if r % 2 == 0 else ("B", "A")):
        b, d = stores[name]
        rate = loops(b, d, f"{name}{r}")
        res[name].append(rate)
        print(f"round {r} {name}: {rate:.1f}/s", flush=True)
for name in ("A", "B"):
    v = sorted(res[name]); print(f"{name} {stores[name][0]}: median {v[len(v)//2]:.1f}/s, all {', '.join('%.1f' % x for x in res[name])}")
