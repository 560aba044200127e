#!/usr/bin/env python3
"""What embedding attachments' text in passages (bc7f294: attachment_passages; an email's semantic
score is the best of its own vector and its attachments' passages) does to search on labelled real
mail, measured in the product: the release CLI imports and embeds, `mailsearch serve` answers.
(`mailsearch-bench eval` imports without reading attachments, so it never sees a passage.)

For each labelled set (a directory scripts/eval/build_eval_sets.py wrote: mail.mbox, labels.jsonl
with {id, kind, query, relevant: [Message-ID]}, manifest.json):

1. `mailsearch import mail.mbox --data-dir WORK/SET/with --json --quiet` into a fresh data directory
   (it reads the attachments' text at its end), then `mailsearch index embed --quiet` (the emails,
   then the attachments' passages; MAILSEARCH_MODEL_DIR from --model-dir), then
   `mailsearch stats --json` (attachments read, embedded, passages).
2. `mailsearch serve --port 0 --no-background-embedding --no-background-summaries --no-sync --no-send
   --cache-entries 0` on it; every labelled query through `GET /api/search?q=&mode=&limit=20&record=0`
   in each mode (semantic, hybrid); one search first, untimed, loads the vectors and the model.
3. The server stopped, the data directory is copied to WORK/SET/without, `DELETE FROM
   attachment_passages` in the copy's mail.sqlite, a server on the copy, the same queries.

Success@20 as Benchmarks/MailSearchBench/SearchEvaluation.swift defines it: a query succeeds when
one of the (up to 20) conversations returned holds a relevant message: any message of that
conversation (the conversation of the result's emailId, emails.threadId, or the email alone when it
has none); kinds nonsense-* and incoherent expect nothing, and succeed with 0 results. A labelled
query none of whose relevant messages was imported is skipped, as there.

Also: of the found targets, those whose result's `why.semantic.attachment` is set (a passage won),
per mode and condition; every query whose success changed, with the result that made the difference
(for a nonsense/incoherent query now answered: the results' subjects, why.semantic and the passage's
text); time per query.

The HTTP API's search JSON (Sources/MailSearchKit/FastJSON.swift, which writes a SearchPage for the
server) leaves out why.attachment and why.semantic.attachment/passage, which `search --json`
(JSONEncoder) writes. So for every search whose page differs between the two servers (ids or
similarities; an identical page has no result a passage won), the same search is asked again with
`mailsearch search --json` on the data directory with passages, and its why.semantic.attachment is
used (the pages are checked to be the same). The HTTP API's own count is reported beside it.

  python3 scripts/eval/passage_effect.py eval-data/usrp eval-data/spamassassin
        [--binary .build/release/mailsearch] [--work bench-data/passage-effect] [--modes semantic,hybrid]
        [--model-dir DIR] [--limit 20] [--reuse] [--json OUT]
"""

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

CONDITIONS = ("with", "without")


def expects_nothing(kind):
    return kind.startswith("nonsense") or kind == "incoherent"


def run(cmd, env, timeout):
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    seconds = time.monotonic() - t0
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip()[-2000:]))
    return proc, seconds


class Server:
    """`mailsearch serve` on a data directory, on a free port, with nothing running in the background."""

    def __init__(self, binary, data_dir, env, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "serve", "--data-dir", data_dir, "--port", "0", "--no-background-embedding",
             "--no-background-summaries", "--no-sync", "--no-send", "--cache-entries", "0", "--log-level", "warning"],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)
        self.url = None
        ready = threading.Event()

        def read():
            for line in self.proc.stdout:
                if self.url is None and "is serving " in line:
                    self.url = line.split("is serving ", 1)[1].split()[0].rstrip("/")
                    ready.set()
            ready.set()
        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(120) or self.url is None:
            self.stop()
            raise RuntimeError("serve did not start on %s (see %s)" % (data_dir, log_path))

    def get(self, path, **params):
        url = self.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        with urllib.request.urlopen(url, timeout=300) as r:
            return json.loads(r.read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def semantic_why(result):
    """why.semantic as the HTTP API wrote it; where it names no passage and the CLI's JSON of the
    same search does (see `cli_passages`), the CLI's."""
    http = ((result.get("why") or {}).get("semantic")) or None
    if not (http or {}).get("attachment") and result.get("_cli_semantic", {}).get("attachment"):
        return result["_cli_semantic"]
    return http


def passage_won(result):
    return bool((semantic_why(result) or {}).get("attachment"))


def passage_text(db, email_id, filename, passage, chars=400):
    """The text of passage number `passage` (from 1, as why.semantic gives it) of the attachment
    `filename` of the email, or None."""
    row = db.execute(
        "SELECT substr(t.text, p.start + 1, p.length) FROM attachment_passages p "
        "JOIN attachments a ON a.id = p.attachmentId JOIN attachment_text t ON t.attachmentId = p.attachmentId "
        "WHERE p.emailId = ? AND a.filename IS ? AND p.passage = ? LIMIT 1",
        (email_id, filename, passage - 1)).fetchone()
    if row is None or row[0] is None:
        return None
    text = " ".join(row[0].split())
    return text[:chars] + ("…" if len(text) > chars else "")


def brief(result, db=None):
    """A result as the change list shows it."""
    sem = semantic_why(result)
    out = {"emailId": result["emailId"], "threadId": result["threadId"], "subject": result.get("subject"),
           "match": result.get("match"), "why_semantic": sem, "why_attachment": (result.get("why") or {}).get("attachment"),
           "why_semantic_source": "cli" if sem is not None and sem is result.get("_cli_semantic") else "http",
           "snippet": (result.get("snippet") or "")[:200]}
    if db is not None and sem and sem.get("attachment") and sem.get("passage"):
        out["passage_text"] = passage_text(db, result["emailId"], sem["attachment"], sem["passage"])
    return out


def evaluate(server, labels, email_of, conversation_of, modes, limit):
    """{mode: {label id: outcome}}, and the query times in ms per mode."""
    out = {m: {} for m in modes}
    times = {m: [] for m in modes}
    for mode in modes:
        for label in labels:
            t0 = time.perf_counter()
            page = server.get("/api/search", q=label["query"], mode=mode, limit=limit, record=0)
            times[mode].append((time.perf_counter() - t0) * 1000)
            results = page.get("results") or []
            relevant = label["_relevant"]
            rank = None
            for i, r in enumerate(results):
                if conversation_of(r["emailId"]) & relevant:
                    rank = i + 1
                    break
            if expects_nothing(label["kind"]):
                success = not results
            else:
                success = rank is not None
            out[mode][label["id"]] = {
                "success": success, "rank": rank, "results": len(results),
                "http_results_naming_a_passage": sum(1 for r in results if ((r.get("why") or {}).get("semantic") or {}).get("attachment")),
                "page": [[r["emailId"], round(((r.get("why") or {}).get("semantic") or {}).get("similarity") or 0, 6)] for r in results],
                "semantic_reason": (page.get("semantic") or {}).get("reason"),
                "_page": results,
            }
    return out, times


def cli_passages(binary, data_dir, env, outcomes, labels, modes, limit):
    """Which results a passage won, read from the CLI's JSON (`mailsearch search --json`, the same
    search), for the searches whose page differs between the servers with and without passages (an
    identical page, ids and similarities, has no result a passage won). The HTTP API's search JSON
    (FastJSON) leaves why.semantic.attachment and .passage out, so the server cannot say it itself.
    Returns how many searches were asked again and how many of those gave another page than the server."""
    asked = mismatched = 0
    for mode in modes:
        for label in labels:
            w, wo = outcomes["with"][mode][label["id"]], outcomes["without"][mode][label["id"]]
            if w["page"] == wo["page"]:
                continue
            proc, _ = run([binary, "search", label["query"], "--mode", mode, "--limit", str(limit), "--json",
                           "--no-history", "--data-dir", data_dir], env, 600)
            cli = json.loads(proc.stdout).get("results") or []
            asked += 1
            if [r["emailId"] for r in cli] != [r["emailId"] for r in w["_page"]]:
                mismatched += 1
                w["cli_page_differs"] = True
            why = {r["emailId"]: ((r.get("why") or {}).get("semantic") or {}) for r in cli}
            for r in w["_page"]:
                if why.get(r["emailId"], {}).get("attachment"):
                    r["_cli_semantic"] = why[r["emailId"]]
    return asked, mismatched


def percentile(values, p):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def evaluate_set(set_dir, args, env):
    manifest = json.load(open(os.path.join(set_dir, "manifest.json"), encoding="utf-8"))
    labels = [json.loads(line) for line in open(os.path.join(set_dir, "labels.jsonl"), encoding="utf-8") if line.strip()]
    name = os.path.basename(os.path.normpath(set_dir))
    work = os.path.abspath(os.path.join(args.work, name))
    dirs = {c: os.path.join(work, c) for c in CONDITIONS}
    binary = os.path.abspath(args.binary)
    report = {"set": set_dir, "corpus": manifest.get("corpus"), "mbox_sha256": manifest.get("mbox_sha256"),
              "data_dirs": dirs}
    print("== %s (%s)" % (name, manifest.get("corpus")), flush=True)

    # 1. Import and embed (emails, then the attachments' passages) into a fresh data directory.
    marker = os.path.join(work, "embedded-" + (manifest.get("mbox_sha256") or "")[:12])
    if args.reuse and os.path.exists(marker):
        print("  reusing %s" % dirs["with"], flush=True)
        report["import"] = json.load(open(marker))
    else:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(dirs["with"])
        proc, import_seconds = run([binary, "import", os.path.abspath(os.path.join(set_dir, "mail.mbox")),
                                    "--data-dir", dirs["with"], "--json", "--quiet"], env, args.timeout)
        summary = json.loads(proc.stdout)
        print("  imported %s messages (%s duplicates, %s failed) in %.0f s" % (
            summary.get("imported"), summary.get("duplicates"), summary.get("failed"), import_seconds), flush=True)
        _, embed_seconds = run([binary, "index", "embed", "--data-dir", dirs["with"], "--quiet"], env, args.timeout)
        print("  embedded in %.0f s" % embed_seconds, flush=True)
        report["import"] = {"seconds": round(import_seconds, 1), "embed_seconds": round(embed_seconds, 1),
                            "imported": summary.get("imported"), "duplicates": summary.get("duplicates"),
                            "failed": summary.get("failed"), "failures": (summary.get("failures") or [])[:50],
                            "stderr_tail": proc.stderr[-2000:]}
        json.dump(report["import"], open(marker, "w"))
    stats, _ = run([binary, "stats", "--json", "--data-dir", dirs["with"]], env, 600)
    stats = json.loads(stats.stdout)
    report["stats"] = {"emails": stats.get("emails"), "threads": stats.get("threads"),
                       "attachments": stats.get("attachments"),
                       "emailsWithAttachments": stats.get("emailsWithAttachments"),
                       "attachmentText": stats.get("attachmentText")}
    a = stats.get("attachmentText") or {}
    print("  %s emails, %s attachments in %s emails; text read %s (in part %s), none %s, unreadable %s; "
          "embedded %s attachments in %s passages (%s longer than the passage limit), %s still to embed" % (
              stats.get("emails"), stats.get("attachments"), stats.get("emailsWithAttachments"), a.get("read"),
              a.get("truncated"), a.get("unsupported"), a.get("unreadable"), a.get("embedded"), a.get("passages"),
              a.get("embeddedInPart"), a.get("toEmbed")), flush=True)

    # Conversations, as the bench builds them: emails.threadId, or the email alone.
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(dirs["with"], "mail.sqlite"), uri=True)
    email_of, thread_of, members = {}, {}, {}
    for eid, mid, tid in db.execute("SELECT id, messageId, threadId FROM emails"):
        email_of[mid] = eid
        t = tid if tid is not None else -eid
        thread_of[eid] = t
        members.setdefault(t, set()).add(eid)
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'attachment_passages'").fetchone():
        sys.exit("error: %s has no attachment_passages table: %s predates passages (bc7f294); build it again"
                 % (dirs["with"], binary))
    report["passage_rows"] = db.execute("SELECT count(*), count(DISTINCT attachmentId), count(DISTINCT emailId) "
                                        "FROM attachment_passages").fetchone()
    db.close()

    def conversation_of(eid):
        return members.get(thread_of.get(eid), {eid})

    kept, skipped = [], 0
    for label in labels:
        label["_relevant"] = {email_of[m] for m in label.get("relevant", []) if m in email_of}
        if not expects_nothing(label["kind"]) and not label["_relevant"]:
            skipped += 1
            continue
        kept.append(label)
    report["queries"] = len(kept)
    report["skipped_no_relevant_imported"] = skipped

    # 2 and 3. The same queries against a server on the data directory, then on a copy without passages.
    outcomes, times, status = {}, {}, {}
    for condition in CONDITIONS:
        if condition == "without":
            shutil.rmtree(dirs["without"], ignore_errors=True)
            shutil.copytree(dirs["with"], dirs["without"])
            c = sqlite3.connect(os.path.join(dirs["without"], "mail.sqlite"))
            deleted = c.execute("DELETE FROM attachment_passages").rowcount
            c.commit()
            c.close()
            report["passages_deleted"] = deleted
            print("  without: %d passage rows deleted in %s" % (deleted, dirs["without"]), flush=True)
        server = Server(binary, dirs[condition], env, os.path.join(work, "serve-%s.log" % condition))
        try:
            t0 = time.perf_counter()
            server.get("/api/search", q="warm up the vectors and the model", mode="semantic", limit=1, record=0)
            warm = (time.perf_counter() - t0) * 1000
            before = server.get("/api/status")
            t0 = time.monotonic()
            outcomes[condition], times[condition] = evaluate(server, kept, email_of, conversation_of, args.modes, args.limit)
            seconds = time.monotonic() - t0
            after = server.get("/api/status")
        finally:
            server.stop()
        status[condition] = {"warm_up_ms": round(warm, 1), "seconds": round(seconds, 1),
                             "status_before": before, "status_changed": before != after}
        print("  %s passages: %d searches in %.0f s (warm-up %.0f ms)%s" % (
            condition, len(kept) * len(args.modes), seconds, warm,
            "; /api/status changed during the run" if before != after else ""), flush=True)
    report["servers"] = status
    t0 = time.monotonic()
    asked, mismatched = cli_passages(binary, dirs["with"], env, outcomes, kept, args.modes, args.limit)
    report["cli_check"] = {"searches_asked_again": asked, "cli_page_differs_from_server": mismatched,
                           "seconds": round(time.monotonic() - t0, 1)}
    print("  %d searches whose page changed asked again through the CLI for why.semantic.attachment "
          "(%d gave another page than the server)" % (asked, mismatched), flush=True)
    for c in CONDITIONS:
        for mode in args.modes:
            for o in outcomes[c][mode].values():
                hit = o["_page"][o["rank"] - 1] if o["rank"] else None
                o["target_by_passage"] = bool(hit and passage_won(hit))
                o["results_by_passage"] = sum(1 for r in o["_page"] if passage_won(r))
    report["query_ms"] = {c: {m: {"p50": round(percentile(times[c][m], 50), 1), "p95": round(percentile(times[c][m], 95), 1),
                                  "mean": round(statistics.mean(times[c][m]), 1), "max": round(max(times[c][m]), 1)}
                              for m in args.modes} for c in CONDITIONS}

    # Figures per kind and mode.
    kinds = []
    for label in kept:
        if label["kind"] not in kinds:
            kinds.append(label["kind"])
    relevance_kinds = [k for k in kinds if not expects_nothing(k)]
    nonsense_kinds = [k for k in kinds if k.startswith("nonsense")]
    groups = [(k, [k]) for k in relevance_kinds]
    if len([k for k in relevance_kinds if k.startswith("from")]) > 1:
        groups.append(("from (all)", [k for k in relevance_kinds if k.startswith("from")]))
    groups.append(("overall", relevance_kinds))
    groups += [(k, [k]) for k in nonsense_kinds] + [("nonsense (all)", nonsense_kinds)]
    groups += [(k, [k]) for k in kinds if expects_nothing(k) and not k.startswith("nonsense")]
    rows = []
    for group, members_ in groups:
        ids = [l["id"] for l in kept if l["kind"] in members_]
        if not ids:
            continue
        for mode in args.modes:
            row = {"group": group, "mode": mode, "n": len(ids), "expects_nothing": all(expects_nothing(k) for k in members_)}
            for c in CONDITIONS:
                o = outcomes[c][mode]
                row[c] = sum(o[i]["success"] for i in ids) / len(ids)
                row[c + "_success"] = sum(o[i]["success"] for i in ids)
                row[c + "_found_by_passage"] = sum(o[i]["success"] and o[i]["target_by_passage"] for i in ids)
                row[c + "_results_by_passage"] = sum(o[i]["results_by_passage"] for i in ids)
                row[c + "_http_results_naming_a_passage"] = sum(o[i]["http_results_naming_a_passage"] for i in ids)
            row["pages_changed"] = sum(outcomes["with"][mode][i]["page"] != outcomes["without"][mode][i]["page"] for i in ids)
            row["diff"] = row["with"] - row["without"]
            rows.append(row)
    report["rows"] = rows

    # The queries whose success changed.
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(dirs["with"], "mail.sqlite"), uri=True)
    changed = []
    for mode in args.modes:
        for label in kept:
            w, wo = outcomes["with"][mode][label["id"]], outcomes["without"][mode][label["id"]]
            if w["success"] == wo["success"]:
                continue
            entry = {"id": label["id"], "kind": label["kind"], "query": label["query"], "mode": mode,
                     "without": {"success": wo["success"], "rank": wo["rank"], "results": wo["results"]},
                     "with": {"success": w["success"], "rank": w["rank"], "results": w["results"]}}
            if expects_nothing(label["kind"]):
                # Answered now (or no longer): what came back.
                page = w["_page"] if w["results"] else wo["_page"]
                entry["results"] = [brief(r, db) for r in page[:5]]
            elif w["success"]:
                entry["target"] = brief(w["_page"][w["rank"] - 1], db)
                if wo["_page"]:
                    entry["without_top"] = [brief(r) for r in wo["_page"][:3]]
            else:
                entry["target_without"] = brief(wo["_page"][wo["rank"] - 1])
                # What now fills the page instead (those a passage brought in first).
                entry["with_by_passage"] = [brief(r, db) for r in w["_page"] if passage_won(r)][:5]
            changed.append(entry)
    db.close()
    report["changed"] = changed
    report["per_query"] = {c: {m: {i: {k: v for k, v in o.items() if not k.startswith("_")}
                                   for i, o in outcomes[c][m].items()} for m in args.modes} for c in CONDITIONS}
    return report


def print_report(report):
    print()
    print("== %s: %s queries (%s skipped: no relevant message imported); %s emails; %s attachments, %s embedded in %s passages"
          % (report["corpus"], report["queries"], report["skipped_no_relevant_imported"], report["stats"]["emails"],
             report["stats"]["attachments"], (report["stats"]["attachmentText"] or {}).get("embedded"),
             (report["stats"]["attachmentText"] or {}).get("passages")))
    print("Success@20 (nonsense/incoherent: share with 0 results); pages changed: searches whose page (ids, similarities)"
          " differs; found by passage: found targets whose why.semantic.attachment is set; results by passage: results"
          " on the pages a passage won (why.semantic.attachment from the CLI's JSON: the HTTP API leaves it out)")
    print("| kind | mode | n | with passages | without | diff | pages changed | found by passage | results by passage |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in report["rows"]:
        print("| %s | %s | %d | %.3f (%d) | %.3f (%d) | %+.3f | %d | %s | %d |" % (
            r["group"], r["mode"], r["n"], r["with"], r["with_success"], r["without"], r["without_success"], r["diff"],
            r["pages_changed"], "–" if r["expects_nothing"] else r["with_found_by_passage"], r["with_results_by_passage"]))
    http = sum(r["with_http_results_naming_a_passage"] for r in report["rows"] if r["group"] in ("overall", "nonsense (all)"))
    print("results whose why.semantic.attachment the HTTP API itself wrote: %d; CLI re-asked %d searches, %d gave another page"
          % (http, report["cli_check"]["searches_asked_again"], report["cli_check"]["cli_page_differs_from_server"]))
    for c in CONDITIONS:
        q = report["query_ms"][c]
        print("query time %s passages: %s" % (c, ", ".join("%s p50 %.0f ms p95 %.0f ms" % (m, v["p50"], v["p95"]) for m, v in q.items())))
    print("Changed (%d):" % len(report["changed"]))
    for e in report["changed"]:
        def state(s):
            return ("ok" if s["success"] else "FAIL") + (" @%d" % s["rank"] if s["rank"] else "") + " (%d results)" % s["results"]
        print("  [%s] %s %s %r: %s -> %s" % (e["mode"], e["id"], e["kind"], e["query"], state(e["without"]), state(e["with"])))
        for r in e.get("results", []):
            print("      result: email %d %r why.semantic=%s snippet %r" % (r["emailId"], r["subject"],
                                                                      json.dumps(r["why_semantic"], sort_keys=True), r["snippet"][:120]))
            if r.get("passage_text"):
                print("        passage: %s" % r["passage_text"][:240])
        if "target" in e:
            t = e["target"]
            print("      target: email %d why.semantic=%s snippet %r" % (t["emailId"], json.dumps(t["why_semantic"], sort_keys=True),
                                                                    t["snippet"][:120]))
            if t.get("passage_text"):
                print("        passage: %s" % t["passage_text"][:240])
        if "target_without" in e:
            print("      target without passages: email %d; with passages, on the page by a passage: %s" % (
                e["target_without"]["emailId"], "; ".join("email %d (%s, passage %s, %.3f)" % (
                    r["emailId"], r["why_semantic"]["attachment"], r["why_semantic"].get("passage"), r["why_semantic"]["similarity"])
                    for r in e["with_by_passage"]) or "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="+", help="labelled set directories (mail.mbox, labels.jsonl, manifest.json)")
    ap.add_argument("--binary", default=".build/release/mailsearch", help="the release CLI (mailsearch-full beside it)")
    ap.add_argument("--work", default="bench-data/passage-effect", help="scratch data directories go under WORK/SET/")
    ap.add_argument("--modes", default="semantic,hybrid")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=7200, help="seconds import and embed may each take")
    ap.add_argument("--model-dir", default=os.environ.get("MAILSEARCH_MODEL_DIR") or os.path.expanduser(
        "~/.cache/mailsearch/models/all-MiniLM-L6-v2"))
    ap.add_argument("--reuse", action="store_true", help="keep a data directory already imported and embedded by this script")
    ap.add_argument("--json", metavar="OUT", help="write the figures, every query's outcome and the changes")
    args = ap.parse_args()
    args.modes = [m for m in args.modes.split(",") if m]
    if not os.path.exists(os.path.join(args.model_dir, "model.safetensors")):
        sys.exit("error: no model at %s (make model)" % args.model_dir)
    env = dict(os.environ, MAILSEARCH_MODEL_DIR=os.path.abspath(args.model_dir))
    env.pop("MAILSEARCH_DATA_DIR", None)
    cpu = ""
    try:
        flags = set(next(l for l in open("/proc/cpuinfo") if l.startswith("flags")).split(":", 1)[1].split())
        cpu = " ".join(f for f in ("avx2", "avx512f", "avx512_bf16") if f in flags)
    except (OSError, StopIteration):
        pass
    reports = [evaluate_set(s, args, env) for s in args.sets]
    for r in reports:
        print_report(r)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"binary": os.path.abspath(args.binary), "modes": args.modes, "limit": args.limit,
                       "model_dir": args.model_dir, "cpu_flags": cpu, "cores": os.cpu_count(), "sets": reports},
                      f, indent=1, ensure_ascii=False)
        print("written to %s" % args.json)


if __name__ == "__main__":
    main()
