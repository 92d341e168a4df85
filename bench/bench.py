#!/usr/bin/env python3
"""payctl at scale against the sqlite3 shell: see bench/run.sh.

Stores are built with the real commands where they are fast enough
(`profile import` for the profiles) and otherwise by writing the store's files
in its documented layout (src/store/mod.rs), made consistent by
`payctl store check --repair`, which rebuilds every derived index from the
records, and then verified by `payctl store check`:

- 100,000 transactions: one real `txn create` + `payctl worker` gives a
  Completed transaction with its steps; the script writes copies of its file
  under new ids (transactions/<xx>/trn_<id>.json) and `store check --repair`
  builds transactions.log.
- 10,000 pending attachments for the worker: one real `program attach` gives
  the record and the queue file's name; the script adds such a record to each
  customer file, writes the queue entry (queue/<seq>.att.<csp>.<prm>) and
  appends its line to the attachment index (index/attachments.log).

Every command, payctl's and sqlite3's, is timed as a whole process (spawn to
exit) with its peak RSS from wait4(2); runs of the operations being compared
are interleaved, and the medians are compared.
"""

import json
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time

import record  # bench/record.py: each run kept under bench/results/

PAYCTL = sys.argv[1]
SQLITE = shutil.which("sqlite3") or "/usr/bin/sqlite3"
N = int(os.environ.get("BENCH_PROFILES", "100000"))
NTXN = int(os.environ.get("BENCH_TXNS", str(N)))
SMALL = 1000
RUNS = int(os.environ.get("BENCH_RUNS", "15"))
WORKER_ITEMS = int(os.environ.get("BENCH_WORKER_ITEMS", "10000"))
WORKER_RUNS = int(os.environ.get("BENCH_WORKER_RUNS", "3"))
IMPORT_RUNS = int(os.environ.get("BENCH_IMPORT_RUNS", "3" if N < 500_000 else "1"))
# Where to write this run's figures as JSON, and a previous run's (at a smaller
# size) to compute how each kind of command grows.
RESULTS = os.environ.get("BENCH_RESULTS")
BASELINE = os.environ.get("BENCH_BASELINE")
PARALLEL_SECONDS = float(os.environ.get("BENCH_PARALLEL_SECONDS", "20"))
ENV = dict(os.environ, PAYCTL_ACTOR="bench", PAYCTL_NO_INPUT="1")
for v in ("PAYCTL_DATA_DIR", "PAYCTL_OUTPUT", "PAYCTL_FAULT"):
    ENV.pop(v, None)
ALNUM = string.ascii_lowercase + string.digits
rng = random.Random(20261121)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def new_id(prefix):
    return prefix + "_" + "".join(rng.choice(ALNUM) for _ in range(20))


def timed(args, stdin=None):
    """(seconds, peak RSS in KiB, stdout) of one whole process."""
    t = time.perf_counter()
    p = subprocess.Popen(
        args,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    out, err = p.communicate(stdin)
    elapsed = time.perf_counter() - t
    # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN only in
    # aggregate, so runs that need the RSS use measure() instead.
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args[:6])}… failed ({p.returncode}): {err.decode()[:500]}")
    return elapsed, out


def measure(args):
    """Seconds of one whole process, output discarded."""
    t = time.perf_counter()
    p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args[:8])}… failed ({p.returncode}): {p.stderr.decode()[:500]}")
    return elapsed


# Peak RSS of a command, measured from a small process: a child of this
# (large) Python would count the parent's pages it shared before its exec.
RSS_HELPER = """
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    os.dup2(fd, 0); os.dup2(fd, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(ru.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)
"""


def peak_rss(args):
    """Peak resident memory of `args` in KiB: GNU time's %M when installed,
    else a fresh small Python's wait4(2) (an upper bound: at least ~9 MB)."""
    if os.path.exists("/usr/bin/time"):
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *args], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        if p.returncode != 0:
            log(f"bench: {' '.join(args[:8])}… failed ({p.returncode}): {p.stderr.decode()[-500:]}")
            return -1
        return int(p.stderr.decode().strip().splitlines()[-1])
    p = subprocess.run([sys.executable, "-c", RSS_HELPER, *args], capture_output=True, env=ENV)
    return int(p.stdout.decode().strip())


def timed_rss(args):
    """(seconds, peak RSS in KiB) of one whole process, stdout discarded."""
    t = time.perf_counter()
    rss = peak_rss(args)
    elapsed = time.perf_counter() - t
    if rss < 0:
        raise SystemExit(f"bench: {' '.join(args[:6])}… failed")
    return elapsed, rss


def payctl(store, *args, stdin=None):
    _, out = timed([PAYCTL, "--data-dir", store, "-o", "json", *args], stdin)
    return json.loads(out)


def sql(db, text):
    subprocess.run([SQLITE, db], input=text.encode(), check=True, env=ENV,
                   stdout=subprocess.DEVNULL)


def profile_line(i, key):
    return {
        "customer_type_id": 1,
        "customer_key": key,
        "customer_profile_tags": [{"key": "segment", "value": "retail" if i % 2 else "smb"},
                                  {"key": "cohort", "value": f"c{i % 10000:04d}"}],
        "customer_profile_individual": {
            "first_name": f"First{i}",
            "middle_name": "Q",
            "last_name": f"Last{i % 1000}",
            "email": f"user{i}@example.com",
            "date_of_birth": "1990-12-10",
            "ssn": "123456789",
            "mobile_phone": "+15551234567",
            "home_phone": "+15557654321",
        },
    }


def profile_insert(pid, key, i, line):
    """The statements that store profile `i` (its JSON `line`) in sqlite."""
    ind = profile_line(i, key)["customer_profile_individual"]
    tags = profile_line(i, key)["customer_profile_tags"]
    out = (f"INSERT INTO profiles VALUES({q(pid)},{q(key)},{q(ind['email'])},{q(ind['first_name'])},"
           f"{q(ind['last_name'])},{q(line)});\n")
    for t in tags:
        out += f"INSERT INTO profile_tags VALUES({q(pid)},{q(t['key'] + '=' + t['value'])});\n"
    return out


def jsonl(n, prefix):
    return "".join(json.dumps(profile_line(i, f"{prefix}-{i:07d}")) + "\n" for i in range(n))


def shard(i):
    return i.split("_", 1)[1][:2]


def customer_path(store, cid):
    return os.path.join(store, "customers", shard(cid), cid + ".json")


def read_customer(store, cid):
    """A customer record as the documented layout holds it: its own file,
    else its entry in a pack, located by its shard's `packed.log` line
    `<id> <pack> <offset> <length>` (an import packs its chunks)."""
    path = customer_path(store, cid)
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    with open(os.path.join(store, "customers", shard(cid), "packed.log")) as f:
        for line in f:
            fields = line.split()
            if fields[0] == cid:
                pack, offset, length = (int(x) for x in fields[1:])
    with open(os.path.join(store, "packs", f"{pack}.jsonl"), "rb") as f:
        f.seek(offset)
        return json.loads(f.read(length))


def write_json(path, value):
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(value, separators=(",", ":")) + "\n")


def q(s):
    return "'" + s.replace("'", "''") + "'"


def catalog_ids(store):
    prm = next(p for p in payctl(store, "program", "list")["data"] if p["program_name"] == "default_program")["program_id"]
    app = payctl(store, "program", "applications", prm)["data"][0]["application_id"]
    trt = {t["transaction_template_name"]: t["transaction_template_id"]
           for t in payctl(store, "template", "list", app)["data"]}
    return prm, app, trt["internal_transfer"]


def other_template(store, app, trt):
    """A template of `app` other than `trt` (a quarter of the bench's
    transactions have it, for the `txn list --template` row)."""
    return next(t["transaction_template_id"] for t in payctl(store, "template", "list", app)["data"]
                if t["transaction_template_id"] != trt)


def txn_body(prm, app, trt, a, b):
    return json.dumps({
        "program_id": prm, "application_id": app, "transaction_template_id": trt,
        "transaction_status_reason": "bench",
        "transaction_tags": [{"key": "order", "value": "B-1"}],
        "transaction_parameters": [
            {"transaction_parameter_name": "@source_customers",
             "transaction_parameter_values": [{"customer_profile_id": a, "amount": 10.5}]},
            {"transaction_parameter_name": "@targets",
             "transaction_parameter_values": [{"customer_profile_id": b, "amount": 10.5}]},
        ],
    })


def main():
    # /var/tmp by default, not /tmp or target/: where test suites and builds
    # create and remove thousands of files, ext4 without a journal allocates
    # inodes slowly for minutes (it skips recently freed ones), which would
    # be measured.
    base = "/var/tmp" if os.path.isdir("/var/tmp") else None
    root = os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="payctl-bench-", dir=base)
    os.makedirs(root, exist_ok=True)
    keep = bool(os.environ.get("BENCH_DIR") or os.environ.get("BENCH_KEEP"))
    try:
        run(root)
    finally:
        if keep:
            log(f"bench: the stores are kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
            log("bench: removed the stores; the file system allocates new files slowly for "
                "about 6 minutes after such a removal, so wait that long before another run")


def probe_file_creation(root, k=0):
    """Microseconds to create, write and close one small file here (Python's
    own overhead included): a healthy ext4 takes ~15 µs; after many files were
    removed in the last minutes, several times that. (The probe's files are
    kept: removing them would be what it measures.)"""
    d = os.path.join(root, f"probe{k}")
    os.makedirs(d)
    n = 3000
    t = time.perf_counter()
    for i in range(n):
        fd = os.open(os.path.join(d, f"f{i}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b"x" * 700)
        os.close(fd)
    return (time.perf_counter() - t) / n * 1e6


HEALTHY_US = 40
SETTLE_WAIT = int(os.environ.get("BENCH_SETTLE_WAIT", "420"))


def wait_for_healthy_file_system(root):
    """The probe, repeated every 20 s until file creation is healthy again
    (at most BENCH_SETTLE_WAIT seconds, default 7 minutes: ext4 without a
    journal skips inodes freed in the last 1-6 minutes). The imports are
    then measured on the file system as it normally is, not as a previous
    run's clean-up left it; the table still reports the last probe, and
    says when the wait ran out."""
    deadline = time.perf_counter() + SETTLE_WAIT
    k = 0
    while True:
        us = probe_file_creation(root, k)
        if us <= HEALTHY_US or time.perf_counter() >= deadline:
            return us
        log(f"bench: creating a file takes {us:.0f} µs (healthy: ≤ {HEALTHY_US}): files were removed "
            f"in the last minutes; waiting for the file system to settle before the import")
        time.sleep(20)
        k += 1


def run(root):
    big, small, db = (os.path.join(root, x) for x in ("big", "small", "sqlite.db"))
    t0 = time.perf_counter()
    rows = {}

    # ---- profiles: import (timed) ----
    log(f"bench: {N} profiles into {IMPORT_RUNS} stores with `profile import` (the first is the big store)")
    lines = jsonl(N, "cust")
    lines_path = os.path.join(root, "profiles.jsonl")
    with open(lines_path, "w") as f:
        f.write(lines)
    PROBE.append(wait_for_healthy_file_system(root))
    payctl(small, "init")
    import_times = []
    for k in range(IMPORT_RUNS):
        store = big if k == 0 else os.path.join(root, f"import{k}")
        payctl(store, "init")
        os.sync()
        t, rss = timed_rss([PAYCTL, "--data-dir", store, "-o", "json", "profile", "import", lines_path])
        IMPORT_RSS.append(rss)
        import_times.append(t)
    t = statistics.median(import_times)
    IMPORT_TIMES.extend(import_times)
    rows["import"] = (t, N / t)
    # The ids in creation order, from the documented index/profiles.ids (the
    # import's answer is not kept: at a million lines it is as large as the input).
    with open(os.path.join(big, "index", "profiles.ids")) as f:
        created = [{"id": l.strip()} for l in f]
    assert len(created) == N, len(created)
    os.remove(lines_path)
    ids = [r["id"] for r in created]
    payctl(small, "profile", "import", "-", stdin=jsonl(SMALL, "small").encode())
    small_ids = payctl(small, "profile", "list", "--page-size", "1000")["data"]
    small_ids = [p["customer_profile_id"] for p in small_ids]

    # ---- transactions: one real, the rest written in the documented layout ----
    prm, app, trt = catalog_ids(big)
    a, b = ids[1], ids[2]
    for c in (a, b):
        payctl(big, "program", "attach", prm, c)
    payctl(big, "worker")
    seed = payctl(big, "txn", "create", "--body", "-", stdin=txn_body(prm, app, trt, a, b).encode())["data"][0]["id"]
    payctl(big, "worker")
    with open(os.path.join(big, "transactions", shard(seed), seed + ".json")) as f:
        template = json.load(f)
    assert template["steps"], "the seed transaction has its steps"
    log(f"bench: writing {NTXN - 1} transaction files, then `store check --repair`")
    # For the filtered txn lists: one in 10 is Failed (70, the rest
    # Completed, 60), one in 4 has another template; all have one program.
    trt2 = other_template(big, app, trt)
    txn_ids = [seed]
    txn_rows = [(seed, template["transaction"]["transaction_status_id"], trt)]
    for n in range(1, NTXN):
        tid = new_id("trn")
        t = json.loads(json.dumps(template))
        t["transaction"]["transaction_id"] = tid
        st = 70 if n % 10 == 0 else 60
        tt = trt2 if n % 4 == 0 else trt
        t["transaction"]["transaction_status_id"] = st
        t["transaction"]["transaction_template_id"] = tt
        for s in t["steps"]:
            s["transaction_id"] = tid
            s["transaction_step_id"] = new_id("trs")
        write_json(os.path.join(big, "transactions", shard(tid), tid + ".json"), t)
        txn_ids.append(tid)
        txn_rows.append((tid, st, tt))
    t_repair, _ = timed([PAYCTL, "--data-dir", big, "-o", "json", "store", "check", "--repair"])
    t_check, _ = timed([PAYCTL, "--data-dir", big, "-o", "json", "store", "check"])

    # ---- the same rows in sqlite ----
    log("bench: the equivalent sqlite database")
    with open(os.path.join(root, "load.sql"), "w") as f:
        f.write("PRAGMA journal_mode=DELETE;\nBEGIN;\n")
        # The same indexes as payctl's: the key (unique), the e-mail and the
        # names without regard to case, the tags.
        f.write("CREATE TABLE profiles(id TEXT PRIMARY KEY, customer_key TEXT UNIQUE NOT NULL, "
                "email TEXT NOT NULL COLLATE NOCASE, first_name TEXT NOT NULL COLLATE NOCASE, "
                "last_name TEXT NOT NULL COLLATE NOCASE, json TEXT NOT NULL);\n")
        f.write("CREATE TABLE profile_tags(profile_id TEXT NOT NULL, tag TEXT NOT NULL);\n")
        f.write("CREATE TABLE addresses(id TEXT PRIMARY KEY, profile_id TEXT NOT NULL, json TEXT NOT NULL);\n")
        f.write("CREATE TABLE attachments(profile_id TEXT NOT NULL, program_id TEXT NOT NULL, status INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY(profile_id, program_id));\n")
        f.write("CREATE TABLE txns(id TEXT PRIMARY KEY, status INTEGER NOT NULL, template_id TEXT NOT NULL, "
                "program_id TEXT NOT NULL, json TEXT NOT NULL);\n")
        for i, line in enumerate(lines.splitlines()):
            f.write(profile_insert(ids[i], f"cust-{i:07d}", i, line))
        tjson = json.dumps(template, separators=(",", ":"))
        for tid, st, tt in txn_rows:
            f.write(f"INSERT INTO txns VALUES({q(tid)},{st},{q(tt)},{q(prm)},{q(tjson.replace(seed, tid))});\n")
        f.write("CREATE INDEX profiles_email ON profiles(email);\n"
                "CREATE INDEX profiles_first_name ON profiles(first_name);\n"
                "CREATE INDEX profiles_last_name ON profiles(last_name);\n"
                "CREATE INDEX profile_tags_tag ON profile_tags(tag, profile_id);\n"
                # txn list's filters: the same columns as payctl's transaction indexes.
                "CREATE INDEX txns_status ON txns(status);\n"
                "CREATE INDEX txns_template ON txns(template_id);\n"
                "CREATE INDEX txns_program ON txns(program_id);\n")
        f.write("COMMIT;\n")
    subprocess.run([SQLITE, db], stdin=open(os.path.join(root, "load.sql")), check=True,
                   stdout=subprocess.DEVNULL)
    os.remove(os.path.join(root, "load.sql"))

    # ---- worker stores: pending attachments written in the documented layout ----
    worker_stores = []
    for w in range(WORKER_RUNS):
        ws = os.path.join(root, f"worker{w}")
        payctl(ws, "init")
        made = payctl(ws, "profile", "import", "-", stdin=jsonl(WORKER_ITEMS, f"w{w}").encode())["data"]
        wprm = next(p for p in payctl(ws, "program", "list")["data"] if p["program_name"] == "default_program")["program_id"]
        first = made[0]["id"]
        payctl(ws, "program", "attach", wprm, first)
        att = read_customer(ws, first)["attachments"][0]
        base = time.time_ns()
        index_lines = []
        for n, rec in enumerate(made[1:]):
            cid = rec["id"]
            # Its own file from now on (as an update writes it: it shadows
            # the packed entry).
            path = customer_path(ws, cid)
            c = read_customer(ws, cid)
            c["attachments"].append(dict(att, customer_profile_id=cid))
            write_json(path, c)
            # 0600 like every store file: `store check` reports any other mode.
            os.close(os.open(os.path.join(ws, "queue", f"{base + n:020d}.att.{cid}.{wprm}"),
                             os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            index_lines.append(f"{wprm} {cid}\n")
        # The attachment index (index/attachments.log): one line per record.
        with open(os.path.join(ws, "index", "attachments.log"), "a") as f:
            f.write("".join(index_lines))
        payctl(ws, "store", "check")
        worker_stores.append(ws)
    os.sync()
    log(f"bench: stores built in {time.perf_counter() - t0:.0f}s; measuring ({RUNS} interleaved runs each)")

    # ---- point operations and lists, interleaved ----
    P = [PAYCTL, "--data-dir", big, "-o", "json"]
    mid = ids[N // 2]
    email = f"user{(N * 3) // 4}@example.com"
    body_path = os.path.join(root, "txn.json")
    with open(body_path, "w") as f:
        f.write(txn_body(prm, app, trt, a, b))
    addr = json.dumps({"address_type_id": 1, "is_default": True, "country_id": 1, "state_id": 5,
                       "first_name": "Ada", "last_name": "Lovelace", "address_line1": "1 Main St",
                       "address_line2": "", "city": "Springfield", "zip": "12345"})
    addr_path = os.path.join(root, "address.json")
    with open(addr_path, "w") as f:
        f.write(addr)
    counter = {"n": 0}

    def fresh():
        counter["n"] += 1
        return counter["n"]

    def create_payctl():
        path = os.path.join(root, "new.json")
        with open(path, "w") as f:
            json.dump(profile_line(N + fresh(), f"new-{counter['n']:07d}"), f)
        return P + ["profile", "create", "--body", path]

    def create_sql():
        k = fresh()
        key = f"sqlnew-{k:07d}"
        return [SQLITE, db, "BEGIN;" + profile_insert(new_id("csp"), key, N + k, json.dumps(profile_line(N + k, key))) + "COMMIT;"]

    # Each address create and attach goes to another customer (spread over the store).
    targets = iter(ids[10:])

    def address_payctl():
        return P + ["address", "create", next(targets), "--body", addr_path]

    def address_sql():
        return [SQLITE, db, f"INSERT INTO addresses VALUES({q(new_id('cpa'))},{q(rng.choice(ids))},{q(addr)});"]

    def attach_payctl():
        return P + ["program", "attach", prm, next(targets)]

    att_json = json.dumps({"program_id": prm, "customer_profile_program_status_id": 1,
                           "customer_profile_program_status_reason": "", "is_locked": False})
    sql_targets = iter(ids[10:])

    def attach_sql():
        return [SQLITE, db, f"INSERT INTO attachments VALUES({q(next(sql_targets))},{q(prm)},1,{q(att_json)});"]

    mid_txn = txn_ids[NTXN // 2]
    first = f"First{(N * 3) // 4}"
    last = f"Last{((N * 3) // 4) % 1000}"
    tag = f"cohort=c{((N * 3) // 4) % 10000:04d}"
    # A filtered page as payctl answers it: the count of matches and the first 50.
    filtered = lambda where: (f"SELECT count(*) FROM profiles WHERE {where}; "
                              f"SELECT id, customer_key, json FROM profiles WHERE {where} ORDER BY rowid LIMIT 50;")
    txn_filtered = lambda where: (f"SELECT count(*) FROM txns WHERE {where}; "
                                  f"SELECT id, json FROM txns WHERE {where} ORDER BY rowid LIMIT 50;")
    page = lambda n: f"SELECT count(*) FROM profiles; SELECT id, customer_key, json FROM profiles ORDER BY rowid LIMIT 50 OFFSET {(n - 1) * 50};"
    last_page = max(1, min(1000, N // 50))
    ops = [
        # name, bound, payctl command, sqlite command (callables give a fresh one per run)
        ("profile get", 2, P + ["profile", "get", mid],
         [SQLITE, db, f"SELECT id, customer_key, json FROM profiles WHERE id={q(mid)};"]),
        ("profile create", 2, create_payctl, create_sql),
        ("address create", 2, address_payctl, address_sql),
        ("program attach", 2, attach_payctl, attach_sql),
        ("txn create", 2, P + ["txn", "create", "--body", body_path],
         lambda: [SQLITE, db, f"INSERT INTO txns VALUES({q(new_id('trn'))},10,{q(trt)},{q(prm)},{q(json.dumps(template))});"]),
        ("txn steps", 2, P + ["txn", "steps", mid_txn],
         [SQLITE, db, f"SELECT json FROM txns WHERE id={q(mid_txn)};"]),
        ("profile list (page 1)", 3, P + ["profile", "list", "--page-size", "50"],
         [SQLITE, db, page(1)]),
        (f"profile list --page-number {last_page}", 3,
         P + ["profile", "list", "--page-size", "50", "--page-number", str(last_page)],
         [SQLITE, db, page(last_page)]),
        ("profile list --email", 3, P + ["profile", "list", "--email", email],
         [SQLITE, db, filtered(f"email = {q(email.upper())}")]),
        ("profile list --first-name", 3, P + ["profile", "list", "--first-name", first],
         [SQLITE, db, filtered(f"first_name = {q(first)}")]),
        ("profile list --last-name", 3, P + ["profile", "list", "--last-name", last],
         [SQLITE, db, filtered(f"last_name = {q(last)}")]),
        ("profile list --tag", 3, P + ["profile", "list", "--tag", tag],
         [SQLITE, db, filtered(f"id IN (SELECT profile_id FROM profile_tags WHERE tag = {q(tag)})")]),
    ]
    if NTXN > 1:
        # Filtered txn lists, against sqlite3 with an index on the same column:
        # a tenth of the transactions match the status, a quarter the
        # template, all of them the program.
        ops += [
            ("txn list --status", 3, P + ["txn", "list", "--status", "70"],
             [SQLITE, db, txn_filtered("status = 70")]),
            ("txn list --template", 3, P + ["txn", "list", "--template", trt2],
             [SQLITE, db, txn_filtered(f"template_id = {q(trt2)}")]),
            ("txn list --program", 3, P + ["txn", "list", "--program", prm],
             [SQLITE, db, txn_filtered(f"program_id = {q(prm)}")]),
        ]
    times = {name: ([], []) for name, *_ in ops}
    point_rss = 0
    list_rss = 0
    scale = ([], [])
    for r in range(RUNS):
        for name, bound, pc, sc in ops:
            pair = [("p", pc), ("s", sc)]
            if r % 2:
                pair.reverse()
            for who, cmd in pair:
                cmd = cmd() if callable(cmd) else cmd
                times[name][0 if who == "p" else 1].append(measure(cmd))
        pair = [(0, big, mid), (1, small, small_ids[len(small_ids) // 2])]
        if r % 2:
            pair.reverse()
        for k, store, cid in pair:
            scale[k].append(measure([PAYCTL, "--data-dir", store, "-o", "json", "profile", "get", cid]))
    # Peak memory, in runs of their own.
    for name, bound, pc, sc in ops:
        for _ in range(3):
            rss = peak_rss(pc() if callable(pc) else pc)
            if name.startswith(("profile list", "txn list")):
                list_rss = max(list_rss, rss)
            else:
                point_rss = max(point_rss, rss)

    # ---- the worker ----
    rates = []
    for ws in worker_stores:
        t, out = timed([PAYCTL, "--data-dir", ws, "-o", "json", "worker"])
        done = json.loads(out)["data"][0]["attachments_processed"]
        assert done == WORKER_ITEMS, done
        rates.append(done / t)
    # A page of a program's records (info): the attachment index gives the
    # ids, only the page's customers are read.
    ws = worker_stores[0]
    wprm = next(p for p in payctl(ws, "program", "list")["data"]
                if p["program_name"] == "default_program")["program_id"]
    pp = [measure([PAYCTL, "--data-dir", ws, "-o", "json", "program", "profiles", wprm,
                   "--page-size", "50", "--page-number", str(WORKER_ITEMS // 100)])
          for _ in range(RUNS)]

    # ---- store check against PRAGMA integrity_check, twice each (the first
    # may read from the disk: a cold figure, reported beside the warm one) ----
    log("bench: store check against PRAGMA integrity_check")
    checks = {"p": [], "s": []}
    for r in range(2):
        for who, cmd in [("p", [PAYCTL, "--data-dir", big, "-o", "json", "store", "check"]),
                         ("s", [SQLITE, db, "PRAGMA integrity_check;"])]:
            checks[who].append(timed_rss(cmd))

    # ---- 4 parallel create loops against sqlite3 with a busy timeout ----
    log(f"bench: 4 parallel create loops, {PARALLEL_SECONDS:.0f} s each side")

    # Each loop's count goes on across the rounds: every key is new.
    made = [0] * 4

    def loops(make, secs):
        import threading
        done = [0] * 4
        failed = [0] * 4
        end = time.perf_counter() + secs

        def loop(w):
            while time.perf_counter() < end:
                made[w] += 1
                n = made[w]
                p = subprocess.run(make(w, n), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=ENV)
                if p.returncode == 0:
                    done[w] += 1
                else:
                    failed[w] += 1
        t = time.perf_counter()
        threads = [threading.Thread(target=loop, args=(w,)) for w in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        return sum(done), time.perf_counter() - t, sum(failed)

    def par_payctl(w, n):
        path = os.path.join(root, f"par{w}.json")
        with open(path, "w") as f:
            json.dump(profile_line(2 * N + n, f"par{w}-{n:07d}"), f)
        return P + ["profile", "create", "--body", path]

    def par_sql(w, n):
        key = f"sqlpar{w}-{n:07d}"
        return [SQLITE, "-cmd", ".timeout 30000", db,
                "BEGIN IMMEDIATE;" + profile_insert(new_id("csp"), key, 2 * N + n, json.dumps(profile_line(2 * N + n, key))) + "COMMIT;"]
    # Interleaved like every other figure here: four rounds of half a side's
    # time, payctl sqlite3 sqlite3 payctl, so that neither side alone runs
    # while the disk still settles from the bench's writes before them (a
    # first round of payctl's ran at 402/s where its next three ran at
    # 509-560/s: bench/results/2026-11-28-1415-parallel-ab-100k.md).
    runs = {"p": [0, 0.0, 0], "s": [0, 0.0, 0]}
    for side in "pssp":
        got = loops(par_payctl if side == "p" else par_sql, PARALLEL_SECONDS / 2)
        runs[side] = [a + b for a, b in zip(runs[side], got)]
    par = {k: (n / secs, bad) for k, (n, secs, bad) in runs.items()}

    # ---- did the page cache hold the store? ----
    store_bytes = int(subprocess.run(["du", "-sb", big], capture_output=True, text=True).stdout.split()[0])
    db_bytes = os.path.getsize(db)
    with open("/proc/meminfo") as f:
        avail = int(next(l.split()[1] for l in f if l.startswith("MemAvailable"))) * 1024
    fits = store_bytes + db_bytes < avail

    # ---- the table ----
    ms = lambda s: f"{s * 1000:8.1f} ms"
    failed = []
    out = []
    out.append(f"payctl scale benchmark: {N:,} profiles, {NTXN:,} transactions; medians of {RUNS} interleaved runs")
    out.append(f"machine: {os.cpu_count()} cores, {machine()}")
    out.append("")
    out.append(f"| {'operation':36} | {'payctl':>11} | {'sqlite3':>11} | {'ratio':>6} | {'target':>8} | result | note |")
    out.append(f"|{'-' * 38}|{'-' * 13}|{'-' * 13}|{'-' * 8}|{'-' * 10}|--------|------|")
    for name, bound, *_ in ops:
        p, s = (statistics.median(x) for x in times[name])
        ratio = p / s
        ok = ratio <= bound
        failed += [] if ok else [name]
        out.append(f"| {name:36} | {ms(p):>11} | {ms(s):>11} | {ratio:5.2f}x | {'<= ' + str(bound) + 'x':>8} | {'PASS' if ok else 'FAIL':6} |      |")
    g_big, g_small = statistics.median(scale[0]), statistics.median(scale[1])
    ok = g_big / g_small <= 1.5
    failed += [] if ok else ["get at scale"]
    out.append(f"| {f'profile get: {N // 1000}k vs {SMALL // 1000}k profiles':36} | {ms(g_big):>11} | {ms(g_small):>11} | {g_big / g_small:5.2f}x | {'<= 1.5x':>8} | {'PASS' if ok else 'FAIL':6} |      |")
    ok = point_rss <= 32 * 1024
    failed += [] if ok else ["point memory"]
    out.append(f"| {'peak RSS of a point operation':36} | {point_rss / 1024:8.1f} MB | {'':11} | {'':6} | {'<= 32MB':>8} | {'PASS' if ok else 'FAIL':6} |      |")
    out.append(f"| {'peak RSS of a list (info)':36} | {list_rss / 1024:8.1f} MB | {'':11} | {'':6} | {'':8} |        |      |")
    out.append(f"| {'program profiles, page 100 (info)':36} | {ms(statistics.median(pp)):>11} | {'':11} | {'':6} | {'':8} |        | {WORKER_ITEMS:,} records |")
    t_imp, rate = rows["import"]
    import_times = IMPORT_TIMES
    ok = rate >= 10000
    failed += [] if ok else ["import"]
    out.append(f"| {'profile import ' + format(N, ',') + ' lines':36} | {t_imp:8.2f} s  | {'':11} | {'':6} | {'>= 10k/s':>8} | {'PASS' if ok else 'FAIL':6} | {rate:,.0f}/s, median of {len(import_times)} ({', '.join(f'{x:.1f}' for x in import_times)} s) |")
    wr = statistics.median(rates)
    ok = wr >= 1000
    failed += [] if ok else ["worker"]
    out.append(f"| {'worker: ' + format(WORKER_ITEMS, ',') + ' pending attachments':36} | {WORKER_ITEMS / wr:8.2f} s  | {'':11} | {'':6} | {'>= 1k/s':>8} | {'PASS' if ok else 'FAIL':6} | {wr:,.0f}/s, median of {len(rates)} |")
    (tc, rc), (tc2, rc2) = checks["p"]
    (ts, rs), (ts2, rs2) = checks["s"]
    ratio = tc2 / ts2
    ok = ratio <= 3 and max(rc, rc2) <= 256 * 1024
    failed += [] if ok else ["store check"]
    out.append(f"| {'store check vs PRAGMA integrity_check':36} | {tc2:8.2f} s  | {ts2:8.2f} s  | {ratio:5.2f}x | {'<= 3x':>8} | {'PASS' if ok else 'FAIL':6} | "
               f"peak RSS {max(rc, rc2) / 1024:.0f} MB vs {max(rs, rs2) / 1024:.0f} MB (<= 256 MB); first runs {tc:.2f} s vs {ts:.2f} s |")
    imp_rss = max(IMPORT_RSS) / 1024
    out.append(f"| {'peak RSS of the import':36} | {imp_rss:8.1f} MB | {'':11} | {'':6} | {'<= 256MB':>8} | {'PASS' if imp_rss <= 256 else 'FAIL':6} |      |")
    failed += [] if imp_rss <= 256 else ["import memory"]
    (pr, pf), (sr, sf) = par["p"], par["s"]
    ok = pr >= sr
    failed += [] if ok else ["parallel creates"]
    out.append(f"| {'4 parallel create loops':36} | {pr:7.1f}/s  | {sr:7.1f}/s  | {pr / sr:5.2f}x | {'>= 1x':>8} | {'PASS' if ok else 'FAIL':6} | "
               f"failed: {pf} vs {sf} (sqlite3 .timeout 30000, BEGIN IMMEDIATE) |")
    out.append("")
    gb = lambda b: f"{b / 2**30:.1f} GB"
    out.append(f"page cache: the store is {gb(store_bytes)} and the sqlite database {gb(db_bytes)}; "
               f"MemAvailable {gb(avail)}: " + ("both fit (warm figures)" if fits else
               "THEY DO NOT FIT: reads come from the disk, and the figures are cold ones, not comparable with a warm run"))
    out.append(f"load during the run (uptime): {LOADS[0]} at the start, {load()} at the end")
    results = {"profiles": N, "ops": {name: [statistics.median(x) for x in times[name]] for name, *_ in ops},
               "store check": [tc2, ts2], "import rate": rate, "parallel": [pr, sr],
               "get at scale": [g_big, g_small]}
    if RESULTS:
        with open(RESULTS, "w") as f:
            json.dump(results, f, indent=1)
    if BASELINE and os.path.exists(BASELINE):
        with open(BASELINE) as f:
            base = json.load(f)
        out.append("")
        out.append(f"growth from {base['profiles']:,} to {N:,} profiles (payctl / sqlite3):")
        for name, (p, s_) in results["ops"].items():
            key = name if name in base["ops"] else None
            if key is None and name.startswith("profile list --page-number"):
                key = next((k for k in base["ops"] if k.startswith("profile list --page-number")), None)
            if key:
                bp, bs = base["ops"][key]
                out.append(f"- {name}: payctl {p / bp:.2f}x, sqlite3 {s_ / bs:.2f}x")
        bp, bs = base["store check"]
        out.append(f"- store check: payctl {tc2 / bp:.1f}x, sqlite3 integrity_check {ts2 / bs:.1f}x")
        out.append(f"- import rate: {rate:,.0f}/s vs {base['import rate']:,.0f}/s")
        out.append(f"- 4 parallel create loops: payctl {pr:.0f}/s vs {base['parallel'][0]:.0f}/s, "
                   f"sqlite3 {sr:.0f}/s vs {base['parallel'][1]:.0f}/s")
    out.append("")
    slow = PROBE[0] > HEALTHY_US
    out.append(f"file system probe: creating a small file took {PROBE[0]:.0f} µs"
               + (" — SLOW (files removed in the last minutes?): the import figure is pessimistic"
                  if slow else " (healthy)"))
    out.append(f"store check --repair at {N:,} profiles + {NTXN:,} transactions: {t_repair:.1f} s; store check: {t_check:.1f} s")
    out.append(f"total bench time: {time.perf_counter() - START:.0f} s")
    if failed:
        out.append("FAILED: " + ", ".join(failed))
    print("\n".join(out))
    record.save("run", N, "\n".join(out), transactions=NTXN,
                verdict="FAILED: " + ", ".join(failed) if failed else "every target met",
                load_range=f"{LOADS[0]} at the start, {load()} at the end")
    if failed:
        sys.exit(1)


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        model = "unknown CPU"
    try:
        with open("/proc/meminfo") as f:
            mem = int(next(l.split()[1] for l in f if l.startswith("MemTotal"))) / 1024 / 1024
        return f"{model}, {mem:.0f} GiB"
    except (OSError, StopIteration):
        return model


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


START = time.perf_counter()
LOADS = [load()]
IMPORT_RSS = []
IMPORT_TIMES = []
PROBE = []
if __name__ == "__main__":
    main()
