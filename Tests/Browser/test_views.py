"""Several accounts at once in the page (001 G-02), against a real Dovecot with two users, each added
through the API and synced by `serve`: the folder list's views (every account's inbox, one account's
mail, one folder) listed with an empty search box, newest first, with the API's count; a search inside
a view; Esc and the URL bringing a listing back; the account on each result and on each message of a
conversation; and the reply's From chosen from the account the conversation came to, with every account
offered for a new message."""
import email.utils
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "IMAP"))

import harness  # noqa: E402
from dovecot import Dovecot  # noqa: E402
from support import UITestCase, number_in  # noqa: E402

PASSPHRASE = "two accounts one page"
USERS = {"work": "work-password", "home": "home-password"}
# (user, folder, hours ago, subject, a word only this message has)
MAIL = [
    ("work", "INBOX", 5, "Rota for the weekend", "quokka"),
    ("work", "INBOX", 30, "Supplier invoice", "pademelon"),
    ("work", "Archive", 200, "Last year's offsite", "wombat"),
    ("home", "INBOX", 2, "Dinner on Friday", "numbat"),
    ("home", "INBOX", 12, "The plumber's quote", "potoroo"),
    ("home", "INBOX", 50, "Photos from the beach", "dunnart"),
    ("home", "Archive", 300, "Old lease", "bilby"),
]

SIDEBAR_JS = r"""
return [...document.querySelectorAll('#folders button.folder')].map(b => ({
  view: b.dataset.view, text: b.querySelector('.folder-name').textContent,
  count: b.querySelector('.folder-count') ? b.querySelector('.folder-count').textContent : null,
  selected: b.classList.contains('selected'), current: b.getAttribute('aria-current') === 'true'}));
"""

ROWS_JS = r"""
return [...document.querySelectorAll('ol#results > li.result')].map(li => ({
  subject: li.querySelector('.subject') ? li.querySelector('.subject').textContent.trim() : null,
  account: li.querySelector('.badge.account') ? li.querySelector('.badge.account').textContent.trim() : null}));
"""


def message(user, n, hours, subject, word):
    date = email.utils.formatdate(time.time() - 3600 * hours)
    return (f"From: Friend {n} <friend{n}@example.net>\r\nTo: {user}@example.com\r\nSubject: {subject}\r\n"
            f"Date: {date}\r\nMessage-ID: <views-{user}-{n}@example.net>\r\n\r\nAbout the {word}, as promised.\r\n").encode()


class AccountViewsTests(UITestCase):
    """One Dovecot (work: 2 in INBOX, 1 in Archive; home: 3 in INBOX, 1 in Archive), one data directory and
    serve for the class, both accounts added through the API."""

    @classmethod
    def setUpClass(cls):
        cls.dovecot = Dovecot(users=dict(USERS), submission=True)
        cls.dovecot.start()
        cls.main_server = cls.ctx.server
        cls.work = tempfile.mkdtemp(prefix="mailsearch-browser-views-")
        try:
            for n, (user, folder, hours, subject, word) in enumerate(MAIL):
                cls.dovecot.append(user, folder, message(user, n, hours, subject, word), date=time.time() - 3600 * hours)
            cls.ctx.server = cls.serve_two_accounts()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        served, cls.ctx.server = cls.ctx.server, cls.main_server
        try:
            cls.ctx.driver.get("about:blank")  # the page stops asking the server that stops now
        except Exception:
            pass
        if served is not cls.main_server:
            served.stop()
        cls.dovecot.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def serve_two_accounts(cls):
        main = cls.main_server
        server = harness.Server(main.binary, os.path.join(cls.work, "data"), main.model_dir, os.path.join(cls.work, "serve.log"),
                                web_dir=main.web_dir, env={"MAILSEARCH_SECRET_STORE": "file"}).start()
        status, body = server.request("POST", "/api/secrets/unlock", {"passphrase": PASSPHRASE})
        assert status == 200, body
        d = cls.dovecot
        for user in USERS:
            form = {"name": user.capitalize(), "email": f"{user}@example.com", "username": user, "password": USERS[user],
                    "imapHost": d.host, "imapPort": d.tls_port, "imapSecurity": "tls", "caFile": d.ca_file,
                    "smtpHost": d.host, "smtpPort": d.submission_port, "smtpSecurity": "startTLS", "syncWindowDays": 0}
            status, body = server.request("POST", "/api/accounts", form)
            assert status == 201, body
        expected = {u.capitalize(): sum(1 for m in MAIL if m[0] == u) for u in USERS}
        deadline = time.time() + 60
        while True:
            accounts = {a["name"]: a["emails"] for a in server.get_json("/api/accounts")["accounts"]}
            if accounts == expected:
                return server
            if time.time() > deadline:
                server.stop()
                raise AssertionError(f"the accounts never synced: {accounts} (expected {expected})")
            time.sleep(0.3)

    # MARK: plumbing

    def sidebar(self):
        return self.js(SIDEBAR_JS)

    def accounts(self):
        return {a["name"]: a["id"] for a in self.server.get_json("/api/mailboxes")["accounts"]}

    def listing(self, scope):
        """The API's listing of a view: its conversations without text, newest first."""
        return self.server.search("", scope=scope, mode="keyword", limit=100)

    def click_view(self, view):
        self.el(f'#folders button.folder[data-view="{view}"]').click()

    def wait_listing(self, scope, label):
        api = self.listing(scope)
        subjects = [r["subject"] for r in api["results"]]
        self.wait(lambda: [r["subject"] for r in self.js(ROWS_JS)] == subjects, 8,
                  f"the page to list {label}: {subjects}")
        count = self.state()["count"]
        self.assertEqual(number_in(count), api["conversationCount"], count)
        self.assertTrue(count.startswith(label), f"the count line does not say what it lists: {count!r}")
        return api

    def search_in_view(self, word, scope, matched, accounts):
        """Types `word` with a view listed: the page shows the API's answer in that scope, whose matches
        (not the conversations only related by meaning) are `matched`, every row of `accounts`."""
        api = self.server.search(word, scope=scope)
        self.assertEqual([r["subject"] for r in api["results"] if r["match"] != "semantic"], matched,
                         f"the API's matches for {word!r} in {scope}")
        self.type_into_search(word)
        self.wait_for_count(word, scope=scope)
        self.assertEqual(self.query_param("scope"), scope)
        rows = self.js(ROWS_JS)
        self.assertLessEqual({r["account"] for r in rows}, accounts, f"a row of another account for {word!r}: {rows}")
        self.assertEqual([r["subject"] for r in rows][:len(matched)], matched)

    # MARK: tests

    def test_1_unified_inbox_and_account_views(self):
        from selenium.webdriver.common.keys import Keys
        ids = self.accounts()
        self.assertEqual(set(ids), {"Work", "Home"})
        self.open("/")
        self.wait(lambda: self.state()["zero"], 5, "the zero state on an empty box")
        views = [b["view"] for b in self.sidebar()]
        self.assertEqual(views[0], "inboxes", "the unified inbox comes first")
        for name, account_id in ids.items():
            self.assertIn(f"account:{account_id}", views, f"{name} has no view of its own")
        heading = self.el(f'#folders button.folder[data-view="account:{ids["Home"]}"]')
        self.assertEqual(heading.accessible_name, "All mail of Home")
        inbox_unread = sum(f["unreadCount"] for f in self.server.get_json("/api/mailboxes")["folders"]
                           if (f.get("type") or f.get("folderType")) == "inbox")
        self.assertEqual(inbox_unread, 5, "precondition: 5 unread messages in the two inboxes")
        self.assertEqual((self.sidebar()[0]["text"], self.sidebar()[0]["count"]), ("All inboxes", "5 unread"))

        # Every inbox: both accounts' inbox mail, newest first, none of the archives; each row names its account.
        self.click_view("inboxes")
        api = self.wait_listing("inboxes", "All inboxes")
        self.assertEqual(api["conversationCount"], 5)
        rows = self.js(ROWS_JS)
        self.assertEqual([r["subject"] for r in rows], ["Dinner on Friday", "Rota for the weekend", "The plumber's quote",
                                                        "Supplier invoice", "Photos from the beach"], "newest first")
        self.assertEqual([r["account"] for r in rows], ["Home", "Work", "Home", "Work", "Home"])
        self.assertEqual(self.query_param("scope"), "inboxes", "the URL names the view")
        self.assertIsNone(self.query_param("q"))
        self.assertTrue([b for b in self.sidebar() if b["view"] == "inboxes"][0]["current"])

        # A search inside the view: an archived message is not in the inboxes, an inbox one is.
        self.search_in_view("wombat", "inboxes", [], {"Work", "Home"})
        self.search_in_view("potoroo", "inboxes", ["The plumber's quote"], {"Work", "Home"})
        self.assertEqual(self.query_param("scope"), "inboxes")
        # Esc empties the box and brings the listing back.
        self.el("input#search").send_keys(Keys.ESCAPE)
        self.wait_listing("inboxes", "All inboxes")
        self.assertEqual(self.query_param("scope"), "inboxes")

        # One account's view: its inbox and its archive, nothing of the other account.
        self.click_view(f"account:{ids['Home']}")
        api = self.wait_listing(f"account:{ids['Home']}", "All of Home")
        self.assertEqual(api["conversationCount"], 4)
        rows = self.js(ROWS_JS)
        self.assertEqual({r["account"] for r in rows}, {"Home"})
        self.assertIn("Old lease", [r["subject"] for r in rows], "the account's archive is in its view")
        self.search_in_view("wombat", f"account:{ids['Home']}", [], {"Home"})
        self.search_in_view("bilby", f"account:{ids['Home']}", ["Old lease"], {"Home"})

        # A reload of a listing's URL lists it again.
        self.open(f"/?scope=account:{ids['Work']}")
        self.wait_listing(f"account:{ids['Work']}", "All of Work")
        self.assertEqual([r["account"] for r in self.js(ROWS_JS)], ["Work"] * 3)
        # One folder of one account: named with its account.
        folder = next(f for f in self.server.get_json("/api/mailboxes")["folders"]
                      if f["accountId"] == ids["Work"] and (f.get("type") or f.get("folderType")) == "archive")
        self.click_view(f"folder:{folder['id']}")
        self.wait_listing(f"folder:{folder['id']}", f"{folder['name']} (Work)")
        # Back to the first listing, then to the zero state (All Mail, the box empty).
        self.driver.back()
        self.wait_listing(f"account:{ids['Work']}", "All of Work")
        from selenium.webdriver.support.ui import Select
        Select(self.el("#scope")).select_by_value("all")
        self.wait(lambda: self.state()["zero"] and not self.state()["results"], 5, "All Mail with an empty box: the zero state")
        self.assertIsNone(self.query_param("scope"))
        self.assert_console_clean("the account views")

    def test_2_account_on_messages_and_reply_from(self):
        ids = self.accounts()
        self.open(f"/?scope=account:{ids['Home']}")
        self.wait_listing(f"account:{ids['Home']}", "All of Home")
        row = next(li for li in self.els("ol#results > li.result") if "Dinner on Friday" in li.text)
        row.click()
        self.wait(lambda: self.state()["thread"] and self.state()["threadTitle"] == "Dinner on Friday", 8, "the conversation")
        badges = [b.text.strip() for b in self.els("#thread article.message .badge.account")]
        self.assertEqual(badges, ["Home"], "each message names its account")
        self.keys("r")
        self.wait(lambda: self.el("#compose-from").is_displayed(), 8, "the reply composer")
        choices = self.js("return [...document.querySelectorAll('#compose-from option')].map(o => o.value)")
        self.assertEqual(sorted(choices), ["Home", "Work"], "every account that can send is offered")
        self.assertEqual(self.el("#compose-from").get_attribute("value"), "Home",
                         "a reply is sent from the account the conversation came to")
        drafts = self.server.get_json("/api/drafts")
        drafts = drafts.get("drafts", drafts) if isinstance(drafts, dict) else drafts
        self.assertTrue(any(d.get("account") == "Home" for d in drafts), drafts)

        # The same from Work's side.
        self.open(f"/?scope=account:{ids['Work']}")
        self.wait_listing(f"account:{ids['Work']}", "All of Work")
        row = next(li for li in self.els("ol#results > li.result") if "Supplier invoice" in li.text)
        row.click()
        self.wait(lambda: self.state()["threadTitle"] == "Supplier invoice", 8, "Work's conversation")
        self.assertEqual([b.text.strip() for b in self.els("#thread article.message .badge.account")], ["Work"])
        self.keys("r")
        self.wait(lambda: self.el("#compose-from").is_displayed() and self.el("#compose-from").get_attribute("value") == "Work",
                  8, "the reply from Work")
        self.drain_console()

