"""Hostile mail in the web UI (001 §5.4.3): every vector of Tests/Fixtures/xss-vectors.json opened
as an HTML email, vectors in the fields shown as text, remote images and trackers, the plain-text
fallback and cid: images. A request to the counting server (127.0.0.2, standing for every remote
host) or a set probe (`window.__pwned`, an alert) fails the test."""
import re
import time
import urllib.parse

import corpus
from support import UITestCase

# Inside the message frame: whether the probe is set, and what in its DOM could still act.
FRAME_AUDIT_JS = r"""
const host = arguments[0], origin = arguments[1];
const problems = [];
const forbidden = 'script,iframe,frame,frameset,object,embed,applet,form,input,button,textarea,select,' +
                  'meta[http-equiv=refresh i],base[href],svg,math,template,noscript,portal';
for (const el of document.querySelectorAll(forbidden)) problems.push('element <' + el.tagName.toLowerCase() + '>');
for (const el of document.querySelectorAll('link'))
  if (!(el.href || '').startsWith(origin + '/')) problems.push('<link rel=' + el.rel + ' href=' + (el.getAttribute('href') || '').slice(0, 60) + '>');
for (const el of document.querySelectorAll('*')) {
  for (const a of el.attributes) {
    const name = a.name.toLowerCase(), value = a.value.replace(/[\u0000-\u0020\u007f-\u00a0\u200b\ufeff]/g, '').toLowerCase();
    if (name.startsWith('on')) problems.push('handler ' + name + ' on <' + el.tagName.toLowerCase() + '>');
    if (/^(javascript|vbscript|livescript):/.test(value) || /^data:text\/html/.test(value))
      problems.push(name + '=' + a.value.slice(0, 60));
    if (a.value.includes(host) && !(name === 'href' && el.tagName === 'A'))
      problems.push('remote URL in ' + name + ' on <' + el.tagName.toLowerCase() + '>: ' + a.value.slice(0, 80));
    if (name === 'ping' || name === 'srcset' || name === 'background' || name === 'poster' || name === 'formaction')
      problems.push('attribute ' + name);
  }
}
for (const st of document.querySelectorAll('style')) {
  if (st.textContent.includes(host)) problems.push('remote URL in <style>');
  if (/@import/i.test(st.textContent)) problems.push('@import in <style>');
}
if (document.querySelector('[shadowrootmode]') || [...document.querySelectorAll('*')].some(e => e.shadowRoot))
  problems.push('a shadow root');
return {url: document.URL, ready: document.readyState, pwned: typeof window.__pwned, problems};
"""

OPEN_WAIT_JS = r"""
const timeoutMs = arguments[0], done = arguments[arguments.length - 1];
const started = performance.now();
(function poll() {
  const articles = [...document.querySelectorAll('#thread article.message')];
  const expanded = articles.filter(a => a.classList.contains('expanded') || a.querySelector('.message-header[aria-expanded=true]'));
  const ready = expanded.length > 0 && expanded.every(a => a.querySelector('iframe.message-html[srcdoc], .message-text'));
  if (ready) return done({ok: true, articles: articles.length, frames: [...document.querySelectorAll('#thread iframe.message-html')]});
  if (performance.now() - started > timeoutMs) return done({ok: false, articles: articles.length, expanded: expanded.length});
  setTimeout(poll, 10);
})();
"""

TOP_AUDIT_JS = r"""
const handlers = [];
for (const el of document.querySelectorAll('*'))
  for (const a of el.attributes) if (a.name.toLowerCase().startsWith('on')) handlers.push(el.tagName + ' ' + a.name);
let topPwned = 'undefined';
try { topPwned = typeof window.top.__pwned; } catch (e) {}
return {pwned: typeof window.__pwned, topPwned, handlers,
        scripts: [...document.scripts].map(s => s.src || ('inline: ' + s.textContent.slice(0, 60)))};
"""


class XSSTests(UITestCase):
    thread_ids = {}
    vector_report = None

    # MARK: helpers

    def lookup(self, token):
        if token not in self.thread_ids:
            answer = self.server.search(token, mode="keyword", limit=10)
            found = [r for r in answer["results"] if r["subject"].startswith(token + " ") or r["subject"] == token]
            if len(found) != 1:
                self.fail(f"cannot find the message {token} through /api/search (found {len(found)})")
            self.thread_ids[token] = found[0]
        return self.thread_ids[token]

    def no_alert(self):
        from selenium.common.exceptions import NoAlertPresentException
        try:
            alert = self.driver.switch_to.alert
            text = alert.text
            alert.accept()
            return f"an alert opened: {text!r}"
        except NoAlertPresentException:
            return None

    def open_thread(self, thread_id, timeout=8):
        """Opens /?thread=ID and waits (in the page, one round trip) until each expanded message
        shows its iframe.message-html (with its srcdoc) or its .message-text; returns the frames."""
        self.driver.get(self.url(f"/?thread={thread_id}"))
        ready = self.driver.execute_async_script(OPEN_WAIT_JS, timeout * 1000)
        if not ready["ok"]:
            raise AssertionError(f"thread {thread_id}: no message body shown within {timeout} s ({ready}; page: {self.safe_state()})")
        return ready["frames"]

    def audit_frame(self, frame, timeout=8):
        """Switches into a message frame, waits for its srcdoc document, audits it, and returns."""
        from selenium.common.exceptions import JavascriptException, WebDriverException
        self.driver.switch_to.frame(frame)
        try:
            deadline = time.perf_counter() + timeout
            while True:
                try:
                    audit = self.js(FRAME_AUDIT_JS, self.ctx.hits.host, self.server.base)
                except JavascriptException as error:
                    # Scripts cannot run in the frame at all: nothing to read, and nothing ran either.
                    return {"url": "?", "ready": "?", "pwned": "undefined", "problems": [], "note": str(error)[:120]}
                if audit["url"] == "about:srcdoc" and audit["ready"] == "complete":
                    return audit
                if time.perf_counter() > deadline:
                    audit["problems"].append(f"the frame never finished loading ({audit['url']}, {audit['ready']})")
                    return audit
                time.sleep(0.03)
        except WebDriverException as error:
            return {"url": "?", "ready": "?", "pwned": "undefined", "problems": [f"cannot audit the frame: {str(error)[:160]}"]}
        finally:
            self.driver.switch_to.default_content()

    def probe_top(self):
        problems = []
        alert = self.no_alert()
        if alert:
            problems.append(alert)
        top = self.js(TOP_AUDIT_JS)
        if top["pwned"] != "undefined" or top["topPwned"] != "undefined":
            problems.append("window.__pwned is set in the page")
        if top["handlers"]:
            problems.append(f"inline event handlers in the page: {top['handlers'][:5]}")
        inline = [s for s in top["scripts"] if s.startswith("inline")]
        if inline:
            problems.append(f"inline scripts in the page: {inline}")
        return problems

    # MARK: every vector

    def run_vectors(self):
        """Opens every vector's email once; the tests below judge the record."""
        if XSSTests.vector_report is not None:
            return XSSTests.vector_report
        manifest = self.ctx.manifest
        report = {"probe": {}, "dom": {}, "hits": {}, "console": {}, "windows": [], "frames": 0}
        started = time.perf_counter()
        self.drain_console()
        handle = self.driver.current_window_handle
        for v in manifest["vectors"]:
            token = v["token"]
            result = self.lookup(token)
            t0 = time.time()
            try:
                frames = self.open_thread(result["threadId"])
                for frame in frames:
                    report["frames"] += 1
                    audit = self.audit_frame(frame)
                    if audit["pwned"] != "undefined":
                        report["probe"].setdefault(token, []).append("window.__pwned set inside the message frame")
                    if audit["problems"]:
                        report["dom"].setdefault(token, []).extend(audit["problems"])
                problems = self.probe_top()
                if problems:
                    report["probe"].setdefault(token, []).extend(problems)
            except Exception as error:   # an alert left open, a page that never showed the message, …
                report["probe"].setdefault(token, []).append(f"{type(error).__name__}: {str(error)[:300]}")
                alert = self.no_alert()
                if alert:
                    report["probe"][token].append(alert)
                self.driver.switch_to.default_content()
                report["windows"].append((token, t0, time.time()))
                continue
            if len(self.driver.window_handles) > 1:
                report["probe"].setdefault(token, []).append("a window opened")
                for h in self.driver.window_handles:
                    if h != handle:
                        self.driver.switch_to.window(h)
                        self.driver.close()
                self.driver.switch_to.window(handle)
            messages = self.console_problems()
            if messages:
                report["console"][token] = messages
            report["windows"].append((token, t0, time.time()))
        time.sleep(1.0)  # late loads (lazy images, fonts) still count
        hits, connections = self.ctx.hits.snapshot()
        for t, path in hits:
            token = next((tok for tok, a, b in report["windows"] if path and path.startswith(f"/{tok}")), None)
            if token is None:
                token = next((tok for tok, a, b in report["windows"] if a <= t <= b + 1.0), "unknown")
            report["hits"].setdefault(token, []).append(path or "(a request that did not parse: TLS to an https: URL?)")
        for t in connections:
            token = next((tok for tok, a, b in report["windows"] if a <= t <= b + 1.0), "unknown")
            if token not in report["hits"]:
                report["hits"][token] = ["a TCP connection (no request attributed to this vector)"]
        report["seconds"] = time.perf_counter() - started
        self.ctx.timings[f"XSS: {len(manifest['vectors'])} vectors opened"] = f"{report['seconds']:.1f} s ({report['frames']} message frames audited)"
        XSSTests.vector_report = report
        return report

    @staticmethod
    def describe(entries, manifest):
        vectors = {v["token"]: v["vector"] for v in manifest["vectors"]}
        lines = [f"  {token} {vectors.get(token, '')[:90]!r}: {'; '.join(map(str, problems))[:300]}"
                 for token, problems in sorted(entries.items())]
        return f"{len(entries)} vector(s):\n" + "\n".join(lines)

    def test_xss_vectors_run_nothing(self):
        """Every vector's email, opened by URL: no alert, window.__pwned unset in the page and in the
        message frame, no inline script or event handler in the page, no window opened."""
        report = self.run_vectors()
        self.assertEqual(report["probe"], {}, self.describe(report["probe"], self.ctx.manifest))

    def test_xss_vectors_load_nothing_remote(self):
        """With remote images blocked (the default), no vector makes a request or a connection to
        the counting server (127.0.0.2:PORT standing for REMOTE_HOST)."""
        report = self.run_vectors()
        self.assertEqual(report["hits"], {}, "requests to the remote host: " + self.describe(report["hits"], self.ctx.manifest))

    def test_xss_frames_are_inert(self):
        """The DOM of every message frame holds nothing active: no script/frame/form/SVG elements,
        no on* handlers, no javascript: or data:text/html URLs, no remote URL outside a link's href
        (CSS included). (Defence in depth: the sandbox and the frame CSP would stop most of these.)"""
        report = self.run_vectors()
        self.assertGreater(report["frames"], len(self.ctx.manifest["vectors"]) // 2, "few vectors rendered as HTML at all")
        self.assertEqual(report["dom"], {}, self.describe(report["dom"], self.ctx.manifest))

    def test_xss_console_has_no_violations(self):
        """Opening the vectors logs no CSP violation or error in the page (something in the page
        tried to load or run)."""
        report = self.run_vectors()
        self.assertEqual(report["console"], {}, self.describe(report["console"], self.ctx.manifest))

    # MARK: fields shown as text

    def test_xss_in_text_fields(self):
        """Vectors in the subject, the sender's name, an attachment's name and the snippet are shown
        as text in the results and the thread, never as markup; the .exe gets its warning."""
        since = time.time()
        for field in self.ctx.manifest["fields"]:
            token = field["token"]
            hit = self.lookup(token)
            self.open("/")
            self.search_ui(token)
            li = self.el(f'ol#results > li.result[data-thread-id="{hit["threadId"]}"]')
            shown = self.js(r"""
              const li = arguments[0], t = s => li.querySelector(s) ? li.querySelector(s).textContent : null;
              const extra = [...li.querySelectorAll('.subject *, .senders *, .snippet *')].filter(e => e.tagName !== 'MARK')
                .map(e => e.tagName.toLowerCase());
              return {subject: t('.subject'), senders: t('.senders'), snippet: t('.snippet'), extra};""", li)
            self.assertEqual(shown["subject"].strip(), field["subject"], f"{token}: the subject is not shown as text")
            self.assertIn(field["from_name"], shown["senders"], f"{token}: the sender's name is not shown as text")
            self.assertEqual(re.sub(r"\s+", " ", shown["snippet"]).strip(), re.sub(r"\s+", " ", hit["snippet"]).strip(),
                             f"{token}: the snippet differs from the API's")
            self.assertEqual(shown["extra"], [], f"{token}: elements inside subject/senders/snippet")
            self.assertEqual(self.probe_top(), [], f"{token} in the results")
            li.click()
            # The section shows at once (aria-busy); the title once the thread is read: wait for it.
            self.wait(lambda: self.state()["threadTitle"], 5, "#thread h1")
            title = self.js("return document.querySelector('#thread h1').textContent").strip()
            self.assertEqual(title, field["subject"], f"{token}: the thread title is not the subject as text")
            # Opened before by the vector tests, the conversation is read and its messages collapsed
            # but the one opened: open them all, then wait for their bodies and attachments.
            self.wait(lambda: self.els("#thread article.message"), 5, "the conversation's messages")
            for header in self.els('#thread .message-header[aria-expanded="false"]'):
                header.click()
            names_js = "return [...document.querySelectorAll('#thread ul.attachments > li')].map(li => li.textContent)"
            names = self.wait(lambda: (lambda n: n if any(field["attachment"] in x for x in n) else None)(self.js(names_js)), 5,
                              f"{token}: the attachment's name shown as text")
            if field["attachment"].endswith(".exe"):
                self.assertTrue(self.els("#thread ul.attachments > li .attachment-warning"), f"{token}: no .attachment-warning for .exe")
            self.assertTrue(self.els("#thread ul.attachments a.download"), "no a.download for the attachment")
            self.assertEqual(self.probe_top(), [], f"{token} in the thread")
        # The query itself, typed and from the URL, and the recent search it leaves.
        vector = '<img src=x onerror=window.__pwned=1>"><svg onload=window.__pwned=1>'
        self.open("/")
        from selenium.webdriver.common.keys import Keys
        box = self.type_into_search(vector)
        box.send_keys(Keys.ENTER)
        self.wait(lambda: self.state()["results"] or self.state()["empty"], 8, "results or the empty state")
        if self.state()["empty"]:
            self.assertIn(vector, self.state()["emptyText"])
        self.assertEqual(self.probe_top(), [], "the typed query")
        self.wait(lambda: vector in self.server.get_json("/api/suggestions")["recentSearches"], 5, "the query recorded")
        self.open("/")
        labels = [b.get_attribute("aria-label") for b in self.els("#recent button.recent")]
        self.assertIn(f"Recent search: {vector}", labels)
        self.assertEqual(self.probe_top(), [], "the recent search")
        url_vector = '"><script>window.__pwned=1</script><img src=x onerror=window.__pwned=1>'
        self.open("/?q=" + urllib.parse.quote(url_vector))
        self.wait(lambda: self.state()["query"] == url_vector, 5, "the query from the URL in the box")
        self.wait(lambda: self.state()["results"] or self.state()["empty"], 8, "results or the empty state")
        self.assertEqual(self.probe_top(), [], "the query from the URL")
        for field in self.ctx.manifest["fields"]:
            self.assertEqual(self.ctx.hits.count(prefix=field["prefix"], since=since), 0, f"{field['token']}: a remote request")
        self.open("/")
        for button in self.els("button#clear-recent"):
            button.click()

    # MARK: rendering

    def test_plain_text_fallback(self):
        """An HTML body that sanitizes to nothing shows the plain text (.message-text) instead."""
        hit = self.lookup(corpus.EMPTY_TOKEN)
        self.open_thread(hit["threadId"])
        article = self.el(f'#thread article.message[data-email-id="{hit["emailId"]}"]')
        self.assertEqual(article.find_elements("css selector", "iframe.message-html"), [], "an iframe for an empty HTML body")
        texts = article.find_elements("css selector", ".message-text")
        self.assertTrue(texts, "no .message-text")
        self.assertIn(corpus.EMPTY_PLAIN, texts[0].text)
        self.assertEqual(self.probe_top(), [])

    def test_remote_images_and_trackers(self):
        """A newsletter: nothing remote loads by default; "Load remote images" loads the normal
        image (the counting server sees it) but never the 1×1 tracking pixel ("1 tracker blocked")."""
        hit = self.lookup(corpus.NEWSLETTER_TOKEN)
        hits = self.ctx.hits
        since = time.time()
        frames = self.open_thread(hit["threadId"])
        self.assertTrue(frames, "the newsletter is not shown in iframe.message-html")
        frame = frames[0]
        self.assertEqual(frame.get_attribute("sandbox"), "allow-popups allow-popups-to-escape-sandbox")
        self.audit_frame(frame)
        time.sleep(0.7)
        self.assertEqual(hits.count("/news/", since), 0, "the remote image loaded before 'Load remote images'")
        self.assertEqual(hits.count("/track/", since), 0, "the tracking pixel loaded")
        button = self.el("#thread button.load-images")
        self.assertTrue(button.is_displayed())
        self.assertIn("Load remote images", button.text)
        trackers = self.el("#thread .trackers-blocked").text
        self.assertRegex(trackers, r"\b1 trackers? blocked", "the tracker count")
        button.click()
        self.wait(lambda: hits.count("/news/banner.png", since) > 0, 8, "the newsletter's image to load from the remote host")
        frame = self.wait(lambda: self.els("#thread iframe.message-html"), 5, "the frame after loading images")[0]
        self.driver.switch_to.frame(frame)
        try:
            width = self.wait(lambda: self.js("const i = document.querySelector('img[alt=banner]'); return i && i.complete && i.naturalWidth"),
                              5, "the banner image to render")
            self.assertEqual(width, 200)
        finally:
            self.driver.switch_to.default_content()
        time.sleep(0.7)
        self.assertEqual(hits.count("/track/", since), 0, "the tracking pixel loaded after 'Load remote images'")
        self.assertRegex(self.el("#thread .trackers-blocked").text, r"\b1 trackers? blocked")
        self.assertEqual(self.probe_top(), [])

    def test_cid_inline_image(self):
        """A cid: image of the email itself renders (as a data: URL inside the frame)."""
        hit = self.lookup(corpus.CID_TOKEN)
        frames = self.open_thread(hit["threadId"])
        self.assertTrue(frames, "no iframe.message-html")
        self.assertIn("data:image/png;base64,", frames[0].get_attribute("srcdoc"))
        self.driver.switch_to.frame(frames[0])
        try:
            width = self.wait(lambda: self.js("const i = document.querySelector('img'); return i && i.complete && i.naturalWidth"),
                              5, "the inline image to render (naturalWidth > 0)")
            self.assertEqual(width, corpus.CID_SIZE)
        finally:
            self.driver.switch_to.default_content()
        self.assertEqual(self.els("#thread button.load-images"), [], "Load remote images offered for a cid: image")
