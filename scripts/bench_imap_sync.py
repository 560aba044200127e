#!/usr/bin/env python3
"""IMAP sync benchmark: the Enron corpus (44.7K messages) from a local Dovecot into a new mailbox.

    python3 scripts/bench_imap_sync.py .build/release/mailsearch [--layout folders|inbox] [--rounds 10]

What it measures, with the release `mailsearch` binary as a user runs it:
  1. initial sync: `mailsearch account add` then `mailsearch sync` of every message (sync window: all), end to
     end (process start to exit): messages per second; and the time from the start of `sync` until the first
     results are searchable (a one-shot `mailsearch search` polled every 100 ms answers with a conversation);
  2. incremental sync of 10 new messages (APPENDed into INBOX by the harness), `rounds` times: the whole
     `mailsearch sync` process (start, TLS, login, LIST, a SELECT of every folder, the fetch, store and index,
     exit) and the pass alone as `sync --json` reports it; p50 and p95 of each; the bar is < 0.5 s.
Dovecot runs in /dev/shm with the messages indexed beforehand (scripts/dovecot_load_enron.py), so the figures
are the client's, not Dovecot's first look at 44.7K new files. Counts are checked: every message stored once.
"""
import argparse
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class Harness:
    """scripts/dovecot_load_enron.py --control: Dovecot with Enron, driven by JSON lines."""

    def __init__(self, layout):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "dovecot_load_enron.py"), "--control", "--layout", layout],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr, text=True, bufsize=1)
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("error: the Dovecot harness did not start (see above)")
        self.info = json.loads(line)

    def call(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if not answer.get("ok"):
            raise RuntimeError(answer.get("error"))
        return answer.get("result")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--layout", choices=["folders", "inbox"], default="folders")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)

    harness = Harness(args.layout)
    data = tempfile.mkdtemp(prefix="bench-imap-sync-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    env = dict(os.environ, MAILSEARCH_DATA_DIR=data, ENRON_PW="enron-password",
               MAILSEARCH_MODEL_DIR=os.path.join(data, "no-model"))
    try:
        listed = harness.call(op="doveadm", args=["-f", "flow", "mailbox", "status", "-u", "enron", "messages", "*"])
        counts = [int(n) for n in re.findall(r"messages=(\d+)", listed)]
        expected, folder_count = sum(counts), len(counts)
        run([binary, "account", "add", "enron", "--imap", f"127.0.0.1:{harness.info['tls_port']}", "--user", "enron",
             "--password-env", "ENRON_PW", "--ca-file", harness.info["ca_file"], "--sync-window", "all"], env)

        # 1. Initial sync, with a poller for the first searchable result.
        first = {}
        started = time.monotonic()
        sync = subprocess.Popen([binary, "sync", "--json", "--quiet"], env=env, stdout=subprocess.PIPE, text=True)
        poller = threading.Thread(target=poll_first_result, args=(binary, env, started, sync, first), daemon=True)
        poller.start()
        out, _ = sync.communicate()
        total = time.monotonic() - started
        if sync.returncode != 0:
            raise SystemExit(f"error: sync failed ({sync.returncode})")
        poller.join(timeout=5)
        summary = json.loads(out)[0]
        stored = count_emails(binary, env)
        print(f"corpus: Enron, {expected} messages in Dovecot ({args.layout} layout, "
              f"{summary['folders']} folders), synced into an empty mailbox (sync window: all)")
        print(f"initial sync: {total:.1f} s end to end, {expected / total:.0f} msgs/s "
              f"(pass {summary['seconds']:.1f} s: {summary['fetched'] / summary['seconds']:.0f} msgs/s); "
              f"{summary['newEmails']} new emails, {summary['linked']} linked, {stored} stored")
        if "seconds" in first:
            print(f"first results searchable after {first['seconds']:.2f} s (a search answered with {first['count']} conversations)")
        else:
            print("first results: the poller saw none before the sync ended")
        if stored != summary["newEmails"]:
            print(f"warning: {stored} emails stored but {summary['newEmails']} reported new")

        # 2. Nothing new: what every pass costs at least (LIST, and a SELECT of each folder that moved).
        idle_whole, idle_pass = [], []
        for r in range(args.rounds):
            started = time.monotonic()
            out = run([binary, "sync", "--json", "--quiet"], env)
            idle_whole.append(time.monotonic() - started)
            idle_pass.append(json.loads(out)[0]["seconds"])
        print(f"incremental sync with nothing new ({args.rounds} rounds): process p50 {percentile(idle_whole, 50) * 1000:.0f} ms "
              f"p95 {percentile(idle_whole, 95) * 1000:.0f} ms; pass p50 {percentile(idle_pass, 50) * 1000:.0f} ms "
              f"p95 {percentile(idle_pass, 95) * 1000:.0f} ms")

        # 3. Incremental: 10 new messages each round.
        sample = sample_messages(10)
        whole, passes = [], []
        for r in range(args.rounds):
            for i, raw in enumerate(sample):
                raw = raw.replace(b"Message-ID: <", f"Message-ID: <bench{r}-{i}.".encode(), 1)
                harness.call(op="append", user="enron", mailbox="INBOX", data_base64=base64.b64encode(raw).decode())
            started = time.monotonic()
            out = run([binary, "sync", "--json", "--quiet"], env)
            whole.append(time.monotonic() - started)
            s = json.loads(out)[0]
            passes.append(s["seconds"])
            if s["newEmails"] != 10:
                print(f"warning: round {r} stored {s['newEmails']} new emails, not 10")
        print(f"incremental sync of 10 new messages ({args.rounds} rounds, {folder_count} folders): "
              f"process p50 {percentile(whole, 50) * 1000:.0f} ms p95 {percentile(whole, 95) * 1000:.0f} ms; "
              f"pass p50 {percentile(passes, 50) * 1000:.0f} ms p95 {percentile(passes, 95) * 1000:.0f} ms (bar < 500 ms)")
    finally:
        harness.close()
        subprocess.run(["rm", "-rf", data])


def sample_messages(n):
    root = os.path.join(ROOT, "corpora", "enron-inbox", "maildir")
    found = []
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            with open(os.path.join(dirpath, name), "rb") as f:
                raw = f.read()
            if b"Message-ID: <" in raw:
                found.append(raw)
            if len(found) == n:
                return found
    return found


def poll_first_result(binary, env, started, sync, first):
    while sync.poll() is None:
        out = subprocess.run([binary, "search", "after:1970-01-01", "--json", "--no-history", "--limit", "1"],
                             env=env, capture_output=True, text=True)
        if out.returncode == 0:
            try:
                page = json.loads(out.stdout)
            except json.JSONDecodeError:
                page = {}
            if page.get("conversationCount", 0) > 0:
                first["seconds"] = time.monotonic() - started
                first["count"] = page["conversationCount"]
                return
        time.sleep(0.1)


def count_emails(binary, env):
    out = run([binary, "stats", "--json"], env)
    return json.loads(out)["emails"]


def run(cmd, env):
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd[:3])} failed: {result.stderr.strip()}")
    return result.stdout


if __name__ == "__main__":
    main()
