"""The Accounts dialog (accounts.js, `<dialog id="accounts">`) driven as a person would, against a real
Dovecot (IMAP and its submission service): the welcome on a first start, the password store's first
passphrase, a wrong password shown at its field and nothing saved, the account added and synced, Test
connection naming the field to fix, removal asking for the account's name, the per-account controls,
and the keyboard; OAuth 2.0 sign-in in a second tab against a real authorization server (oauth_server.py,
Authlib: consent page, Allow and Deny, a revoked grant and Sign in again); the sync window (what is fetched
as it is widened and narrowed); the removal of an account, after which nothing of it is left in the data
directory (rows of every table, files, secrets) and the other account is untouched; and the model step (size,
Not now, Download with progress). Each test has its own empty data directory and its own `serve`, with the
passwords and tokens kept in secrets.enc (MAILSEARCH_SECRET_STORE=file). With --screenshots, the first
start writes onboarding-1-welcome.png, onboarding-2-account.png, onboarding-4-added.png and accounts.png,
and the model step onboarding-3-model.png."""
import email.policy
import email.utils
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
from email.message import EmailMessage

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "IMAP"))

import harness  # noqa: E402
from dovecot import Dovecot  # noqa: E402
from oauth_server import OAuthServer  # noqa: E402
from support import UITestCase  # noqa: E402
from test_screenshots import png_size  # noqa: E402

PASSPHRASE = "correct horse battery staple"
USERS = {"alice": "alice-password", "bob": "bob-password", "carol": "carol-password",
         "dave": "dave-password", "erin": "erin-password", "frank": "frank-password"}
WORD = "pangolin"  # in alice's mail only
CAROL_WORD = "axolotl"  # in carol's mail only (the sign-in-again test adds to it)
DAVE_WORD = "quokka"  # in dave's mail only: 3, 45 and 400 days old (the sync window test)
DAVE_AGES = {3: "Fresh", 45: "Older", 400: "Ancient"}  # days → the first word of the subject
# The removal test: erin's account is removed, frank's stays. What is erin's alone, looked for everywhere
# afterwards (file names, file contents, every row of every table): her words, her correspondents' domain,
# her address and her password.
ERIN_TRACES = ["wombat", "marsupialia", "burrow-erin.example", "erin@example.com", "erin-password"]
FRANK_WORD = "kookaburra"

# One round trip: what the dialog shows.
DIALOG_JS = r"""
const d = document.querySelector('#accounts');
const shown = e => !!e && !e.hidden && e.checkVisibility({checkOpacity: false, checkVisibilityCSS: true});
const text = e => e ? e.textContent.replace(/\s+/g, ' ').trim() : null;
const q = s => d.querySelector(s);
const a = document.activeElement;
return {
  open: d.open,
  welcome: shown(q('.welcome')) ? text(q('.welcome')) : null,
  store: text(q('.secret-store')),
  unlock: shown(q('.secret-unlock')),
  unlockLabel: shown(q('.secret-unlock')) ? text(q('.secret-unlock label')) : null,
  unlockProblem: shown(q('.secret-unlock-problem')) ? text(q('.secret-unlock-problem')) : null,
  none: shown(q('.accounts-none')),
  accounts: [...d.querySelectorAll('.account-item')].map(li => ({
    name: li.dataset.account, text: text(li), sync: text(li.querySelector('.account-sync')),
    detail: text(li.querySelector('.account-detail')),
    window: li.querySelector('select') ? li.querySelector('select').value : null,
    defaultSender: li.querySelector('input[type=radio]') ? li.querySelector('input[type=radio]').checked : null})),
  problems: Object.fromEntries([...d.querySelectorAll('.field-problem')].filter(shown).map(p => [p.dataset.for, text(p)])),
  invalid: [...d.querySelectorAll('[aria-invalid=true]')].map(e => e.name || e.id),
  problem: shown(q('.account-problem')) ? text(q('.account-problem')) : null,
  message: shown(q('.accounts-message')) ? text(q('.accounts-message')) : null,
  state: text(q('.account-state')),
  servers: q('details.account-servers').open,
  focused: a ? (a.name || a.id || a.className || a.tagName.toLowerCase()) : null,
  focusInDialog: d.contains(a),
};
"""

FOLDERS_JS = r"""
return [...document.querySelectorAll('#folders li')].map(li => li.textContent.replace(/\s+/g, ' ').trim());
"""


def message(n, user, body):
    date = email.utils.formatdate(time.time() - 3600 * (n + 1))
    return (f"From: Sender {n} <sender{n}@example.net>\r\nTo: {user}@example.com\r\n"
            f"Subject: {user.capitalize()} note {n}\r\nDate: {date}\r\n"
            f"Message-ID: <accounts-ui-{user}-{n}@example.net>\r\n\r\n{body}\r\n").encode()


def aged_message(days):
    """dave's message `days` old, by its Date header (its INTERNALDATE is set by the APPEND)."""
    when = time.time() - days * 86400
    subject = f"{DAVE_AGES.get(days, 'Newest')} {DAVE_WORD} sighting"
    return when, (f"From: Wanda Walker <wanda@outback-dave.example>\r\nTo: dave@example.com\r\n"
                  f"Subject: {subject}\r\nDate: {email.utils.formatdate(when)}\r\n"
                  f"Message-ID: <window-{days}-{int(when)}@outback-dave.example>\r\n\r\n"
                  f"A {DAVE_WORD} was seen near the track, {days} days ago.\r\n").encode()


def conversation(user, correspondent, topic, bodies, attachment, other):
    """A conversation of three messages between `user` and `correspondent` (the last with `attachment`:
    (file name, text)), and one more message from `other`, as raw messages."""
    def build(n, sender, to, subject, body, refs=(), attach=None, hours=None):
        m = EmailMessage(policy=email.policy.SMTP)
        m["From"], m["To"], m["Subject"] = sender, to, subject
        m["Date"] = email.utils.formatdate(time.time() - 3600 * (hours or 6 - n))
        m["Message-ID"] = f"<{topic.split()[0].lower()}-{n}@{correspondent.split('@')[1].rstrip('>')}>"
        if refs:
            m["In-Reply-To"], m["References"] = refs[-1], " ".join(refs)
        m.set_content(body)
        if attach:
            m.add_attachment(attach[1].encode(), maintype="text", subtype="plain", filename=attach[0])
        return m
    me = f"{user}@example.com"
    first = build(1, correspondent, me, topic, bodies[0])
    second = build(2, me, correspondent, f"Re: {topic}", bodies[1], [first["Message-ID"]])
    third = build(3, correspondent, me, f"Re: {topic}", bodies[2], [first["Message-ID"], second["Message-ID"]], attachment)
    fourth = build(4, other[0], me, other[1], other[2], hours=12)
    return [m.as_bytes() for m in (first, second, third, fourth)]


def erin_mail():
    return conversation(
        "erin", "Quill Ranger <quill.ranger@burrow-erin.example>", "Wombat census plan",
        ["Hello Erin. We plan to count the wombat burrows along the northern creek next Tuesday. The rangers meet at the "
         "visitor centre at seven in the morning. Could you bring the infrared cameras and the burrow maps?",
         "Hi Quill. I will bring the infrared cameras and two spare batteries. The burrow maps need updating after the "
         "flood, so I will print new copies on Monday evening.",
         "Thanks Erin. The counts so far are in the attached register. We found fourteen wombat dens near the creek and "
         "three collapsed burrows. Please read the register before Tuesday."],
        ("wombat-register.txt", "Marsupialia burrow register: fourteen wombat dens near the creek, three collapsed.\n"),
        ("Doctor Moss <dr.moss@burrow-erin.example>", "Wombat feeding roster",
         "The orphaned wombat joeys need feeding every four hours. Please add your name to the roster."))


def frank_mail():
    return conversation(
        "frank", "Perch Watcher <perch.watcher@gumtree-frank.example>", "Kookaburra survey at dawn",
        ["Hello Frank. We plan to record the kookaburra chorus at dawn on Saturday. The volunteers meet at the old "
         "footbridge at five in the morning. Could you bring the parabolic microphone and the recorder?",
         "Hi Perch. I will bring the parabolic microphone and spare memory cards. The recorder needs new firmware, so "
         "I will update it on Thursday evening.",
         "Thanks Frank. The calls heard so far are in the attached list. We heard six kookaburra families along the "
         "river and two pairs near the school. Please read the list before Saturday."],
        ("kookaburra-calls.txt", "Dacelo chorus list: six kookaburra families along the river, two pairs near the school.\n"),
        ("Bird Lady <birdlady@gumtree-frank.example>", "Kookaburra nesting boxes",
         "The kookaburra nesting boxes on the river gums need cleaning before spring. Please add your name to the list."))


# MARK: the data directory, read from outside

def read_only(path):
    """A read-only connection (it never writes, never checkpoints the WAL of a serve that runs)."""
    return sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True, timeout=10)


# Which kind of id a column holds, by its name; `id` is the table's own kind (TABLE_KINDS).
ID_COLUMNS = {"accountId": "account", "account_id": "account", "emailId": "email", "email_id": "email",
              "parentEmailId": "email", "fromEmailId": "email", "threadId": "thread", "folderId": "folder",
              "targetFolderId": "folder", "attachmentId": "attachment", "draftId": "draft"}
TABLE_KINDS = {"accounts": "account", "emails": "email", "threads": "thread", "folders": "folder",
               "attachments": "attachment", "drafts": "draft", "outbox": "outbox", "draft_attachments": "draftAttachment",
               "email_fts_docsize": "email"}
# FTS5's shadow table of email_fts (email_id UNINDEXED, account_id UNINDEXED, …): id is the email's rowid.
SPECIAL_COLUMNS = {("email_fts_content", "id"): "email", ("email_fts_content", "c0"): "email",
                   ("email_fts_content", "c1"): "account", ("thread_summaries", "emailIds"): "emails"}


def account_ids(data, name):
    """Every id of the account `name` in mail.sqlite, by kind."""
    with read_only(os.path.join(data, "mail.sqlite")) as db:
        one = lambda sql, *args: {r[0] for r in db.execute(sql, args)}  # noqa: E731
        account = one("SELECT id FROM accounts WHERE name = ?", name)
        assert len(account) == 1, f"no account {name}"
        a = next(iter(account))
        ids = {"account": account,
               "email": one("SELECT id FROM emails WHERE accountId = ?", a),
               "thread": one("SELECT id FROM threads WHERE accountId = ?", a),
               "folder": one("SELECT id FROM folders WHERE accountId = ?", a),
               "attachment": one("SELECT id FROM attachments WHERE emailId IN (SELECT id FROM emails WHERE accountId = ?)", a),
               "draft": one("SELECT id FROM drafts WHERE accountId = ?", a),
               "outbox": one("SELECT id FROM outbox WHERE accountId = ?", a),
               "draftAttachment": one("SELECT id FROM draft_attachments WHERE draftId IN (SELECT id FROM drafts WHERE accountId = ?)", a)}
    return ids


def sqlite_files(data):
    return sorted(os.path.join(root, f) for root, _, files in os.walk(data) for f in files
                  if f.endswith(".sqlite"))


def rows_of(data, ids, traces=()):
    """Every value in every table of every database in the data directory that is one of `ids` in an id
    column, or holds one of `traces` in a text or a blob: {(file, table): [description, …]}."""
    found = {}
    traces = [t.encode() for t in traces]
    for path in sqlite_files(data):
        file = os.path.relpath(path, data)
        with read_only(path) as db:
            tables = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
            for table, sql in tables:
                if (sql or "").upper().startswith("CREATE VIRTUAL TABLE"):
                    continue  # its shadow tables are read instead (no tokenizer here to open it)
                columns = [c[1] for c in db.execute(f'PRAGMA table_info("{table}")')]
                kinds = {c: SPECIAL_COLUMNS.get((table, c)) or ID_COLUMNS.get(c) or (TABLE_KINDS.get(table) if c == "id" else None)
                         for c in columns}
                for row in db.execute(f'SELECT * FROM "{table}"'):
                    for column, value in zip(columns, row):
                        kind = kinds[column]
                        hit = None
                        if kind == "emails" and isinstance(value, str):
                            shared = {int(n) for n in re.findall(r"\d+", value)} & ids.get("email", set())
                            hit = f"emails {sorted(shared)}" if shared else None
                        elif kind and isinstance(value, int) and value in ids.get(kind, set()):
                            hit = f"{kind} {value}"
                        elif traces and isinstance(value, (str, bytes)):
                            raw = (value.encode() if isinstance(value, str) else value).lower()
                            words = [t.decode() for t in traces if t in raw]
                            hit = f"text {words}" if words else None
                        if hit:
                            found.setdefault((file, table), []).append(f"{column}: {hit}")
    return found


def files_with_traces(data):
    """Files under the data directory whose name or bytes hold one of ERIN_TRACES: {relative path: [trace, …]}."""
    found = {}
    for root, _, files in os.walk(data):
        for f in files:
            path = os.path.join(root, f)
            rel = os.path.relpath(path, data)
            try:
                raw = open(path, "rb").read().lower()
            except FileNotFoundError:
                continue  # a WAL checkpointed away meanwhile
            words = [t for t in ERIN_TRACES if t.encode() in raw or t in rel.lower()]
            if words:
                found[rel] = words
    return found


def secrets_in(data, passphrase):
    """secrets.enc opened as EncryptedFileStore does (its doc comment): {account: sorted purposes}."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    raw = open(os.path.join(data, "secrets.enc"), "rb").read()
    assert raw[:8] == b"MSSECRET" and raw[8] == 1 and raw[9] == 1, raw[:10]
    log2n, r, p, salt_length = raw[10], raw[11], raw[12], raw[13]
    header = raw[:14 + salt_length]
    salt = header[14:]
    key = hashlib.scrypt(passphrase.encode(), salt=salt, n=1 << log2n, r=r, p=p, dklen=32, maxmem=256 << 20)
    nonce, sealed = raw[len(header):len(header) + 12], raw[len(header) + 12:]
    payload = json.loads(AESGCM(key).decrypt(nonce, sealed, header))
    return {account: sorted(purposes) for account, purposes in payload["entries"].items()}


class AccountsTests(UITestCase):
    """One OAuth 2.0 authorization server and one Dovecot for the class (alice: 3 messages, bob: 1, carol: 2;
    dave: 3 of 3, 45 and 400 days ago; erin and frank: a conversation of 3 and one more message each; passwords
    and, through the authorization server's introspection, bearer tokens); each test its own data directory
    and serve."""
    maxDiff = None  # what is left behind is shown whole

    @classmethod
    def setUpClass(cls):
        cls.oauth = OAuthServer(users=dict(USERS))
        cls.oauth.start()
        try:
            cls.dovecot = Dovecot(users=dict(USERS), oauth=cls.oauth, submission=True)
            cls.dovecot.start()
        except BaseException:
            cls.oauth.close()
            raise
        for n in range(3):
            cls.dovecot.append("alice", "INBOX", message(n, "alice", f"The {WORD} survey, part {n}."))
        cls.dovecot.append("bob", "INBOX", message(0, "bob", "The quarterly figures."))
        for n in range(2):
            cls.dovecot.append("carol", "INBOX", message(n, "carol", f"The {CAROL_WORD} tank, part {n}."))
        for days in DAVE_AGES:
            when, raw = aged_message(days)
            cls.dovecot.append("dave", "INBOX", raw, date=when)
        for user, mail in (("erin", erin_mail()), ("frank", frank_mail())):
            for raw in mail:
                cls.dovecot.append(user, "INBOX", raw)

    @classmethod
    def tearDownClass(cls):
        cls.dovecot.close()
        cls.oauth.close()

    def setUp(self):
        super().setUp()
        # Chromium logs every 4xx answer to fetch: a test lists the refusals it provokes.
        self.expected_console = []

    def _callTestMethod(self, method):
        method()
        problems = [p for p in self.console_problems() if not any(re.search(e, p) for e in self.expected_console)]
        self.assertEqual(problems, [], "console errors or CSP violations in the Accounts dialog")

    # MARK: plumbing

    def serve_empty(self, model_dir=None, background_embedding=False):
        """A new, empty data directory served with the passwords in secrets.enc; the page's server
        until the test ends. model_dir: another model directory (an empty one: no model)."""
        main = self.ctx.server
        work = tempfile.mkdtemp(prefix="mailsearch-browser-accounts-")
        server = harness.Server(main.binary, os.path.join(work, "data"), model_dir or main.model_dir,
                                os.path.join(work, "serve.log"), web_dir=main.web_dir, background_embedding=background_embedding,
                                env={"MAILSEARCH_SECRET_STORE": "file"}).start()
        self.ctx.server = server

        def restore():
            self.ctx.server = main
            self.driver.get("about:blank")  # the page stops asking the server that stops now
            server.stop()
            shutil.rmtree(work, ignore_errors=True)
        self.addCleanup(restore)
        return server

    def form(self, user, **changes):
        """What the page would send for `user` on the Dovecot (the API form)."""
        d = self.dovecot
        form = {"email": f"{user}@example.com", "username": user, "password": USERS[user],
                "imapHost": d.host, "imapPort": d.tls_port, "imapSecurity": "tls", "caFile": d.ca_file,
                "smtpHost": d.host, "smtpPort": d.submission_port, "smtpSecurity": "startTLS", "syncWindowDays": 0}
        form.update(changes)
        return form

    def add_by_api(self, *users):
        """Accounts added straight through the API (the dialog's own adding is test 1's)."""
        status, _ = self.server.request("POST", "/api/secrets/unlock", {"passphrase": PASSPHRASE})
        self.assertEqual(status, 200)
        for user in users:
            status, body = self.server.request("POST", "/api/accounts", self.form(user))
            self.assertEqual(status, 201, body)
        self.wait(lambda: all(a["emails"] > 0 for a in self.accounts_api()), 30, "the accounts never synced")

    def accounts_api(self):
        return self.server.get_json("/api/accounts")["accounts"]

    def dialog(self):
        return self.js(DIALOG_JS)

    def wait_dialog(self, predicate, timeout=5.0, message="the dialog"):
        return self.wait(lambda: (lambda s: s if predicate(s) else None)(self.dialog()), timeout, message)

    def type_in(self, css, text):
        """Clicks a field, empties it and types, key by key."""
        from selenium.webdriver.common.keys import Keys
        field = self.el(css)
        field.click()
        if field.get_attribute("value"):
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(Keys.DELETE)
        field.send_keys(text)
        return field

    def choose(self, css, value):
        from selenium.webdriver.support.ui import Select
        Select(self.el(css)).select_by_value(value)

    def open_servers(self):
        if not self.dialog()["servers"]:
            self.el("#accounts details.account-servers > summary").click()
        self.wait_dialog(lambda s: s["servers"], 3, "the Servers section to open")

    def fill_servers(self, user, imap_host=None, imap_port=None):
        """The Servers section as a person fills it for the test's Dovecot."""
        d = self.dovecot
        self.open_servers()
        self.type_in("#account-username", user)
        self.type_in("#account-imap-host", imap_host or d.host)
        self.type_in("#account-imap-port", str(imap_port or d.tls_port))
        self.choose("#account-imap-security", "tls")
        self.type_in("#account-smtp-host", d.host)
        self.type_in("#account-smtp-port", str(d.submission_port))
        self.choose("#account-smtp-security", "startTLS")
        self.type_in("#account-ca", d.ca_file)

    def open_dialog(self):
        """The sidebar's Accounts… button, clicked."""
        self.el("#accounts-button").click()
        return self.wait_dialog(lambda s: s["open"] and s["accounts"] is not None and s["store"], 5, "the dialog to open")

    def item_control(self, account, css):
        return self.el(f'#accounts .account-item[data-account="{account}"] {css}')

    def alert(self, timeout=5):
        """window.prompt's dialog (never a script while it is up: chromedriver would dismiss it)."""
        deadline = time.perf_counter() + timeout
        while True:
            try:
                return self.driver.switch_to.alert
            except Exception:
                if time.perf_counter() > deadline:
                    raise AssertionError("no prompt appeared")
                time.sleep(0.05)

    def fill_oauth(self, user, scope="imap smtp"):
        """The address, the Servers and the OAuth section (provider Other, the test server's endpoints) as a
        person fills them; no password."""
        self.type_in("#account-email", f"{user}@example.com")
        self.fill_servers(user)
        if not self.js("return document.querySelector('#accounts details.account-oauth').open"):
            self.el("#accounts details.account-oauth > summary").click()
        self.wait(lambda: self.el("#account-oauth-provider").is_displayed(), 3, "the OAuth section to open")
        self.choose("#account-oauth-provider", "custom")
        self.wait(lambda: self.el("#account-authorize-url").is_displayed(), 3, "the custom endpoints to show")
        self.type_in("#account-client-id", self.oauth.client_id)
        self.type_in("#account-authorize-url", self.oauth.authorize_url)
        self.type_in("#account-token-url", self.oauth.token_url)
        self.type_in("#account-scope", scope)

    def consent_in_new_tab(self, button, decision, user):
        """Clicks `button` (an element), which opens the provider's page in a new tab; there presses Allow or
        Deny (`decision`), and waits for serve's callback page. Closes the tab, comes back to the page's, and
        returns what the callback page said: {title, outcome, url, question}, and `waiting`: what the
        form said while the provider's page was open (read before the decision: after it, the form moves on)."""
        from selenium.webdriver.common.by import By
        main = self.driver.current_window_handle
        before = set(self.driver.window_handles)
        button.click()
        handle = self.wait(lambda: next(iter(set(self.driver.window_handles) - before), None), 10,
                           "a new tab with the provider's page")
        waiting = self.dialog()["state"]
        self.driver.switch_to.window(handle)
        try:
            self.wait(lambda: self.driver.find_elements(By.ID, decision), 10, "the provider's consent page")
            self.assertTrue(self.driver.current_url.startswith(self.oauth.authorize_url + "?"), self.driver.current_url)
            question = self.driver.find_element(By.ID, "question").text
            self.assertEqual(question, f"Allow MailSearch to read and send mail as {user}?",
                             "the user name went to the provider as login_hint")
            self.assertEqual(self.driver.find_element(By.ID, "scope").text, "imap smtp")
            self.driver.find_element(By.ID, decision).click()
            self.wait(lambda: self.driver.find_elements(By.ID, "oauth-outcome"), 30, "serve's callback page")
            page = {"title": self.driver.find_element(By.TAG_NAME, "h1").text,
                    "outcome": self.driver.find_element(By.ID, "oauth-outcome").text,
                    "url": self.driver.current_url, "question": question,
                    "styled": self.js("return getComputedStyle(document.querySelector('main')).maxWidth"),
                    "icon": self.js("const l = document.querySelector('link[rel~=icon]'); return l && l.getAttribute('href')"),
                    "waiting": waiting}
        finally:
            self.driver.close()
            self.driver.switch_to.window(main)
        self.assertTrue(page["url"].startswith(self.server.base.replace("localhost", "127.0.0.1") + "/oauth/callback?")
                        or page["url"].startswith("http://127.0.0.1:"), page["url"])
        return page

    def account_line(self, name):
        accounts = {a["name"]: a for a in self.dialog()["accounts"]}
        return accounts.get(name)

    def account_api(self, name):
        return {a["name"]: a for a in self.accounts_api()}.get(name)

    def unlock_in_dialog(self):
        from selenium.webdriver.common.keys import Keys
        state = self.wait_dialog(lambda s: s["open"] and s["unlock"], 5, "the welcome to open by itself, asking for a passphrase")
        self.assertEqual(state["focused"], "secret-passphrase")
        self.type_in("#secret-passphrase", PASSPHRASE)
        self.keys(Keys.ENTER)
        self.wait_dialog(lambda s: not s["unlock"] and s["focused"] == "email", 5, "the store to unlock")

    def shoot(self, name):
        if not self.ctx.screenshots:
            return
        os.makedirs(self.ctx.screenshots, exist_ok=True)
        path = os.path.join(self.ctx.screenshots, name)
        time.sleep(0.4)  # transitions and fonts settle
        self.assertTrue(self.driver.save_screenshot(path), f"cannot write {path}")
        self.assertEqual(png_size(path), (1280, 900), f"{name} is not 1280×900")

    # MARK: tests

    def test_first_start_welcomes_and_adds_an_account(self):
        from selenium.webdriver.common.keys import Keys
        self.serve_empty()
        self.expected_console = [r"/api/secrets/unlock .*403", r"/api/accounts .*422"]
        self.open("/")

        # No account at all: the dialog opens by itself, with the welcome, focused on what comes first:
        # the password store wants a new passphrase.
        state = self.wait_dialog(lambda s: s["open"] and s["unlock"], 5, "the welcome to open by itself")
        self.assertIn("Welcome to MailSearch", state["welcome"])
        self.assertNotIn("demo mailbox", state["welcome"], "there is no demo mailbox on a first start")
        self.assertTrue(state["none"], "says there is no account yet")
        self.assertIn("Choose a passphrase", state["unlockLabel"])
        self.assertIn("locked", state["store"])
        self.assertEqual(state["focused"], "secret-passphrase", "the first field has the focus")
        self.shoot("onboarding-1-welcome.png")

        # Too short a passphrase is refused, and said where it was typed; a good one unlocks the store.
        self.keys("short", Keys.ENTER)
        state = self.wait_dialog(lambda s: s["unlockProblem"], 5, "the short passphrase to be refused")
        self.assertRegex(state["unlockProblem"], r"8")
        self.type_in("#secret-passphrase", PASSPHRASE)
        self.keys(Keys.ENTER)
        state = self.wait_dialog(lambda s: not s["unlock"], 5, "the store to unlock")
        self.assertNotIn("locked", state["store"])
        self.assertIsNone(state["unlockProblem"])
        self.assertEqual(state["focused"], "email", "after unlocking, the address comes next")
        self.assertTrue(self.server.get_json("/api/accounts")["secretStore"]["unlocked"])

        # The address, the servers, a wrong password: the server's words at the password field; nothing added.
        self.type_in("#account-email", "alice@example.com")
        self.fill_servers("alice")
        self.type_in("#account-password", "not-the-password")
        self.el("#accounts .account-add").click()
        state = self.wait_dialog(lambda s: "password" in s["problems"], 15, "the wrong password to be shown at its field")
        self.assertIn("password", state["invalid"])
        self.assertEqual(self.el("#account-password").get_attribute("aria-invalid"), "true")
        check = self.server.request("POST", "/api/accounts/test", self.form("alice", password="not-the-password"))[1]
        self.assertIn(check["imap"]["problem"]["message"].rstrip("."), state["problems"]["password"],
                      "the server's own words are shown")
        self.assertEqual(state["focused"], "password", "the field to fix has the focus")
        self.shoot("onboarding-2-account.png")
        self.assertEqual(state["accounts"], [])
        self.assertEqual(self.accounts_api(), [], "nothing saved after a refused login")
        self.assertNotIn("not-the-password", self.js("return document.body.innerText"))

        # The right password: typing clears the problem; the account is added, appears and syncs.
        self.type_in("#account-password", USERS["alice"])
        state = self.dialog()
        self.assertNotIn("password", state["problems"], "typing in the field clears its problem")
        self.assertNotIn("password", state["invalid"])
        self.el("#accounts .account-add").click()
        state = self.wait_dialog(lambda s: [a["name"] for a in s["accounts"]] == ["alice@example.com"], 15,
                                 "the account to appear in the list")
        self.assertFalse(state["none"])
        self.assertIn("alice@example.com", state["state"])
        self.assertEqual(self.el("#account-password").get_attribute("value"), "", "the form is emptied")
        self.js("document.activeElement && document.activeElement.blur()")
        self.shoot("onboarding-4-added.png")
        # The list follows the sync by itself while the dialog is open.
        state = self.wait_dialog(lambda s: "up to date" in (s["accounts"][0]["sync"] or ""), 30,
                                 "the account's sync state to reach up to date in the list")
        self.assertIn("3 emails", state["accounts"][0]["detail"])
        self.assertIn(f"{self.dovecot.host}:{self.dovecot.tls_port}", state["accounts"][0]["detail"])
        self.js("document.activeElement && document.activeElement.blur()")
        self.shoot("accounts.png")

        # Closed: the account's folders are in the sidebar and its mail can be searched.
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.wait(lambda: any(t.startswith("INBOX") and "3" in t for t in self.js(FOLDERS_JS)), 10,
                  "the sidebar to show the account's INBOX of 3")
        self.wait(lambda: self.js("return document.activeElement.id") == "search", 3, "the focus to be back in the search box")
        self.keys(WORD)  # typed straight away, where the focus is: the search box takes it
        self.wait_for_count(WORD)
        self.wait(lambda: len(self.state()["results"]) == 3, 8, f"the 3 messages about the {WORD}")
        self.assertTrue(all(r["subject"].startswith("Alice note") for r in self.state()["results"]))

    def test_oauth_sign_in_in_the_browser(self):
        # Chromium asks for /favicon.ico of a page that names no icon (serve's callback page): checked below.
        self.expected_console = [r"/favicon\.ico .*404"]
        self.serve_empty()
        self.open("/")
        self.unlock_in_dialog()
        self.fill_oauth("alice")
        self.assertEqual(self.el("#account-password").get_attribute("value"), "", "no password is typed for OAuth")

        # Sign in…: the provider's page opens in a new tab; Allow sends the browser back to serve.
        page = self.consent_in_new_tab(self.el("#accounts .account-signin"), "allow", "alice")
        self.assertEqual(page["title"], "Signed in", page)
        self.assertIn("alice@example.com", page["outcome"])
        self.assertEqual(page["styled"], "576px", "the callback page has the page's style sheet (.oauth-done main: 36rem)")
        self.assertIn("provider's page", page["waiting"], "the form said where to finish signing in")

        # Back on the page: the account is listed (the dialog follows by itself), signs in with OAuth, syncs.
        state = self.wait_dialog(lambda s: [a["name"] for a in s["accounts"]] == ["alice@example.com"], 15,
                                 "the signed-in account to appear in the list")
        self.assertEqual(self.account_api("alice@example.com")["imap"]["credential"], "oauth")
        again = self.item_control("alice@example.com", "button.account-signin-again")
        self.assertEqual(again.accessible_name, "Sign in again: alice@example.com")
        state = self.wait_dialog(lambda s: "up to date" in (s["accounts"][0]["sync"] or "") and "3 emails" in s["accounts"][0]["detail"],
                                 30, "the account's 3 emails to sync")
        self.assertNotIn("account-error", self.item_control("alice@example.com", ".account-main").get_attribute("innerHTML"))
        # The form is done with: emptied, as after adding with a password, and says so.
        self.assertEqual(self.el("#account-email").get_attribute("value"), "", "the form is emptied once the account is added")
        self.assertEqual(self.el("#account-client-id").get_attribute("value"), "")
        self.assertIn("Signed in", state["state"])
        self.assertIsNone(state["welcome"], "the welcome's 'add an account' is done")

        # Its mail is searched.
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.wait(lambda: self.js("return document.activeElement.id") == "search", 3, "the focus back in the search box")
        self.wait(lambda: any(t.startswith("INBOX") and "3" in t for t in self.js(FOLDERS_JS)), 10,
                  "the sidebar to show the signed-in account's INBOX of 3")
        self.keys(WORD)
        self.wait_for_count(WORD)
        self.wait(lambda: len(self.state()["results"]) == 3, 8, f"the 3 messages about the {WORD}")
        # serve's callback page names its icon (else Chromium asks /favicon.ico: a 404 in the console).
        self.assertEqual(page["icon"], "/assets/favicon.svg", "the callback page has no <link rel=icon>")

    def test_oauth_deny_and_sign_in_again(self):
        # serve answers a sign-in that did not happen with 400 (its page says why); Chromium logs it.
        self.expected_console = [r"/oauth/callback\?error=access_denied.* 400", r"/favicon\.ico .*404"]
        self.serve_empty()
        status, _ = self.server.request("POST", "/api/secrets/unlock", {"passphrase": PASSPHRASE})
        self.assertEqual(status, 200)
        self.open("/")
        self.wait_dialog(lambda s: s["open"] and not s["unlock"], 5, "the welcome, the store unlocked")

        # Deny: the callback page says access was not allowed; nothing is saved or listed.
        self.fill_oauth("carol")
        page = self.consent_in_new_tab(self.el("#accounts .account-signin"), "deny", "carol")
        self.assertEqual(page["title"], "Not signed in", page)
        self.assertIn("access was not allowed", page["outcome"])
        self.assertIn("Nothing was saved", page["outcome"])
        time.sleep(2.5)  # a refresh of the list
        state = self.dialog()
        self.assertEqual(state["accounts"], [])
        self.assertTrue(state["none"])
        self.assertEqual(self.accounts_api(), [])

        # Allow, with access tokens that live 3 s: every sync after the first needs a refresh.
        self.oauth.access_lifetime = 3
        self.addCleanup(setattr, self.oauth, "access_lifetime", 3600)
        page = self.consent_in_new_tab(self.el("#accounts .account-signin"), "allow", "carol")
        self.assertEqual(page["title"], "Signed in", page)
        name = "carol@example.com"
        self.wait_dialog(lambda s: (self.account_line(name) or {}).get("detail") and "2 emails" in self.account_line(name)["detail"]
                         and "up to date" in (self.account_line(name)["sync"] or ""), 30, "carol's 2 emails to sync")

        # The grant is revoked at the provider (as "remove access" in the person's account there) and the access
        # token has expired: the restarted sync cannot refresh, and the line says to sign in again.
        self.assertGreaterEqual(self.oauth.revoke_user("carol"), 1)
        time.sleep(3.2)
        self.choose(f'#accounts .account-item[data-account="{name}"] select', "90")
        error = self.wait(lambda: self.els(f'#accounts .account-item[data-account="{name}"] .account-error')
                          and self.item_control(name, ".account-error").text, 20, "the account's line to show an error")
        self.assertIn("sign in again", error.lower())
        self.assertEqual(self.account_api(name)["imap"]["syncWindowDays"], 90)

        # New mail meanwhile; Sign in again → consent → Allow: the error goes, the same account syncs the new mail.
        self.dovecot.append("carol", "INBOX", message(2, "carol", f"The {CAROL_WORD} tank, part 2."))
        self.addCleanup(lambda: self.dovecot.expunge("carol", "INBOX", [3]))
        button = self.item_control(name, "button.account-signin-again")
        page = self.consent_in_new_tab(button, "allow", "carol")
        self.assertEqual(page["title"], "Signed in", page)
        self.assertIn("Signed in again", page["outcome"])
        self.wait_dialog(lambda s: "3 emails" in (self.account_line(name) or {}).get("detail", "")
                         and not self.els(f'#accounts .account-item[data-account="{name}"] .account-error'), 30,
                         "the error to go and the new message to sync")
        self.assertEqual([a["name"] for a in self.accounts_api()], [name], "the same account, not a second one")
        self.assertEqual(self.account_api(name)["imap"]["credential"], "oauth")
        # And it keeps syncing on refreshed tokens (3 s access tokens): no error comes back.
        time.sleep(4)
        self.choose(f'#accounts .account-item[data-account="{name}"] select', "0")
        self.wait(lambda: self.account_api(name)["imap"].get("syncWindowDays") in (0, None), 5, "the sync window to reach the server")
        time.sleep(3)
        self.wait_dialog(lambda s: "up to date" in ((self.account_line(name) or {}).get("sync") or ""), 20, "the account up to date")
        self.assertEqual(self.els(f'#accounts .account-item[data-account="{name}"] .account-error'), [],
                         "a refreshed token is not an error")

    def test_model_step(self):
        model_dir = tempfile.mkdtemp(prefix="mailsearch-browser-model-")
        self.addCleanup(shutil.rmtree, model_dir, True)
        self.serve_empty(model_dir=model_dir, background_embedding=True)
        model = self.server.get_json("/api/model")
        self.assertEqual((model["state"], model["downloadable"]), ("missing", True), model)
        megabytes = f"{round(model['sizeBytes'] / 1e6)} MB"
        step_js = r"""
          const s = document.querySelector('#accounts .model-step');
          const shown = e => !!e && !e.hidden && e.checkVisibility({checkVisibilityCSS: true});
          return {shown: shown(s), text: s.querySelector('.model-text').textContent, state: s.querySelector('.model-state').textContent,
                  progress: shown(s.querySelector('.model-progress')), download: shown(s.querySelector('.model-download')),
                  asked: performance.getEntriesByType('resource').filter(e => e.name.endsWith('/api/model')).length};"""

        # A first start: the welcome opens by itself with the model step, its size in MB.
        self.open("/")
        self.wait_dialog(lambda s: s["open"] and s["welcome"], 5, "the welcome to open by itself")
        step = self.wait(lambda: (lambda v: v if v["shown"] else None)(self.js(step_js)), 5, "the model step")
        self.assertIn(model["model"], step["text"])
        self.assertIn(megabytes, step["text"])
        self.assertTrue(step["download"])
        self.assertFalse(step["progress"])
        for css, name in [(".model-download", "Download"), (".model-skip", "Not now")]:
            self.assertEqual(self.el(f"#accounts {css}").accessible_name, name)
        self.js("document.querySelector('#accounts .model-step').scrollIntoView({block: 'center'})")
        self.shoot("onboarding-3-model.png")

        # Not now: hidden, and still after a reload (the dialog opens again: there is no account).
        self.el("#accounts .model-skip").click()
        self.wait(lambda: not self.js(step_js)["shown"], 3, "Not now to hide the step")
        state = self.dialog()
        self.assertTrue(state["open"], "Not now keeps the dialog open")
        self.assertTrue(state["focusInDialog"] and state["focused"] != "body", f"the focus was lost: {state['focused']}")
        self.open("/")
        self.wait_dialog(lambda s: s["open"] and s["welcome"], 5, "the welcome again after a reload")
        self.wait(lambda: self.js(step_js)["asked"] >= 1, 5, "the page to ask about the model")
        time.sleep(0.3)
        self.assertFalse(self.js(step_js)["shown"], "the skipped step came back after a reload")

        # Mail to search: an account added through the API; the search says the model is missing.
        status, _ = self.server.request("POST", "/api/secrets/unlock", {"passphrase": PASSPHRASE})
        self.assertEqual(status, 200)
        status, body = self.server.request("POST", "/api/accounts", self.form("alice"))
        self.assertEqual(status, 201, body)
        self.wait(lambda: all(a["emails"] == 3 for a in self.accounts_api()), 30, "alice's mail to sync")
        self.js("localStorage.clear()")
        self.open("/")
        self.assertFalse(self.dialog()["open"])
        api = self.server.search(f"{WORD} survey")
        self.assertEqual((api["semantic"]["status"], api["semantic"].get("reason")), ("skipped", "modelNotInstalled"), api["semantic"])
        self.search_ui(f"{WORD} survey")
        self.wait(lambda: "no embedding model" in (self.js("return document.getElementById('semantic-note').textContent") or ""),
                  5, "the semantic note to say there is no model")

        # Download: the step shows the progress, then leaves once the model is installed.
        self.open_dialog()
        self.wait(lambda: self.js(step_js)["shown"], 5, "the step back after localStorage was cleared")
        self.js(r"""window.__progressSeen = false;
          const s = document.querySelector('#accounts .model-step');
          new MutationObserver(() => { if (!s.querySelector('.model-progress').hidden || /Downloading/.test(s.querySelector('.model-state').textContent)) window.__progressSeen = true; })
            .observe(s, {subtree: true, attributes: true, childList: true, characterData: true});""")
        self.el("#accounts .model-download").click()
        started = time.perf_counter()
        self.wait(lambda: self.js(step_js)["progress"], 2, "the progress bar")
        state = self.dialog()
        self.assertTrue(state["focusInDialog"] and state["focused"] != "body", f"the hidden Download button took the focus along: {state['focused']}")
        self.assertRegex(self.js(step_js)["state"], r"Downloading… \d+ MB so far")
        self.wait(lambda: not self.js(step_js)["shown"], 300, "the step to leave once the model is installed")
        took = time.perf_counter() - started
        self.ctx.timings["model download from the page"] = f"{took:.1f} s"
        self.assertEqual(self.server.get_json("/api/model")["state"], "installed")
        self.assertTrue(self.js("return window.__progressSeen"), "the progress was never shown during the download")
        state = self.dialog()
        self.assertTrue(state["open"])
        self.assertTrue(state["focusInDialog"] and state["focused"] != "body", f"the focus was lost: {state['focused']}")

        # The mailbox is embedded; a search by meaning works: the note says nothing about a missing model.
        self.wait(lambda: (lambda st: st["embeddedEmails"] >= 3)(self.server.get_json("/api/status")), 60, "the mailbox to be embedded")
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        api = self.server.search(f"{WORD} survey")
        self.assertEqual(api.get("semantic", {}).get("status"), "ran", api.get("semantic"))
        self.search_ui(f"{WORD} survey")
        note = self.js("return document.getElementById('semantic-note').hidden ? '' : document.getElementById('semantic-note').textContent")
        self.assertNotIn("model", note)
        self.assertTrue(self.state()["results"], "the search by meaning finds alice's mail")

    def test_test_connection_names_the_field(self):
        self.serve_empty()
        self.open("/")
        self.wait_dialog(lambda s: s["open"], 5, "the welcome to open by itself")
        self.type_in("#account-email", "alice@example.com")
        closed = harness.free_port()
        self.fill_servers("alice", imap_port=closed)
        self.type_in("#account-password", USERS["alice"])

        # Nothing listens on the port: said at the port.
        self.el("#accounts .account-test").click()
        state = self.wait_dialog(lambda s: s["problems"], 15, "the closed port to be named")
        self.assertEqual(list(state["problems"]), ["imapPort"], state)
        self.assertEqual(state["invalid"], ["imapPort"])
        self.assertEqual(state["focused"], "imapPort")
        self.assertIn(str(closed), state["problem"] + state["problems"]["imapPort"])

        # The right port, a host that does not exist: said at the host; the port's problem is gone.
        self.type_in("#account-imap-port", str(self.dovecot.tls_port))
        self.assertEqual(self.dialog()["problems"], {}, "changing the field clears its problem")
        self.type_in("#account-imap-host", "no-such-host.invalid")
        self.el("#accounts .account-test").click()
        state = self.wait_dialog(lambda s: s["problems"], 30, "the unknown host to be named")
        self.assertEqual(list(state["problems"]), ["imapHost"], state)
        self.assertEqual(state["invalid"], ["imapHost"])
        self.assertIn("no-such-host.invalid", state["problem"])

        # Everything right: a success line, no problem, and nothing was added by trying.
        self.type_in("#account-imap-host", self.dovecot.host)
        self.el("#accounts .account-test").click()
        state = self.wait_dialog(lambda s: "accepted" in (s["state"] or ""), 15, "the success line")
        self.assertEqual(state["problems"], {})
        self.assertIsNone(state["problem"])
        self.assertIn("Both servers accepted the login", state["state"])
        self.assertEqual(self.accounts_api(), [])

    def test_remove_asks_for_the_name(self):
        from selenium.webdriver.common.keys import Keys
        self.serve_empty()
        self.add_by_api("alice")
        self.open("/")
        self.assertFalse(self.dialog()["open"], "no welcome when there is an account")
        self.wait(lambda: any(t.startswith("INBOX") for t in self.js(FOLDERS_JS)), 10, "the account's folders")
        self.open_dialog()
        self.wait_dialog(lambda s: [a["name"] for a in s["accounts"]] == ["alice@example.com"], 5, "the account listed")

        # A wrong name: nothing removed, and the dialog says why.
        self.item_control("alice@example.com", "button.account-remove").click()
        prompt = self.alert()
        self.assertIn("alice@example.com", prompt.text)
        self.assertIn("Nothing on the mail server is deleted", prompt.text)
        prompt.send_keys("alice")
        prompt.accept()
        state = self.wait_dialog(lambda s: s["message"], 5, "the dialog to say the account was not removed")
        self.assertIn("not removed", state["message"])
        self.assertEqual([a["name"] for a in state["accounts"]], ["alice@example.com"])
        self.assertEqual([a["name"] for a in self.accounts_api()], ["alice@example.com"])
        self.assertEqual(self.server.get_json("/api/status")["emails"], 3)

        # Cancelled: nothing either.
        self.item_control("alice@example.com", "button.account-remove").click()
        self.alert().dismiss()
        self.assertEqual([a["name"] for a in self.accounts_api()], ["alice@example.com"])

        # The right name: the account, its mail and its folders are gone; nothing on the server is.
        self.item_control("alice@example.com", "button.account-remove").click()
        prompt = self.alert()
        prompt.send_keys("alice@example.com")
        prompt.accept()
        # The list's own refresh (every 2 s) can show the account gone before the removal's answer is said.
        state = self.wait_dialog(lambda s: s["accounts"] == [] and s["none"] and "Removed" in (s["message"] or ""), 10,
                                 "the account to leave the list, and the dialog to say so")
        self.assertIn("alice@example.com", state["message"] or "")
        self.assertEqual(self.accounts_api(), [])
        self.assertEqual(self.server.get_json("/api/status")["emails"], 0)
        self.keys(Keys.ESCAPE)
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.wait(lambda: not any(t.startswith("INBOX") for t in self.js(FOLDERS_JS)), 10, "the folders to leave the sidebar")
        self.assertEqual(self.dovecot.status("alice")["messages"], 3, "nothing deleted on the server")

    def test_change_sync_window_and_default_sender(self):
        self.serve_empty()
        self.add_by_api("alice", "bob")
        before = {a["name"]: a for a in self.accounts_api()}
        # Whichever is not the default sender now becomes it.
        target = "bob@example.com" if before["alice@example.com"]["isDefaultSender"] else "alice@example.com"
        other = "alice@example.com" if target == "bob@example.com" else "bob@example.com"
        self.open("/")
        state = self.open_dialog()
        self.assertEqual({a["name"]: a["window"] for a in state["accounts"]}, {"alice@example.com": "0", "bob@example.com": "0"})

        self.choose('#accounts .account-item[data-account="alice@example.com"] select', "90")
        self.wait(lambda: {a["name"]: (a["imap"] or {}).get("syncWindowDays") for a in self.accounts_api()}["alice@example.com"] == 90,
                  5, "the sync window to reach the server")
        self.wait_dialog(lambda s: "last 90 days" in {a["name"]: a["detail"] for a in s["accounts"]}["alice@example.com"], 5,
                         "the list to show the new window")
        self.assertEqual(self.js("return document.activeElement.dataset.control"), "window", "the select keeps the focus")
        self.item_control(target, "input[type=radio]").click()
        self.wait(lambda: {a["name"]: a["isDefaultSender"] for a in self.accounts_api()} == {target: True, other: False},
                  5, "the default sender to reach the server")
        state = self.dialog()
        self.assertTrue(state["open"], "changing a control keeps the dialog open")

        # After a reload the dialog shows what was saved.
        self.open("/")
        state = self.open_dialog()
        accounts = {a["name"]: a for a in state["accounts"]}
        self.assertEqual(accounts["alice@example.com"]["window"], "90")
        self.assertIn("last 90 days", accounts["alice@example.com"]["detail"])
        self.assertEqual(accounts["bob@example.com"]["window"], "0")
        self.assertIn("all mail", accounts["bob@example.com"]["detail"])
        self.assertTrue(accounts[target]["defaultSender"])
        self.assertFalse(accounts[other]["defaultSender"])

    def test_keyboard_and_accessibility(self):
        from selenium.webdriver.common.keys import Keys
        self.serve_empty()
        self.add_by_api("bob")
        self.open("/")
        self.assertFalse(self.dialog()["open"], "no welcome when there is an account")
        url = self.driver.current_url

        # Tab to the sidebar's Accounts… and press Enter: the dialog opens on its first field.
        self.js("document.activeElement && document.activeElement.blur()")
        for _ in range(80):
            self.keys(Keys.TAB)
            if self.js("return document.activeElement && document.activeElement.id") == "accounts-button":
                break
        else:
            self.fail("Tab never reached the Accounts… button")
        self.keys(Keys.ENTER)
        state = self.wait_dialog(lambda s: s["open"] and s["accounts"] and s["focused"] == "email", 5,
                                 "Enter to open the dialog with the focus on its first field")
        self.assertIsNone(state["welcome"], "the welcome is for a first start only")

        # The page's keys do nothing while the dialog is open (focus on one of its buttons, not a field).
        self.js("document.querySelector('#accounts .accounts-close').focus()")
        for key in ["/", "j", "k", "c"]:
            self.keys(key)
        state = self.dialog()
        self.assertTrue(state["open"])
        self.assertEqual(state["focused"], "secondary small accounts-close", "the focus stayed where it was")
        self.assertEqual(self.el("#account-email").get_attribute("value"), "")
        self.assertTrue(state["focusInDialog"], f"the focus left the dialog: {state['focused']}")
        self.assertNotEqual(self.js("return document.activeElement.id"), "search")
        self.assertEqual(self.el("input#search").get_attribute("value"), "")
        self.assertTrue(self.js("return document.getElementById('compose').hidden"), "c opened the compose panel behind the dialog")
        self.assertEqual(self.driver.current_url, url)

        # Keys typed in a field stay in it.
        self.type_in("#account-email", "")
        self.keys("j/k")
        self.assertEqual(self.el("#account-email").get_attribute("value"), "j/k")
        self.assertEqual(self.el("input#search").get_attribute("value"), "")

        # Every control has an accessible name, and no two in the list share one.
        self.open_servers()
        names = []
        for element in self.els("#accounts input, #accounts select, #accounts button, #accounts summary"):
            if not element.is_displayed():
                continue
            name = (element.accessible_name or "").strip()
            self.assertTrue(name, f"no accessible name: {element.get_attribute('outerHTML')[:200]}")
            if element.find_elements("xpath", "ancestor::li[contains(@class, 'account-item')]"):
                names.append(name)
        self.assertEqual(len(names), len(set(names)), f"controls of different accounts share a name: {names}")
        self.assertTrue(any("bob@example.com" in n for n in names), names)
        self.assertEqual(self.js("return document.querySelector('#accounts').getAttribute('aria-labelledby')"), "accounts-title")

        # Esc closes it; the focus goes back to the button that opened it.
        self.el("#accounts .accounts-close").send_keys(Keys.ESCAPE)
        state = self.wait_dialog(lambda s: not s["open"], 3, "Esc to close the dialog")
        self.wait(lambda: self.js("return document.activeElement.id") == "accounts-button", 3,
                  "the focus to go back to the Accounts… button")
        # And the page's keys work again.
        self.keys("/")
        self.wait(lambda: self.js("return document.activeElement.id") == "search", 3, "/ to reach the search box again")

    # MARK: the sync window

    def dave_state(self):
        """What the API says of dave's mail: the account's count and window, the status's count, and the
        subjects a search finds (everything; in his INBOX; and only mail older than 10 days)."""
        account = self.account_api("dave@example.com")
        inbox = next(f["id"] for f in self.server.get_json("/api/mailboxes")["folders"]
                     if f["accountId"] == account["id"] and f["name"] == "INBOX")
        subjects = lambda page: sorted(r["subject"] for r in page["results"])  # noqa: E731
        return {"emails": account["emails"], "window": account["imap"].get("syncWindowDays"),
                "status": self.server.get_json("/api/status")["emails"],
                "found": subjects(self.server.search(DAVE_WORD, mode="keyword")),
                "inInbox": subjects(self.server.search(DAVE_WORD, mode="keyword", scope=f"folder:{inbox}")),
                "olderThan10Days": subjects(self.server.search(f"{DAVE_WORD} older_than:10d", mode="keyword"))}

    def page_subjects(self, text):
        """The subjects the page lists for a search typed into it (the dialog closed)."""
        self.search_ui(text)
        return sorted(r["subject"] for r in self.state()["results"])

    def test_sync_window_limits_what_is_fetched(self):
        """dave's INBOX holds mail 3, 45 and 400 days old (INTERNALDATE and Date). Added from the page with
        the last 30 days, only the 3-day message is fetched; the list's select widens it to 90 days (the 45-day
        one arrives, not the 400-day one), then to all mail (all three). Narrowed to 30 days again, what was
        fetched stays (the window limits what is fetched, it never deletes): new mail still arrives."""
        name = "dave@example.com"
        fresh, older, ancient = (f"{DAVE_AGES[d]} {DAVE_WORD} sighting" for d in (3, 45, 400))
        self.serve_empty()
        self.open("/")
        self.unlock_in_dialog()

        # The form, with "the last 30 days".
        self.type_in("#account-email", name)
        self.fill_servers("dave")
        self.type_in("#account-password", USERS["dave"])
        self.assertEqual(self.el("#account-window").get_attribute("value"), "30", "30 days is the form's default")
        self.choose("#account-window", "30")
        self.el("#accounts .account-add").click()
        state = self.wait_dialog(lambda s: "up to date" in ((self.account_line(name) or {}).get("sync") or ""), 30,
                                 "dave's first sync to finish")
        line = self.account_line(name)
        self.assertIn("last 30 days", line["detail"])
        self.assertIn("1 email", line["detail"])
        self.assertEqual(line["window"], "30")
        time.sleep(1)  # nothing more comes
        self.assertEqual(self.dave_state(), {"emails": 1, "window": 30, "status": 1, "found": [fresh], "inInbox": [fresh],
                                             "olderThan10Days": []})
        self.assertEqual(self.dovecot.status("dave")["messages"], 3, "the server has all three")
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.assertEqual(self.page_subjects(DAVE_WORD), [fresh])

        # 90 days: the 45-day message arrives, the 400-day one does not.
        self.open_dialog()
        self.choose(f'#accounts .account-item[data-account="{name}"] select', "90")
        self.wait(lambda: self.account_api(name)["emails"] == 2, 30,
                  f"the 45-day message to arrive once the window is 90 days (the API: {self.account_api(name)})")
        self.wait_dialog(lambda s: "up to date" in ((self.account_line(name) or {}).get("sync") or ""), 30, "the sync to finish")
        time.sleep(1)
        self.assertEqual(self.dave_state(), {"emails": 2, "window": 90, "status": 2, "found": sorted([fresh, older]),
                                             "inInbox": sorted([fresh, older]), "olderThan10Days": [older]})
        self.wait_dialog(lambda s: "last 90 days" in self.account_line(name)["detail"] and "2 emails" in self.account_line(name)["detail"],
                         5, "the list to show 90 days and 2 emails")
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.assertEqual(self.page_subjects(DAVE_WORD), sorted([fresh, older]))

        # All mail: the 400-day message too.
        self.open_dialog()
        self.choose(f'#accounts .account-item[data-account="{name}"] select', "0")
        self.wait(lambda: self.account_api(name)["emails"] == 3, 30, "the 400-day message to arrive with all mail")
        self.wait_dialog(lambda s: "up to date" in ((self.account_line(name) or {}).get("sync") or ""), 30, "the sync to finish")
        self.assertEqual(self.dave_state(), {"emails": 3, "window": None, "status": 3, "found": sorted([fresh, older, ancient]),
                                             "inInbox": sorted([fresh, older, ancient]), "olderThan10Days": sorted([older, ancient])})
        self.wait_dialog(lambda s: "all mail" in self.account_line(name)["detail"] and "3 emails" in self.account_line(name)["detail"],
                         5, "the list to show all mail and 3 emails")

        # Narrowed to 30 days again: nothing fetched is deleted. A message delivered afterwards proves that the
        # restarted sync has run with the new window; the older mail is still there, and the list says
        # "last 30 days" beside 4 emails, two of them older than that.
        self.choose(f'#accounts .account-item[data-account="{name}"] select', "30")
        self.wait(lambda: self.account_api(name)["imap"]["syncWindowDays"] == 30, 5, "the window to reach the server")
        when, raw = aged_message(0)
        uid = self.dovecot.append("dave", "INBOX", raw, date=when)
        self.addCleanup(lambda: self.dovecot.expunge("dave", "INBOX", [uid]))
        newest = f"Newest {DAVE_WORD} sighting"
        self.wait(lambda: self.account_api(name)["emails"] == 4, 30, "the new message to arrive after narrowing")
        self.wait_dialog(lambda s: "up to date" in ((self.account_line(name) or {}).get("sync") or ""), 30, "the sync to finish")
        time.sleep(1)
        self.assertEqual(self.dave_state(), {"emails": 4, "window": 30, "status": 4, "found": sorted([fresh, older, ancient, newest]),
                                             "inInbox": sorted([fresh, older, ancient, newest]),
                                             "olderThan10Days": sorted([older, ancient])})
        self.wait_dialog(lambda s: "last 30 days" in self.account_line(name)["detail"] and "4 emails" in self.account_line(name)["detail"],
                         5, "the list to show 30 days and 4 emails")
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.assertEqual(self.page_subjects(DAVE_WORD), sorted([fresh, older, ancient, newest]))

    # MARK: removal

    def add_in_dialog(self, user):
        """The account added through the dialog's form, as a person fills it (the store unlocked)."""
        name = f"{user}@example.com"
        self.type_in("#account-email", name)
        self.fill_servers(user)
        self.type_in("#account-password", USERS[user])
        self.el("#accounts .account-add").click()
        self.wait_dialog(lambda s: name in [a["name"] for a in s["accounts"]], 15, f"{name} to appear in the list")

    def conversation_of(self, data, name):
        """The account's conversation of three: (thread id, the ids of its emails, oldest first)."""
        with read_only(os.path.join(data, "mail.sqlite")) as db:
            thread = db.execute("""SELECT e.threadId FROM emails e JOIN accounts a ON a.id = e.accountId WHERE a.name = ?
                                   GROUP BY e.threadId HAVING COUNT(*) = 3""", (name,)).fetchall()
            self.assertEqual(len(thread), 1, f"{name} has one conversation of three")
            emails = [r[0] for r in db.execute("SELECT id FROM emails WHERE threadId = ? ORDER BY sortDate", (thread[0][0],))]
        return thread[0][0], emails

    def summarize_and_categorize_in_the_page(self, thread):
        """Opens the conversation (its summary shows; it is marked read: an action for the server) and moves it
        to Promotions (Updates if it is there already) with the conversation's category select."""
        from selenium.webdriver.support.ui import Select
        self.open(f"/?thread={thread}", wait_for="#thread article.message")
        self.wait(lambda: self.els("#thread section.thread-summary:not([hidden]) li.summary-point"), 15, "the summary")
        css = "#thread .thread-meta .badge.category select.category-select"
        self.wait(lambda: self.els(css), 5, "the conversation's category select")
        select = Select(self.el(css))
        target = "updates" if select.first_selected_option.get_attribute("value") == "promotions" else "promotions"
        select.select_by_value(target)
        self.wait(lambda: all(e["category"] == target for e in self.server.get_json(f"/api/threads/{thread}")["emails"]),
                  5, "the conversation's new category to reach the API")

    def vectors(self, data, emails):
        """sha256 of each stored vector of these emails: {emailId: digest} and {(emailId, passage): digest}."""
        with read_only(os.path.join(data, "mail.sqlite")) as db:
            marks = ",".join("?" * len(emails))
            own = {e: hashlib.sha256(v).hexdigest() for e, v in db.execute(
                f"SELECT emailId, vector FROM embeddings WHERE emailId IN ({marks})", list(emails))}
            passages = {(e, p): hashlib.sha256(v).hexdigest() for e, p, v in db.execute(
                f"SELECT emailId, passage, vector FROM attachment_passages WHERE emailId IN ({marks})", list(emails))}
        return own, passages

    def search_ids(self, text, mode):
        """The conversations a search finds (each result is one: its thread id)."""
        return sorted(r["threadId"] for r in self.server.search(text, mode=mode, limit=100)["results"])

    def cli_search(self, data, text, *args):
        """A fresh `mailsearch search` process on the data directory: its standard output."""
        env = dict(os.environ, MAILSEARCH_MODEL_DIR=self.server.model_dir)
        env.pop("MAILSEARCH_DATA_DIR", None)
        done = subprocess.run([self.server.binary, "search", text, "--data-dir", data, "--no-history", *args],
                              env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def assert_nothing_of_erin(self, data, erin_ids, where):
        """Everything left of erin's at once: rows (file, table → column: what), files (path → traces) and secrets."""
        left = {"rows": {f"{file} {table}": found for (file, table), found in rows_of(data, erin_ids, ERIN_TRACES).items()},
                "files": files_with_traces(data),
                "secrets": {a: p for a, p in secrets_in(data, PASSPHRASE).items() if a != "frank@example.com"}}
        self.assertEqual(left, {"rows": {}, "files": {}, "secrets": {}}, f"{where}: what is left of the removed account")
        self.assertEqual(secrets_in(data, PASSPHRASE), {"frank@example.com": ["password"]}, f"{where}: frank's password")

    def test_remove_leaves_nothing_of_the_account(self):
        """erin and frank are added from the page; both are synced, embedded (emails and the passages of their
        attachments), summarized and given a category in the page, have a forwarded draft with an attachment
        and actions written back to the server. erin is removed in the page. Then, with serve running and
        again after it stopped, no row of any table of any database in the data directory holds one of erin's
        ids or words, no file holds them, secrets.enc holds frank's password only, the keyword index agrees
        with mail.sqlite (the API's status, a fresh CLI search), and everything of frank's is as it was."""
        from selenium.webdriver.common.keys import Keys
        erin, frank = "erin@example.com", "frank@example.com"
        server = self.serve_empty(background_embedding=True)
        data = server.data_dir
        self.open("/")
        self.unlock_in_dialog()
        self.add_in_dialog("erin")
        self.add_in_dialog("frank")
        self.wait(lambda: {a["name"]: a["emails"] for a in self.accounts_api()} == {erin: 4, frank: 4}, 30,
                  "both accounts' 4 emails to sync")
        self.el("#accounts .accounts-close").click()
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")

        # What the background does for every email: its vector, its attachments' text and their passages' vectors.
        def background():
            with read_only(os.path.join(data, "mail.sqlite")) as db:
                texts = db.execute("SELECT status, COUNT(*) FROM attachment_text GROUP BY status").fetchall()
                passages = db.execute("SELECT COUNT(DISTINCT attachmentId) FROM attachment_passages").fetchone()[0]
            return {"embeddedEmails": self.server.get_json("/api/status")["embeddedEmails"], "texts": dict(texts),
                    "embeddedAttachments": passages}
        done = {"embeddedEmails": 8, "texts": {"ok": 2}, "embeddedAttachments": 2}
        try:
            self.wait(lambda: background() == done, 150, "8 emails embedded and both attachments read and embedded")
        except AssertionError:
            self.assertEqual(background(), done, "the background work")

        # In the page: each conversation opened (summarized, marked read) and moved to another category.
        conversations = {name: self.conversation_of(data, name) for name in (erin, frank)}
        for name, (thread, emails) in conversations.items():
            self.summarize_and_categorize_in_the_page(thread)
            # A star written back to the server (the outbox), and a forward of the message with the attachment.
            status, _ = self.server.request("POST", f"/api/emails/{emails[0]}/actions", {"action": "star"})
            self.assertEqual(status, 200)
            status, draft = self.server.request("POST", "/api/compose", {"kind": "forward", "emailId": emails[2], "account": name})
            self.assertEqual((status, len(draft["attachments"])), (201, 1), draft)
        # A search by sender: the sender index is built (and its copy kept in search.sqlite).
        self.assertEqual(len(self.server.search("from:quill.ranger@burrow-erin.example", mode="keyword")["results"]), 1)
        self.assertEqual(len(self.server.search("from:perch.watcher@gumtree-frank.example", mode="keyword")["results"]), 1)
        self.wait(lambda: all(o["pending"] == 0 for o in self.server.get_json("/api/status")["outbox"]), 30,
                  "the actions to reach the server")

        # A `from:` search on the command line while serve runs: it keeps its copies for the next process in
        # search.sqlite (the sender index, with erin's correspondents in it).
        self.assertIn("Wombat census plan", self.cli_search(data, "from:quill.ranger@burrow-erin.example", "--mode", "keyword"))

        # Before: what is erin's and what is frank's, everywhere (the checks below can fail: they find all this now).
        erin_ids, frank_ids = account_ids(data, erin), account_ids(data, frank)
        for ids in (erin_ids, frank_ids):
            self.assertEqual({k: len(v) for k, v in ids.items() if k not in ("folder", "outbox")},
                             {"account": 1, "email": 4, "thread": 2, "attachment": 1, "draft": 1, "draftAttachment": 1}, ids)
            self.assertGreaterEqual(len(ids["outbox"]), 2, "a read and a star")
        erin_rows = rows_of(data, erin_ids, ERIN_TRACES)
        tables = {table for _, table in erin_rows}
        for table in ["accounts", "emails", "threads", "folders", "attachments", "attachment_text", "attachment_passages",
                      "embeddings", "email_categories", "thread_summaries", "contacts", "message_ids", "imap_accounts",
                      "imap_folders", "imap_messages", "email_folders", "drafts", "draft_attachments", "outbox",
                      "email_fts_content", "email_fts_docsize", "email_fts_data", "sender_cache"]:
            self.assertIn(table, tables, f"erin has no row in {table} before the removal: the test would not see one left")
        self.assertIn(f"messages/{next(iter(erin_ids['account']))}", " ".join(files_with_traces(data)),
                      "erin's messages are kept as files before the removal")
        self.assertEqual(secrets_in(data, PASSPHRASE), {erin: ["password"], frank: ["password"]})
        frank_rows = {k: len(v) for k, v in rows_of(data, frank_ids).items()}
        frank_vectors = self.vectors(data, frank_ids["email"])
        self.assertEqual((len(frank_vectors[0]), len({e for e, _ in frank_vectors[1]})), (4, 1), "frank's vectors")
        frank_search = {mode: self.search_ids(FRANK_WORD, mode) for mode in ("keyword", "hybrid")}
        self.assertEqual(frank_search["keyword"], sorted(frank_ids["thread"]))
        self.assertEqual(self.search_ids("wombat", "keyword"), sorted(erin_ids["thread"]))

        # Removed in the page (the name typed to confirm).
        self.open("/")
        self.open_dialog()
        self.item_control(erin, "button.account-remove").click()
        prompt = self.alert()
        self.assertIn("4 emails", prompt.text)
        prompt.send_keys(erin)
        prompt.accept()
        state = self.wait_dialog(lambda s: [a["name"] for a in s["accounts"]] == [frank] and s["message"], 15,
                                 "erin to leave the list, and the dialog to say so")
        self.assertIn(f"Removed {erin} and its 4 emails", state["message"])
        # At once, before any search could write the index's copies for the next process again.
        self.assert_nothing_of_erin(data, erin_ids, "right after the removal")
        self.keys(Keys.ESCAPE)
        self.wait_dialog(lambda s: not s["open"], 3, "the dialog to close")
        self.wait(lambda: len(self.js(FOLDERS_JS)) == len(frank_ids["folder"]), 10, "erin's folders to leave the sidebar")
        api = self.search_ui(FRANK_WORD)  # typed, never recorded (no Enter, no result opened)
        shown = sorted(r["subject"] for r in self.state()["results"])
        self.assertEqual((len(shown), shown), (2, sorted(r["subject"] for r in api["results"])), "frank's 2 conversations")
        self.search_ui("wombat")
        self.assertTrue(self.state()["empty"], "the page finds nothing of erin's")

        # Through the API: frank alone, the index agreeing with mail.sqlite, nothing of erin's found.
        self.assertEqual([a["name"] for a in self.accounts_api()], [frank])
        status = self.server.get_json("/api/status")
        self.assertEqual((status["accounts"], status["emails"], status["threads"], status["embeddedEmails"]), (1, 4, 2, 4))
        self.assertEqual(status["keywordIndex"], {"indexedEmails": 4, "missing": 0, "orphaned": 0, "healthy": True})
        self.assertEqual([s["account"] for s in status["sync"]], [frank])
        self.assertNotIn(erin, json.dumps(status["outbox"]))
        mailboxes = self.server.get_json("/api/mailboxes")
        self.assertEqual([a["name"] for a in mailboxes["accounts"]], [frank])
        self.assertEqual(sorted(f["id"] for f in mailboxes["folders"]), sorted(frank_ids["folder"]))
        for text in ["wombat", "marsupialia", "from:quill.ranger@burrow-erin.example", "Wombat census plan"]:
            for mode in ("keyword", "hybrid"):
                self.assertEqual(self.search_ids(text, mode), [], f"{text!r} ({mode}) finds mail of the removed account")
        self.assertLessEqual(set(self.search_ids("wombat burrows census near the creek", "semantic")), frank_ids["thread"])
        self.assertEqual({mode: self.search_ids(FRANK_WORD, mode) for mode in ("keyword", "hybrid")}, frank_search)
        drafts = self.server.get_json("/api/drafts")
        self.assertEqual(sorted(d["id"] for d in (drafts["drafts"] if isinstance(drafts, dict) else drafts)), sorted(frank_ids["draft"]))

        # In the data directory, serve running, then stopped.
        for where in ("serve running", "serve stopped"):
            if where == "serve stopped":
                server.stop()
            self.assert_nothing_of_erin(data, erin_ids, where)
            self.assertEqual({k: len(v) for k, v in rows_of(data, frank_ids).items()}, frank_rows, f"{where}: frank's rows changed")
            self.assertEqual(self.vectors(data, frank_ids["email"]), frank_vectors, f"{where}: frank's vectors changed")
            with read_only(os.path.join(data, "search.sqlite")) as db:
                indexed = sorted(r[0] for r in db.execute("SELECT id FROM email_fts_content"))
            self.assertEqual(indexed, sorted(frank_ids["email"]), f"{where}: the keyword index holds other rows than mail.sqlite")

        # A fresh CLI on the data directory: the one-shot keyword path and the regular hybrid one agree.
        for text in ["wombat", "marsupialia"]:
            self.assertEqual(json.loads(self.cli_search(data, text, "--json"))["results"], [], f"mailsearch search {text} --json")
            self.assertEqual(self.cli_search(data, text, "--mode", "keyword").splitlines()[0], f'No results for "{text}" — try fewer words or remove a filter')
        found = json.loads(self.cli_search(data, FRANK_WORD, "--json", "--mode", "keyword"))["results"]
        self.assertEqual(sorted(r["threadId"] for r in found), frank_search["keyword"])
        listed = self.cli_search(data, FRANK_WORD, "--mode", "keyword")
        self.assertTrue(listed.startswith("2 conversations"), listed)
        self.assertIn("Kookaburra nesting boxes", listed)
        self.assert_nothing_of_erin(data, erin_ids, "after the CLI's searches")
