#!/usr/bin/env python3
"""`mailsearch send` (the Swift SMTP client and message builder) against a real SMTP server: Dovecot's submission
service from the harness (dovecot.py, submission=True), which relays through Dovecot's LMTP into the recipients'
INBOX, where each test reads the message back over IMAP.

    python3 Tests/IMAP/test_smtp_send.py [--binary .build/debug/mailsearch]

Missing Dovecot packages (dovecot-imapd, dovecot-submissiond, dovecot-lmtpd) are installed first by
scripts/install-deps.sh; when that cannot install them, and when the binary is not built, the tests fail, never
skip (MAILSEARCH_NO_INSTALL=1: do not try to install).
"""
import email
import email.header
import email.policy
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import dovecot  # noqa: E402
from dovecot import Dovecot  # noqa: E402

BINARY = os.environ.get("MAILSEARCH_BINARY", os.path.join(ROOT, ".build", "debug", "mailsearch"))


def setUpModule():
    # Installs what is missing (scripts/install-deps.sh); still missing: DovecotMissing naming the packages, which
    # unittest counts as an error, not a skip.
    dovecot.ensure_installed(submission=True)
    if not os.access(BINARY, os.X_OK):
        raise FileNotFoundError(f"{BINARY} is not built: run `swift build --product mailsearch` (or pass --binary)")


class SendTestCase(unittest.TestCase):
    """One Dovecot with submission for the class (each test uses its own subjects and counts its own mail)."""

    @classmethod
    def setUpClass(cls):
        cls.server = Dovecot(users={"alice": "alice-password", "bob": "bob-password", "carol": "carol-password"},
                             submission=True, max_mail_size=200_000)
        cls.server.start()
        cls.tmp = tempfile.TemporaryDirectory(prefix="mailsearch-smtp-test-")
        cls.password_file = os.path.join(cls.tmp.name, "alice-password")
        with open(cls.password_file, "w") as f:
            f.write("alice-password\n")

    @classmethod
    def tearDownClass(cls):
        cls.server.close()
        cls.tmp.cleanup()

    # -- helpers -------------------------------------------------------------------------------------

    def send(self, *args, security="starttls", login=True, stdin=None, expect=0, json_output=True, timeout=60):
        """Runs `mailsearch send` against the submission service; returns (parsed JSON or stdout, stderr)."""
        port = self.server.submissions_port if security == "implicit" else self.server.submission_port
        cmd = [BINARY, "send", "--smtp", f"{self.server.host}:{port}", "--tls", security,
               "--ca-file", self.server.ca_file, "--data-dir", os.path.join(self.tmp.name, "data")]
        if login:
            cmd += ["--user", "alice", "--password-file", self.password_file]
        if json_output:
            cmd.append("--json")
        cmd += list(args)
        done = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
        out, err = done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
        self.assertEqual(done.returncode, expect, f"exit status of {' '.join(cmd)}\nstdout: {out}\nstderr: {err}")
        if json_output and done.returncode in (0, 3):
            return json.loads(out), err
        return out, err

    def inbox(self, user, subject, count=1, timeout=10, folder="INBOX"):
        """The messages of `user`'s INBOX (or `folder`) with this exact Subject (decoded), waiting up to `timeout` s for `count`."""
        deadline = time.monotonic() + timeout
        while True:
            found = []
            client = self.server.imap(user)
            try:
                typ, _ = client.select(f'"{folder}"', readonly=True)
                typ, data = client.search(None, "ALL") if typ == "OK" else (typ, [b""])
                for num in data[0].split():
                    typ, fetched = client.fetch(num, "(BODY.PEEK[])")
                    message = email.message_from_bytes(fetched[0][1], policy=email.policy.default)
                    if str(message["Subject"]) == subject:
                        found.append(message)
            finally:
                client.logout()
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.2)

    def unique(self, name):
        return f"{name} {time.monotonic_ns()}"

    # -- sending ---------------------------------------------------------------------------------------

    def test_starttls_login_delivers_with_the_reply_headers(self):
        subject = self.unique("Grüße zum Mittagessen – 日本語")
        body = "Hallo Bob,\n\ngehen wir essen?\n.\n..two dots\nAlice\n"
        result, _ = self.send("--from", "Alice Example <alice@example.org>", "--to", "Bob <bob@example.com>",
                              "--subject", subject, "--body-file", "-", "--in-reply-to", "<parent@example.org>",
                              "--references", "<root@example.org>", stdin=body.encode())
        self.assertEqual(result["accepted"], ["bob@example.com"])
        self.assertEqual(result["rejected"], [])
        self.assertTrue(result["reply"].startswith("250"), result)
        self.assertTrue(result["messageId"].endswith("@example.org"))
        [message] = self.inbox("bob", subject)
        self.assertEqual(message["Message-ID"], f"<{result['messageId']}>")
        self.assertEqual(message["In-Reply-To"], "<parent@example.org>")
        self.assertEqual(message["References"], "<root@example.org> <parent@example.org>")
        self.assertEqual(message["From"].addresses[0].display_name, "Alice Example")
        self.assertEqual(message.get_content().replace("\r\n", "\n"), body, "dot-stuffed lines arrive as written")
        # The harness's Dovecot logged the login: AUTH PLAIN over TLS.
        self.assertRegex(self.server.log_tail(200), r"submission-login: Info: Login: user=<alice>, method=PLAIN.*TLS")

    def test_implicit_tls(self):
        subject = self.unique("implicit TLS")
        result, _ = self.send("--from", "alice@example.org", "--to", "bob@example.com", "--subject", subject,
                              security="implicit")
        self.assertEqual(result["accepted"], ["bob@example.com"])
        self.assertEqual(len(self.inbox("bob", subject)), 1)

    def test_refused_recipients_are_listed_and_the_others_get_the_message(self):
        subject = self.unique("partial")
        result, _ = self.send("--from", "alice@example.org", "--to", "bob@example.com", "--to", "nobody@example.com",
                              "--cc", "carol@example.com", "--subject", subject, expect=3)
        self.assertEqual(result["accepted"], ["bob@example.com", "carol@example.com"])
        [refusal] = result["rejected"]
        self.assertEqual(refusal["recipient"], "nobody@example.com")
        self.assertEqual(refusal["code"], 550)
        self.assertEqual(refusal["enhancedCode"], "5.1.1")
        self.assertIn("nobody", refusal["reply"])
        self.assertEqual(len(self.inbox("bob", subject)), 1)
        self.assertEqual(len(self.inbox("carol", subject)), 1)
        # The text output says it too.
        out, _ = self.send("--from", "alice@example.org", "--to", "bob@example.com", "--to", "nobody@example.com",
                           "--subject", subject, expect=3, json_output=False)
        self.assertIn("Not sent to nobody@example.com: the server refused it (550 5.1.1", out)

    def test_every_recipient_refused_sends_nothing(self):
        subject = self.unique("nobody at all")
        _, err = self.send("--from", "alice@example.org", "--to", "nobody@example.com", "--to", "ghost@example.com",
                           "--subject", subject, expect=1)
        self.assertIn("refused every recipient, so nothing was sent", err)
        self.assertIn("nobody@example.com: 550 5.1.1", err)
        self.assertIn("ghost@example.com: 550 5.1.1", err)

    def test_bcc_gets_the_message_and_appears_in_no_header(self):
        subject = self.unique("bcc")
        self.send("--from", "alice@example.org", "--to", "carol@example.com", "--bcc", "bob@example.com", "--subject", subject)
        [for_bob] = self.inbox("bob", subject)
        [for_carol] = self.inbox("carol", subject)
        for message in (for_bob, for_carol):
            self.assertIsNone(message["Bcc"])
            headers = "".join(f"{k}: {v}\n" for k, v in message.items() if k.lower() not in ("received", "delivered-to", "return-path"))
            self.assertNotIn("bob@example.com", headers)

    def test_attachments_and_html_arrive_intact(self):
        subject = self.unique("report")
        payload = bytes((i * 31 + 7) % 256 for i in range(50_000))
        path = os.path.join(self.tmp.name, "Übersicht Q3.pdf")
        with open(path, "wb") as f:
            f.write(payload)
        html = os.path.join(self.tmp.name, "body.html")
        with open(html, "w") as f:
            f.write("<p>See the <b>report</b>.</p>\n")
        self.send("--from", "alice@example.org", "--to", "bob@example.com", "--subject", subject,
                  "--body-file", "-", "--html-file", html, "--attach", path, stdin=b"See the report.\n")
        [message] = self.inbox("bob", subject)
        self.assertEqual(message.get_content_type(), "multipart/mixed")
        self.assertEqual(message.get_body(("plain",)).get_content().replace("\r\n", "\n"), "See the report.\n")
        self.assertIn("<b>report</b>", message.get_body(("html",)).get_content())
        [attachment] = list(message.iter_attachments())
        self.assertEqual(attachment.get_filename(), "Übersicht Q3.pdf")
        self.assertEqual(attachment.get_content_type(), "application/pdf")
        self.assertEqual(attachment.get_content(), payload)

    def test_a_message_over_the_servers_size_is_refused_before_sending(self):
        subject = self.unique("too big")
        path = os.path.join(self.tmp.name, "big.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(300_000))
        _, err = self.send("--from", "alice@example.org", "--to", "bob@example.com", "--subject", subject,
                           "--attach", path, expect=1)
        self.assertIn("accepts at most", err)
        self.assertIn("(its SIZE)", err)
        self.assertIn("nothing was sent", err)
        self.assertEqual(self.inbox("bob", subject, count=1, timeout=1), [])

    def test_subject_line_breaks_cannot_add_headers(self):
        subject = self.unique("hi")
        self.send("--from", "alice@example.org", "--to", "bob@example.com",
                  "--subject", subject + "\r\nBcc: carol@example.com\r\n\r\nforged")
        [message] = self.inbox("bob", subject + "  Bcc: carol@example.com    forged")
        self.assertIsNone(message["Bcc"])
        self.assertEqual(self.inbox("carol", subject + "  Bcc: carol@example.com    forged", count=1, timeout=1), [])

    def test_an_address_with_a_line_break_is_refused(self):
        _, err = self.send("--from", "alice@example.org", "--to", "bob@example.com\r\nRCPT TO:<carol@example.com>",
                           "--subject", "x", expect=1)
        self.assertIn("contains a carriage return", err)
        self.assertEqual(self.inbox("carol", "x", count=1, timeout=1), [], "nothing reached the injected recipient")

    def test_a_unicode_address_needs_smtputf8(self):
        _, err = self.send("--from", "alice@example.org", "--to", "jörg@example.com", "--subject", "x", expect=1)
        self.assertIn("does not offer SMTPUTF8", err)

    # -- failures ----------------------------------------------------------------------------------------

    def test_a_wrong_password_says_so(self):
        wrong = os.path.join(self.tmp.name, "wrong")
        with open(wrong, "w") as f:
            f.write("nope\n")
        done = subprocess.run([BINARY, "send", "--smtp", f"127.0.0.1:{self.server.submission_port}", "--tls", "starttls",
                               "--ca-file", self.server.ca_file, "--user", "alice", "--password-file", wrong,
                               "--from", "alice@example.org", "--to", "bob@example.com"], capture_output=True, timeout=60)
        self.assertEqual(done.returncode, 1)
        err = done.stderr.decode()
        self.assertIn(f"the server 127.0.0.1:{self.server.submission_port} refused the login of alice", err)
        self.assertIn("535", err)
        self.assertNotIn("nope", err)

    def test_an_untrusted_certificate_is_refused(self):
        done = subprocess.run([BINARY, "send", "--smtp", f"127.0.0.1:{self.server.submissions_port}", "--tls", "implicit",
                               "--from", "alice@example.org", "--to", "bob@example.com"], capture_output=True, timeout=60)
        self.assertEqual(done.returncode, 1)
        self.assertIn("is not signed by a trusted authority", done.stderr.decode())
        self.assertIn("--ca-file", done.stderr.decode())

    def test_starttls_on_the_implicit_tls_port_explains_itself(self):
        done = subprocess.run([BINARY, "send", "--smtp", f"127.0.0.1:{self.server.submissions_port}", "--tls", "starttls",
                               "--timeout", "3", "--ca-file", self.server.ca_file,
                               "--from", "alice@example.org", "--to", "bob@example.com"], capture_output=True, timeout=60)
        self.assertEqual(done.returncode, 1)
        self.assertIn(f"127.0.0.1:{self.server.submissions_port}", done.stderr.decode())

    def test_account_add_stores_the_smtp_server_and_send_uses_it(self):
        data = os.path.join(self.tmp.name, "account-data")
        env = dict(os.environ, ALICE_PW="alice-password")
        common = ["--data-dir", data]
        done = subprocess.run([BINARY, "account", "add", "home", "--imap", f"127.0.0.1:{self.server.port}", "--starttls",
                               "--ca-file", self.server.ca_file, "--user", "alice", "--password-env", "ALICE_PW",
                               "--smtp", f"127.0.0.1:{self.server.submission_port}", "--email", "alice@example.org", *common],
                              capture_output=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertIn(f"It sends through 127.0.0.1:{self.server.submission_port} (STARTTLS)", done.stdout.decode())
        listed = json.loads(subprocess.run([BINARY, "account", "list", "--json", *common], capture_output=True, check=True).stdout)
        [entry] = listed
        self.assertEqual((entry["imap"]["smtpHost"], entry["imap"]["smtpPort"], entry["imap"]["smtpSecurity"]),
                         ("127.0.0.1", self.server.submission_port, "startTLS"))
        subject = self.unique("through the account")
        done = subprocess.run([BINARY, "send", "--account", "home", "--to", "bob@example.com", "--subject", subject,
                               "--json", *common], capture_output=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertEqual(json.loads(done.stdout)["accepted"], ["bob@example.com"])
        [message] = self.inbox("bob", subject)
        self.assertEqual(message["From"], "alice@example.org", "the account's address is the sender")
        # And the account keeps a copy in its Sent folder, once, with the same Message-ID.
        [copy] = self.inbox("alice", subject, folder="Sent")
        self.assertEqual(copy["Message-ID"], message["Message-ID"])
        unfiled = self.unique("no copy asked")
        done = subprocess.run([BINARY, "send", "--account", "home", "--to", "bob@example.com", "--subject", unfiled,
                               "--no-sent-copy", *common], capture_output=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.inbox("bob", unfiled)
        self.assertEqual(self.inbox("alice", unfiled, count=0, timeout=0, folder="Sent"), [])
        # A wrong SMTP password keeps the account from being saved.
        bad = subprocess.run([BINARY, "account", "add", "other", "--imap", f"127.0.0.1:{self.server.port}", "--starttls",
                              "--ca-file", self.server.ca_file, "--user", "alice", "--password-env", "ALICE_PW",
                              "--smtp", f"127.0.0.1:{self.server.tls_port}", "--smtp-tls", "implicit", *common],
                             capture_output=True, env=env, timeout=60)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("SMTP:", bad.stderr.decode())
        self.assertIn("the account was not saved", bad.stderr.decode())


class ScriptedServerTests(unittest.TestCase):
    """Servers that misbehave on purpose, in this process: silence, no STARTTLS."""

    def serve(self, script):
        """A one-connection server on a free port running script(conn); returns its port."""
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        self.addCleanup(listener.close)

        def run():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                try:
                    script(conn)
                except OSError:
                    pass

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return listener.getsockname()[1]

    def run_send(self, port, *extra):
        started = time.monotonic()
        done = subprocess.run([BINARY, "send", "--smtp", f"127.0.0.1:{port}", "--from", "a@example.org", "--to", "b@example.org",
                               *extra], capture_output=True, timeout=60)
        return done, time.monotonic() - started

    def test_a_silent_server_times_out(self):
        port = self.serve(lambda conn: time.sleep(15))
        done, elapsed = self.run_send(port, "--tls", "starttls", "--timeout", "2")
        self.assertEqual(done.returncode, 1)
        self.assertIn(f"the server 127.0.0.1:{port} sent nothing for 2 s while waiting for the greeting", done.stderr.decode())
        self.assertLess(elapsed, 10)

    def test_no_starttls_means_no_sending_in_clear(self):
        def script(conn):
            conn.sendall(b"220 old.example ESMTP\r\n")
            f = conn.makefile("rb")
            f.readline()
            conn.sendall(b"250-old.example\r\n250 AUTH PLAIN\r\n")
            f.readline()

        port = self.serve(script)
        done, _ = self.run_send(port, "--tls", "starttls", "--user", "a", "--password-env", "HOME")
        self.assertEqual(done.returncode, 1)
        self.assertIn("does not offer STARTTLS; refusing to go on without TLS", done.stderr.decode())

    def test_auth_login_and_the_mail_from_parameters_on_the_wire(self):
        received = []

        def script(conn):
            f = conn.makefile("rb")

            def expect():
                line = f.readline()
                received.append(line)
                return line

            conn.sendall(b"220 old.example ESMTP\r\n")
            expect()  # EHLO
            conn.sendall(b"250-old.example\r\n250-AUTH LOGIN\r\n250-SIZE 100000\r\n250 8BITMIME\r\n")
            expect()  # AUTH LOGIN
            conn.sendall(b"334 VXNlcm5hbWU6\r\n")
            expect()
            conn.sendall(b"334 UGFzc3dvcmQ6\r\n")
            expect()
            conn.sendall(b"235 2.7.0 Authentication successful\r\n")
            expect()  # MAIL FROM
            conn.sendall(b"250 2.1.0 Ok\r\n")
            expect()  # RCPT TO
            conn.sendall(b"250 2.1.5 Ok\r\n")
            expect()  # DATA
            conn.sendall(b"354 End data with <CR><LF>.<CR><LF>\r\n")
            while True:
                line = expect()
                if line in (b".\r\n", b""):
                    break
            conn.sendall(b"250 2.0.0 Ok: queued as ABC123\r\n")
            expect()  # QUIT
            conn.sendall(b"221 2.0.0 Bye\r\n")

        port = self.serve(script)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as body:
            body.write("Grüße\n.hidden dot\n")
        self.addCleanup(os.unlink, body.name)
        env = dict(os.environ, SCRIPTED_PW="pässword")
        done = subprocess.run([BINARY, "send", "--smtp", f"127.0.0.1:{port}", "--tls", "none", "--user", "alice",
                               "--password-env", "SCRIPTED_PW", "--from", "a@example.org", "--to", "b@example.org",
                               "--subject", "wire", "--body-file", body.name, "--eight-bit", "--json"],
                              capture_output=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertEqual(json.loads(done.stdout)["reply"], "250 2.0.0 Ok: queued as ABC123")
        self.assertEqual(received[0], b"EHLO [127.0.0.1]\r\n")
        self.assertEqual(received[1:4], [b"AUTH LOGIN\r\n", b"YWxpY2U=\r\n", b"cMOkc3N3b3Jk\r\n"])
        size = json.loads(done.stdout)["size"]
        self.assertEqual(received[4], f"MAIL FROM:<a@example.org> SIZE={size} BODY=8BITMIME\r\n".encode())
        self.assertEqual(received[5:7], [b"RCPT TO:<b@example.org>\r\n", b"DATA\r\n"])
        data = b"".join(received[7:-1])
        self.assertIn(b"Content-Transfer-Encoding: 8bit\r\n", data)
        self.assertIn("\r\nGrüße\r\n..hidden dot\r\n".encode(), data, "8-bit text as is, the dot stuffed")
        self.assertTrue(data.endswith(b"\r\n.\r\n"))
        self.assertEqual(received[-1], b"QUIT\r\n")

    def test_a_temporary_refusal_after_the_data_says_to_try_again(self):
        def script(conn):
            f = conn.makefile("rb")
            conn.sendall(b"220 busy.example ESMTP\r\n")
            f.readline()
            conn.sendall(b"250-busy.example\r\n250 ENHANCEDSTATUSCODES\r\n")
            for reply in (b"250 2.1.0 Ok\r\n", b"250 2.1.5 Ok\r\n", b"354 go\r\n"):
                f.readline()
                conn.sendall(reply)
            while f.readline() not in (b".\r\n", b""):
                pass
            conn.sendall(b"451 4.3.0 Queue full, try again later\r\n")
            f.readline()
            conn.sendall(b"221 Bye\r\n")

        port = self.serve(script)
        done, _ = self.run_send(port, "--tls", "none")
        self.assertEqual(done.returncode, 1)
        err = done.stderr.decode()
        self.assertIn(f"the server 127.0.0.1:{port} refused the message after receiving it; it was not sent "
                      "(a temporary refusal: try again later) (the server said: 451 4.3.0 Queue full, try again later)", err)

    def test_a_server_that_is_not_smtp_is_named(self):
        port = self.serve(lambda conn: (conn.sendall(b"* OK IMAP4rev1 ready\r\n"), time.sleep(2)))
        done, _ = self.run_send(port, "--tls", "none")
        self.assertEqual(done.returncode, 1)
        self.assertIn(f"the server 127.0.0.1:{port} broke SMTP's reply format", done.stderr.decode())


def main():
    return dovecot.run_binary_tests("SMTP tests", sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
