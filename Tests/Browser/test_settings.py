"""The Settings dialog (settings.js, `<dialog id="settings">`, 001 §5.8) on the demo mailbox, driven as a
person would: the theme (kept in the browser, applied before the page draws, across a reload), the undo
delay (kept by the server in settings.json), the category badges shown, the AI model's section, the data
section, and the keyboard (Esc closes, the page's keys wait)."""
import json
import urllib.request

from support import UITestCase

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
        self.wait(lambda: self.settings()["open"] and self.settings()["version"], 5, "the Settings dialog with its version")
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
