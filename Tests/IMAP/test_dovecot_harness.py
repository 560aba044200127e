#!/usr/bin/env python3
"""The Dovecot harness (dovecot.py) checked with Python's imaplib, so that the Swift IMAP tests can trust it.

    python3 Tests/IMAP/test_dovecot_harness.py        # or: python3 -m unittest discover -s Tests/IMAP

No Dovecot installed is a failure, never a skip: run scripts/install-deps.sh.
"""
import base64
import imaplib
import json
import os
import re
import smtplib
import socket
import ssl
import subprocess
import sys
import time
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dovecot  # noqa: E402
from dovecot import Dovecot, DovecotMissing, Message  # noqa: E402

# Capabilities the sync engine relies on (after login; Dovecot lists fewer before it).
REQUIRED_CAPABILITIES = {"IMAP4REV1", "CONDSTORE", "QRESYNC", "IDLE", "UIDPLUS", "SPECIAL-USE", "LITERAL+",
                         "ENABLE", "MOVE", "ESEARCH"}


def setUpModule():
    # Raises DovecotMissing ("... run scripts/install-deps.sh"): unittest counts it as an error, not a skip.
    dovecot.find_binaries()


def message(subject, body="Hello.\r\n", date="Mon, 04 Mar 2002 14:11:14 -0800", extra=""):
    return (f"From: Carol <carol@example.com>\r\nTo: alice@example.com\r\nSubject: {subject}\r\n"
            f"Date: {date}\r\nMessage-ID: <{subject.replace(' ', '.')}@example.com>\r\n{extra}\r\n{body}").encode()


FIXTURES = {
    "alice": {
        "INBOX": [message("first"), Message(message("second"), flags=["\\Seen", "\\Flagged", "$Forwarded"]),
                  message("third", date="Tue, 05 Mar 2002 09:00:00 +0000")],
        "Sent": [Message(message("sent one"), flags=["\\Seen"])],
        "Archive/2001": [message("archived")],
        "Entwürfe": [message("draft")],
    },
    "bob": {"INBOX": [message("for bob")]},
}


def capabilities(client):
    typ, data = client.capability()
    return set(data[0].decode().upper().split())


def untagged(client, name):
    return client.untagged_responses.get(name, [])


class HarnessTestCase(unittest.TestCase):
    """A fresh Dovecot with the fixtures for every test (it starts in about 0.2 s)."""

    def setUp(self):
        self.server = Dovecot(mail=FIXTURES)
        self.addCleanup(self.server.close)
        self.server.start()

    def login(self, user="alice", **kwargs):
        client = self.server.imap(user, **kwargs)
        self.addCleanup(_quietly_logout, client)
        return client


def _quietly_logout(client):
    """LOGOUT if the connection still works; close the socket in any case."""
    try:
        client.logout()
    except (imaplib.IMAP4.error, OSError, ValueError):
        try:
            client.shutdown()
        except OSError:
            pass


class ConnectionTests(HarnessTestCase):
    def test_login_on_the_plaintext_port(self):
        client = self.login()
        typ, data = client.select("INBOX", readonly=True)
        self.assertEqual((typ, data), ("OK", [b"3"]))

    def test_starttls_verifies_against_the_generated_ca(self):
        client = self.server.imap()
        self.addCleanup(_quietly_logout, client)
        self.assertIn("STARTTLS", capabilities(client))
        client.starttls(self.server.ssl_context())  # verifies the chain and that the certificate names 127.0.0.1
        self.assertEqual(client.login("alice", "alice-password")[0], "OK")
        self.assertEqual(client.sock.version()[:5], "TLSv1")

    def test_the_certificate_is_not_trusted_without_the_ca(self):
        with socket.create_connection((self.server.host, self.server.tls_port), timeout=5) as raw:
            with self.assertRaises(ssl.SSLCertVerificationError):
                ssl.create_default_context().wrap_socket(raw, server_hostname=self.server.host)

    def test_implicit_tls_with_the_ca(self):
        client = self.server.imap(security="tls")
        self.addCleanup(_quietly_logout, client)
        self.assertNotIn("STARTTLS", capabilities(client))  # already TLS
        client.login("bob", "bob-password")
        self.assertEqual(client.select("INBOX")[1], [b"1"])

    def test_wrong_password_is_a_no_with_authenticationfailed(self):
        client = self.server.imap()
        self.addCleanup(client.shutdown)
        started = time.monotonic()
        with self.assertRaises(imaplib.IMAP4.error) as caught:
            client.login("alice", "not-her-password")
        self.assertIn("AUTHENTICATIONFAILED", str(caught.exception))
        self.assertLess(time.monotonic() - started, 1.5)
        # The connection stays usable, and the right password still works.
        self.assertEqual(client.login("alice", "alice-password")[0], "OK")

    def test_capabilities(self):
        client = self.login()
        self.assertLessEqual(REQUIRED_CAPABILITIES, capabilities(client))

    def test_password_change_and_removed_user(self):
        self.server.set_password("bob", "new-password")
        with self.assertRaises(imaplib.IMAP4.error):
            self.login("bob", password="bob-password")
        self.login("bob", password="new-password")
        self.server.remove_user("bob")
        with self.assertRaises(imaplib.IMAP4.error):
            self.login("bob", password="new-password")
        self.assertFalse(os.path.exists(self.server.home("bob")))


class MailboxTests(HarnessTestCase):
    def test_list_shows_special_use_flags_and_the_fixture_folders(self):
        client = self.login()
        typ, lines = client.list('""', '"*"')
        listed = {}
        for line in lines:
            flags, sep, name = re.match(rb'\(([^)]*)\) "(.)" (.*)', line).groups()
            self.assertEqual(sep, b"/")
            listed[name.strip(b'"').decode()] = set(flags.decode().split())
        for name, flag in dovecot.SPECIAL_USE.items():
            self.assertIn(flag, listed[name], name)
        self.assertIn("INBOX", listed)
        self.assertIn("Archive/2001", listed)
        self.assertIn("Entw&APw-rfe", listed)  # "Entwürfe" in modified UTF-7
        typ, lines = client._simple_command("LIST", "(SPECIAL-USE)", '""', '"*"')
        special = client._untagged_response(typ, lines, "LIST")[1]
        self.assertEqual(len(special), len(dovecot.SPECIAL_USE))

    def test_fixture_uids_flags_and_dates(self):
        client = self.login()
        client.select("INBOX")
        typ, data = client.uid("FETCH", "1:*", "(FLAGS INTERNALDATE BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        fetched = [d for d in data if isinstance(d, tuple)]
        self.assertEqual([re.search(rb"Subject: (\w+)", body).group(1) for _, body in fetched],
                         [b"first", b"second", b"third"])  # UIDs 1, 2, 3 in the order given
        second = fetched[1][0]
        for flag in (b"\\Seen", b"\\Flagged", b"$Forwarded"):
            self.assertIn(flag, second)
        self.assertIn(b'INTERNALDATE "04-Mar-2002 22:11:14 +0000"', fetched[0][0])  # from the Date header
        self.assertEqual(client.select("Sent")[1], [b"1"])
        self.assertEqual(client.select('"Entw&APw-rfe"')[1], [b"1"])

    def test_append_then_uid_search_finds_it(self):
        uid = self.server.append("alice", "INBOX", message("quarterly budget"), flags=["\\Seen"])
        self.assertEqual(uid, 4)
        client = self.login()
        client.select("INBOX")
        self.assertEqual(client.uid("SEARCH", "SUBJECT", '"quarterly budget"')[1], [b"4"])
        self.assertEqual(client.uid("SEARCH", "UNSEEN")[1], [b"1 3"])

    def test_uidvalidity_change_through_doveadm(self):
        client = self.login()
        client.select("INBOX")
        before = int(untagged(client, "UIDVALIDITY")[-1])
        self.server.set_uidvalidity("alice", "INBOX", before + 1000)
        # Dovecot drops a session that has the mailbox selected: BYE at its next command.
        with self.assertRaises(imaplib.IMAP4.abort):
            client.noop()
        fresh = self.login()
        fresh.select("INBOX")
        self.assertEqual(int(untagged(fresh, "UIDVALIDITY")[-1]), before + 1000)
        self.assertEqual(self.server.status("alice")["uidvalidity"], before + 1000)
        uids = fresh.uid("SEARCH", "ALL")[1]
        self.assertEqual(uids, [b"1 2 3"])  # the messages keep their UIDs; only the validity changed

    def test_expunge_and_flags_through_doveadm_reach_condstore_and_qresync(self):
        client = self.login()
        client.enable("QRESYNC")
        client.select("INBOX")
        validity = int(untagged(client, "UIDVALIDITY")[-1])
        modseq = int(re.search(rb"\d+", untagged(client, "HIGHESTMODSEQ")[-1]).group())
        client.logout()

        self.server.expunge("alice", "INBOX", [2])
        self.server.add_flags("alice", "INBOX", 3, ["\\Flagged", "$Important"])
        self.server.remove_flags("alice", "INBOX", 3, ["$Important"])
        self.assertGreater(self.server.status("alice")["highestmodseq"], modseq)

        again = self.login()
        again.enable("QRESYNC")
        typ, data = again._simple_command("SELECT", "INBOX", f"(QRESYNC ({validity} {modseq}))")
        self.assertEqual(typ, "OK")
        self.assertEqual(untagged(again, "VANISHED"), [b"(EARLIER) 2"])
        changed = b" ".join(untagged(again, "FETCH"))
        self.assertRegex(changed, rb"UID 3 .*\\Flagged")
        self.assertNotIn(b"$Important", changed)
        self.assertRegex(changed, rb"MODSEQ \(\d+\)")


class FailureAndPushTests(HarnessTestCase):
    def test_kill_mid_fetch_cuts_the_connection_and_restart_serves_the_same_data(self):
        big = [message(f"big {i}", body="x" * 60000 + "\r\n") for i in range(300)]
        self.server.write_messages("alice", "Archive", big)
        client = self.login()
        client.select("Archive")
        validity = untagged(client, "UIDVALIDITY")[-1]
        client.send(client._new_tag() + b" UID FETCH 1:* (BODY.PEEK[])\r\n")
        first = client.sock.recv(65536)
        self.assertTrue(first.startswith(b"* 1 FETCH"), first[:40])
        sid = self.server.proc.pid
        self.server.kill()
        self.assertEqual(dovecot._session_processes(sid), [])
        client.sock.settimeout(5)
        with self.assertRaises((OSError, EOFError)):
            while True:  # the rest of what the kernel buffered, then the end: EOF or a reset
                if not client.sock.recv(1 << 20):
                    raise EOFError
        ports = (self.server.port, self.server.tls_port)
        self.server.restart()
        self.assertEqual((self.server.port, self.server.tls_port), ports)
        fresh = self.login()
        self.assertEqual(fresh.select("Archive")[1], [b"300"])
        self.assertEqual(untagged(fresh, "UIDVALIDITY")[-1], validity)
        self.assertEqual(fresh.uid("SEARCH", "ALL")[1][0].split()[-1], b"300")

    def test_idle_gets_exists_within_two_seconds_of_deliver(self):
        client = self.login()
        client.select("INBOX")
        client.send(client._new_tag() + b" IDLE\r\n")
        self.assertTrue(client.readline().startswith(b"+"))
        client.sock.settimeout(2)
        started = time.monotonic()
        self.server.deliver("alice", message("pushed"))
        line = client.readline()  # socket.timeout (a failure) if nothing comes within 2 s
        elapsed = time.monotonic() - started
        self.assertEqual(line, b"* 4 EXISTS\r\n")
        self.assertLess(elapsed, 2.0)
        client.send(b"DONE\r\n")
        client.sock.settimeout(10)
        while not re.match(rb"\w+ OK", client.readline()):
            pass

    def test_close_leaves_no_process_and_no_directory(self):
        sid = self.server.proc.pid
        directory = self.server.dir
        self.server.close()
        self.assertEqual(dovecot._session_processes(sid), [])
        self.assertFalse(os.path.exists(directory))


class PrerequisiteTests(unittest.TestCase):
    def test_missing_dovecot_is_an_error_that_names_the_install_script(self):
        with mock.patch.object(dovecot.os, "access", return_value=False), \
                mock.patch.object(dovecot.shutil, "which", return_value=None):
            with self.assertRaises(DovecotMissing) as caught:
                Dovecot()
        self.assertIn("scripts/install-deps.sh", str(caught.exception))

    def test_missing_submission_service_is_an_error_that_names_the_packages(self):
        real_access = os.access
        with mock.patch.object(dovecot.os, "access", side_effect=lambda p, m: "submission" not in p and real_access(p, m)), \
                mock.patch.object(dovecot.shutil, "which", return_value=None):
            with self.assertRaises(DovecotMissing) as caught:
                Dovecot(submission=True)
        self.assertIn("dovecot-submissiond", str(caught.exception))

    def test_ensure_installed_runs_the_install_script_once_then_fails_if_still_missing(self):
        missing = DovecotMissing("submission (dovecot-submissiond) not found")
        with mock.patch.object(dovecot, "find_binaries", side_effect=missing) as find, \
                mock.patch.object(dovecot.subprocess, "run") as run, \
                mock.patch.dict(os.environ, {"MAILSEARCH_NO_INSTALL": ""}):
            with self.assertRaises(DovecotMissing):
                dovecot.ensure_installed(submission=True)
        self.assertEqual(run.call_count, 1)
        self.assertTrue(run.call_args.args[0][0].endswith("scripts/install-deps.sh"))
        self.assertEqual(find.call_count, 2)
        with mock.patch.object(dovecot, "find_binaries", side_effect=missing), \
                mock.patch.object(dovecot.subprocess, "run") as run, \
                mock.patch.dict(os.environ, {"MAILSEARCH_NO_INSTALL": "1"}):
            with self.assertRaises(DovecotMissing):
                dovecot.ensure_installed(submission=True)
        self.assertEqual(run.call_count, 0)


class ControlModeTests(unittest.TestCase):
    """The command line's JSON control mode, which tests in other languages (Swift) drive."""

    def test_control_mode(self):
        proc = subprocess.Popen([sys.executable, os.path.join(HERE, "dovecot.py"), "--control", "--user", "carol:pw"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(proc.kill)
        info = json.loads(proc.stdout.readline())
        self.assertEqual(info["users"], {"carol": "pw"})

        def call(op, **args):
            proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            self.assertTrue(answer["ok"], answer)
            return answer["result"]

        uid = call("append", user="carol", mailbox="INBOX", data_base64=base64.b64encode(message("hi")).decode())
        self.assertEqual(uid, 1)
        call("kill")
        with self.assertRaises(OSError):
            socket.create_connection((info["host"], info["port"]), timeout=2).close()
        call("restart")
        self.assertEqual(call("status", user="carol", mailbox="INBOX")["messages"], 1)
        proc.stdin.close()  # end of input: it stops Dovecot and removes its directory
        self.assertEqual(proc.wait(timeout=20), 0)
        self.assertFalse(os.path.exists(info["dir"]))


class SubmissionTests(unittest.TestCase):
    """The SMTP side (submission=True) checked with Python's smtplib, so that the sending tests can trust it:
    Dovecot's submission service, its relay through lmtp_relay.py and Dovecot's LMTP into the INBOX."""

    def setUp(self):
        dovecot.find_binaries(submission=True)  # DovecotMissing names dovecot-submissiond / dovecot-lmtpd
        self.server = Dovecot(submission=True, max_mail_size=50_000)
        self.addCleanup(self.server.close)
        self.server.start()

    def test_starttls_login_and_delivery_into_the_inbox(self):
        client = self.server.smtp("alice")
        self.addCleanup(client.quit)
        code, text = client.ehlo()
        self.assertEqual(code, 250)
        self.assertIn(b"SIZE 50000", text)
        refused = client.sendmail("alice@example.org", ["bob@example.com", "nobody@example.com"],
                                  message("via submission", body="line\r\n.\r\n"))
        self.assertEqual(list(refused), ["nobody@example.com"])
        self.assertEqual(refused["nobody@example.com"][0], 550)
        imap = self.server.imap("bob")
        self.addCleanup(_quietly_logout, imap)
        imap.select("INBOX")
        typ, data = imap.fetch("1", "(BODY.PEEK[])")
        self.assertIn(b"Message-ID: <via.submission@example.com>", data[0][1])
        self.assertTrue(data[0][1].endswith(b"line\r\n.\r\n"), data[0][1][-40:])

    def test_implicit_tls_and_auth_before_tls(self):
        client = self.server.smtp("alice", security="tls")
        client.quit()
        plain = self.server.smtp(security="plain")
        self.addCleanup(plain.quit)
        code, text = plain.ehlo()
        self.assertIn(b"STARTTLS", text)

    def test_a_message_over_the_size_is_refused(self):
        client = self.server.smtp("alice")
        self.addCleanup(client.quit)
        with self.assertRaises(smtplib.SMTPSenderRefused) as caught:
            client.sendmail("alice@example.org", ["bob@example.com"], message("big", body="x" * 60_000))
        self.assertEqual(caught.exception.smtp_code, 552)

    def test_control_mode_describes_the_smtp_ports(self):
        proc = subprocess.Popen([sys.executable, os.path.join(HERE, "dovecot.py"), "--control", "--submission"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(proc.kill)
        info = json.loads(proc.stdout.readline())
        for key in ("submission_port", "submissions_port", "lmtp_port", "relay_port"):
            self.assertIsInstance(info[key], int, key)
        socket.create_connection((info["host"], info["submission_port"]), timeout=5).close()
        proc.stdin.close()
        self.assertEqual(proc.wait(timeout=20), 0)


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    # max(): a failed setUpModule (no Dovecot) is an error without a test run.
    print(f"IMAP harness: {max(result.testsRun - failed - skipped, 0)} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed or not result.testsRun else 0)
