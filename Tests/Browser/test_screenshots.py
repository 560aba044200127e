"""Screenshots for the docs (run with --screenshots DIR): a search and an open conversation."""
import os
import struct
import time

from support import UITestCase


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


class ScreenshotTests(UITestCase):

    def shoot(self, name):
        os.makedirs(self.ctx.screenshots, exist_ok=True)
        path = os.path.join(self.ctx.screenshots, name)
        time.sleep(0.4)  # transitions and fonts settle
        self.assertTrue(self.driver.save_screenshot(path), f"cannot write {path}")
        self.assertEqual(png_size(path), (1280, 900), f"{name} is not 1280×900")
        return path

    def html_thread(self):
        """A demo conversation whose first message is HTML (the newsletter)."""
        for r in self.server.search("newsletter", limit=20)["results"]:
            if not r["subject"].startswith("xss") and self.server.get_json(f"/api/emails/{r['emailId']}/html").get("html"):
                return r
        self.fail("no demo newsletter with an HTML body")

    def test_screenshots(self):
        """search.png (a search with results) and thread.png (a conversation with an HTML message)."""
        self.open("/")
        self.assertEqual(self.js("return [innerWidth, innerHeight]"), [1280, 900])
        self.search_ui("budget report from sarah")
        self.js("document.activeElement && document.activeElement.blur()")
        self.shoot("search.png")

        r = self.html_thread()
        self.open(f"/?q=newsletter&thread={r['threadId']}")
        self.wait(lambda: self.state()["thread"], 5, "#thread")
        frame = self.wait(lambda: self.els("#thread iframe.message-html"), 5, "iframe.message-html")[0]
        self.driver.switch_to.frame(frame)
        try:
            self.wait(lambda: self.js("return document.URL === 'about:srcdoc' && document.readyState === 'complete'"), 5, "the message frame")
        finally:
            self.driver.switch_to.default_content()
        self.shoot("thread.png")
