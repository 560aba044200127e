#!/usr/bin/env python3
"""HTTP benchmark of `mailsearch serve` on a real mailbox (standard library only).

Starts the server on a data directory, then:
  1. one client: every query of the real-mail mix, keyword and hybrid, N rounds; p50/p95 per mode;
  2. wrk (Debian) with 50 connections for 30 s over the same queries: requests/s, p99, errors;
  3. RSS of the server after 100 and after 10,000 searches (growth = a leak).
With each of 1 and 2: the server's CPU time per request (user + system, /proc/PID/stat), its threads and context
switches per request: on a machine of N cores, requests/s under load is at most N / CPU per request, so a change of
throughput is either a change of CPU per request (the code) or of the cores the server got (the host).
Prints the corpus size (emails, embeddings) from /api/status with every figure.

usage: bench_http.py BINARY DATA_DIR [--rounds N] [--wrk-seconds S] [--port P]
"""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

# The keyword mix of `mailsearch-bench latency` (Enron) and natural-language queries for hybrid.
KEYWORD = [
    "meeting", "gas prices california", "power", "energy trading", "conference call", "enron",
    "dabhol", "blackberry", "ferc order 888", "pg&e bankruptcy", "weather derivatives", "ebs",
    "gas from john", "meeting before:2001-07-01", "contract from:kay", "power after:2001-06-01",
    "california in:inbox", "schedule from:jeff.dasovich",
    '"conference call"', '"natural gas"', '"please review"', '"risk management" policy',
    "deriv", "negotiat", "californ", "deployment sc", "regul",
]
HYBRID = KEYWORD + [
    "problems with the power plant in india", "who is handling the bankruptcy filing",
    "plans for the holiday party", "complaints about electricity prices", "questions about my expense report",
    "travel arrangements for the conference", "the deal with the utility fell through", "job offer and salary",
]


def url(port, query, mode):
    return f"http://127.0.0.1:{port}/api/search?" + urllib.parse.urlencode({"q": query, "mode": mode, "limit": 20, "record": 0})


def get(u):
    with urllib.request.urlopen(u, timeout=30) as r:
        return r.status, r.read()


def percentile(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    f = int(k)
    c = min(f + 1, len(values) - 1)
    return values[f] + (values[c] - values[f]) * (k - f)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """The process's user + system CPU time so far, in seconds (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def switches(pid):
    """Context switches of all the process's threads so far (voluntary + involuntary), and its thread count."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total, len(os.listdir(f"/proc/{pid}/task"))


def cost(pid, before, requests):
    """CPU ms and context switches per request since `before` (cpu_seconds, switches)."""
    cpu = (cpu_seconds(pid) - before[0]) * 1000 / max(1, requests)
    count, threads = switches(pid)
    return f"server CPU {cpu:.1f} ms/request, {(count - before[1]) / max(1, requests):.0f} context switches/request, {threads} threads"


def host():
    """The CPU this runs on: its model, cores and the vector features the kernels use."""
    model, flags = "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    wanted = [x for x in ("avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16") if x in flags]
    return f"{model}, {os.cpu_count()} cores, {' '.join(wanted) or 'no AVX2'}"


def mark(pid):
    return cpu_seconds(pid), switches(pid)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("data_dir")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--wrk-seconds", type=int, default=30)
    ap.add_argument("--port", type=int, default=18025)
    ap.add_argument("--searches", type=int, default=10_000, help="sequential searches after wrk for the RSS growth check")
    args = ap.parse_args()

    env = dict(os.environ, MAILSEARCH_DATA_DIR=args.data_dir)
    # No answer cache: every timed request is a whole search.
    # Its log goes to a file: a pipe nobody reads would fill and stall the server.
    log = open(os.path.join(tempfile.gettempdir(), "mailsearch-bench-http.log"), "w")
    # Nothing in the background: no embedding and no summaries (they would share the cores, and their CPU time
    # would count as the searches'). A binary from before summaries had their own switch has none to turn off.
    help_text = subprocess.run([args.binary, "serve", "--help"], env=env, capture_output=True, text=True).stdout
    quiet = ["--no-background-summaries"] if "--no-background-summaries" in help_text else []
    server = subprocess.Popen([args.binary, "serve", "--port", str(args.port), "--no-background-embedding", *quiet,
                               "--cache-entries", "0", "--log-level", "warning"],
                              env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(600):
            try:
                get(f"http://127.0.0.1:{args.port}/api/status")
                break
            except Exception:
                time.sleep(0.1)
        status = json.loads(get(f"http://127.0.0.1:{args.port}/api/status")[1])
        corpus = f"{status['emails']} emails, {status['embeddedEmails']} embeddings"
        print(f"[mailsearch serve on {args.data_dir}: {corpus}; {host()}]")

        # Warm up: loads the model and the vectors, fills the page cache.
        for q in HYBRID:
            get(url(args.port, q, "hybrid"))
        # One client on one kept-alive connection, as a browser tab would use.
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
        for mode, queries in (("keyword", KEYWORD), ("hybrid", HYBRID)):
            started = mark(server.pid)
            samples = []
            slowest = {}
            for r in range(args.rounds):
                for q in queries:
                    # record=0: as a search-as-you-type keystroke (no recent-search write).
                    path = "/api/search?" + urllib.parse.urlencode({"q": q, "mode": mode, "limit": 20, "record": 0})
                    t = time.perf_counter()
                    connection.request("GET", path)
                    response = connection.getresponse()
                    response.read()
                    ms = (time.perf_counter() - t) * 1000
                    samples.append(ms)
                    slowest[q] = max(slowest.get(q, 0), ms)
                    assert response.status == 200, response.status
            print(f"  one client, {mode:7}: p50 {percentile(samples, 50):6.2f} ms  p95 {percentile(samples, 95):6.2f} ms"
                  f"  (n={len(samples)}, {len(queries)} queries, {corpus}); {cost(server.pid, started, len(samples))}")
            if os.environ.get("BENCH_VERBOSE"):
                for q, ms in sorted(slowest.items(), key=lambda kv: -kv[1])[:8]:
                    print(f"      slowest {ms:7.2f} ms  {q}")

        # wrk: 50 connections, the hybrid mix.
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
            paths = ["/api/search?" + urllib.parse.urlencode({"q": q, "mode": "hybrid", "limit": 20, "record": 0}) for q in HYBRID]
            lua.write("paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n")
            lua.write("counter = 0\nrequest = function()\n counter = counter + 1\n"
                      " return wrk.format('GET', paths[(counter % #paths) + 1])\nend\n")
            lua.write("done = function(summary, latency, requests)\n"
                      " io.write(string.format('WRK requests=%d errors=%d non2xx=%d p50=%.2f p99=%.2f rps=%.1f\\n',"
                      " summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write"
                      " + summary.errors.timeout, summary.errors.status, latency:percentile(50) / 1000,"
                      " latency:percentile(99) / 1000, summary.requests / (summary.duration / 1e6)))\nend\n")
            script = lua.name
        rss_before_wrk = rss_kb(server.pid)
        started = mark(server.pid)
        out = subprocess.run(["wrk", "-t", "2", "-c", "50", "-d", f"{args.wrk_seconds}s", "--timeout", "10s",
                              "-s", script, f"http://127.0.0.1:{args.port}"], capture_output=True, text=True).stdout
        line = next((l for l in out.splitlines() if l.startswith("WRK ")), out)
        done = int(line.split("requests=", 1)[1].split()[0]) if "requests=" in line else 0
        print(f"  wrk 50 connections {args.wrk_seconds} s, hybrid mix: {line[4:]}  ({corpus}); {cost(server.pid, started, done)}")

        # RSS after 100 and after 10,000 searches (sequential).
        def searches(n, start):
            for i in range(n):
                get(url(args.port, HYBRID[(start + i) % len(HYBRID)], "hybrid"))
        searches(100, 0)
        after100 = rss_kb(server.pid)
        searches(max(0, args.searches - 100), 100)
        after10k = rss_kb(server.pid)
        print(f"  RSS: before wrk {rss_before_wrk / 1024:.0f} MB; after wrk and 100 more searches {after100 / 1024:.1f} MB;"
              f" after {max(100, args.searches):,} {after10k / 1024:.1f} MB (growth {(after10k - after100) / 1024:+.1f} MB)")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
