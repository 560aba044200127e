#!/usr/bin/env python3
"""Categories of an imported mailbox against a truth taken from the mail, not from MailSearch.

  category_confusion.py enron DATA_DIR     person-to-person Enron mail -> Primary
  category_confusion.py forums DATA_DIR    every message of a mailing-list mbox -> Forums
  category_confusion.py labels DATA_DIR LABELS.TSV   a labelled corpus (CategoryCorpus's labels.tsv)
  category_confusion.py heldout DATA_DIR CORPUS_DIR   the held-out list archive (scripts/fetch-list-corpus.sh):
      truth read from the original messages in CORPUS_DIR (see heldout_truth)

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


def heldout_truth(folder):
    """Message-ID -> "forums" / "primary" for the held-out archive, from its original headers.

    Forums: a post to a discussion list: the message names its list (List-Id, X-BeenThere,
    Mailing-List, X-Mailing-List, or a Sender that is also a To/Cc address) and at least three
    different people posted to that list in the corpus. Primary: no list named, no "[tag]" subject,
    a person's address (not a feed, newsletter or robot address listed below) writing to the
    mailbox's owner (yyyy@ / zzzz@example.com, exactly) with at most ten recipients.
    Everything else (newsletters, feeds, one-person lists, robots' lists) is not judged.
    """
    import email, email.policy, email.utils, os
    not_people = re.compile(r"^(rssfeeds|nobody|webster|guterman|pudge)@")
    owner = re.compile(r"^(yyyy|zzzz)@example\.com$")
    msgs = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            m = email.message_from_binary_file(f)
        def h(k):
            v = m.get(k)
            return re.sub(r"\s+", " ", str(v)).strip() if v is not None else ""
        recipients = [a.lower() for _, a in email.utils.getaddresses([h("To"), h("Cc")]) if a]
        key = ""
        lid = re.search(r"<([^>]+)>", h("List-Id"))
        if lid: key = lid.group(1).lower()
        elif h("X-BeenThere"): key = h("X-BeenThere").lower()
        elif re.match(r"list ", h("Mailing-List")): key = h("Mailing-List").split()[1].rstrip(";").lower()
        elif h("X-Mailing-List"): key = h("X-Mailing-List").lower()
        else:
            sender = email.utils.parseaddr(h("Sender"))[1].lower()
            if sender and sender in recipients: key = sender
        sender = email.utils.parseaddr(h("From"))[1].lower()
        msgs.append((h("Message-ID"), key, sender, recipients, h("Subject")))
    posters = collections.defaultdict(set)
    for _, key, sender, *_ in msgs:
        if key: posters[key].add(sender)
    truth = {}
    for mid, key, sender, recipients, subject in msgs:
        if not mid: continue
        if key:
            if len(posters[key]) >= 3: truth[mid] = "forums"
        elif (sender and not not_people.match(sender) and not re.match(r"^\s*(re:\s*)?\[", subject, re.I)
              and any(owner.match(r) for r in recipients) and len(recipients) <= 10):
            truth[mid] = "primary"
    return truth


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
    elif kind == "heldout":
        truth = heldout_truth(sys.argv[3])
        confusion = {c: collections.Counter() for c in ["forums", "primary"]}
        other = collections.Counter()
        for *_, category, mid in rows:
            if mid and f"<{mid.strip('<>')}>" in truth:
                confusion[truth[f"<{mid.strip('<>')}>"]][category] += 1
            else:
                other[category] += 1
        table(f"held-out archive, {len(rows)} emails, {sum(map(sum, (c.values() for c in confusion.values())))} judged", confusion)
        print("not judged (newsletters, feeds, one-person lists, robots): " + ", ".join(f"{c} {other[c]}" for c in CATS if other[c]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
