#!/usr/bin/env python3
"""Cross-language semantic search (issue 35): an English query, its target a Japanese or Chinese email.

Debian's Japanese and Chinese manual pages (manpages-ja, manpages-zh: the CJK set's packages) are
translations of English pages; those whose English original is in Debian's `manpages` or
`manpages-dev` 6.03-2 (fetched with `apt-get download`, pinned by SHA-256 like build_cjk_set.py does,
into bench-data/xling) make a pair: the query is the English page's NAME description (the words after
"name - ", without the name: "open and possibly create a file"), the target the email of the
translated page (Subject "open(2): <the translated NAME line>", body the first ~2,000 characters of
its prose, as build_cjk_set.py writes them).

The mailbox (written into --out, default eval-data/xling, git-ignored): the CJK set's 345 emails
(--cjk-set, made by build_cjk_set.py; Japanese, Chinese and Korean) and one email for every other
translated page with an English original and at least --min-cjk CJK characters. Every pair is used.

Then, for each model of --models: a fresh data directory, `mailsearch import`, `mailsearch index embed`
(MAILSEARCH_MODEL=NAME, timed: emails per second), and every query searched with
`--mode semantic --min-similarity 0` (semantic only, no floor: the ranking by cosine alone),
Success@1/5/20 and MRR@20 of the target, per language; then the same with the model's own floor
(`--mode semantic`) and in hybrid mode (the default), what a user of that model would get.

  python3 scripts/eval/xling_eval.py [--binary .build/release/mailsearch] [--models all-MiniLM-L6-v2,multilingual-e5-small]
"""
import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_cjk_set as cjk  # noqa: E402
from pinned import debian_package, sha256_file  # noqa: E402

ENGLISH = {
    "manpages": ("6.03-2", "efa1ba4cd19ad7baeae959c9209a7eb74be2ebb858bcabb412597bfc9f588c91"),
    "manpages-dev": ("6.03-2", "96f55cb5e26231d5567c89b692bced63825a14a2d5bd18fdf16ea2ed44eb9838"),
}
MANDIRS = {"ja": "usr/share/man/ja", "zh": "usr/share/man/zh_CN"}


def unpack(name, version, digest, cache):
    debs, root = os.path.join(cache, "debs"), os.path.join(cache, "root")
    os.makedirs(debs, exist_ok=True)
    path, _ = debian_package(name, version, digest, debs)
    stamp = os.path.join(root, ".unpacked-" + name + "-" + digest[:16])
    if not os.path.exists(stamp):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", path, root], check=True)
        open(stamp, "w").close()
    return root


def description(name_line):
    """"open, openat, creat - open and possibly create a file" → "open and possibly create a file"."""
    _, sep, rest = name_line.partition(" - ")
    return " ".join(rest.split()) if sep else ""


def build(args):
    english_root = None
    for name, (version, digest) in sorted(ENGLISH.items()):
        english_root = unpack(name, version, digest, args.cache)
    cjk_root, _ = cjk.fetch_packages(args.cjk_cache)
    cjk_set = [json.loads(line) for line in open(os.path.join(args.cjk_set, "messages.jsonl"), encoding="utf-8")]
    in_set = {m["source"]: m for m in cjk_set}
    extra, pairs = [], []
    when = dt.datetime(2026, 9, 1, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    for lang, mandir in sorted(MANDIRS.items()):
        top = os.path.join(cjk_root, mandir)
        for sec in sorted(os.listdir(top)):
            for fname in sorted(os.listdir(os.path.join(top, sec))):
                path = os.path.join(top, sec, fname)
                english = os.path.join(english_root, "usr/share/man", sec, fname)
                if os.path.islink(path) or not fname.endswith(".gz") or not os.path.exists(english) or os.path.islink(english):
                    continue
                en = cjk.man_page(english)
                query = description(en[0]) if en else ""
                if len(query.split()) < 2:
                    continue
                source = os.path.join(mandir, sec, fname)
                if source in in_set:
                    target = in_set[source]["id"]
                else:
                    got = cjk.man_page(path)
                    if not got or not got[0]:
                        continue
                    body = cjk.cut(got[1])
                    if cjk.cjk_count(body) < args.min_cjk:
                        continue
                    page = fname[:-3]
                    stem, _, section = page.rpartition(".")
                    slug = re.sub(r"[^A-Za-z0-9.+_-]", "_", source.split("/", 3)[-1])
                    target = "xl.%s.%s@xling-eval.mailsearch.invalid" % (lang, slug)
                    when += dt.timedelta(minutes=7)
                    extra.append({"id": target, "lang": lang, "charset": "utf-8", "cte": "8bit",
                                  "from": "manpages-%s <manpages-%s@lists.cjk-eval.invalid>" % (lang, lang),
                                  "date": cjk.format_datetime(when),
                                  "subject": " ".join(("%s(%s): %s" % (stem, section, got[0])).split())[:200],
                                  "body": body, "source": source})
                pairs.append({"id": "xl-%03d" % (len(pairs) + 1), "query": query, "lang": lang, "target": target,
                              "source": source, "english": os.path.join("usr/share/man", sec, fname)})
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "mail.mbox"), "wb") as f:
        f.write(open(os.path.join(args.cjk_set, "mail.mbox"), "rb").read())
        for m in extra:
            f.write(cjk.message_bytes(m))
    with open(os.path.join(args.out, "queries.jsonl"), "w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    print("xling set: %d emails (%d of the CJK set, %d added), %d pairs (%s)" % (
        len(cjk_set) + len(extra), len(cjk_set), len(extra), len(pairs),
        ", ".join("%s %d" % (l, sum(p["lang"] == l for p in pairs)) for l in sorted(MANDIRS))), file=sys.stderr)
    return pairs


def run_json(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()[-500:]))
    return json.loads(out.stdout)


def evaluate(args, pairs, model):
    env = dict(os.environ, MAILSEARCH_MODEL=model)
    env.pop("MAILSEARCH_MODEL_DIR", None)
    data_dir = os.path.join(args.cache, "data-" + model)
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(data_dir)
    binary = os.path.abspath(args.binary)
    run_json([binary, "import", os.path.abspath(os.path.join(args.out, "mail.mbox")), "--data-dir", data_dir, "--json", "--quiet"], env)
    start = time.monotonic()
    out = subprocess.run([binary, "index", "embed", "--data-dir", data_dir], capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    if out.returncode != 0:
        raise RuntimeError("index embed: %s" % out.stderr[-500:])
    import sqlite3
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(data_dir, "mail.sqlite"), uri=True)
    thread_of = dict(db.execute("SELECT messageId, threadId FROM emails"))
    emails = len(thread_of)
    # The other translation of the same English page (Japanese for a Chinese target and the other
    # way round), when the mailbox has it: as right an answer, reported apart ("either").
    twins = {}
    for p in pairs:
        twins.setdefault(p["english"], set()).add(p["target"])
    ranks, either, floored, hybrid, top = {}, {}, {}, {}, {}
    for p in pairs:
        target = thread_of.get(p["target"])
        good = {thread_of.get(t) for t in twins[p["english"]]}
        for mode, floor in (("semantic", True), ("semantic", False), ("hybrid", False)):
            page = run_json([binary, "search", p["query"], "--mode", mode, "--json", "--limit", str(args.limit),
                             "--no-history", "--data-dir", data_dir] + (["--min-similarity", "0"] if floor else []), env)
            tids = [r["threadId"] for r in page["results"]]
            rank = tids.index(target) + 1 if target in tids else None
            if mode == "hybrid":
                hybrid[p["id"]] = rank
            elif floor:
                ranks[p["id"]] = rank
                either[p["id"]] = next((i + 1 for i, t in enumerate(tids) if t in good), None)
                top[p["id"]] = [r.get("subject", "") for r in page["results"][:3]]
            else:
                floored[p["id"]] = rank
    return {"model": model, "emails": emails, "embed_seconds": round(seconds, 2),
            "embed_output": out.stdout.strip()[-300:] + out.stderr.strip()[-300:], "ranks": ranks,
            "either": either, "floored": floored, "hybrid": hybrid, "top3": top}


def summary(pairs, result, limit, key="ranks"):
    lines = []
    for lang in sorted(MANDIRS) + ["all"]:
        chosen = [p for p in pairs if lang == "all" or p["lang"] == lang]
        r = [result[key][p["id"]] for p in chosen]
        n = len(r)
        at = {k: sum(1 for x in r if x is not None and x <= k) for k in (1, 5, limit)}
        mrr = sum(1.0 / x for x in r if x is not None) / max(1, n)
        lines.append("  %-4s n=%-3d S@1 %.3f  S@5 %.3f  S@%d %.3f (%d/%d)  MRR@%d %.3f" % (
            lang, n, at[1] / n, at[5] / n, limit, at[limit] / n, at[limit], n, limit, mrr))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=".build/release/mailsearch")
    ap.add_argument("--cjk-set", default="eval-data/cjk")
    ap.add_argument("--cjk-cache", default="bench-data/cjk")
    ap.add_argument("--cache", default="bench-data/xling")
    ap.add_argument("--out", default="eval-data/xling")
    ap.add_argument("--models", default="all-MiniLM-L6-v2,multilingual-e5-small")
    ap.add_argument("--min-cjk", type=int, default=200)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    pairs = build(args)
    results = []
    for model in args.models.split(","):
        result = evaluate(args, pairs, model)
        results.append(result)
        print("%s: %d emails embedded in %.1f s (%.1f emails/s, `index embed` wall clock)" % (
            model, result["emails"], result["embed_seconds"], result["emails"] / result["embed_seconds"]))
        print(" the target email:")
        print("\n".join(summary(pairs, result, args.limit)))
        print(" the target or the other language's translation of the same page:")
        print("\n".join(summary(pairs, result, args.limit, "either")))
        print(" the target, semantic search with the model's own floor (what a user gets in semantic mode):")
        print("\n".join(summary(pairs, result, args.limit, "floored")))
        print(" the target, hybrid search (keyword and semantic, the model's own floor; the default mode):")
        print("\n".join(summary(pairs, result, args.limit, "hybrid")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": pairs, "results": results}, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
