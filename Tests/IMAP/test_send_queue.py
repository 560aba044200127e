#!/usr/bin/env python3
"""The send queue of `mailsearch serve` (spec 001 §5.5.2) end to end: the HTTP API queues mail, the server's sender
hands it to a real SMTP server (Dovecot's submission service from dovecot.py, delivering through LMTP into the
recipients' INBOX), and each test counts the Message-ID at the receiving Dovecot.

    python3 Tests/IMAP/test_send_queue.py [--binary .build/debug/mailsearch]

- kill -9 of `serve` after the undo window, while the SMTP server is down: after the restart the message is sent
  exactly once;
- kill -9 inside the undo window: the message is a draft again and is never sent (001 §5.5.2);
- offline: with the servers stopped, sends queue (and /api/status says why); when they return, every one is sent once;
- undo within the window: the message never arrives;
- `reply`, `forward --draft`, `drafts` and `outgoing` from the command line, without a server running.
Missing Dovecot packages are installed first (scripts/install-deps.sh); a missing binary fails, never skips.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import dovecot  # noqa: E402
import hangs  # noqa: E402
from dovecot import Dovecot  # noqa: E402

BINARY = os.environ.get("MAILSEARCH_BINARY", os.path.join(ROOT, ".build", "debug", "mailsearch"))


def setUpModule():
    dovecot.ensure_installed(submission=True)
    if not os.access(BINARY, os.X_OK):
        raise FileNotFoundError(f"{BINARY} is not built: run `swift build` (or pass --binary)")


class Serve:
    """`mailsearch serve` on a free port over `data`; `kill9()` is a crash, `start()` the next launch."""

    def __init__(self, data, log, undo_seconds):
        self.data, self.log_path, self.undo = data, log, undo_seconds
        self.process = None
        self.base = None

    def start(self, timeout=60):
        env = dict(os.environ, MAILSEARCH_DATA_DIR=self.data)
        env.pop("MAILSEARCH_TOKEN", None)
        out_path = self.log_path + ".stdout"
        self.out = open(out_path, "w")
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen([BINARY, "serve", "--port", "0", "--no-background-embedding", "--undo-seconds", str(self.undo)],
                                        env=env, stdout=self.out, stderr=self.log, start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                with open(self.log_path) as f:
                    raise RuntimeError(f"serve exited with {self.process.returncode}: {f.read()[-2000:]}")
            with open(out_path) as f:
                text = f.read()
            if "MailSearch is serving " in text:
                self.base = text.split("MailSearch is serving ", 1)[1].split()[0].rstrip("/")
                return self
            time.sleep(0.05)
        raise RuntimeError("serve did not start")

    def kill9(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.out.close()
        self.log.close()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        for f in (getattr(self, "out", None), getattr(self, "log", None)):
            if f and not f.closed:
                f.close()

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


class QueueTestCase(unittest.TestCase):
    """A Dovecot with submission and an account that sends through it, in a data folder of its own."""

    def setUp(self):
        self.server = Dovecot(users={"alice": "alice-password", "bob": "bob-password"}, submission=True)
        self.server.start()
        self.work = tempfile.mkdtemp(prefix="mailsearch-send-queue-")
        self.data = os.path.join(self.work, "data")
        os.environ["MAILSEARCH_TEST_PASSWORD"] = "alice-password"
        subprocess.run([BINARY, "account", "add", "work", "--imap", f"127.0.0.1:{self.server.tls_port}", "--user", "alice",
                        "--password-env", "MAILSEARCH_TEST_PASSWORD", "--ca-file", self.server.ca_file, "--email", "alice@example.org",
                        "--smtp", f"127.0.0.1:{self.server.submission_port}", "--smtp-tls", "starttls", "--data-dir", self.data],
                       check=True, capture_output=True, timeout=60)
        self.serve = None

    def tearDown(self):
        if self.serve:
            self.serve.stop()
        self.server.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def start(self, undo):
        self.serve = Serve(self.data, os.path.join(self.work, "serve.log"), undo).start()
        return self.serve

    def count_at_bob(self, message_id):
        out = self.server.doveadm("search", "-u", "bob", "mailbox", "INBOX", "header", "Message-ID", f"<{message_id}>")
        return len([line for line in out.splitlines() if line.strip()])

    def wait(self, predicate, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.2)
        self.fail(f"timed out: {what}")

    def queue(self, serve, subject):
        status, draft = serve.call("POST", "/api/drafts", {"to": ["Bob <bob@example.com>"], "subject": subject, "body": f"{subject}\n"})
        self.assertEqual(status, 201, draft)
        status, queued = serve.call("POST", f"/api/drafts/{draft['id']}/send")
        self.assertEqual(status, 202, queued)
        self.assertEqual(queued["state"], "queued")
        self.assertIsNotNone(queued["undoUntil"])
        return queued

    def state(self, serve, draft_id):
        return serve.call("GET", f"/api/drafts/{draft_id}")[1]



class SendQueueTests(QueueTestCase):

    def test_kill_9_after_the_undo_window_sends_exactly_once(self):
        serve = self.start(undo=1)
        self.server.kill()  # offline: the message waits after its window
        queued = self.queue(serve, "after the window")
        waiting = self.wait(lambda: (lambda d: d if d["state"] == "waiting" else None)(self.state(serve, queued["id"])), 20,
                            "the message never waited for the server")
        self.assertTrue(waiting["lastError"])
        serve.kill9()
        self.server.start()
        serve = self.start(undo=1)
        self.wait(lambda: self.state(serve, queued["id"])["state"] == "sent", 30, "never sent after the restart")
        self.wait(lambda: self.count_at_bob(queued["messageId"]) >= 1, 10, "never delivered")
        time.sleep(3)
        self.assertEqual(self.count_at_bob(queued["messageId"]), 1, "delivered exactly once")

    def test_kill_9_inside_the_undo_window_gives_the_draft_back_unsent(self):
        serve = self.start(undo=30)
        queued = self.queue(serve, "inside the window")
        serve.kill9()
        serve = self.start(undo=30)
        detail = self.wait(lambda: (lambda d: d if d["state"] == "draft" else None)(self.state(serve, queued["id"])), 10,
                           "the message did not come back as a draft")
        self.assertIn("undo window", detail["lastError"])
        status, drafts = serve.call("GET", "/api/drafts")
        self.assertIn(queued["id"], [d["id"] for d in drafts])
        time.sleep(2)
        self.assertEqual(self.count_at_bob(queued["messageId"]), 0, "never sent automatically (001 §5.5.2)")

    def test_offline_sends_queue_and_all_go_when_the_servers_return(self):
        serve = self.start(undo=0)
        self.server.kill()
        queued = [self.queue(serve, f"offline {n}") for n in range(3)]
        self.wait(lambda: serve.call("GET", "/api/status")[1]["sending"]["waiting"] == 3, 20, "three messages waiting")
        status = serve.call("GET", "/api/status")[1]["sending"]
        self.assertTrue(status["senderRunning"])
        self.assertIn("cannot connect", status["lastError"])
        self.server.start()
        for q in queued:
            self.wait(lambda: self.state(serve, q["id"])["state"] == "sent", 40, f"message {q['id']} never sent")
        time.sleep(1)
        for q in queued:
            self.assertEqual(self.count_at_bob(q["messageId"]), 1)
        self.assertEqual(serve.call("GET", "/api/status")[1]["sending"]["waiting"], 0)

    def test_undo_within_the_window_never_sends(self):
        serve = self.start(undo=5)
        queued = self.queue(serve, "undone")
        status, draft = serve.call("POST", f"/api/outgoing/{queued['id']}/undo")
        self.assertEqual(status, 200, draft)
        self.assertEqual(draft["state"], "draft")
        status, error = serve.call("POST", f"/api/outgoing/{queued['id']}/undo")
        self.assertEqual(status, 409, error)
        self.assertIn("not queued", error["error"])
        time.sleep(7)
        self.assertEqual(self.count_at_bob(queued["messageId"]), 0)
        self.assertEqual(self.state(serve, queued["id"])["state"], "draft")


class CLITests(QueueTestCase):
    """`reply`, `forward`, `drafts` and `outgoing` from the command line, without a server running."""

    def cli(self, *args, stdin=None, expect=0):
        done = hangs.run([BINARY, *args, "--data-dir", self.data], 120, input=stdin)
        out, err = done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
        self.assertEqual(done.returncode, expect, f"{args}\nstdout: {out}\nstderr: {err}")
        return out, err

    def test_reply_forward_drafts_outgoing(self):
        self.server.append("alice", "INBOX", (b"From: Bob <bob@example.com>\r\nTo: alice@example.org\r\nSubject: Ferry times\r\n"
                                              b"Date: Mon, 16 Nov 2026 09:00:00 +0000\r\nMessage-ID: <ferry-1@example.com>\r\n\r\n"
                                              b"When does the ferry leave?\r\n"))
        self.cli("sync")
        found, _ = self.cli("search", "ferry", "--json", "--mode", "keyword", "--no-history")
        email_id = json.loads(found)["results"][0]["emailId"]

        out, _ = self.cli("reply", f"e{email_id}", "--body-file", "-", stdin=b"At ten.\n")
        self.assertRegex(out, r"^Sent <[^>]+@example\.org> to Bob <bob@example\.com> \(250 ")
        self.assertIn("copied to Sent", out)
        sent = json.loads(self.cli("outgoing", "--json")[0])
        self.assertEqual([(m["state"], m["subject"]) for m in sent], [("sent", "Re: Ferry times")])
        self.assertEqual(self.count_at_bob(sent[0]["messageId"]), 1)
        raw = self.server.doveadm("fetch", "-u", "bob", "hdr.in-reply-to body", "mailbox", "INBOX", "header", "Message-ID",
                                  f"<{sent[0]['messageId']}>")
        self.assertIn("<ferry-1@example.com>", raw)
        self.assertIn("> When does the ferry leave?", raw)

        out, _ = self.cli("forward", f"e{email_id}", "--to", "bob@example.com", "--draft", "--json")
        draft = json.loads(out)
        self.assertEqual((draft["state"], draft["subject"], draft["to"]), ("draft", "Fwd: Ferry times", ["bob@example.com"]))
        listed = json.loads(self.cli("drafts", "--json")[0])
        self.assertEqual([d["id"] for d in listed], [draft["id"]])
        _, err = self.cli("forward", f"e{email_id}", expect=64)
        self.assertIn("--to", err)
        _, err = self.cli("outgoing", "undo", str(sent[0]["id"]), expect=1)
        self.assertIn("too late to undo", err)
        self.cli("drafts", "delete", str(draft["id"]))
        self.assertEqual(json.loads(self.cli("drafts", "--json")[0]), [])


def main():
    return dovecot.run_binary_tests("Send queue tests", sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
