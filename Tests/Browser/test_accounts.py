"""The Accounts dialog (accounts.js, `<dialog id="accounts">`) driven as a person would, against a real
Dovecot (IMAP and its submission service): the welcome on a first start, the password store's first
passphrase, a wrong password shown at its field and nothing saved, the account added and synced, Test
connection naming the field to fix, removal asking for the account's name, the per-account controls,
and the keyboard; OAuth 2.0 sign-in in a second tab against a real authorization server (oauth_server.py,
Authlib: consent page, Allow and Deny, a revoked grant and Sign in again); and the model step (size, Not
now, Download with progress). Each test has its own empty data directory and its own `serve`, with the
passwords and tokens kept in secrets.enc (MAILSEARCH_SECRET_STORE=file). With --screenshots, the first
start writes onboarding-1-welcome.png, onboarding-2-account.png, onboarding-4-added.png and accounts.png,
and the model step onboarding-3-model.png."""
import email.utils
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "IMAP"))

import harness  # noqa: E402
from dovecot import Dovecot  # noqa: E402
from oauth_server import OAuthServer  # noqa: E402
from support import UITestCase  # noqa: E402
from test_screenshots import png_size  # noqa: E402

PASSPHRASE = "correct horse battery staple"
USERS = {"alice": "alice-password", "bob": "bob-password", "carol": "carol-password"}
WORD = "pangolin"  # in alice's mail only
CAROL_WORD = "axolotl"  # in carol's mail only (the sign-in-again test adds to it)

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


class AccountsTests(UITestCase):
    """One OAuth 2.0 authorization server and one Dovecot for the class (alice: 3 messages, bob: 1, carol: 2;
    passwords and, through the authorization server's introspection, bearer tokens); each test its own data
    directory and serve."""

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
        returns what the callback page said: {title, outcome, url, question}."""
        from selenium.webdriver.common.by import By
        main = self.driver.current_window_handle
        before = set(self.driver.window_handles)
        button.click()
        handle = self.wait(lambda: next(iter(set(self.driver.window_handles) - before), None), 10,
                           "a new tab with the provider's page")
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
                    "icon": self.js("const l = document.querySelector('link[rel~=icon]'); return l && l.getAttribute('href')")}
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
        self.assertIn("provider's page", self.dialog()["state"], "the form said where to finish signing in")

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
        state = self.wait_dialog(lambda s: s["accounts"] == [] and s["none"], 10, "the account to leave the list")
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
