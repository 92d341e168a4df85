#!/usr/bin/env python3
"""Each benchmark run kept as a file under bench/results/.

bench/bench.py (bench/run.sh) and bench/pg.py (bench/pg.sh) import this
module; bench/serve.sh pipes its table into it:

    python3 bench/record.py serve PROFILES < table.md

The shared check's output is kept the same way (`serveperf`: its lines as
printed), and an A/B of two builds of the server (`ab`, bench/ab-serve.sh):

    python3 serveperf.py json | python3 bench/record.py serveperf 100000

A run is written as `bench/results/<UTC date>-<HHMM>-[pg-|serve-]<size>.md`
(size: 100k, 1m, 20k, ...): a front matter block with the date, the script
and its BENCH_* settings, the commit, the machine, the store's size, the
load and the verdict, then the bench's own output, unedited. The README's
performance table is the latest of these files (tests/it/docs.rs checks that
it names the newest one of each kind). BENCH_SAVE=0 keeps a run out of
bench/results/ (a quick look); BENCH_RESULTS_DIR writes it elsewhere.
Standard library only.
"""
import datetime
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIX = {"run": "", "pg": "pg-", "serve": "serve-", "events": "events-", "serveperf": "serve-",
          "ab": "ab-", "perf": "perf-"}
SCRIPT = {"run": "bench/run.sh", "pg": "bench/pg.sh", "serve": "bench/serve.sh", "events": "bench/events.sh",
          "serveperf": "serveperf.py (the shared server check)", "ab": "bench/ab-serve.sh",
          "perf": "perf.py (the shared scale check)"}


def size(n):
    """100000 -> 100k, 1000000 -> 1m, 12345 -> 12345"""
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}m"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def commit():
    """the short hash of HEAD, '+dirty' when tracked files differ from it"""
    def git(*args):
        r = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results")
    return head + ("+dirty" if dirty else "")


def machine():
    model, mem = "unknown CPU", ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(l.split()[1] for l in f if l.startswith("MemTotal")))
        mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{os.cpu_count()} cores, {model}{mem}"


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def save(kind, profiles, text, transactions=None, verdict=None, load_range=None):
    """Write one run; answer its path (None when BENCH_SAVE=0)."""
    if os.environ.get("BENCH_SAVE", "1") in ("0", "no", "false"):
        return None
    now = datetime.datetime.now(datetime.timezone.utc)
    out = os.environ.get("BENCH_RESULTS_DIR") or os.path.join(ROOT, "bench", "results")
    os.makedirs(out, exist_ok=True)
    name = f"{now:%Y-%m-%d-%H%M}-{PREFIX[kind]}{size(profiles)}.md"
    settings = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                        if k.startswith("BENCH_") and k not in ("BENCH_SAVE", "BENCH_RESULTS_DIR"))
    head = ["---",
            f"date: {now:%Y-%m-%d %H:%M} UTC",
            f"script: {SCRIPT[kind]}",
            f"command: {(settings + ' ') if settings else ''}{SCRIPT[kind]}",
            f"commit: {commit()}",
            f"machine: {machine()}",
            f"profiles: {profiles}"]
    if transactions is not None:
        head.append(f"transactions: {transactions}")
    head += [f"load: {load_range or load()}",
             f"verdict: {verdict or 'see the table'}",
             "source: written by the bench itself",
             "---",
             f"# {SCRIPT[kind]}, {profiles:,} profiles, {now:%Y-%m-%d %H:%M}",
             "",
             text.rstrip("\n"),
             ""]
    path = os.path.join(out, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(head))
    print(f"bench: this run is kept in {os.path.relpath(path, ROOT)}", file=sys.stderr)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in PREFIX:
        sys.exit("usage: python3 bench/record.py run|pg|serve|serveperf|ab|perf PROFILES < output")
    text = sys.stdin.read()
    verdict = "FAILED" if "FAIL" in text else "every target met"
    save(sys.argv[1], int(sys.argv[2]), text, verdict=verdict)
