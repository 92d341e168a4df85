#!/usr/bin/env python3
"""The event log's cost and its reads at scale: see bench/events.sh.

    python3 bench/events.py PAYCTL PAYCTL_WITHOUT_EVENTS

1. What recording events costs a write: `profile create` (a whole process,
   durable before it exits) with this payctl against the same code built
   with the `bench-no-events` feature (bench/events.sh), which records
   nothing, each on a store of BENCH_SMALL profiles, BENCH_RUNS interleaved
   runs, medians.
2. Reads at BENCH_EVENTS events (a store of that many profiles made by
   `profile import`, one event each): the first and the last page of
   `events list`, `events get` of the last event, `history` of a profile, a
   `--type` filter over the whole log, and `store check` (time and peak RSS:
   the chain is verified a segment at a time).

Every command is timed as a whole process (spawn to exit), peak RSS from
wait4(2). Standard library only.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import record  # bench/record.py: each run kept under bench/results/

PAYCTL, BASE = sys.argv[1], sys.argv[2]
EVENTS = int(os.environ.get("BENCH_EVENTS", "1000000"))
SMALL = int(os.environ.get("BENCH_SMALL", "1000"))
RUNS = int(os.environ.get("BENCH_RUNS", "201"))
ENV = dict(os.environ, PAYCTL_ACTOR="bench", PAYCTL_NO_INPUT="1")
for v in ("PAYCTL_DATA_DIR", "PAYCTL_OUTPUT", "PAYCTL_FAULT"):
    ENV.pop(v, None)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(binary, store, args, stdin=None):
    """(seconds, stdout) of one whole process"""
    t0 = time.perf_counter()
    p = subprocess.Popen(
        [binary, "--data-dir", store, "-o", "json", *args],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    out, err = p.communicate(stdin)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(args)}: exit {p.returncode}: {err.decode()[:500]}")
    return dt, out


# Peak RSS of a command, from a small process's wait4(2) (a child of this
# Python would count the pages it shared before its exec).
RSS_HELPER = """
import os, sys, time
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    os.dup2(fd, 0); os.dup2(fd, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(time.perf_counter() - t, ru.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)
"""


def timed_rss(binary, store, args):
    """(seconds, peak RSS in MB) of one whole process, output discarded"""
    p = subprocess.run([sys.executable, "-c", RSS_HELPER, binary, "--data-dir", store, *args],
                       capture_output=True, env=ENV, text=True)
    dt, kib = p.stdout.split()
    if int(kib) < 0:
        raise SystemExit(f"{binary} {' '.join(args)} failed")
    return float(dt), int(kib) / 1024


def profile(i, prefix):
    return {
        "customer_type_id": 1,
        "customer_key": f"{prefix}-{i:08d}",
        "customer_profile_tags": [{"key": "segment", "value": "bench"}],
        "customer_profile_individual": {
            "first_name": "Ada", "last_name": "Lovelace", "email": f"ada{i}@example.com",
            "date_of_birth": "1990-12-10", "ssn": "123456789", "mobile_phone": "+15551234567",
        },
    }


def import_profiles(binary, store, n, prefix):
    lines = "".join(json.dumps(profile(i, prefix)) + "\n" for i in range(n)).encode()
    dt, _ = run(binary, store, ["profile", "import", "-"], stdin=lines)
    return dt


def ms(xs):
    return statistics.median(xs) * 1000


def own_file_systems(work):
    """Two small ext4 file systems on loop devices under `work`, one for
    each side's store, when this runs as root with mkfs.ext4: a create ends
    with a sync of its file system (`syncfs` every few dozen creates), and
    on one file system each side's sync also wrote the other's pages, which
    moved the ratio by +-10% from run to run (1.03x to 1.24x on the same
    binaries, 1.00x to 1.06x apart). `None` when it cannot."""
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4"):
        return None
    mounts = []
    try:
        for side in ("a", "b"):
            img, mnt = os.path.join(work, side + ".img"), os.path.join(work, side)
            with open(img, "wb") as f:
                f.truncate(1 << 30)
            os.mkdir(mnt)
            subprocess.run(["mkfs.ext4", "-q", "-F", img], check=True, capture_output=True)
            subprocess.run(["mount", "-o", "loop", img, mnt], check=True, capture_output=True)
            mounts.append(mnt)
        return mounts
    except (OSError, subprocess.CalledProcessError) as e:
        log(f"events bench: no file system of its own for each side ({e}): they share one")
        unmount(mounts)
        return None


def unmount(mounts):
    for m in mounts or []:
        subprocess.run(["umount", m], capture_output=True)


def main():
    work = tempfile.mkdtemp(prefix="payctl-events-bench-", dir=os.environ.get("BENCH_DIR"))
    out = []
    mounts = None
    try:
        # 1. the cost on a create, interleaved
        mounts = own_file_systems(work)
        a, b = (os.path.join(m, "store") for m in mounts) if mounts else (
            os.path.join(work, "with"), os.path.join(work, "without"))
        import_profiles(PAYCTL, a, SMALL, "a")
        import_profiles(BASE, b, SMALL, "b")
        body = lambda i, p: json.dumps(profile(10_000_000 + i, p)).encode()
        with_t, without_t = [], []
        # ABBA: each side runs first in half of the rounds, so that neither
        # always follows the other's writes (the first to sync after a
        # process pays for what that process left to the file system).
        for i in range(RUNS):
            w = lambda: with_t.append(run(PAYCTL, a, ["profile", "create", "--body", "-"], stdin=body(i, "a"))[0])
            wo = lambda: without_t.append(run(BASE, b, ["profile", "create", "--body", "-"], stdin=body(i, "b"))[0])
            for f in ((w, wo) if i % 2 == 0 else (wo, w)):
                f()
        ratio = statistics.median(with_t) / statistics.median(without_t)
        out.append(f"event log benchmark: {RUNS} interleaved runs, medians; "
                   + ("each side's store on a file system of its own (ext4 on a loop device)"
                      if mounts else "both stores on one file system (each sync writes the other's pages: +-10%)"))
        out.append("")
        out.append("| operation | with events | without | ratio | target |")
        out.append("|---|---:|---:|---:|---|")
        verdict = "PASS" if ratio <= 1.10 else "FAIL"
        out.append(
            f"| profile create (whole process, durable) on {SMALL:,} profiles | {ms(with_t):.2f} ms | {ms(without_t):.2f} ms | {ratio:.3f}x | at most 1.10x: {verdict} |"
        )
        shutil.rmtree(a)
        shutil.rmtree(b)
        unmount(mounts)
        mounts = None
        log(f"events bench: create {ratio:.3f}x")
        # 2. reads at scale
        big = os.path.join(work, "big")
        t_import = import_profiles(PAYCTL, big, EVENTS, "c")
        first = json.loads(run(PAYCTL, big, ["events", "list", "--page-size", "1"])[1])
        total = first["paging"]["total_count"]
        assert total == EVENTS, total
        csp = first["data"][0]["record_id"]
        last_page = (total + 49) // 50
        last = json.loads(run(PAYCTL, big, ["events", "list", "--page-number", str(last_page)])[1])
        last_id = last["data"][-1]["event_id"]
        ops = [
            ("events list, first page (50)", ["events", "list"]),
            (f"events list, last page ({last_page:,})", ["events", "list", "--page-number", str(last_page)]),
            ("events get (the last event)", ["events", "get", last_id]),
            ("history of a profile", ["history", csp]),
            ("profile get (for scale)", ["profile", "get", csp]),
        ]
        out.append("")
        out.append(f"at {total:,} events (a store of {EVENTS:,} profiles made by `profile import` in {t_import:.1f} s)")
        out.append("")
        out.append("| operation | median | peak RSS |")
        out.append("|---|---:|---:|")
        for name, args in ops:
            ts, rss = [], 0.0
            for _ in range(11):
                dt, r = timed_rss(PAYCTL, big, args)
                ts.append(dt)
                rss = max(rss, r)
            out.append(f"| {name} | {ms(ts):.1f} ms | {rss:.0f} MB |")
        dt, rss = timed_rss(PAYCTL, big, ["events", "list", "--type", "customer_profile.updated"])
        out.append(f"| events list --type (reads every event: one run) | {dt * 1000:.0f} ms | {rss:.0f} MB |")
        dt, rss = timed_rss(PAYCTL, big, ["store", "check"])
        out.append(f"| store check (the records and the whole chain; one run) | {dt:.1f} s | {rss:.0f} MB |")
        size = subprocess.run(["du", "-sm", os.path.join(big, "events")], capture_output=True, text=True).stdout.split()[0]
        out.append("")
        out.append(f"the log on disk: {size} MB for {total:,} events")
        text = "\n".join(out) + "\n"
        print(text)
        record.save("events", EVENTS, text, verdict=verdict)
    finally:
        unmount(mounts)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
