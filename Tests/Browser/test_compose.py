"""Compose, reply, forward and undo-send on the search page (compose.js), each checked on a real Dovecot:
a mailbox with an IMAP account that sends through Dovecot's submission service (dovecot.py, submission=True),
which delivers into the recipients' INBOX, where the tests read the message's headers back."""
import email
import email.policy
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "IMAP"))

import harness  # noqa: E402
from dovecot import Dovecot  # noqa: E402
from support import UITestCase  # noqa: E402

UNDO_SECONDS = 3
# The submission service's SIZE in this class (Dovecot's submission_max_mail_size).
MAX_MAIL_SIZE = 500_000


def newsletter(remote_host):
    """An HTML email with a remote image (the counting server): composing a reply to it must load nothing."""
    return (f"From: News <news@example.com>\r\nTo: alice@example.org\r\nSubject: Quarterly walrus digest\r\n"
            f"Date: Mon, 16 Nov 2026 11:00:00 +0000\r\nMessage-ID: <walrus-1@example.com>\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: text/html; charset=utf-8\r\n\r\n<p>The walrus digest.</p>"
            f"<img src=\"http://{remote_host}/compose-probe/walrus.png\" width=\"300\" height=\"200\">\r\n").encode()

PARENT = (b"From: Bob Example <bob@example.com>\r\nTo: Alice <alice@example.org>\r\nCc: carol@example.com\r\n"
          b"Subject: Kayak trip\r\nDate: Mon, 16 Nov 2026 09:00:00 +0000\r\nMessage-ID: <kayak-1@example.com>\r\n"
          b"References: <kayak-0@example.com>\r\n\r\nShall we paddle on Saturday?\r\n")

WITH_ATTACHMENT = (b"From: Bob Example <bob@example.com>\r\nTo: alice@example.org\r\nSubject: Zeppelin photos\r\n"
                   b"Date: Mon, 16 Nov 2026 10:00:00 +0000\r\nMessage-ID: <zeppelin-1@example.com>\r\nMIME-Version: 1.0\r\n"
                   b"Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\n"
                   b"The zeppelin pictures.\r\n--b1\r\nContent-Type: image/png; name=\"zeppelin.png\"\r\n"
                   b"Content-Disposition: attachment; filename=\"zeppelin.png\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                   b"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==\r\n--b1--\r\n")


class ComposeTests(UITestCase):
    """One Dovecot (alice sends; bob and carol receive) and one `serve` for the class."""

    @classmethod
    def setUpClass(cls):
        cls.dovecot = Dovecot(users={"alice": "alice-password", "bob": "bob-password", "carol": "carol-password"},
                              submission=True, max_mail_size=MAX_MAIL_SIZE)
        cls.dovecot.start()
        cls.dovecot.append("alice", "INBOX", PARENT)
        cls.dovecot.append("alice", "INBOX", WITH_ATTACHMENT)
        cls.dovecot.append("alice", "INBOX", newsletter(cls.ctx.hits.host))
        cls.work = tempfile.mkdtemp(prefix="mailsearch-browser-compose-")
        data = os.path.join(cls.work, "data")
        os.environ["MAILSEARCH_TEST_IMAP_PASSWORD"] = "alice-password"
        main_server = cls.ctx.server
        subprocess.run([main_server.binary, "account", "add", "work", "--imap", f"127.0.0.1:{cls.dovecot.tls_port}",
                        "--user", "alice", "--password-env", "MAILSEARCH_TEST_IMAP_PASSWORD", "--ca-file", cls.dovecot.ca_file,
                        "--email", "alice@example.org", "--sync-window", "all",
                        "--smtp", f"127.0.0.1:{cls.dovecot.submission_port}", "--smtp-tls", "starttls"],
                       env=dict(os.environ, MAILSEARCH_DATA_DIR=data), check=True, capture_output=True, timeout=60)
        cls.main_server = main_server
        cls.compose_server = harness.Server(main_server.binary, data, main_server.model_dir, os.path.join(cls.work, "serve.log"),
                                            extra_args=["--undo-seconds", str(UNDO_SECONDS)]).start()
        cls.ctx.server = cls.compose_server

    @classmethod
    def tearDownClass(cls):
        cls.ctx.server = cls.main_server
        cls.compose_server.stop()
        cls.dovecot.close()
        os.environ.pop("MAILSEARCH_TEST_IMAP_PASSWORD", None)
        shutil.rmtree(cls.work, ignore_errors=True)

    def _callTestMethod(self, method):
        method()
        self.assert_console_clean("the compose panel")

    # MARK: helpers

    def received(self, user, subject, timeout=20):
        """`user`'s INBOX messages with this subject, parsed (waits for at least one)."""
        deadline = time.time() + timeout
        while True:
            found = []
            out = self.dovecot.doveadm("search", "-u", user, "mailbox", "INBOX", "header", "Subject", subject)
            for line in out.splitlines():
                if not line.strip():
                    continue
                uid = line.split()[1]
                raw = self.dovecot.doveadm("fetch", "-u", user, "text", "mailbox", "INBOX", "uid", uid)
                found.append(email.message_from_bytes(raw.split("text:\n", 1)[1].encode(), policy=email.policy.default))
            if found or time.time() > deadline:
                return found
            time.sleep(0.3)

    def wait_synced(self, word):
        self.wait(lambda: self.server.search(word)["conversationCount"] >= 1, 30, f"the mailbox never synced {word!r}")

    def compose_field(self, name):
        return self.el(f"#compose-{name}")

    def type_in(self, name, text):
        field = self.compose_field(name)
        field.click()
        field.send_keys(text)

    def send_and_wait_sent(self):
        self.el("#compose-send").click()
        self.wait(lambda: not self.js("return document.getElementById('send-toast').hidden"), 5, "the send toast")
        self.assertRegex(self.js("return document.querySelector('#send-toast .toast-text').textContent"), r"^Sending in \d s$")
        self.wait(lambda: self.js("return document.querySelector('#send-toast .toast-text').textContent") == "Message sent",
                  UNDO_SECONDS + 20, "the toast never said the message was sent")

    def open_conversation(self, word):
        self.open("/")
        self.search_ui(word)
        first = self.state()["results"][0]
        self.el(f'ol#results > li.result[data-thread-id="{first["thread"]}"]').click()
        self.wait(lambda: self.els("#thread .message-compose button"), 8, "the Reply/Forward buttons")

    # MARK: tests

    def test_compose_a_new_message(self):
        self.open("/")
        self.js("document.activeElement.blur()")  # the page opens with the search box focused: c would be typed there
        self.keys("c")
        self.wait(lambda: not self.js("return document.getElementById('compose').hidden"), 5, "the compose panel")
        self.assertEqual(self.js("return document.activeElement.id"), "compose-to")
        self.assertIn("alice@example.org", self.js("return document.getElementById('compose-from').selectedOptions[0].textContent"))
        self.type_in("to", "Bob <bob@example.com>")
        self.type_in("subject", "Lunch on the terrace")
        self.type_in("body", "Noon at ")
        self.el('#compose [data-format="bold"]').click()  # inserts *bold* with "bold" selected
        from selenium.webdriver.common.keys import Keys
        self.compose_field("body").send_keys("the terrace", Keys.END, "?\nAlice")
        self.assertEqual(self.js("return document.getElementById('compose-body').value"), "Noon at *the terrace*?\nAlice")
        self.send_and_wait_sent()
        [message] = self.received("bob", "Lunch on the terrace")
        self.assertEqual(message["From"].addresses[0].addr_spec, "alice@example.org")
        self.assertEqual(message.get_content_type(), "multipart/alternative")
        self.assertEqual(message.get_body(("plain",)).get_content().replace("\r\n", "\n").strip(), "Noon at *the terrace*?\nAlice")
        self.assertIn("Noon at <strong>the terrace</strong>?<br>", message.get_body(("html",)).get_content())
        self.assertIsNone(message["In-Reply-To"])

    def test_a_suggested_reply_in_the_conversation_opens_the_reply(self):
        self.wait_synced("paddle")
        self.open_conversation("paddle")
        latest = self.js("return Number([...document.querySelectorAll('#thread article.message')].pop().dataset.emailId)")
        answer = self.server.get_json(f"/api/emails/{latest}/replies")["replies"]
        self.assertTrue(answer["triggered"], "the kayak question asks alice something")
        texts = [s["text"] for s in answer["suggestions"]]
        self.wait(lambda: [b.text for b in self.els("#thread .reply-chips button.reply-chip")] == texts, 8, f"the reply chips {texts}")
        self.els("#thread .reply-chips button.reply-chip")[1].click()
        self.wait(lambda: self.js("return document.getElementById('compose-subject').value") == "Re: Kayak trip", 8, "the reply composer")
        body = self.js("return document.getElementById('compose-body').value")
        self.assertTrue(body.startswith(texts[1] + "\n"), body[:200])
        self.assertIn("> Shall we paddle on Saturday?", body)
        self.el("[data-compose-discard]").click()
        self.wait(lambda: self.js("return document.getElementById('compose').hidden"), 5, "the composer closed")

    def test_reply_threads_on_the_server(self):
        self.wait_synced("paddle")
        self.open_conversation("paddle")
        self.keys("r")
        self.wait(lambda: self.js("return document.getElementById('compose-subject').value") == "Re: Kayak trip", 8, "the reply's subject")
        self.assertEqual(self.js("return document.getElementById('compose-to').value"), "Bob Example <bob@example.com>")
        self.assertIn("> Shall we paddle on Saturday?", self.js("return document.getElementById('compose-body').value"))
        self.assertEqual(self.js("return document.activeElement.id"), "compose-body")
        self.compose_field("body").send_keys("Yes, at nine.")
        self.send_and_wait_sent()
        [message] = self.received("bob", "Re: Kayak trip")
        self.assertEqual(message["In-Reply-To"], "<kayak-1@example.com>")
        self.assertEqual(message["References"], "<kayak-0@example.com> <kayak-1@example.com>")
        text = message.get_content().replace("\r\n", "\n")
        self.assertTrue(text.startswith("Yes, at nine."), text)
        self.assertIn("wrote:\n> Shall we paddle on Saturday?", text)
        self.assertEqual(self.received("carol", "Re: Kayak trip", timeout=1), [], "a reply (not reply-all) leaves out the Cc")
        # The sent reply is in alice's mailbox (its Sent folder), found by search in the conversation it answers.
        thread = self.server.search("paddle")["results"][0]["threadId"]
        self.wait(lambda: any(r["threadId"] == thread for r in self.server.search('"yes at nine"')["results"]), 30,
                  "the sent reply was never found by search in its conversation")

    def test_reply_all_and_forward_with_the_attachment(self):
        self.wait_synced("paddle")
        self.open_conversation("paddle")
        # Reply-all to the first message (the earlier test's reply is filed in this conversation too).
        button = self.el('#thread .message-compose button[data-compose="replyAll"]')
        parent_id = self.js("return Number(arguments[0].closest('article.message').dataset.emailId)", button)
        button.click()
        self.wait(lambda: self.js("return document.getElementById('compose-cc').value") == "carol@example.com", 8, "reply-all's Cc")
        # The suggested replies of the email (001 §5.5.3), as the API gives them: a click writes one above the quote.
        answer = self.server.get_json(f"/api/emails/{parent_id}/replies")["replies"]
        expected = [s["text"] for s in answer["suggestions"]][:3] if answer["triggered"] else []
        chips_js = "return [...document.querySelectorAll('#compose .compose-suggestions .reply-chip')].map(b => b.textContent)"
        if expected:
            self.wait(lambda: self.js(chips_js) == expected, 8, f"the suggested replies {expected}")
            self.el("#compose .compose-suggestions .reply-chip").click()
            self.assertTrue(self.js("return document.getElementById('compose-body').value").startswith(expected[0] + "\n\n"))
        else:
            time.sleep(1)
            self.assertEqual(self.js(chips_js), [], "no suggestion when the email asks nothing")
        self.compose_field("subject").clear()
        self.type_in("subject", "Re: Kayak trip (all)")
        self.send_and_wait_sent()
        self.assertEqual(len(self.received("carol", "Re: Kayak trip (all)")), 1)

        self.wait_synced("zeppelin")
        self.open_conversation("zeppelin")
        self.keys("f")
        self.wait(lambda: self.js("return document.getElementById('compose-subject').value") == "Fwd: Zeppelin photos", 8, "the forward")
        self.assertEqual(self.js("return [...document.querySelectorAll('.compose-attachment span:first-child')].map(s => s.textContent)"),
                         ["zeppelin.png"])
        self.type_in("to", "carol@example.com")
        self.send_and_wait_sent()
        [message] = self.received("carol", "Fwd: Zeppelin photos")
        [attachment] = list(message.iter_attachments())
        self.assertEqual(attachment.get_filename(), "zeppelin.png")
        self.assertEqual(attachment.get_content_type(), "image/png")
        self.assertIn("---------- Forwarded message ---------", message.get_body(("plain",)).get_content())

    def test_replying_to_html_mail_loads_nothing_remote(self):
        self.wait_synced("walrus")
        since = time.time()
        self.open_conversation("walrus")
        self.keys("r")
        self.wait(lambda: self.js("return document.getElementById('compose-subject').value") == "Re: Quarterly walrus digest", 8,
                  "the reply")
        body = self.js("return document.getElementById('compose-body').value")
        self.assertIn("> The walrus digest.", body)
        self.assertNotIn("<img", body, "the quote is the text, never the markup")
        self.assertEqual(self.js("return document.querySelectorAll('#compose img, #compose iframe').length"), 0)
        time.sleep(0.7)
        self.assertEqual(self.ctx.hits.count("/compose-probe/", since), 0, "composing loaded a remote image")
        self.el("[data-compose-discard]").click()
        self.wait(lambda: self.js("return document.getElementById('compose').hidden"), 5, "the panel closed")

    def test_an_attachment_over_the_servers_size_is_refused(self):
        path = os.path.join(self.work, "too-big.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(MAX_MAIL_SIZE))
        self.open("/")
        self.el("#compose-new").click()
        self.wait(lambda: not self.js("return document.getElementById('compose').hidden"), 5, "the compose panel")
        self.el("#compose-files").send_keys(path)
        message = self.wait(lambda: (lambda b: b if b and not self.js("return document.getElementById('banner').hidden") else None)(
            self.js("return document.querySelector('#banner .banner-message').textContent")), 10, "the refusal")
        self.assertIn("too-big.bin", message)
        self.assertIn("accepts at most", message)
        self.assertEqual(self.js("return document.querySelectorAll('.compose-attachment').length"), 0)
        self.el("#banner .banner-close").click()
        self.el("[data-compose-discard]").click()
        # Chromium logs every 4xx answer to fetch: the refusal's 413 is expected, and nothing else.
        problems = self.console_problems()
        self.assertTrue(all("attachments?name=too-big.bin" in p and "413" in p for p in problems), problems)

    def test_undo_send_never_arrives(self):
        self.open("/")
        self.js("document.activeElement.blur()")  # the page opens with the search box focused: c would be typed there
        self.keys("c")
        self.wait(lambda: not self.js("return document.getElementById('compose').hidden"), 5, "the compose panel")
        self.type_in("to", "bob@example.com")
        self.type_in("subject", "Regrettable remark")
        self.type_in("body", "On second thought…")
        self.el("#compose-send").click()
        self.wait(lambda: not self.js("return document.getElementById('send-toast').hidden"), 5, "the send toast")
        self.el("#send-toast button").click()
        self.wait(lambda: not self.js("return document.getElementById('compose').hidden"), 5, "the draft back in the panel")
        self.assertEqual(self.js("return document.getElementById('compose-subject').value"), "Regrettable remark")
        draft_id = self.js("return document.getElementById('compose').dataset.draftId")
        self.el("[data-compose-close]").click()
        self.wait(lambda: self.js("return document.getElementById('compose').hidden"), 5, "the panel closed")
        time.sleep(UNDO_SECONDS + 3)
        self.assertEqual(self.received("bob", "Regrettable remark", timeout=0), [], "an undone message never arrives")
        status, draft = self.server.request("GET", f"/api/drafts/{draft_id}")
        self.assertEqual(draft["state"], "draft")
        self.assertIn(int(draft_id), [d["id"] for d in self.server.get_json("/api/drafts")])
        # The draft is there to open again from the page, then to discard.
        self.el("#drafts-button").click()
        self.wait(lambda: self.els(f'#drafts-list .draft-item[data-draft-id="{draft_id}"]'), 5, "the draft in the list")
        self.el(f'#drafts-list .draft-item[data-draft-id="{draft_id}"]').click()
        self.wait(lambda: self.js("return document.getElementById('compose-subject').value") == "Regrettable remark", 5, "the draft reopened")
        self.assertEqual(self.js("return document.getElementById('compose-body').value"), "On second thought…")
        self.el("[data-compose-discard]").click()
        self.wait(lambda: int(draft_id) not in [d["id"] for d in self.server.get_json("/api/drafts")], 5, "the draft discarded")
