"""The sync status on the search page (docs/web-ui.md `#sync-status`), with a real Dovecot: a
mailbox with an IMAP account served by `mailsearch serve`, which syncs it in the background."""
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

SYNC_LINE_JS = r"""
const box = document.querySelector('#sync-status');
const line = box ? box.querySelector('.sync-line[data-account="work"]') : null;
return {hidden: !box || box.hidden, state: line ? line.dataset.state : null,
        text: line ? line.textContent.replace(/\s+/g, ' ').trim() : null,
        inbox: [...document.querySelectorAll('#folders li')].map(li => li.textContent.replace(/\s+/g, ' ').trim())
                 .find(t => t.startsWith('INBOX')) || null};
"""


def message(n, body=None):
    return (f"From: Sender {n % 4} <sender{n % 4}@example.com>\r\nTo: alice@example.com\r\n"
            f"Subject: Weekly report {n}\r\nDate: Mon, 16 Nov 2026 09:{n % 60:02d}:00 +0000\r\n"
            f"Message-ID: <sync-ui-{n}@example.com>\r\n\r\n{body or f'Report number {n}.'}\r\n").encode()


class SyncStatusTests(UITestCase):

    def _callTestMethod(self, method):
        method()
        self.assert_console_clean("the search page of a syncing mailbox")

    def serve_imap_account(self, main_server, dovecot, work):
        """`account add work` (alice on `dovecot`) in a new data folder under `work`, then `serve` on
        it, which syncs it in the background; the page's server from now on."""
        data = os.path.join(work, "data")
        os.environ["MAILSEARCH_TEST_IMAP_PASSWORD"] = "alice-password"
        env = dict(os.environ, MAILSEARCH_DATA_DIR=data)
        subprocess.run([main_server.binary, "account", "add", "work", "--imap", f"127.0.0.1:{dovecot.tls_port}",
                        "--user", "alice", "--password-env", "MAILSEARCH_TEST_IMAP_PASSWORD",
                        "--ca-file", dovecot.ca_file, "--sync-window", "all"],
                       env=env, check=True, capture_output=True, timeout=60)
        server = harness.Server(main_server.binary, data, main_server.model_dir, os.path.join(work, "serve.log")).start()
        self.ctx.server = server
        return server

    def test_embedding_progress(self):
        # A mailbox imported without embeddings, served with background embedding: the page says how
        # much of the mail semantic search covers while it grows, and says nothing once it is done.
        work = tempfile.mkdtemp(prefix="mailsearch-browser-embed-")
        main_server = self.ctx.server
        server = None
        try:
            data = os.path.join(work, "data")
            env = dict(os.environ, MAILSEARCH_DATA_DIR=data)
            mbox = os.path.join(work, "demo.mbox")
            subprocess.run([main_server.binary, "demo", "--count", "600", "--output", mbox], env=env, check=True,
                           capture_output=True, timeout=120)
            subprocess.run([main_server.binary, "import", mbox, "--account", "demo"], env=env, check=True,
                           capture_output=True, timeout=300)
            server = harness.Server(main_server.binary, data, main_server.model_dir, os.path.join(work, "serve.log"),
                                    background_embedding=True).start()
            self.ctx.server = server
            self.open("/")
            line_js = ("const l = document.querySelector('#sync-status .embedding-progress');"
                       "return l && !document.querySelector('#sync-status').hidden ? l.textContent : null;")
            text = self.wait(lambda: self.js(line_js), 30, "no embedding progress on the page")
            self.assertRegex(text, r"^Semantic search: [\d,]+ of 600 emails, newest first")
            self.wait(lambda: server.get_json("/api/status")["embeddedEmails"] == 600, 240, "the embedding never finished")
            self.wait(lambda: self.js(line_js) is None, 20, "the progress line stayed after the embedding ended")
        finally:
            self.ctx.server = main_server
            if server:
                self.driver.get("about:blank")  # the page stops polling the server that stops now
                server.stop()
            shutil.rmtree(work, ignore_errors=True)

    def test_sync_status_and_new_mail(self):
        # The demo mailbox has no IMAP account: no status line.
        self.open("/")
        self.assertTrue(self.js("return document.querySelector('#sync-status').hidden"),
                        "a mailbox without IMAP accounts shows no sync status")

        work = tempfile.mkdtemp(prefix="mailsearch-browser-sync-")
        main_server = self.ctx.server
        sync_server = None
        try:
            with Dovecot(users={"alice": "alice-password"}) as dovecot:
                for n in range(300):
                    dovecot.append("alice", "INBOX", message(n))
                sync_server = self.serve_imap_account(main_server, dovecot, work)
                self.open("/")

                # The pass ends, the account listens, the folder list has the synced mail.
                # The folder counts follow the status on their own refresh: wait for both.
                state = self.wait(lambda: (lambda s: s if s["state"] == "listening" and "300" in (s["inbox"] or "") else None)(self.js(SYNC_LINE_JS)),
                                  30, "the account never showed as listening with its INBOX of 300")
                self.assertFalse(state["hidden"])
                self.assertIn("Up to date", state["text"])
                self.assertIn("listening for new mail", state["text"])
                self.assertIn("300", state["inbox"])

                # New mail arrives (IDLE): it can be searched for from the page, and the count follows.
                dovecot.deliver("alice", message(1000, body="The zeppelin maintenance schedule is attached."))
                self.wait(lambda: self.server.search("zeppelin")["conversationCount"] == 1, 10,
                          "the delivered message never became searchable")
                self.search_ui("zeppelin")
                self.wait(lambda: [r["subject"] for r in self.state()["results"]] == ["Weekly report 1000"], 8,
                          "the page does not show the delivered message")
                self.wait(lambda: "301" in (self.js(SYNC_LINE_JS)["inbox"] or ""), 20,
                          "the folder count did not follow the new mail")
        finally:
            self.ctx.server = main_server
            if sync_server:
                # The page stops asking the server that stops now (its status poll would log a refused connection).
                self.driver.get("about:blank")
                sync_server.stop()
            os.environ.pop("MAILSEARCH_TEST_IMAP_PASSWORD", None)
            shutil.rmtree(work, ignore_errors=True)

    def test_mailbox_actions_reach_the_server(self):
        # A synced IMAP mailbox: opening a conversation marks it read, `s` stars it, `e` archives it,
        # and the outbox of `serve` writes each change to the Dovecot within seconds.
        work = tempfile.mkdtemp(prefix="mailsearch-browser-actions-")
        main_server = self.ctx.server
        sync_server = None
        try:
            with Dovecot(users={"alice": "alice-password"}) as dovecot:
                for n in range(3):
                    dovecot.append("alice", "INBOX", message(n, body=f"The quokka survey number {n}."))
                sync_server = self.serve_imap_account(main_server, dovecot, work)
                self.wait(lambda: self.server.search("quokka")["conversationCount"] == 3, 30, "the mailbox never synced")

                def flags(mailbox):
                    out = dovecot.doveadm("fetch", "-u", "alice", "flags hdr.subject", "mailbox", mailbox)
                    result, current = {}, set()
                    for line in out.splitlines():
                        if line.startswith("flags:"):
                            current = set(line[6:].split()) - {"\\Recent"}
                        elif line.lower().startswith("hdr.subject:"):
                            result[line.split(":", 1)[1].strip()] = current
                    return result

                self.open("/")
                self.search_ui("quokka")
                self.wait(lambda: len(self.state()["results"]) == 3, 8, "three results")
                first = self.state()["results"][0]
                subject = first["subject"]
                self.el(f'ol#results > li.result[data-thread-id="{first["thread"]}"]').click()
                self.wait(lambda: self.state()["thread"], 5, "#thread")
                self.wait(lambda: "\\Seen" in flags("INBOX").get(subject, set()), 10, "opening never marked it read on the server")

                self.keys("s")
                self.wait(lambda: self.js("return document.querySelector('.thread-actions [data-action=star]').getAttribute('aria-pressed')") == "true",
                          5, "the star button never showed the star")
                self.wait(lambda: "\\Flagged" in flags("INBOX").get(subject, set()), 10, "the star never reached the server")

                self.keys("e")
                self.wait(lambda: not self.state()["thread"], 5, "archiving did not go back to the list")
                self.wait(lambda: subject in flags("Archive"), 10, "the archive never reached the server")
                self.assertNotIn(subject, flags("INBOX"))
                self.assertEqual(flags("Archive")[subject], {"\\Seen", "\\Flagged"})
                status = self.server.get_json("/api/status")
                self.assertEqual([o["pending"] for o in status["outbox"]], [0])
        finally:
            self.ctx.server = main_server
            if sync_server:
                self.driver.get("about:blank")  # the page stops polling the server that stops now
                sync_server.stop()
            os.environ.pop("MAILSEARCH_TEST_IMAP_PASSWORD", None)
            shutil.rmtree(work, ignore_errors=True)

    def test_move_through_the_folder_picker(self):
        # `v` and the Move… button open the folder picker (not a prompt): the account's folders, a filter
        # box, arrows and Enter; Esc closes it without moving anything. The move reaches the Dovecot.
        from selenium.webdriver.common.keys import Keys
        work = tempfile.mkdtemp(prefix="mailsearch-browser-picker-")
        main_server = self.ctx.server
        sync_server = None
        try:
            with Dovecot(users={"alice": "alice-password"}) as dovecot:
                for n in range(2):
                    dovecot.append("alice", "INBOX", message(n, body=f"The wombat census number {n}."))
                dovecot.create_mailbox("alice", "Projects")
                dovecot.create_mailbox("alice", "Clients/Acme")
                sync_server = self.serve_imap_account(main_server, dovecot, work)
                self.wait(lambda: self.server.search("wombat")["conversationCount"] == 2, 30, "the mailbox never synced")

                def subjects(mailbox):
                    out = dovecot.doveadm("fetch", "-u", "alice", "hdr.subject", "mailbox", mailbox)
                    return {line.split(":", 1)[1].strip() for line in out.splitlines() if line.lower().startswith("hdr.subject:")}

                picker_js = r"""
                    const d = document.querySelector('#folder-picker');
                    return {open: d.open, focused: document.activeElement === d.querySelector('input.picker-filter'),
                            options: [...d.querySelectorAll('[role=option]')].map(o => o.dataset.path),
                            active: (d.querySelector('[role=option][aria-selected=true]') || {dataset: {}}).dataset.path || null,
                            descendant: d.querySelector('input').getAttribute('aria-activedescendant'),
                            current: [...d.querySelectorAll('[role=option] .picker-here')].map(s => s.closest('[role=option]').dataset.path),
                            empty: !d.querySelector('.picker-empty').hidden};
                """
                self.open("/")
                self.search_ui("wombat")
                self.wait(lambda: len(self.state()["results"]) == 2, 8, "two results")
                first = self.state()["results"][0]
                subject = first["subject"]
                self.el(f'ol#results > li.result[data-thread-id="{first["thread"]}"]').click()
                self.wait(lambda: self.state()["threadTitle"], 5, "the conversation never loaded")

                # v: the picker, focused on its filter, lists the account's folders; the current one is marked.
                self.keys("v")
                state = self.wait(lambda: (lambda s: s if s["open"] and s["options"] else None)(self.js(picker_js)), 5,
                                  "v did not open the folder picker")
                self.assertTrue(state["focused"], "the filter box has the focus")
                self.assertTrue({"INBOX", "Projects", "Clients/Acme", "Archive", "Trash"} <= set(state["options"]), state["options"])
                self.assertEqual(state["current"], ["INBOX"])
                self.assertEqual(state["active"], state["options"][0])
                self.assertEqual(state["descendant"], "folder-picker-option-0")

                # The filter narrows the list; arrows move through what is left, wrapping.
                self.keys("acm")
                self.wait(lambda: self.js(picker_js)["options"] == ["Clients/Acme"], 3, "the filter did not narrow the list")
                self.keys(Keys.BACKSPACE, Keys.BACKSPACE, Keys.BACKSPACE)
                self.wait(lambda: len(self.js(picker_js)["options"]) == len(state["options"]), 3, "the filter did not widen again")
                self.keys(Keys.ARROW_DOWN)
                self.assertEqual(self.js(picker_js)["active"], state["options"][1])
                self.keys(Keys.ARROW_UP, Keys.ARROW_UP)
                self.assertEqual(self.js(picker_js)["active"], state["options"][-1])
                self.keys("zzzz")
                self.wait(lambda: self.js(picker_js)["empty"], 3, "no 'no folder matches' line")
                self.keys(Keys.ENTER)
                self.assertTrue(self.js(picker_js)["open"], "Enter with nothing to choose keeps the picker open")

                # Esc closes it; nothing moved, the conversation is still open.
                self.keys(Keys.ESCAPE)
                self.wait(lambda: not self.js(picker_js)["open"], 3, "Esc did not close the picker")
                self.assertTrue(self.state()["thread"], "Esc in the picker does not leave the conversation")
                time.sleep(0.5)
                self.assertIn(subject, subjects("INBOX"))
                self.assertEqual([o["pending"] for o in self.server.get_json("/api/status")["outbox"]], [0])

                # The Move… button opens it too: filter, Enter moves the conversation there.
                self.el('.thread-actions [data-action="move"]').click()
                self.wait(lambda: self.js(picker_js)["open"], 5, "the Move button did not open the picker")
                self.keys("proj")
                self.wait(lambda: self.js(picker_js)["options"] == ["Projects"], 3, "the filter did not find Projects")
                self.keys(Keys.ENTER)
                self.wait(lambda: not self.state()["thread"], 5, "the move did not go back to the list")
                self.assertFalse(self.js(picker_js)["open"])
                self.wait(lambda: subject in subjects("Projects"), 10, "the move never reached the server")
                self.assertNotIn(subject, subjects("INBOX"))
        finally:
            self.ctx.server = main_server
            if sync_server:
                self.driver.get("about:blank")  # the page stops polling the server that stops now
                sync_server.stop()
            os.environ.pop("MAILSEARCH_TEST_IMAP_PASSWORD", None)
            shutil.rmtree(work, ignore_errors=True)

    def test_a_refused_action_is_undone(self):
        # The page acts locally first; when the server refuses, the star goes back, the conversation
        # comes back and the error is shown. (The demo mailbox; the page's POSTs to …/actions answer 503.)
        refuse_js = r"""
            const original = window.fetch;
            window.fetch = (url, options = {}) => String(url).endsWith('/actions')
              ? Promise.resolve(new Response(JSON.stringify({error: 'The mailbox is busy', hint: 'try again'}),
                                             {status: 503, headers: {'Content-Type': 'application/json'}}))
              : original(url, options);
        """
        star_js = "return document.querySelector('.thread-actions [data-action=star]').getAttribute('aria-pressed');"
        banner_js = "const b = document.getElementById('banner'); return b.hidden ? null : b.textContent;"
        self.open("/")
        self.search_ui("budget")
        first = self.state()["results"][0]
        self.el(f'ol#results > li.result[data-thread-id="{first["thread"]}"]').click()
        self.wait(lambda: self.state()["threadTitle"], 5, "the conversation never loaded")
        starred = self.js(star_js)
        self.js(refuse_js)
        self.keys("s")
        self.wait(lambda: self.js(banner_js), 5, "no error shown for the refused star")
        self.assertIn("The mailbox is busy", self.js(banner_js))
        self.assertEqual(self.js(star_js), starred, "the star went back to what it was")
        self.keys("e")
        self.wait(lambda: self.state()["thread"] and self.js("return document.activeElement === document.querySelector('#thread h1')"),
                  5, "the conversation did not come back after the refused archive")
        self.assertEqual(self.query_param("thread"), str(first["thread"]))
