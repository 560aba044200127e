#!/usr/bin/env python3
"""Search of text inside attachments: Success@20 of the set scripts/eval/build_attachment_set.py
writes (eval-data/attachments: mail.mbox, questions.jsonl, emails.jsonl), and whether its hostile
attachments (a zip bomb, a 10,000-page PDF, a billion-laughs .docx, a corrupt PDF) stop anything.

1. Import: the mbox goes into a fresh data directory (`mailsearch import MBOX --data-dir DIR --json
   --quiet`) under a wall-clock --timeout; its time, exit status and counts are reported. Then every
   email of the mbox must be in mail.sqlite (by Message-ID), `mailsearch stats --json` must count
   them all, every attachment must be recorded under its name (attachments table), and each hostile
   email must be found by its unique body word (hostileprobe1..4, keyword search). The exit status is
   1 when the import timed out or an email or a hostile probe is missing.
2. Embeddings: when the model is installed (--model-dir, default $MAILSEARCH_MODEL_DIR or
   ~/.cache/mailsearch/models/all-MiniLM-L6-v2), `mailsearch index embed` (timed: the emails, then
   the passages of the attachments' text) and the questions are also run --mode semantic and
   --mode hybrid; else those are reported as skipped. For semantic and hybrid it also counts the
   found targets whose `why.semantic` names a passage of an attachment (found by its text's meaning).
3. Questions: `mailsearch search QUERY --mode MODE --limit 20 --json --no-history`; a question
   succeeds when the conversation of its target email (the one holding the document) is among the
   results. Success@20 per kind (phrase, topic, filename) and mode; each failure is searched again
   with --limit 500 to tell "ranked below 20" from "not matched".
4. Reference (not the binary): the same questions over the builder's own extracted text in Python's
   sqlite3 FTS5 (reference_ranks), what a straightforward index of that text finds: a check on the
   questions, and a mark for the binary once attachment text is indexed.

  python3 scripts/eval/attachment_eval.py [--binary .build/release/mailsearch]
        [--set eval-data/attachments] [--data-dir DIR] [--timeout 1800] [--json OUT]
        [--modes keyword,semantic,hybrid]
"""

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

KINDS = ("phrase", "topic", "filename")


def run_json(cmd, timeout=600):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()[-500:]))
    return json.loads(out.stdout)


def search(binary, data_dir, query, mode, limit):
    return run_json([binary, "search", query, "--mode", mode, "--json", "--limit", str(limit), "--no-history",
                     "--data-dir", data_dir])


REFERENCE_STOP = set("""a an and are as at be by can do does for from how i in is it of on or should that the this
to was what when where which who why will with you your""".split())


def reference_ranks(set_dir, emails, questions, limit):
    """{question id: rank or None} of a plain reference: each email's subject, body and attachment
    text (texts/ID.txt, as the set's builder extracted it) in a Python sqlite3 FTS5 table (unicode61
    remove_diacritics 2), each question's words less a few stop words ANDed as prefixes, BM25 order.
    What a straightforward index of the same text finds; None when the texts are missing."""
    import email as email_pkg
    import email.policy
    import mailbox
    import re
    import sqlite3 as sq
    text_dir = os.path.join(set_dir, "texts")
    if not os.path.isdir(text_dir):
        return None
    doc_of = {e["message_id"]: e.get("doc") for e in emails}
    db = sq.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(mid UNINDEXED, subject, body, attachments, "
               "tokenize='unicode61 remove_diacritics 2')")
    for msg in mailbox.mbox(os.path.join(set_dir, "mail.mbox"),
                            factory=lambda f: email_pkg.message_from_binary_file(f, policy=email.policy.default)):
        mid = msg["Message-ID"].strip().strip("<>")
        body = msg.get_body(preferencelist=("plain",))
        text = ""
        doc = doc_of.get(mid)
        if doc and os.path.exists(os.path.join(text_dir, doc + ".txt")):
            text = open(os.path.join(text_dir, doc + ".txt"), encoding="utf-8").read()
        names = " ".join(p.get_filename() or "" for p in msg.iter_attachments())
        db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", (mid, str(msg["Subject"] or ""),
                                                        body.get_content() if body else "", names + "\n" + text))
    ranks = {}
    for q in questions:
        words = [w for w in re.findall(r"\w+", q["query"].lower()) if w not in REFERENCE_STOP] or \
            re.findall(r"\w+", q["query"].lower())
        match = " ".join('"%s"*' % w for w in words)
        ids = [r[0] for r in db.execute("SELECT mid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, limit))]
        ranks[q["id"]] = ids.index(q["target"]) + 1 if q["target"] in ids else None
    return ranks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=".build/release/mailsearch", help="the mailsearch CLI")
    ap.add_argument("--set", default="eval-data/attachments", help="what build_attachment_set.py wrote")
    ap.add_argument("--data-dir", help="the fresh data directory (emptied first; default bench-data/attachments/data-SHA)")
    ap.add_argument("--timeout", type=float, default=1800, help="wall-clock seconds the import may take")
    ap.add_argument("--embed-timeout", type=float, default=1800, help="wall-clock seconds `index embed` may take")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--modes", default="keyword,semantic,hybrid",
                    help="search modes to run (semantic and hybrid need the model)")
    ap.add_argument("--model-dir", default=os.environ.get("MAILSEARCH_MODEL_DIR") or os.path.expanduser(
        "~/.cache/mailsearch/models/all-MiniLM-L6-v2"))
    ap.add_argument("--json", metavar="OUT", help="save the figures, every question's ranks and the failures")
    args = ap.parse_args()

    mbox = os.path.join(args.set, "mail.mbox")
    questions = [json.loads(line) for line in open(os.path.join(args.set, "questions.jsonl"), encoding="utf-8")]
    emails = [json.loads(line) for line in open(os.path.join(args.set, "emails.jsonl"), encoding="utf-8")]
    h = hashlib.sha256()
    with open(mbox, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    mbox_sha = h.hexdigest()
    manifest_path = os.path.join(args.set, "manifest.json")
    if os.path.exists(manifest_path):
        manifest = json.load(open(manifest_path, encoding="utf-8"))
        if manifest.get("mail.mbox") != mbox_sha:
            sys.exit("error: %s does not match its manifest (SHA-256 %s)" % (mbox, mbox_sha))
    data_dir = os.path.abspath(args.data_dir or os.path.join("bench-data", "attachments", "data-" + mbox_sha[:12]))
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(data_dir)
    binary = os.path.abspath(args.binary)
    report = {"set": args.set, "mbox_sha256": mbox_sha, "binary": binary, "limit": args.limit}

    # 1. Import, under a wall-clock limit.
    t0 = time.monotonic()
    try:
        proc = subprocess.run([binary, "import", os.path.abspath(mbox), "--data-dir", data_dir, "--json", "--quiet"],
                              capture_output=True, text=True, timeout=args.timeout)
        timed_out = False
    except subprocess.TimeoutExpired as e:
        proc, timed_out = e, True
    import_seconds = time.monotonic() - t0
    imported = {}
    if not timed_out and proc.returncode == 0:
        try:
            imported = json.loads(proc.stdout)
        except ValueError:
            pass
    report["import"] = {"seconds": round(import_seconds, 2), "timed_out": timed_out,
                        "exit": None if timed_out else proc.returncode, "result": imported,
                        "stderr_tail": None if timed_out else (proc.stderr or "")[-2000:]}
    try:
        stats = run_json([binary, "stats", "--data-dir", data_dir, "--json"])
    except Exception as e:  # noqa: BLE001 - reported
        stats = {"error": str(e)}
    report["stats"] = {k: stats.get(k) for k in ("emails", "threads", "error") if k in stats}

    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(data_dir, "mail.sqlite"), uri=True)
    thread_of = {mid: tid for mid, tid in db.execute("SELECT messageId, threadId FROM emails")}
    missing = [e for e in emails if e["message_id"] not in thread_of]
    # Every attachment recorded under its own name (the attachments table), hostile ones included.
    docs = {}
    docs_path = os.path.join(args.set, "documents.jsonl")
    if os.path.exists(docs_path):
        docs = {d["id"]: d for d in map(json.loads, open(docs_path, encoding="utf-8"))}
    recorded = {}
    for mid, filename in db.execute("SELECT e.messageId, a.filename FROM attachments a JOIN emails e ON a.emailId = e.id"):
        recorded.setdefault(mid, set()).add(filename)
    expected = {}
    for e in emails:
        if e["kind"] == "doc" and e.get("doc") in docs:
            expected[e["message_id"]] = {docs[e["doc"]]["filename"]}
        elif e["kind"] == "hostile":
            expected[e["message_id"]] = {a["filename"] for a in e.get("attachments", [])}
    unrecorded = [{"message_id": mid, "missing": sorted(names - recorded.get(mid, set()))}
                  for mid, names in sorted(expected.items()) if names - recorded.get(mid, set())]
    hostile = [e for e in emails if e["kind"] == "hostile"]
    probes = []
    for e in hostile:
        page = search(binary, data_dir, e["probe"], "keyword", args.limit)
        found = thread_of.get(e["message_id"]) in [r["threadId"] for r in page["results"]]
        probes.append({"probe": e["probe"], "what": e["what"], "stored": e["message_id"] in thread_of,
                       "found": found})
    report["emails"] = {"in_mbox": len(emails), "stored": len(emails) - len(missing),
                        "missing": [{"message_id": e["message_id"], "kind": e["kind"], "doc": e.get("doc"),
                                     "what": e.get("what")} for e in missing]}
    report["hostile"] = probes
    report["attachments"] = {"expected": sum(len(v) for v in expected.values()),
                             "recorded": sum(len(v & recorded.get(k, set())) for k, v in expected.items()),
                             "unrecorded": unrecorded}

    # 2. Embeddings for hybrid.
    modes = [m for m in args.modes.split(",") if m]
    embed = None
    semantic_modes = [m for m in modes if m in ("semantic", "hybrid")]

    def drop_semantic():
        for m in semantic_modes:
            if m in modes:
                modes.remove(m)

    if semantic_modes:
        if os.path.exists(os.path.join(args.model_dir, "model.safetensors")):
            t1 = time.monotonic()
            try:
                r = subprocess.run([binary, "index", "embed", "--data-dir", data_dir, "--quiet", "--json"],
                                   capture_output=True, text=True, timeout=args.embed_timeout,
                                   env=dict(os.environ, MAILSEARCH_MODEL_DIR=args.model_dir))
                embed = {"seconds": round(time.monotonic() - t1, 2), "exit": r.returncode,
                         "stderr_tail": r.stderr[-500:]}
                try:
                    embed["result"] = json.loads(r.stdout)
                except ValueError:
                    pass
                if r.returncode != 0:
                    drop_semantic()
            except subprocess.TimeoutExpired:
                embed = {"seconds": round(time.monotonic() - t1, 2), "timed_out": True}
                drop_semantic()
        else:
            embed = {"skipped": "no model at %s (scripts/install-model.sh)" % args.model_dir}
            drop_semantic()
    report["embed"] = embed

    # 3. Questions.
    env_model = dict(os.environ, MAILSEARCH_MODEL_DIR=args.model_dir)
    os.environ.update(env_model)
    ranks = {m: {} for m in modes}
    by_passage = {m: 0 for m in modes}
    failures = []
    for mode in modes:
        for q in questions:
            target = thread_of.get(q["target"])
            page = search(binary, data_dir, q["query"], mode, args.limit)
            tids = [r["threadId"] for r in page["results"]]
            ranks[mode][q["id"]] = tids.index(target) + 1 if target in tids else None
            if target in tids and ((page["results"][tids.index(target)].get("why") or {}).get("semantic") or {}).get("attachment"):
                by_passage[mode] += 1
            if ranks[mode][q["id"]] is None:
                deep = search(binary, data_dir, q["query"], mode, 500)
                dtids = [r["threadId"] for r in deep["results"]]
                failures.append({"mode": mode, "id": q["id"], "kind": q["kind"], "query": q["query"],
                                 "filename": q["filename"], "doc": q["doc"], "stored": target is not None,
                                 "rank": dtids.index(target) + 1 if target in dtids else None,
                                 "matched": deep.get("matchedConversations", len(dtids)),
                                 "top": [r.get("subject", "") for r in page["results"][:3]]})

    reference = reference_ranks(args.set, emails, questions, args.limit)
    columns = list(modes)
    if reference is not None:
        ranks["reference"] = reference
        columns.append("reference")
    rows = []
    for kind in KINDS + ("all",):
        qs = [q for q in questions if kind == "all" or q["kind"] == kind]
        if not qs:
            continue
        row = {"kind": kind, "n": len(qs)}
        for mode in columns:
            row[mode] = sum(1 for q in qs if ranks[mode][q["id"]] is not None) / len(qs)
        rows.append(row)
    content = [q for q in questions if q["kind"] != "filename"]
    if content:
        row = {"kind": "phrase+topic", "n": len(content)}
        for mode in columns:
            row[mode] = sum(1 for q in content if ranks[mode][q["id"]] is not None) / len(content)
        rows.insert(2, row)
    report["success"] = rows
    report["ranks"] = [{"id": q["id"], "kind": q["kind"], "query": q["query"], "doc": q["doc"],
                        **{m: ranks[m][q["id"]] for m in columns}} for q in questions]
    report["failures"] = failures
    report["found_by_passage"] = {m: by_passage[m] for m in modes if m != "keyword"}

    kinds_of = {}
    for e in emails:
        kinds_of[e["kind"]] = kinds_of.get(e["kind"], 0) + 1
    print("Attachment search, Success@%d (%s: %d emails, %s; %d questions)" % (
        args.limit, args.set, len(emails), ", ".join("%s %d" % kv for kv in sorted(kinds_of.items())), len(questions)))
    imp = report["import"]
    print("import: %.1f s%s, exit %s; %s" % (
        imp["seconds"], " (TIMED OUT at %.0f s)" % args.timeout if timed_out else "", imp["exit"],
        ", ".join("%s %s" % (k, imported[k]) for k in ("imported", "failed", "duplicates") if k in imported)))
    print("stored: %d of %d emails (stats: %s emails, %s threads)%s" % (
        report["emails"]["stored"], len(emails), stats.get("emails"), stats.get("threads"),
        "".join("\n  missing %s (%s %s)" % (m["message_id"], m["kind"], m["doc"] or m["what"])
                for m in report["emails"]["missing"])))
    att = report["attachments"]
    print("attachments recorded under their names: %d of %d%s" % (
        att["recorded"], att["expected"], "".join("\n  %s: %s" % (u["message_id"], ", ".join(u["missing"]))
                                                 for u in att["unrecorded"])))
    print("hostile: %s" % "; ".join("%s %s: %s" % (p["probe"], p["what"], "found" if p["found"] else
                                                   ("stored, not found" if p["stored"] else "MISSING"))
                                    for p in probes))
    if embed is not None:
        print("embed: %s" % (embed.get("skipped") or "%.1f s, exit %s%s" % (
            embed["seconds"], embed.get("exit"), " (TIMED OUT)" if embed.get("timed_out") else "")))
    print()
    print("%-14s %4s  %s" % ("", "n", "  ".join("%9s" % m for m in columns)))
    for row in rows:
        print("%-14s %4d  %s" % (row["kind"], row["n"], "  ".join("%9.3f" % row[m] for m in columns)))
    for m in modes:
        if m != "keyword":
            print("%s: %d of %d found targets were matched by a passage of an attachment (why.semantic.attachment)" % (
                m, by_passage[m], sum(1 for q in questions if ranks[m][q["id"]] is not None)))
    if reference is not None:
        print("(reference: not the binary; the builder's own extracted text, subject, body and attachment names in\n"
              " Python's sqlite3 FTS5, unicode61, the query's words less a few stop words ANDed as prefixes, BM25;\n"
              " misses: %s)" % (", ".join("%s %r" % (q["id"], q["query"]) for q in questions
                                          if reference[q["id"]] is None) or "none"))
    print()
    print("failures (%d):" % len(failures))
    for f in failures:
        print("  %s %-7s %-8s %r -> %s; %s" % (
            f["id"], f["mode"], f["kind"], f["query"],
            "rank %d" % f["rank"] if f["rank"] else "not matched (%s matched)" % f["matched"], f["filename"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
            f.write("\n")
    ok = not timed_out and not missing and not unrecorded and all(p["found"] for p in probes)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
