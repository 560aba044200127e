"""The Settings dialog (settings.js, `<dialog id="settings">`, 001 §5.8) on the demo mailbox, driven as a
person would: the theme (kept in the browser, applied before the page draws, across a reload), the undo
delay (kept by the server in settings.json), the category badges shown, the AI model's section, the data
section, and the keyboard (Esc closes, the page's keys wait). The AI model's embedding line against
/api/status (on its own mailbox, served without and then with background embedding, read while it grows);
the data section's rows against /api/storage, an export downloaded by Chromium (a plain link, and through
fetch when a token is kept) and imported back, and "Clear caches". And the new-mail notifications
(notify.js), per IMAP account, against a real Dovecot with its own empty data directory and serve: the
browser's permission (refused, then granted through CDP), and what is shown, recorded through a wrapper of
the browser's own Notification."""
import json
import os
import re
import shutil
import subprocess
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


EMBEDDING_JS = r"""
const box = document.querySelector('#settings .settings-embedding');
const bar = box.querySelector('.settings-embedding-bar');
return {state: box.dataset.state || null, embedded: Number(box.dataset.embedded), emails: Number(box.dataset.emails),
        text: box.querySelector('.settings-embedding-text').textContent.replace(/\s+/g, ' ').trim(),
        bar: bar.hidden ? null : [bar.value, bar.max]};
"""

STORAGE_JS = r"""
const d = document.querySelector('#settings');
const text = e => e ? e.textContent.replace(/\s+/g, ' ').trim() : null;
const row = tr => ({
  account: tr.dataset.account || null, name: text(tr.querySelector('.storage-name')),
  emails: text(tr.querySelector('.storage-emails')), conversations: text(tr.querySelector('.storage-conversations')),
  attachments: text(tr.querySelector('.storage-attachments')), bytes: text(tr.querySelector('.storage-bytes')),
  title: tr.querySelector('.storage-bytes').title,
  links: [...tr.querySelectorAll('a.settings-export')].map(a => ({format: a.dataset.format, href: a.getAttribute('href'),
                                                                  label: a.getAttribute('aria-label'), text: text(a)})),
});
return {
  rows: [...d.querySelectorAll('.settings-accounts-storage tbody tr')].map(row),
  total: [...d.querySelectorAll('.settings-accounts-storage tfoot tr')].map(row),
  everything: text(d.querySelector('.settings-storage-total')),
  warning: d.querySelector('.settings-storage-warning').hidden ? null : text(d.querySelector('.settings-storage-warning')),
  caches: text(d.querySelector('.settings-caches')),
  state: text(d.querySelector('.settings-data-state')),
};
"""


def size(n):
    """settings.js's size(): powers of 1000, as the page writes them."""
    if not n:
        return "0 bytes"
    if n < 1e3:
        return f"{n} bytes"
    if n < 1e6:
        return f"{int(n / 1e3 + 0.5)} KB"
    if n < 1e9:
        return f"{n / 1e6:.{1 if n < 1e7 else 0}f} MB"
    return f"{n / 1e9:.1f} GB"


def plural(n, one, many=None):
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


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

    # MARK: the AI model's embedding line

    def embedding(self):
        return self.js(EMBEDDING_JS)

    def test_embedding_line_says_what_can_be_searched_by_meaning(self):
        """The demo mailbox, embedded, served without background embedding: every number from /api/status."""
        self.open()
        self.open_settings()
        line = self.wait(lambda: (lambda e: e if e["state"] else None)(self.embedding()), 5, "the embedding line")
        status = self.server.get_json("/api/status")
        self.assertFalse(status["embedding"]["background"])
        self.assertEqual(status["embeddedEmails"], status["emails"], "the demo mailbox is embedded whole")
        self.assertEqual((line["state"], line["embedded"], line["emails"], line["bar"]),
                         ("done", status["emails"], status["emails"], [status["emails"], status["emails"]]))
        self.assertEqual(line["text"], f"All {status['emails']:,} emails can be searched by meaning. Background embedding is off "
                                       "(mailsearch serve --no-background-embedding): new mail is searched by keyword until "
                                       "`mailsearch index embed` runs.")
        self.keys("\ue00c")
        self.assert_console_clean("the Settings dialog's AI model")

    def test_embedding_progress_follows_the_status(self):
        """600 emails imported without vectors. Served without background embedding: the line says so and
        what runs the rest; served with it: read every second while it grows (never more than the status
        says), then "All 600 emails can be searched by meaning"."""
        main = self.ctx.server
        work = tempfile.mkdtemp(prefix="mailsearch-browser-settings-embed-")
        data = os.path.join(work, "data")
        env = dict(os.environ, MAILSEARCH_DATA_DIR=data, MAILSEARCH_MODEL_DIR=main.model_dir)
        mbox = os.path.join(work, "demo.mbox")
        subprocess.run([main.binary, "demo", "--count", "600", "--output", mbox], env=env, check=True, capture_output=True, timeout=120)
        subprocess.run([main.binary, "import", mbox, "--account", "demo", "--quiet"], env=env, check=True, capture_output=True, timeout=300)
        servers = []

        def restore():
            self.ctx.server = main
            self.driver.get("about:blank")
            for server in servers:
                server.stop()
            shutil.rmtree(work, ignore_errors=True)
        self.addCleanup(restore)

        def serve(background):
            server = harness.Server(main.binary, data, main.model_dir, os.path.join(work, f"serve-{len(servers)}.log"),
                                    web_dir=main.web_dir, background_embedding=background).start()
            servers.append(server)
            self.ctx.server = server
            return server

        # Off: nothing embeds by itself, and the line says what does.
        server = serve(False)
        self.open()
        self.open_settings()
        line = self.wait(lambda: (lambda e: e if e["state"] else None)(self.embedding()), 5, "the embedding line")
        status = server.get_json("/api/status")
        self.assertEqual((status["emails"], status["embeddedEmails"], status["embedding"]["background"]), (600, 0, False))
        self.assertEqual((line["state"], line["embedded"], line["emails"], line["bar"]), ("off", 0, 600, [0, 600]))
        self.assertEqual(line["text"], "0 of 600 emails can be searched by meaning. Background embedding is off "
                                       "(mailsearch serve --no-background-embedding): `mailsearch index embed` embeds the other 600.")
        time.sleep(1.5)
        self.assertEqual(self.embedding()["embedded"], 0, "nothing embeds without background embedding")
        server.stop()

        # On: the line follows the status, without reopening the dialog.
        server = serve(True)
        self.open()
        self.open_settings()
        self.wait(lambda: self.embedding()["state"], 5, "the embedding line")
        seen = []
        deadline = time.time() + 300
        while time.time() < deadline:
            line = self.embedding()
            status = server.get_json("/api/status")
            self.assertLessEqual(line["embedded"], status["embeddedEmails"], "the page shows more than is embedded")
            self.assertEqual(line["emails"], 600)
            if seen:
                self.assertGreaterEqual(line["embedded"], seen[-1]["embedded"], "the number went back")
            if not seen or seen[-1]["embedded"] != line["embedded"] or seen[-1]["state"] != line["state"]:
                seen.append(line)
            if line["state"] == "running":
                self.assertRegex(line["text"], rf"^{line['embedded']:,} of 600 emails can be searched by meaning\. "
                                               r"Embedding the rest, newest first( · \d+ docs/s)?( · (about \d+ min|under a minute) left)?\.$")
                self.assertEqual(line["bar"], [line["embedded"], 600])
            if line["state"] == "done":
                break
            time.sleep(0.2)
        self.assertEqual(seen[-1]["state"], "done", f"the embedding never finished: {seen[-3:]}")
        self.assertEqual(seen[-1]["text"], "All 600 emails can be searched by meaning.")
        self.assertEqual(seen[-1]["bar"], [600, 600])
        self.assertEqual(server.get_json("/api/status")["embeddedEmails"], 600)
        growing = [s["embedded"] for s in seen if s["state"] == "running" and 0 < s["embedded"] < 600]
        self.assertTrue(growing, f"no progress shown while embedding: {[(s['state'], s['embedded']) for s in seen]}")
        self.keys("\ue00c")
        self.assert_console_clean("the Settings dialog's embedding progress")

    # MARK: data on this computer

    def storage_view(self):
        return self.js(STORAGE_JS)

    def expected_row(self, account):
        return {"emails": f"{account['emails']:,}", "conversations": f"{account['conversations']:,}",
                "attachments": f"{account['attachments']['count']:,} · {size(account['attachments']['bytes'])}",
                "bytes": size(account["bytes"])}

    def downloads(self):
        """Chromium saves downloads in a folder of this test's."""
        folder = tempfile.mkdtemp(prefix="mailsearch-browser-downloads-")
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
        self.addCleanup(shutil.rmtree, folder, True)
        return folder

    def downloaded(self, folder, pattern, timeout=60):
        def done():
            names = [n for n in os.listdir(folder) if re.fullmatch(pattern, n)]
            partial = [n for n in os.listdir(folder) if n.endswith(".crdownload")]
            return names[0] if names and not partial else None
        name = self.wait(done, timeout, f"a download named {pattern} in {folder} (there: {os.listdir(folder)})", interval=0.1)
        with open(os.path.join(folder, name), "rb") as f:
            return name, f.read()

    def fetch_bytes(self, path):
        with urllib.request.urlopen(self.url(path), timeout=60) as answer:
            return answer.read(), dict(answer.headers)

    def jsonl_ids(self, data):
        return sorted(json.loads(line)["messageId"] for line in data.decode().splitlines())

    def test_storage_per_account_export_and_clear_caches(self):
        # This serve summarizes in the background (its default): once its queue is idle, mail.sqlite holds
        # still and every conversation of 3+ messages has its stored summary.
        def summaries_idle():
            status = self.server.get_json("/api/status")["summaries"]
            return status if status["state"] == "idle" and status["stored"] == status["eligible"] else None
        self.wait(summaries_idle, 300, "the background summaries to be done", interval=1.0)
        storage = self.server.get_json("/api/storage")
        accounts = {a["name"]: a for a in storage["accounts"]}
        self.assertEqual(sorted(accounts), ["demo", "xss"])
        self.open()
        self.open_settings()
        view = self.wait(lambda: (lambda v: v if len(v["rows"]) == 2 else None)(self.storage_view()), 5, "a row per account")

        # A row per account, as /api/storage has it.
        self.assertEqual([r["account"] for r in view["rows"]], [a["name"] for a in storage["accounts"]])
        for row in view["rows"]:
            account = accounts[row["account"]]
            self.assertEqual({k: row[k] for k in ("emails", "conversations", "attachments", "bytes")}, self.expected_row(account), row["account"])
            self.assertEqual(row["name"], f"{account['name']} (imported)")
            self.assertIn(f"mail.sqlite: {size(account['mailDatabase']['bytes'])} (text {size(account['mailDatabase']['text'])}", row["title"])
            self.assertIn(f"The messages as received: {size(account['messageBytes'])}.", row["title"])
            self.assertEqual([(l["format"], l["text"], l["label"]) for l in row["links"]],
                             [("mbox", "mbox", f"Export {account['name']} as mbox"), ("jsonl", "JSONL", f"Export {account['name']} as JSONL")])
        total = view["total"][0]
        self.assertEqual(total["name"], "All mail")
        self.assertEqual(total["emails"], f"{sum(a['emails'] for a in storage['accounts']):,}")
        self.assertEqual(total["emails"], f"{self.server.get_json('/api/status')['emails']:,}")
        self.assertEqual(total["bytes"], size(sum(a["bytes"] for a in storage["accounts"])))
        directory = storage["dataDirectory"]
        self.assertEqual(view["everything"], f"Everything MailSearch keeps on this computer: {size(storage['totalBytes'])} "
                                             f"(mail.sqlite {size(directory['mailDatabase'])}, search index {size(directory['searchIndex'])}, "
                                             f"copies of synced messages {size(directory['messageFiles']['bytes'])}, other files {size(directory['other'])}; "
                                             f"the AI model {size(storage['model']['bytes'])}).")
        self.assertEqual(storage["totalBytes"], directory["bytes"] + storage["model"]["bytes"])
        self.assertEqual([l["href"] for l in total["links"]], ["/api/export?format=mbox", "/api/export?format=jsonl"])
        self.assertIsNone(view["warning"])
        for link in self.els("#settings a.settings-export"):
            self.assertTrue(link.accessible_name.startswith("Export "), link.accessible_name)

        # The xss account's mbox, downloaded by Chromium from the plain link: the server's bytes, and imported
        # into a fresh data directory it holds the same emails (count and Message-IDs).
        folder = self.downloads()
        self.el('#settings tr[data-account="xss"] a.settings-export[data-format="mbox"]').click()
        name, data = self.downloaded(folder, r"mailsearch-xss-\d{4}-\d{2}-\d{2}\.mbox")
        expected, headers = self.fetch_bytes("/api/export?format=mbox&account=xss")
        self.assertEqual(data, expected, "the download is not what the server exports")
        self.assertEqual(headers.get("X-MailSearch-Missing-Originals"), "0")
        self.assertIn("the browser saves", self.storage_view()["state"])
        copy = tempfile.mkdtemp(prefix="mailsearch-browser-import-")
        self.addCleanup(shutil.rmtree, copy, True)
        env = dict(os.environ, MAILSEARCH_DATA_DIR=os.path.join(copy, "data"), MAILSEARCH_MODEL_DIR=os.path.join(copy, "no-model"))
        imported = subprocess.run([self.server.binary, "import", os.path.join(folder, name), "--account", "xss", "--json"], env=env,
                                  capture_output=True, timeout=120)
        self.assertEqual(imported.returncode, 0, imported.stderr.decode())
        self.assertEqual(json.loads(imported.stdout)["imported"], accounts["xss"]["emails"])
        again = subprocess.run([self.server.binary, "export"], env=env, capture_output=True, timeout=60, check=True).stdout
        server_ids = self.jsonl_ids(self.fetch_bytes("/api/export?format=jsonl&account=xss")[0])
        self.assertEqual(len(server_ids), accounts["xss"]["emails"])
        self.assertEqual(self.jsonl_ids(again), server_ids)

        # With a token kept (the page then sends it, which a link cannot): fetched, then saved.
        self.js("sessionStorage.setItem('mailsearch.token', 'not-needed-here')")
        self.addCleanup(lambda: self.js("sessionStorage.removeItem('mailsearch.token')"))
        self.el("#settings tfoot a.settings-export[data-format=jsonl]").click()
        _, data = self.downloaded(folder, r"mailsearch-all-mail-\d{4}-\d{2}-\d{2}\.jsonl")
        self.assertEqual(data, self.fetch_bytes("/api/export?format=jsonl")[0])
        self.assertEqual(len(data.decode().splitlines()), sum(a["emails"] for a in storage["accounts"]))
        self.wait(lambda: self.storage_view()["state"].startswith("Exported all mail"), 5, "the page to say the export is saved")
        self.js("sessionStorage.removeItem('mailsearch.token')")

        # Clear caches: with the queue idle, the clear deletes exactly the stored summaries; the queue then
        # makes them again, and the page's line follows the API.
        page = self.server.search("budget", limit=50, mode="keyword")
        thread = next(t["id"] for t in page["threads"] if t["messageCount"] >= 3)
        self.assertEqual(self.server.get_json(f"/api/threads/{thread}/summary")["status"], "summarized")
        idle = self.wait(summaries_idle, 300, "the background summaries to be done", interval=1.0)
        before = self.server.get_json("/api/storage")["caches"]
        stored = next(c for c in before["caches"] if c["name"] == "threadSummaries")
        self.assertGreaterEqual(stored["entries"], idle["stored"])
        self.assertGreaterEqual(stored["entries"], 1)
        self.keys("\ue00c")
        self.open_settings()
        self.wait(lambda: self.storage_view()["caches"].startswith(f"Caches: {plural(stored['entries'], 'stored summary', 'stored summaries')} "
                                                                   f"({size(before['bytes'])}) and "),
                  5, f"the caches line to be the API's ({self.storage_view()['caches']})")
        self.el("#settings .settings-clear-caches").click()
        state = self.wait(lambda: (lambda v: v["state"] if v["state"].startswith("Cleared") else None)(self.storage_view()), 5,
                          "the page to say what was cleared")
        self.assertTrue(state.startswith(f"Cleared {plural(stored['entries'], 'stored summary', 'stored summaries')} ({size(stored['bytes'])})"), state)
        self.assertTrue(state.endswith(" Summaries are made again in the background."), state)
        self.assertEqual(self.server.get_json("/api/status")["emails"], sum(a["emails"] for a in storage["accounts"]), "mail was touched")
        # Made again: by the background queue, or for this request (whichever comes first), and stored.
        answer = self.server.get_json(f"/api/threads/{thread}/summary")
        self.assertEqual(answer["status"], "summarized")
        self.wait(summaries_idle, 300, "the background summaries to be made again", interval=1.0)
        again = self.server.get_json("/api/storage")["caches"]
        self.assertEqual(next(c for c in again["caches"] if c["name"] == "threadSummaries")["entries"], stored["entries"])
        self.keys("\ue00c")
        self.open_settings()
        self.wait(lambda: self.storage_view()["caches"].startswith(f"Caches: {plural(stored['entries'], 'stored summary', 'stored summaries')} "
                                                                   f"({size(again['bytes'])})"), 5, "the caches line to follow the API")
        self.keys("\ue00c")
        self.assert_console_clean("the Settings dialog's data section")

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
