"""The app lock (Settings → App lock, 001 §5.8) in Chromium on the demo mailbox: a passcode set in
Settings; a reload shows the lock screen with nothing of the mail behind it, and the API refuses the
page's calls; a wrong passcode is said so; the right one opens the page; removing the lock opens
everything again."""
import os
import shutil
import tempfile
import urllib.error
import urllib.request

from support import UITestCase


class AppLockTests(UITestCase):
    def api_status(self):
        try:
            with urllib.request.urlopen(self.url("/api/status"), timeout=10) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code

    def test_passcode_locks_the_page_and_the_api(self):
        from selenium.webdriver.common.keys import Keys
        self.open()
        self.el("#settings-button").click()
        self.wait(lambda: self.js("return !!document.querySelector('.settings-lock-text').textContent"), 5, "the lock section")
        self.assertIn("Off", self.el(".settings-lock-text").text)
        field = self.el("#settings-passcode")
        field.send_keys("abc")
        self.el(".settings-lock-set").click()
        self.wait(lambda: "4 characters" in self.el(".settings-lock-state").text, 3, "a short passcode refused")
        field.send_keys("d-2026")
        self.el(".settings-lock-set").click()
        self.wait(lambda: "Locked" in self.el(".settings-lock-state").text, 10, "the lock set")
        self.assertEqual(self.api_status(), 423, "the API refuses a call without the page's session")
        self.keys(Keys.ESCAPE)

        # A new page (a new session): the lock screen, and no mail on it.
        self.js("sessionStorage.clear()")
        self.driver.get(self.url("/?q=budget"))
        self.wait(lambda: self.js("return !document.getElementById('lock-form').hidden"), 10, "the lock screen")
        self.assertTrue(self.js("return document.getElementById('app').hidden"), "the mail is hidden behind the lock")
        self.assertEqual(self.js("return document.querySelectorAll('#results li').length"), 0)
        self.el("#lock-input").send_keys("wrong-passcode", Keys.ENTER)
        self.wait(lambda: "not the passcode" in self.el("#lock-message").text, 5, "a wrong passcode said so")
        self.el("#lock-input").send_keys("abcd-2026", Keys.ENTER)
        self.wait(lambda: self.js("return document.getElementById('lock-form').hidden && !document.getElementById('app').hidden"),
                  10, "the page open after the right passcode")
        self.wait(lambda: self.js("return document.querySelectorAll('#results li').length") > 0, 10, "the search's results")

        # An attachment downloads under the lock too: a plain link carries no session, so the page fetches
        # it with the session and saves what came (else Chromium would save the 423's JSON as the file).
        folder = tempfile.mkdtemp(prefix="mailsearch-browser-downloads-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
        # Clicked in the page (the hybrid ranking may replace the rows between a lookup and a click).
        self.wait(lambda: self.js("""const icon = document.querySelector('#results li.result .attachment-icon');
                                     if (icon) icon.closest('li.result').click();
                                     return !!icon;"""), 10, "a result with an attachment")
        link = self.wait(lambda: next(iter(self.els("#thread .attachments a.download")), None), 10, "the attachment's Download")
        href = link.get_attribute("href")
        name = link.get_attribute("download")
        link.click()
        path = os.path.join(folder, name)
        self.wait(lambda: os.path.exists(path) and not any(n.endswith(".crdownload") for n in os.listdir(folder)), 20,
                  f"{name} downloaded (there: {os.listdir(folder)})")
        session = self.js("return sessionStorage.getItem('mailsearch.session')")
        request = urllib.request.Request(href, headers={"X-MailSearch-Session": session})
        with urllib.request.urlopen(request, timeout=30) as answer:
            expected = answer.read()
        with open(path, "rb") as f:
            self.assertEqual(f.read(), expected, "the saved file is not the attachment")
        self.assertGreater(len(expected), 0)

        # Removed: the API answers without a session again.
        self.el("#settings-button").click()
        self.wait(lambda: self.el(".settings-lock-remove").is_displayed(), 5, "Remove the lock")
        self.el(".settings-lock-remove").click()
        self.wait(lambda: "removed" in self.el(".settings-lock-state").text, 10, "the lock removed")
        self.assertEqual(self.api_status(), 200)
        self.keys(Keys.ESCAPE)
        # Chromium logs the 423s and the 403 the test provoked.
        self.drain_console()
