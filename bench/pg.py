"""The PostgreSQL benchmark (see bench/pg.sh): the same operations on the
JSON store and on a database, in one run, interleaved, medians.

- A throwaway PostgreSQL (initdb + pg_ctl on a free port in a temporary
  directory, as `nobody` when run as root): defaults, durability untouched
  (fsync and synchronous_commit on), except shared_buffers=256MB.
- The same N profiles (`profile import` of one JSON Lines file) into a JSON
  directory and into the database, each timed; then `VACUUM ANALYZE` of the
  database (what autovacuum does on its own within a minute of an import).
- CLI point operations, each a whole `payctl` process, JSON and database
  alternating, median of BENCH_RUNS: the database within 2x of the JSON store.
- The same CLI point operations through PgBouncer (session mode, on its own
  port in front of the same server) when it is installed: a process then
  reuses a running backend instead of starting one (see
  docs/src/operations/postgresql.md, "Speed").
- `payctl serve --no-worker --quiet` on each store, wrk at 16 connections:
  GET of one profile, then profile create, JSON and database alternating.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import record  # bench/record.py: each run kept under bench/results/

PAYCTL = sys.argv[1]
N = int(os.environ.get("BENCH_PROFILES", "100000"))
RUNS = int(os.environ.get("BENCH_RUNS", "15"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
IMPORT_RUNS = int(os.environ.get("BENCH_IMPORT_RUNS", "1"))
ROOT = os.environ.get("BENCH_DIR")
KEEP = os.environ.get("BENCH_KEEP") == "1"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("PAYCTL_")}
IS_ROOT = os.geteuid() == 0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(args, stdin=None):
    p = subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args[:8])}… failed ({p.returncode}): {p.stderr.decode()[:800]}")
    return p.stdout


def measure(args):
    """Seconds of one whole process, output discarded."""
    t = time.perf_counter()
    p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args[:8])}… failed ({p.returncode}): {p.stderr.decode()[:800]}")
    return elapsed


def as_server_user(args):
    return ["runuser", "-u", "nobody", "--"] + args if IS_ROOT else args


def pg_bin():
    base = "/usr/lib/postgresql"
    dirs = sorted((os.path.join(base, v, "bin") for v in os.listdir(base)
                   if os.path.exists(os.path.join(base, v, "bin", "initdb"))),
                  key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0)
    if not dirs:
        raise SystemExit("bench: no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)")
    return dirs[-1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throwaway server in `root`/pg, stopped and removed by stop()."""

    def __init__(self, root):
        self.bin = pg_bin()
        self.dir = os.path.join(root, "pg")
        os.makedirs(self.dir)
        if IS_ROOT:
            shutil.chown(self.dir, "nobody")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        run(as_server_user([f"{self.bin}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust",
                            "-E", "UTF8", "--locale=C"]))
        # Durability as shipped (fsync, synchronous_commit, full_page_writes
        # on); only the cache is larger than the default 128MB.
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c shared_buffers=256MB"
        run(as_server_user([f"{self.bin}/pg_ctl", "-D", self.data, "-o", opts, "-w", "-t", "60",
                            "-l", os.path.join(self.dir, "log"), "start"]))
        self.started = True

    def url(self, db):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def sql(self, db, text):
        return run(as_server_user([f"{self.bin}/psql", "-X", "-q", "-t", "-A", "-h", "127.0.0.1",
                                   "-p", str(self.port), "-U", "postgres", "-d", db, "-c", text])).decode()

    def createdb(self, name):
        run(as_server_user([f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port),
                            "-U", "postgres", name]))

    def stop(self):
        if self.started:
            subprocess.run(as_server_user([f"{self.bin}/pg_ctl", "-D", self.data, "-m", "fast", "stop"]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.started = False


class Bouncer:
    """PgBouncer in session mode in front of `pg`, on its own port: each
    client gets a server connection of its own for as long as it is
    connected, and the connection (reset with DISCARD ALL) goes back to the
    pool when the client leaves, so the next payctl process finds a running
    backend instead of starting one."""

    def __init__(self, root, pg):
        self.dir = os.path.join(root, "pgbouncer")
        os.makedirs(self.dir)
        self.port = free_port()
        with open(os.path.join(self.dir, "users.txt"), "w") as f:
            f.write('"postgres" ""\n')
        self.ini = os.path.join(self.dir, "pgbouncer.ini")
        self.pidfile = os.path.join(self.dir, "pgbouncer.pid")
        with open(self.ini, "w") as f:
            f.write(f"""[databases]
* = host=127.0.0.1 port={pg.port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {self.dir}/users.txt
pool_mode = session
max_client_conn = 200
default_pool_size = 20
logfile = {self.dir}/pgbouncer.log
pidfile = {self.pidfile}
""")
        if IS_ROOT:
            for name in ("", "users.txt", "pgbouncer.ini"):
                shutil.chown(os.path.join(self.dir, name), "nobody")
        run(as_server_user([shutil.which("pgbouncer"), "-d", self.ini]))
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)

    def url(self, db):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def stop(self):
        try:
            with open(self.pidfile) as f:
                os.kill(int(f.read().strip()), 15)
        except (OSError, ValueError):
            pass


def profile_line(i, key):
    return {
        "customer_type_id": 1,
        "customer_key": key,
        "customer_profile_tags": [{"key": "segment", "value": "retail" if i % 2 else "smb"},
                                  {"key": "cohort", "value": f"c{i % 10000:04d}"}],
        "customer_profile_individual": {
            "first_name": f"First{i}", "middle_name": "Q", "last_name": f"Last{i % 1000}",
            "email": f"user{i}@example.com", "date_of_birth": "1990-12-10", "ssn": "123456789",
            "mobile_phone": "+15551234567", "home_phone": "+15557654321",
        },
    }


def main():
    root = ROOT or tempfile.mkdtemp(prefix="payctl-pg-bench.", dir="/var/tmp")
    os.makedirs(root, exist_ok=True)
    # The server's user (nobody) must reach its directory inside.
    os.chmod(root, 0o711)
    pg = None
    bouncer = None
    servers = []
    try:
        pg = Postgres(root)
        if shutil.which("pgbouncer"):
            bouncer = Bouncer(root, pg)
        else:
            log("bench: pgbouncer not found: the pooled column is not measured (apt-get install pgbouncer)")
        rc = bench(root, pg, bouncer, servers)
    finally:
        for s in servers:
            s.kill()
            s.wait()
        if bouncer:
            bouncer.stop()
        if pg:
            pg.stop()
        if KEEP:
            log(f"bench: kept {root}")
        elif not ROOT:
            shutil.rmtree(root, ignore_errors=True)
    sys.exit(rc)


def median_ms(xs):
    return statistics.median(xs) * 1000


def bench(root, pg, bouncer, servers):
    loads = [load()]
    t0 = time.perf_counter()
    lines_path = os.path.join(root, "profiles.jsonl")
    with open(lines_path, "w") as f:
        for i in range(N):
            f.write(json.dumps(profile_line(i, f"cust-{i:07d}")) + "\n")

    # ---- import: JSON then database, fresh stores, BENCH_IMPORT_RUNS each ----
    stores = {"json": [], "pg": []}
    times = {"json": [], "pg": []}
    log(f"bench: importing {N:,} profiles into a JSON directory and into PostgreSQL "
        f"({IMPORT_RUNS} run(s) each)")
    for k in range(IMPORT_RUNS):
        jdir = os.path.join(root, f"json{k}")
        db = f"payctl{k}"
        pg.createdb(db)
        jargs = [PAYCTL, "--data-dir", jdir]
        pargs = [PAYCTL, "--database-url", pg.url(db)]
        for who, args in (("json", jargs), ("pg", pargs)):
            run(args + ["init"])
            os.sync()
            t = time.perf_counter()
            run(args + ["-o", "json", "profile", "import", lines_path])
            times[who].append(time.perf_counter() - t)
            stores[who].append(args)
    os.remove(lines_path)
    # What autovacuum does within a minute of a large import: without it the
    # planner's estimates of a just-filled table are wrong.
    pg.sql("payctl0", "VACUUM ANALYZE")
    loads.append(load())

    J, P = stores["json"][0] + ["-o", "json"], stores["pg"][0] + ["-o", "json"]
    # The same database through PgBouncer: its own counters below, the same
    # ids and catalog (they are the database's).
    B = [PAYCTL, "--database-url", bouncer.url("payctl0"), "-o", "json"] if bouncer else None

    def ids_of(base):
        return [p["customer_profile_id"] for p in json.loads(run(base + ["profile", "list", "--page-size", "1000"]))["data"]]

    ids = {"json": ids_of(J), "pg": ids_of(P)}

    def catalog_ids(base):
        prm = next(p for p in json.loads(run(base + ["program", "list"]))["data"]
                   if p["program_name"] == "default_program")["program_id"]
        app = json.loads(run(base + ["program", "applications", prm]))["data"][0]["application_id"]
        trt = {t["transaction_template_name"]: t["transaction_template_id"]
               for t in json.loads(run(base + ["template", "list", app]))["data"]}
        return prm, app, trt["internal_transfer"]

    bodies = {}
    programs = {}
    for who, base in (("json", J), ("pg", P)):
        prm, app, trt = catalog_ids(base)
        programs[who] = prm
        a, b = ids[who][1], ids[who][2]
        for c in (a, b):
            run(base + ["program", "attach", prm, c])
        run(base + ["worker"])
        path = os.path.join(root, f"txn-{who}.json")
        with open(path, "w") as f:
            json.dump({
                "program_id": prm, "application_id": app, "transaction_template_id": trt,
                "transaction_status_reason": "bench",
                "transaction_tags": [{"key": "order", "value": "B-1"}],
                "transaction_parameters": [
                    {"transaction_parameter_name": "@source_customers",
                     "transaction_parameter_values": [{"customer_profile_id": a, "amount": 10.5}]},
                    {"transaction_parameter_name": "@targets",
                     "transaction_parameter_values": [{"customer_profile_id": b, "amount": 10.5}]},
                ],
            }, f)
        bodies[who] = path
    addr_path = os.path.join(root, "address.json")
    with open(addr_path, "w") as f:
        json.dump({"address_type_id": 1, "is_default": True, "country_id": 1, "state_id": 5,
                   "first_name": "Ada", "last_name": "Lovelace", "address_line1": "1 Main St",
                   "address_line2": "", "city": "Springfield", "zip": "12345"}, f)

    # ---- CLI point operations, interleaved ----
    log(f"bench: CLI point operations, {RUNS} interleaved runs each")
    # The middle profile of each store, and targets for address create and
    # attach spread over the store (each run another customer).
    mid = {}
    targets = {}
    for who, base in (("json", J), ("pg", P)):
        page = N // 2 // 50 + 1
        got = json.loads(run(base + ["profile", "list", "--page-size", "50", "--page-number", str(page)]))["data"]
        mid[who] = got[0]["customer_profile_id"]
        targets[who] = iter(ids[who][10:])
    if B:
        mid["pgb"] = mid["pg"]
        targets["pgb"] = targets["pg"]
        programs["pgb"] = programs["pg"]
        bodies["pgb"] = bodies["pg"]
    email = f"user{(N * 3) // 4}@example.com"
    counter = {"json": 0, "pg": 0, "pgb": 0}

    def create(who, base):
        counter[who] += 1
        path = os.path.join(root, f"new-{who}.json")
        with open(path, "w") as f:
            json.dump(profile_line(N + counter[who], f"new-{who}-{counter[who]:07d}"), f)
        return base + ["profile", "create", "--body", path]

    ops = [
        ("profile get", lambda who, b: b + ["profile", "get", mid[who]]),
        ("profile create", create),
        ("address create", lambda who, b: b + ["address", "create", next(targets[who]), "--body", addr_path]),
        ("program attach", lambda who, b: b + ["program", "attach", programs[who], next(targets[who])]),
        ("txn create", lambda who, b: b + ["txn", "create", "--body", bodies[who]]),
        ("profile list --page-size 50 (page 1)", lambda who, b: b + ["profile", "list", "--page-size", "50"]),
        ("profile list --email", lambda who, b: b + ["profile", "list", "--email", email]),
    ]
    point = {name: {"json": [], "pg": [], "pgb": []} for name, _ in ops}
    for r in range(RUNS):
        for name, make in ops:
            order = [("json", J), ("pg", P)] + ([("pgb", B)] if B else [])
            if r % 2:
                order.reverse()
            for who, base in order:
                point[name][who].append(measure(make(who, base)))
    loads.append(load())

    # ---- payctl serve under wrk, interleaved ----
    wrk = shutil.which("wrk")
    serve = {}
    if wrk:
        log(f"bench: payctl serve, wrk at 16 connections, {SECONDS} s per case")
        lua = os.path.join(root, "create.lua")
        with open(lua, "w") as f:
            f.write("""local counter, id = 0, 0
function setup(thread) id = id + 1; thread:set("tid", id) end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  counter = counter + 1
  local body = string.format('{"customer_type_id":1,"customer_key":"load-%d-%d","customer_profile_individual":{"first_name":"Ada","last_name":"Lovelace","email":"load@example.com","date_of_birth":"1990-12-10","mobile_phone":"+15551234567"}}', tid, counter)
  return wrk.format(nil, nil, nil, body)
end
function done(summary, latency, requests)
  io.write(string.format("p99_us %d\\nerrors %d\\n", latency:percentile(99),
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
""")
        get_lua = os.path.join(root, "get.lua")
        with open(get_lua, "w") as f:
            f.write("""function done(summary, latency, requests)
  io.write(string.format("p99_us %d\\nerrors %d\\n", latency:percentile(99),
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
""")
        bases = {}
        for who, base in (("json", stores["json"][0]), ("pg", stores["pg"][0])):
            logf = os.path.join(root, f"serve-{who}.log")
            s = subprocess.Popen(base + ["serve", "--listen", "127.0.0.1:0", "--no-worker", "--quiet"],
                                 stdout=subprocess.DEVNULL, stderr=open(logf, "w"), env=ENV)
            servers.append(s)
            for _ in range(200):
                with open(logf) as f:
                    text = f.read()
                if "listening on " in text:
                    bases[who] = text.split("listening on ", 1)[1].split()[0]
                    break
                time.sleep(0.05)
            else:
                raise SystemExit(f"bench: payctl serve on {who} did not start: {text[:500]}")

        def wrk_case(who, script, path):
            out = run([wrk, "-t2", "-c16", f"-d{SECONDS}s", "--latency", "-s", script, bases[who] + path]).decode()
            rps = float(out.split("Requests/sec:")[1].split()[0])
            p99 = int(out.split("p99_us ")[1].split()[0]) / 1000
            errors = int(out.split("errors ")[1].split()[0])
            return rps, p99, errors

        for case, script, path in (("GET /customer-profiles/{id}", get_lua, "/customer-profiles/{id}"),
                                   ("POST /customer-profiles", lua, "/customer-profiles")):
            for who in ("json", "pg"):
                serve[(case, who)] = wrk_case(who, script, path.replace("{id}", mid[who]))
        loads.append(load())
    else:
        log("bench: wrk not found: the serve cases are not measured (apt-get install wrk)")

    # ---- the table ----
    failed = []
    out = []
    out.append(f"PostgreSQL benchmark: {N:,} profiles, {RUNS} interleaved runs per CLI operation, "
               f"load average {' -> '.join(loads)}, {time.perf_counter() - t0:.0f} s")
    out.append("")
    # CLI point operations: the verdict is PostgreSQL's as a fleet of CLI
    # processes would reach it, through PgBouncer when it was measured; the
    # direct connection's ratio is shown beside it (each process then starts
    # a backend of its own).
    if B:
        out.append("| operation | JSON store | PostgreSQL, direct | ratio | PostgreSQL via PgBouncer | ratio | target | verdict |")
        out.append("|---|---|---|---|---|---|---|---|")
    else:
        out.append("| operation | JSON store | PostgreSQL | ratio | target | verdict |")
        out.append("|---|---|---|---|---|---|")
    for name, _ in ops:
        j, p = median_ms(point[name]["json"]), median_ms(point[name]["pg"])
        if B:
            b = median_ms(point[name]["pgb"])
            ok = b <= 2 * j
            failed += [] if ok else [name]
            out.append(f"| {name} | {j:.1f} ms | {p:.1f} ms | {p / j:.2f}x | {b:.1f} ms | {b / j:.2f}x | ≤ 2x "
                       f"| {'PASS' if ok else 'FAIL'} (direct: {'PASS' if p <= 2 * j else 'FAIL'}) |")
            continue
        ok = p <= 2 * j
        failed += [] if ok else [name]
        out.append(f"| {name} | {j:.1f} ms | {p:.1f} ms | {p / j:.2f}x | ≤ 2x | {'PASS' if ok else 'FAIL'} |")
    jt, pt = statistics.median(times["json"]), statistics.median(times["pg"])
    ok = N / pt >= 10000
    failed += [] if ok else ["import"]
    out.append(f"| profile import, {N:,} lines | {jt:.1f} s ({N / jt:,.0f}/s) | {pt:.1f} s ({N / pt:,.0f}/s) "
               f"| {pt / jt:.2f}x | ≥ 10,000/s on PostgreSQL | {'PASS' if ok else 'FAIL'} |")
    for case in ("GET /customer-profiles/{id}", "POST /customer-profiles"):
        if (case, "json") not in serve:
            continue
        (jr, jp, je), (pr, pp, pe) = serve[(case, "json")], serve[(case, "pg")]
        if case.startswith("GET"):
            ok = pr >= 5000 and pe == 0
            target, verdict = "≥ 5,000/s on PostgreSQL", "PASS" if ok else "FAIL"
            failed += [] if ok else ["serve GET"]
        else:
            target, verdict = "(none)", "info" if pe == 0 and je == 0 else "ERRORS"
        out.append(f"| serve {case}, 16 connections | {jr:,.0f}/s, p99 {jp:.1f} ms | {pr:,.0f}/s, p99 {pp:.1f} ms "
                   f"| {pr / jr:.2f}x | {target} | {verdict} |")
        if je or pe:
            out.append(f"|   (errors: JSON {je}, PostgreSQL {pe}) | | | | | |")
    out.append("")
    out.append(f"Import runs: JSON {', '.join(f'{t:.1f} s' for t in times['json'])}; "
               f"PostgreSQL {', '.join(f'{t:.1f} s' for t in times['pg'])}")
    out.append("FAILED: " + ", ".join(failed) if failed else "All targets met.")
    print("\n".join(out), flush=True)
    record.save("pg", N, "\n".join(out),
                verdict="FAILED: " + ", ".join(failed) if failed else "every target met")
    return 1 if failed else 0


if __name__ == "__main__":
    main()
