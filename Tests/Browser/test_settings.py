"""The Settings dialog (settings.js, `<dialog id="settings">`, 001 §5.8) on the demo mailbox, driven as a
person would: the theme (kept in the browser, applied before the page draws, across a reload), the undo
delay (kept by the server in settings.json), the category badges shown, the AI model's section, the data
section, and the keyboard (Esc closes, the page's keys wait). And the new-mail notifications (notify.js),
per IMAP account, against a real Dovecot with its own empty data directory and serve: the browser's
permission (refused, then granted through CDP), and what is shown, recorded through a wrapper of the
browser's own Notification."""
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "IMAP"))

import harness  # noqa: E402
from dovecot import Dovecot  # noqa: E402
from support import UITestCase  # noqa: E402
from test_accounts import PASSPHRASE, message  # noqa: E402
from test_screenshots import png_size  # noqa: E402

# Installed before the page's own scripts (CDP Page.addScriptToEvaluateOnNewDocument): the browser's own
# Notification, wrapped so that what the page shows is recorded (and still shown); window.focus recorded.
RECORD_NOTIFICATIONS_JS = r"""
(() => {
  const Real = window.Notification;
  window.__notifications = {real: typeof Real === 'function', shown: [], asked: 0, focused: 0, reads: 0};
  // The page's reads of the accounts, counted once answered.
  const fetch = window.fetch.bind(window);
  window.fetch = (resource, ...rest) => {
    const answer = fetch(resource, ...rest);
    if (String(resource).endsWith('/api/accounts')) answer.then(() => { window.__notifications.reads += 1; }, () => {});
    return answer;
  };
  if (typeof Real !== 'function') return;
  class Recording extends Real {
    constructor(title, options = {}) {
      super(title, options);
      window.__notifications.shown.push({title, body: options.body, tag: options.tag});
      window.__notifications.last = this;
    }
    static get permission() { return Real.permission; }
    static requestPermission(...args) { window.__notifications.asked += 1; return Real.requestPermission(...args); }
  }
  window.Notification = Recording;
  const focus = window.focus.bind(window);
  window.focus = () => { window.__notifications.focused += 1; focus(); };
})();
"""

NOTIFY_JS = r"""
const d = document.querySelector('#settings');
const shown = e => !!e && !e.hidden && e.checkVisibility({checkVisibilityCSS: true});
const n = window.__notifications || null;
return {
  boxes: [...d.querySelectorAll('.settings-notify input[type=checkbox]')].filter(shown).map(b => ({
    name: b.name, label: b.closest('label').textContent.trim(), checked: b.checked})),
  none: shown(d.querySelector('.settings-notify-none')),
  state: d.querySelector('.settings-notify-state').textContent.trim(),
  stored: JSON.parse(localStorage.getItem('mailsearch.notify') || '[]'),
  real: n && n.real, shown: n ? n.shown : null, asked: n ? n.asked : null, focused: n ? n.focused : null,
  reads: n ? n.reads : null,
};
"""

SETTINGS_JS = r"""
const d = document.querySelector('#settings');
const text = e => e ? e.textContent.replace(/\s+/g, ' ').trim() : null;
return {
  open: d.open,
  undo: d.querySelector('#settings-undo').value,
  theme: d.querySelector('#settings-theme').value,
  dataTheme: document.documentElement.dataset.theme || null,
  background: getComputedStyle(document.body).backgroundColor,
  model: text(d.querySelector('.settings-model-text')),
  deleteShown: !d.querySelector('.settings-model-delete').hidden,
  storage: text(d.querySelector('.settings-storage')),
  version: text(d.querySelector('.settings-version')),
  categories: [...d.querySelectorAll('.settings-categories input')].map(i => [i.name, i.checked]),
  focusInDialog: d.contains(document.activeElement),
};
"""


class SettingsTests(UITestCase):
    def settings(self):
        return self.js(SETTINGS_JS)

    def api_settings(self):
        with urllib.request.urlopen(self.url("/api/settings"), timeout=10) as answer:
            return json.loads(answer.read())

    def open_settings(self):
        self.el("#settings-button").click()
        # The version is shown first, the model's line once /api/model has answered: wait for both.
        self.wait(lambda: (lambda s: s["open"] and s["version"] and s["model"])(self.settings()), 5,
                  "the Settings dialog with its version and its model")
        return self.settings()

    def choose(self, css, value):
        from selenium.webdriver.support.ui import Select
        Select(self.el(css)).select_by_value(value)

    def test_theme_undo_delay_and_sections(self):
        self.open()
        self.js("localStorage.removeItem('mailsearch.theme'); localStorage.removeItem('mailsearch.hiddenCategories')")
        shown = self.open_settings()
        self.assertTrue(shown["focusInDialog"], "the focus goes into the dialog")
        self.assertEqual(shown["theme"], "system")
        self.assertRegex(shown["model"], r"all-MiniLM-L6-v2 \(Apache-2\.0\), \d+ MB.*Installed\.")
        self.assertTrue(shown["deleteShown"], "an installed model can be deleted")
        self.assertRegex(shown["storage"], r"\d[\d,]* emails · mail [\d.]+ MB, search index [\d.]+ MB")
        self.assertRegex(shown["version"], r"MailSearch \d+\.\d+")

        # The theme: dark at once, still dark after a reload (before anything is drawn), back to the system's.
        light = shown["background"]
        self.choose("#settings-theme", "dark")
        self.wait(lambda: self.settings()["dataTheme"] == "dark", 3, "data-theme=dark")
        dark = self.settings()["background"]
        self.assertNotEqual(dark, light, "the dark theme changes the colours")
        # The palettes' own backgrounds (light-dark() in style.css; headless Chromium's system scheme is light).
        self.assertEqual((light, dark), ("rgb(244, 245, 247)", "rgb(14, 16, 20)"))
        self.open()
        self.assertEqual(self.js("return document.documentElement.dataset.theme"), "dark", "kept across a reload")
        self.assertEqual(self.js("return getComputedStyle(document.body).backgroundColor"), dark)
        self.open_settings()
        self.choose("#settings-theme", "system")
        self.wait(lambda: self.settings()["dataTheme"] is None, 3, "no data-theme for the system's")

        # The undo delay: the server applies it and keeps it.
        before = self.api_settings()["undoSeconds"]
        self.choose("#settings-undo", "10")
        self.wait(lambda: self.api_settings()["undoSeconds"] == 10, 5, "the server's undo delay to be 10")
        self.open()
        self.assertEqual(self.open_settings()["undo"], "10", "shown again after a reload")
        self.choose("#settings-undo", str(before))
        self.wait(lambda: self.api_settings()["undoSeconds"] == before, 5, "the undo delay back")

        # Keys: the page's wait while the dialog is open; Esc closes it.
        from selenium.webdriver.common.keys import Keys
        self.keys("/")
        self.assertTrue(self.settings()["open"], "/ does not leave the dialog")
        self.keys(Keys.ESCAPE)
        self.wait(lambda: not self.settings()["open"], 3, "Esc to close the dialog")
        self.assert_console_clean("the Settings dialog")

    def test_category_badges_can_be_hidden(self):
        self.open()
        self.js("localStorage.removeItem('mailsearch.hiddenCategories')")
        self.search_ui("category:promotions")
        badges = "return [...document.querySelectorAll('#results .badge.category-promotions')]" \
                 ".filter(b => getComputedStyle(b).display !== 'none').length"
        self.wait(lambda: self.js(badges) > 0, 5, "promotions badges in the results")
        self.open_settings()
        self.el(".settings-categories input[name=show-promotions]").click()
        self.wait(lambda: self.js(badges) == 0, 3, "the promotions badges hidden")
        self.assertEqual(self.js("return localStorage.getItem('mailsearch.hiddenCategories')"), "promotions")
        self.el(".settings-categories input[name=show-promotions]").click()
        self.wait(lambda: self.js(badges) > 0, 3, "the promotions badges back")
        self.keys("\ue00c")  # Esc
        self.assert_console_clean("the Settings dialog")

    # MARK: notifications (their own Dovecot, data directory and serve)

    def serve_empty(self):
        main = self.ctx.server
        work = tempfile.mkdtemp(prefix="mailsearch-browser-notify-")
        server = harness.Server(main.binary, os.path.join(work, "data"), main.model_dir, os.path.join(work, "serve.log"),
                                web_dir=main.web_dir, env={"MAILSEARCH_SECRET_STORE": "file"}).start()
        self.ctx.server = server

        def restore():
            self.ctx.server = main
            self.driver.get("about:blank")
            server.stop()
            shutil.rmtree(work, ignore_errors=True)
        self.addCleanup(restore)
        return server

    def accounts_api(self):
        return {a["name"]: a for a in self.server.get_json("/api/accounts")["accounts"]}

    def notify_state(self):
        return self.js(NOTIFY_JS)

    def shoot(self, name):
        if not self.ctx.screenshots:
            return
        os.makedirs(self.ctx.screenshots, exist_ok=True)
        path = os.path.join(self.ctx.screenshots, name)
        time.sleep(0.4)  # transitions and fonts settle
        self.assertTrue(self.driver.save_screenshot(path), f"cannot write {path}")
        self.assertEqual(png_size(path), (1280, 900), f"{name} is not 1280×900")

    def test_notifications_per_account(self):
        users = {"alice": "alice-password", "bob": "bob-password"}
        dovecot = Dovecot(users=users)
        dovecot.start()
        self.addCleanup(dovecot.close)
        dovecot.append("alice", "INBOX", message(0, "alice", "The first note."))
        dovecot.append("alice", "INBOX", message(1, "alice", "The second note."))
        dovecot.append("bob", "INBOX", message(0, "bob", "The quarterly figures."))
        server = self.serve_empty()

        # Two IMAP accounts, added through the API and synced (their mail was there before: never notified).
        status, _ = server.request("POST", "/api/secrets/unlock", {"passphrase": PASSPHRASE})
        self.assertEqual(status, 200)
        for user in users:
            form = {"email": f"{user}@example.com", "username": user, "password": users[user],
                    "imapHost": dovecot.host, "imapPort": dovecot.tls_port, "imapSecurity": "tls", "caFile": dovecot.ca_file,
                    "receiveOnly": True, "syncWindowDays": 0}
            status, body = server.request("POST", "/api/accounts", form)
            self.assertEqual(status, 201, body)
        self.wait(lambda: {n: (a["emails"], bool(a["lastSync"] or (a.get("sync") or {}).get("lastSync")))
                           for n, a in self.accounts_api().items()}
                  == {"alice@example.com": (2, True), "bob@example.com": (1, True)}, 30, "both accounts synced")

        # Every page load records what it shows, from before the page's own scripts run.
        script = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_NOTIFICATIONS_JS})
        self.addCleanup(self.driver.execute_cdp_cmd, "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        origin = server.base
        self.addCleanup(self.driver.execute_cdp_cmd, "Browser.resetPermissions", {})

        # Blocked in the browser: checking a box says so, and nothing is kept.
        self.driver.execute_cdp_cmd("Browser.setPermission", {"permission": {"name": "notifications"}, "setting": "denied", "origin": origin})
        self.open("/")
        self.assertTrue(self.js("return window.__notifications.real"), "the browser has no Notification API")
        self.js("localStorage.removeItem('mailsearch.notify')")
        self.open_settings()
        state = self.wait(lambda: (lambda s: s if len(s["boxes"]) == 2 else None)(self.notify_state()), 5, "a checkbox per account")
        self.assertEqual([b["label"] for b in state["boxes"]],
                         ["Notify me of new mail in alice@example.com", "Notify me of new mail in bob@example.com"])
        self.assertFalse(any(b["checked"] for b in state["boxes"]))
        self.assertFalse(state["none"])
        for box in self.els("#settings .settings-notify input[type=checkbox]"):
            self.assertIn(box.accessible_name, [b["label"] for b in state["boxes"]])
        self.el(f'#settings .settings-notify input[name="{state["boxes"][1]["name"]}"]').click()
        state = self.wait(lambda: (lambda s: s if s["state"] else None)(self.notify_state()), 5, "the page to say it is blocked")
        self.assertIn("notifications are blocked for this page in your browser's settings", state["state"].lower())
        self.assertFalse(state["boxes"][1]["checked"], "a box the browser refused stays unchecked")
        self.assertEqual(state["stored"], [])

        # Not yet decided: checking a box asks the browser (headless Chromium answers no by itself).
        self.driver.execute_cdp_cmd("Browser.resetPermissions", {})
        self.open("/")
        self.open_settings()
        self.wait(lambda: len(self.notify_state()["boxes"]) == 2, 5, "a checkbox per account")
        self.assertEqual(self.js("return Notification.permission"), "default")
        self.el('#settings .settings-notify label[data-account="bob@example.com"] input').click()
        state = self.wait(lambda: (lambda s: s if s["asked"] and s["state"] else None)(self.notify_state()), 5,
                          "the page to ask the browser, and say its answer")
        self.assertEqual(state["asked"], 1)
        self.assertEqual(self.js("return Notification.permission"), "denied")
        self.assertIn("notifications are blocked for this page in your browser's settings", state["state"].lower())
        self.assertEqual(([b["checked"] for b in state["boxes"]], state["stored"]), ([False, False], []))

        # Allowed (granted through CDP, as a person's yes would): the box checked is kept.
        self.driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": origin})
        self.el('#settings .settings-notify label[data-account="alice@example.com"] input').click()
        state = self.wait(lambda: (lambda s: s if s["stored"] else None)(self.notify_state()), 5, "alice's notifications kept")
        self.assertEqual(state["stored"], ["alice@example.com"])
        self.assertEqual(state["state"], "", "nothing to say once the browser allows them")
        self.assertEqual(state["asked"], 1, "asked again when the browser already allows them")
        self.assertEqual([b["checked"] for b in state["boxes"]], [True, False])
        self.js("document.activeElement && document.activeElement.blur()")
        self.shoot("settings.png")
        self.keys("\ue00c")  # Esc

        # A page load shows nothing for the mail already there (it reads the accounts at once).
        self.open("/")
        self.wait(lambda: self.notify_state()["reads"] >= 1, 5, "the page to read the accounts")
        time.sleep(1)
        self.assertEqual(self.notify_state()["shown"], [], "a notification at page load")
        self.open_settings()
        self.assertEqual([b["checked"] for b in self.notify_state()["boxes"]], [True, False], "kept across a reload")
        self.keys("\ue00c")

        # New mail for bob (not enabled), stored; then for alice (enabled): one notification, alice's.
        dovecot.deliver("bob", message(5, "bob", "More figures."))
        self.wait(lambda: self.accounts_api()["bob@example.com"]["emails"] == 2, 30, "bob's new message to be stored")
        dovecot.deliver("alice", message(5, "alice", "A new note."))
        self.wait(lambda: self.accounts_api()["alice@example.com"]["emails"] == 3, 30, "alice's new message to be stored")
        shown = self.wait(lambda: self.notify_state()["shown"], 25, "a notification for alice's new mail")
        self.assertEqual(shown, [{"title": "New mail in alice@example.com", "body": "1 new message",
                                  "tag": "mailsearch-alice@example.com"}], "one notification, for the enabled account only")
        time.sleep(1)
        self.assertEqual(len(self.notify_state()["shown"]), 1, "the same mail notified twice")

        # Clicking it focuses the page.
        self.js("window.__notifications.last.onclick(new Event('click'))")
        self.assertEqual(self.notify_state()["focused"], 1, "the click did not focus the page")
        self.assert_console_clean("the Settings dialog's notifications")
