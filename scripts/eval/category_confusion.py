#!/usr/bin/env python3
"""Categories of an imported mailbox against a truth taken from the mail, not from MailSearch.

  category_confusion.py enron DATA_DIR     person-to-person Enron mail -> Primary
  category_confusion.py forums DATA_DIR    every message of a mailing-list mbox -> Forums
  category_confusion.py labels DATA_DIR LABELS.TSV   a labelled corpus (CategoryCorpus's labels.tsv)

Enron's person-to-person mail: the sender is an Enron address of the form first.last@enron.com that
answers mail somewhere in the corpus (it has sent at least one "Re:" message: a person, not an
announcement or system address), writing to 1-10 recipients. Prints a confusion table.
"""
import collections, re, sqlite3, sys

CATS = ["primary", "social", "promotions", "updates", "forums", "uncategorized"]


def count(addresses):
    return 0 if not addresses else addresses.count("\n") + 1


def table(title, rows):
    """rows: truth -> Counter(predicted)."""
    print(title)
    print("truth\\pred".ljust(14) + "".join(c[:11].ljust(12) for c in CATS) + "total")
    for truth, counter in rows.items():
        total = sum(counter.values())
        print(truth.ljust(14) + "".join(str(counter[c]).ljust(12) for c in CATS) + str(total))
    predicted = collections.Counter()
    for counter in rows.values():
        predicted.update(counter)
    for truth, counter in rows.items():
        if truth not in CATS:
            continue
        total = sum(counter.values())
        precision = counter[truth] / predicted[truth] if predicted[truth] else 0.0
        print(f"{truth}: recall {counter[truth] / total:.4f} ({counter[truth]}/{total})"
              + (f", precision {precision:.4f}" if "(other mail)" not in rows else ""))


def main():
    kind, data = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(f"file:{data}/mail.sqlite?mode=ro", uri=True)
    rows = db.execute("SELECT lower(fromEmail), subject, toAddresses, ccAddresses, category, messageId FROM emails").fetchall()
    if kind == "enron":
        person = re.compile(r"^[a-z]+\.[a-z]+@enron\.com$")
        repliers = {f for f, s, *_ in rows if f and re.match(r"^\s*re\s*:", s or "", re.I)}
        confusion = {"primary": collections.Counter(), "(other mail)": collections.Counter()}
        for f, s, to, cc, category, _ in rows:
            p2p = f and person.match(f) and f in repliers and 1 <= count(to) + count(cc) <= 10
            confusion["primary" if p2p else "(other mail)"][category] += 1
        table(f"Enron inbox, {len(rows)} emails; person-to-person = first.last@enron.com senders who reply, 1-10 recipients", confusion)
    elif kind == "forums":
        confusion = {"forums": collections.Counter(c for *_, c, _ in rows)}
        table(f"mailing list, {len(rows)} emails, all truly Forums", confusion)
    elif kind == "labels":
        names = {"conversation": "primary", "promotion": "promotions", "social": "social", "update": "updates", "forum": "forums"}
        truth = {}
        with open(sys.argv[3]) as f:
            next(f)
            for line in f:
                mid, cat, _ = line.rstrip("\n").split("\t")
                truth[mid] = names[cat]
        confusion = {c: collections.Counter() for c in ["primary", "social", "promotions", "updates", "forums"]}
        for *_, category, mid in rows:
            if mid in truth:
                confusion[truth[mid]][category] += 1
        table(f"generated corpus, {len(truth)} labelled emails", confusion)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
