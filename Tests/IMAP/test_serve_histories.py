#!/usr/bin/env python3
"""Random histories against the real `mailsearch serve`, killed with SIGKILL at random moments, and a real Dovecot
(IMAP and its submission service): the process-level companion of Tests/IMAPSyncTests/ConvergenceTests.swift.

    python3 Tests/IMAP/test_serve_histories.py [--binary .build/debug/mailsearch] [--histories N] [--seed S]

A history mixes the user's actions through the HTTP API (read, unread, star, unstar, archive, move, delete, on emails
and conversations), sends (queued with no undo window), another client's changes on the server (flags, moves, expunges,
new mail, through doveadm), the server killed and started again, pauses that let `serve` write back and sync, and
`serve` killed -9 at a random moment (during a write-back, between a MOVE and its local commit, during an SMTP DATA:
wherever it happens to be) and started again. At the end the server is up, `serve` is stopped, and two
`mailsearch sync` runs settle everything. Then, per history:
- the server and mail.sqlite agree: the same messages, each in the same folder with the same read and starred flags,
  nothing twice on the server, no outbox operation pending;
- nothing is lost: a message nobody deleted is there; one the user deleted for good (and no other client touched
  after) or another client expunged is gone;
- every message sent is at bob's exactly once when the queue says sent, never twice, and at most once when a kill
  left it "may have been sent" (failed, said so).
A failing history prints its seed and steps (rerun with --seed). Missing Dovecot packages are installed first
(scripts/install-deps.sh); a missing binary fails, never skips.
"""
import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dovecot  # noqa: E402
import hangs  # noqa: E402
from dovecot import Dovecot, DovecotError  # noqa: E402
import test_send_queue  # noqa: E402
from test_send_queue import Serve  # noqa: E402

FOLDERS = ["INBOX", "Archive", "Projects", "Trash"]
HISTORIES = int(os.environ.get("MAILSEARCH_SERVE_HISTORIES", "12"))
SEED = int(os.environ.get("MAILSEARCH_SERVE_HISTORY_SEED", "20261126"))


def message(tag, k, reply_to=None):
    text = (f"From: Sender {k % 3} <sender{k % 3}@example.com>\r\nTo: alice@example.org\r\nSubject: Report {tag}{k}\r\n"
            f"Date: 10 Nov 2026 09:{k % 60:02d}:00 +0000\r\nMessage-ID: <{tag}{k}@example.com>\r\n")
    if reply_to is not None:
        text += f"In-Reply-To: <{tag}{reply_to}@example.com>\r\n"
    return (text + f"\r\nBody of {tag}{k}.\r\n").encode()


def generate(rng, length):
    steps, messages, up = [], 4, True
    for _ in range(length):
        roll, k = rng.randrange(100), rng.randrange(messages)
        if roll < 30:
            action = rng.choice(["read", "unread", "star", "unstar", "archive", "delete", "move"])
            steps.append(("act", action, rng.choice(FOLDERS), k, rng.randrange(4) == 0))
        elif roll < 40 and up:
            steps.append(("flip", k, rng.choice(["\\Seen", "\\Flagged"])))
        elif roll < 45 and up:
            steps.append(("move", k, rng.choice(FOLDERS[:3])))
        elif roll < 48 and up:
            steps.append(("expunge", k))
        elif roll < 53 and up:
            steps.append(("new",))
            messages += 1
        elif roll < 63:
            steps.append(("send",))
        elif roll < 80:
            steps.append(("kill9", rng.choice([0, 0.05, 0.15, 0.4])))
        elif roll < 85 and up:
            steps.append(("down",))
            up = False
        elif roll < 90 and not up:
            steps.append(("up",))
            up = True
        else:
            steps.append(("pause", rng.choice([0.1, 0.3, 1.0])))
    return steps


class ServeHistories(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        dovecot.ensure_installed(submission=True)
        test_send_queue.setUpModule()
        cls.server = Dovecot(users={"alice": "alice-password", "bob": "bob-password"}, submission=True)
        cls.server.start()
        cls.server.create_mailbox("alice", "Projects")
        os.environ["MAILSEARCH_TEST_PASSWORD"] = "alice-password"  # the account's --password-env, for `serve` too

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="mailsearch-serve-histories-")
        self.serve = None

    def tearDown(self):
        if self.serve:
            self.serve.stop()
        shutil.rmtree(self.work, ignore_errors=True)

    # -- the pieces -------------------------------------------------------------------------------------------------

    # Longer than the client's own limit for a silent server (SyncOptions.responseTimeout, 120 s) and its retries: a
    # server that stalls is then the product's to handle (time out, reconnect, go on), and an overrun is the
    # product's own hang, reported with its threads' stacks (hangs.py).
    def cli(self, *args, timeout=300):
        env = dict(os.environ, MAILSEARCH_DATA_DIR=self.data, MAILSEARCH_TEST_PASSWORD="alice-password")
        started = time.time()
        result = hangs.run([test_send_queue.BINARY, *args], timeout, env=env, text=True)
        if time.time() - started > 30:
            # Slow but within the limit (a server that stalled and the client that waited it out): said, with its words.
            print(f"\nslow: mailsearch {' '.join(args)} took {time.time() - started:.0f} s; its stderr: {result.stderr[-1500:]}",
                  file=sys.stderr, flush=True)
        return result

    def db(self):
        connection = sqlite3.connect(f"file:{self.data}/mail.sqlite?mode=ro", uri=True, timeout=30)
        connection.execute("PRAGMA busy_timeout = 30000")
        return connection

    def email_id(self, tag, k):
        with self.db() as db:
            row = db.execute("SELECT id, threadId FROM emails WHERE messageId = ?", (f"{tag}{k}@example.com",)).fetchone()
        return row

    def server_copies(self, tag):
        out = self.server.doveadm("fetch", "-u", "alice", "mailbox uid flags hdr.message-id", "mailbox", "*", "all")
        copies, current = {}, {}
        for line in out.splitlines():
            if line.startswith("mailbox: "):
                current["mailbox"] = line[9:].strip()
            elif line.startswith("uid: "):
                current["uid"] = int(line[5:])
            elif line.startswith("flags:"):
                current["flags"] = set(line[6:].split()) - {"\\Recent"}
            elif line.lower().startswith("hdr.message-id:"):
                mid = line.split("<", 1)[-1].split(">", 1)[0]
                if mid.startswith(tag):
                    copies.setdefault(mid, []).append(dict(current))
        return copies

    def count_at_bob(self, message_id):
        out = self.server.doveadm("search", "-u", "bob", "mailbox", "INBOX", "header", "Message-ID", f"<{message_id}>")
        return len([line for line in out.splitlines() if line.strip()])

    def start_serve(self):
        self.serve = Serve(self.data, os.path.join(self.work, "serve.log"), 0).start()

    # -- one history --------------------------------------------------------------------------------------------------

    def other_client(self, *args):
        """Another client's change on the server (doveadm). `serve` may have moved or expunged the
        message a moment after it was looked up (its outbox runs meanwhile): then the change finds
        no message and does nothing, as it would for a real second client."""
        try:
            self.server.doveadm(*args)
        except DovecotError as error:
            if "expunged" not in str(error).lower():
                raise

    def run_history(self, number, steps):
        tag = f"s{number}-"
        self.data = os.path.join(self.work, f"data-{number}")
        self.server.doveadm("expunge", "-u", "alice", "mailbox", "*", "all")
        for k, (mailbox, flags) in enumerate([("INBOX", ()), ("INBOX", ("\\Flagged",)), ("INBOX", ("\\Seen",)), ("Projects", ())]):
            self.server.append("alice", mailbox, message(tag, k, reply_to=0 if k == 1 else None), flags)
        messages = 4
        added = self.cli("account", "add", "work", "--imap", f"127.0.0.1:{self.server.tls_port}", "--user", "alice",
                         "--password-env", "MAILSEARCH_TEST_PASSWORD", "--ca-file", self.server.ca_file, "--email", "alice@example.org",
                         "--smtp", f"127.0.0.1:{self.server.submission_port}", "--smtp-tls", "starttls")
        self.assertEqual(added.returncode, 0, added.stderr)
        synced = self.cli("sync")
        self.assertEqual(synced.returncode, 0, synced.stderr)
        self.start_serve()
        deleted_by_user, touched_by_server, expunged, sent, up = set(), set(), set(), [], True
        for step in steps:
            kind = step[0]
            if kind == "act":
                _, action, folder, k, conversation = step
                row = self.email_id(tag, k)
                if not row:
                    continue
                with self.db() as db:
                    numbers = {i: int(mid[len(tag):].split("@")[0]) for i, mid in db.execute(
                        "SELECT id, messageId FROM emails WHERE threadId = ? OR id = ?", (row[1], row[0])) if mid.startswith(tag)}
                path = f"/api/threads/{row[1]}/actions" if conversation else f"/api/emails/{row[0]}/actions"
                status, answer = self.serve.call("POST", path, {"action": action, "folder": folder})
                self.assertIn(status, (200, 404), answer)
                if status == 200:
                    # Deleted for good (it was in the Trash only): gone for the user.
                    deleted_by_user.update(numbers[i] for i in answer.get("deleted", []) if i in numbers)
            elif kind in ("flip", "move", "expunge"):
                copies = self.server_copies(tag).get(f"{tag}{step[1]}@example.com")
                if not copies:
                    continue
                copy = copies[0]
                touched_by_server.add(step[1])
                if kind == "flip":
                    on = step[2] in copy["flags"]
                    self.other_client("flags", "remove" if on else "add", "-u", "alice", step[2], "mailbox", copy["mailbox"],
                                      "uid", str(copy["uid"]))
                elif kind == "move" and copy["mailbox"] != step[2]:
                    self.other_client("move", "-u", "alice", step[2], "mailbox", copy["mailbox"], "uid", str(copy["uid"]))
                elif kind == "expunge":
                    self.server.doveadm("expunge", "-u", "alice", "mailbox", copy["mailbox"], "uid", str(copy["uid"]))
                    # `serve` may have moved it a moment before (the UID was gone): then nothing went.
                    if not self.server_copies(tag).get(f"{tag}{step[1]}@example.com"):
                        expunged.add(step[1])
            elif kind == "new":
                self.server.append("alice", "INBOX", message(tag, messages))
                messages += 1
            elif kind == "send":
                status, draft = self.serve.call("POST", "/api/drafts", {"to": ["Bob <bob@example.com>"], "subject": f"{tag} sent",
                                                                         "body": "hello\n"})
                self.assertEqual(status, 201, draft)
                status, queued = self.serve.call("POST", f"/api/drafts/{draft['id']}/send")
                self.assertEqual(status, 202, queued)
                sent.append(queued)
            elif kind == "kill9":
                time.sleep(step[1])
                self.serve.kill9()
                self.start_serve()
            elif kind == "down":
                self.server.kill()
                up = False
            elif kind == "up":
                self.server.start()
                up = True
            elif kind == "pause":
                time.sleep(step[1])
        # Settle: the server up, `serve` stopped, what waits sent now (`outgoing send`: no retry wait), two syncs.
        if not up:
            self.server.start()
        self.serve.stop()
        self.serve = None
        result = self.cli("outgoing", "send")
        self.assertIn(result.returncode, (0, 1), result.stderr)
        with self.db() as db:
            self.waiting_at_end = db.execute("SELECT id, state, attempts, sendAfter, lastError FROM drafts WHERE state != 'sent'").fetchall()
        for _ in range(2):
            result = self.cli("sync")
            self.assertEqual(result.returncode, 0, result.stderr)
        return self.check(tag, messages, deleted_by_user, touched_by_server, expunged, sent)

    def check(self, tag, messages, deleted_by_user, touched_by_server, expunged, sent):
        problems = []
        copies = self.server_copies(tag)
        with self.db() as db:
            local = {}
            for mid, read, starred, folders in db.execute("""
                    SELECT e.messageId, e.isRead, e.isStarred, (SELECT group_concat(path, '+') FROM (SELECT f.path FROM email_folders ef
                        JOIN folders f ON f.id = ef.folderId WHERE ef.emailId = e.id ORDER BY f.path)) FROM emails e"""):
                if mid.startswith(tag):
                    local[mid] = (folders or "", bool(read), bool(starred))
            pending = db.execute("SELECT COUNT(*) FROM outbox WHERE state IN ('pending', 'running')").fetchone()[0]
            drafts = {mid: (state, error) for mid, state, error in db.execute("SELECT messageId, state, lastError FROM drafts")}
        if pending:
            problems.append(f"{pending} outbox operations pending")
        for k in range(messages):
            mid = f"{tag}{k}@example.com"
            on_server = copies.get(mid, [])
            if len(on_server) > 1:
                problems.append(f"m{k} is on the server {len(on_server)} times")
            server = None
            if on_server:
                c = on_server[0]
                server = (c["mailbox"], "\\Seen" in c["flags"], "\\Flagged" in c["flags"])
            here = local.get(mid)
            if server != here:
                problems.append(f"m{k}: server {server}, here {here}")
            if k in expunged and server is not None:
                problems.append(f"m{k} was expunged by another client but is {server}")
            if k in deleted_by_user and k not in touched_by_server and server is not None:
                problems.append(f"m{k} was deleted for good but is {server}")
            if k not in deleted_by_user and k not in expunged and server is None:
                problems.append(f"m{k} was lost (nobody deleted it)")
        for queued in sent:
            count = self.count_at_bob(queued["messageId"])
            state, error = drafts.get(queued["messageId"], ("missing", None))
            if count > 1:
                problems.append(f"message {queued['id']} delivered {count} times")
            if state == "sent" and count != 1:
                problems.append(f"message {queued['id']} is sent but arrived {count} times")
            if state not in ("sent", "failed"):
                problems.append(f"message {queued['id']} is still {state} ({self.waiting_at_end}, now {time.time():.0f})")
            if state == "failed" and "may have been sent" not in (error or ""):
                problems.append(f"message {queued['id']} failed: {error}")
        return problems

    def test_random_histories_under_kill_9(self):
        rng = random.Random(SEED)
        started, kills = time.time(), 0
        for number in range(HISTORIES):
            steps = generate(rng, rng.randrange(6, 20))
            kills += sum(1 for s in steps if s[0] == "kill9")
            problems = self.run_history(number, steps)
            if problems:
                listing = "\n".join(f"  {i + 1}. {s}" for i, s in enumerate(steps))
                self.fail(f"history {number + 1} of {HISTORIES} (seed {SEED}) diverged: {'; '.join(problems)}\n{listing}\n"
                          f"serve's log: {open(os.path.join(self.work, 'serve.log')).read()[-3000:]}")
        print(f"Serve histories: {HISTORIES} (seed {SEED}), {kills} kill -9 of serve, 0 divergences, "
              f"{time.time() - started:.0f} s", flush=True)


def main():
    global HISTORIES, SEED
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=test_send_queue.BINARY)
    parser.add_argument("--histories", type=int, default=HISTORIES)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    HISTORIES, SEED = args.histories, args.seed
    test_send_queue.BINARY = os.path.abspath(args.binary)
    result = unittest.TextTestRunner(verbosity=2).run(unittest.defaultTestLoader.loadTestsFromTestCase(ServeHistories))
    failed = len(result.failures) + len(result.errors)
    print(f"Serve histories tests: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
