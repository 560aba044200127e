"""The base class of the browser tests: the shared context (server, browser, counting server) and
helpers that wait for the page, read its state in one round trip, and check the console."""
import re
import time
import unittest
import urllib.parse

DEBOUNCE_MS = 300


class Context:
    server = None        # harness.Server
    driver = None        # selenium WebDriver
    hits = None          # harness.HitServer
    manifest = None      # corpus manifest (tokens, vectors)
    screenshots = None   # directory or None
    timings = {}         # figures printed at the end


# One round trip: what the search screen shows.
STATE_JS = r"""
const q = s => document.querySelector(s);
const shown = el => !!el && !el.hidden && el.checkVisibility({checkOpacity: false, checkVisibilityCSS: true});
const text = s => { const el = q(s); return el ? el.textContent.replace(/\s+/g, ' ').trim() : null; };
const search = q('input#search');
return {
  url: location.href,
  query: search ? search.value : null,
  focused: document.activeElement ? (document.activeElement.id || document.activeElement.tagName.toLowerCase()) : null,
  count: shown(q('#count')) ? text('#count') : null,
  status: text('#status'),
  results: [...document.querySelectorAll('ol#results > li.result')].filter(shown).map(li => ({
    thread: li.dataset.threadId, email: li.dataset.emailId,
    subject: li.querySelector('.subject') ? li.querySelector('.subject').textContent : null,
    selected: li.getAttribute('aria-selected') === 'true'})),
  zero: shown(q('#zero-state')),
  empty: shown(q('#empty-state')),
  emptyText: text('#empty-state'),
  thread: shown(q('#thread')),
  threadTitle: shown(q('#thread')) ? text('#thread h1') : null,
  searching: shown(q('#searching')),
};
"""

# Timestamps (performance.now) of keystrokes and of #results/#count changes, with the frame after.
INSTRUMENT_JS = r"""
if (!window.__t) {
  window.__t = {keys: [], renders: []};
  document.addEventListener('keydown', () => window.__t.keys.push(performance.now()), true);
  const record = () => {
    const t = performance.now();
    const n = document.querySelectorAll('ol#results > li.result').length;
    const c = document.querySelector('#count');
    const count = c ? c.textContent.trim() : null;
    requestAnimationFrame(() => window.__t.renders.push({mutation: t, frame: performance.now(), n, count}));
  };
  const observer = new MutationObserver(record);
  for (const sel of ['ol#results', '#count']) {
    const el = document.querySelector(sel);
    if (el) observer.observe(el, {subtree: true, childList: true, characterData: true, attributes: true});
  }
}
window.__t.keys = []; window.__t.renders = [];
performance.clearResourceTimings();
return true;
"""

SEARCH_REQUESTS_JS = r"""
return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/search')).map(e => {
  const u = new URL(e.name);
  return {q: u.searchParams.get('q'), mode: u.searchParams.get('mode'), record: u.searchParams.get('record'),
          scope: u.searchParams.get('scope'), start: e.startTime, end: e.responseEnd};
});
"""


def conversations_text(n):
    return "1 conversation" if n == 1 else f"{n:,} conversations"


def count_text(api):
    """The count line the page shows for a search response: what contains the words, then what is related."""
    total = api["conversationCount"]
    matched = api.get("matchedConversations", total)
    related = total - matched
    if related <= 0:
        return conversations_text(total)
    if matched == 0:
        return f"{related:,} related conversation{'' if related == 1 else 's'} (none contains all these words)"
    return f"{conversations_text(matched)} contain{'s' if matched == 1 else ''} these words · {related:,} related"


def number_in(text):
    """The conversations a count line counts: the sum of its numbers ("2 … contain these words · 31 related" is 33)."""
    if not text:
        return None
    numbers = re.findall(r"\d[\d,.\u202f\u00a0]*", text)
    return sum(int(re.sub(r"\D", "", m)) for m in numbers) if numbers else None


def strip_reply_prefixes(subject):
    s = (subject or "").strip()
    while True:
        t = re.sub(r"^\s*((re|fwd?|aw|wg)\s*(\[\d+\])?\s*:\s*)", "", s, flags=re.I)
        if t == s:
            return s
        s = t


class UITestCase(unittest.TestCase):
    ctx = Context
    console_checked = True   # every UI test ends with a clean console unless it opts out

    # MARK: plumbing

    @property
    def driver(self):
        return self.ctx.driver

    @property
    def server(self):
        return self.ctx.server

    def setUp(self):
        # Each test starts in a fresh session state (scope), whatever the last one left behind.
        try:
            if self.driver.current_url.startswith(self.server.base):
                self.js("sessionStorage.clear()")
        except Exception:
            pass
        self.drain_console()

    def tearDown(self):
        pass

    def url(self, path="/"):
        return self.server.base + path

    def park_pointer(self):
        """Moves the mouse to the page's top-left corner, off the list (a list does not reorder
        under the pointer, so where an earlier test left it must not matter)."""
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(0, 0)
        actions.perform()

    def open(self, path="/", wait_for="input#search"):
        self.driver.get(self.url(path))
        self.park_pointer()
        self.wait(lambda: self.js("return !!document.querySelector(arguments[0])", wait_for),
                  10, f"the page {path} shows no {wait_for}")
        self.js(INSTRUMENT_JS)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, predicate, timeout=5.0, message="condition", interval=0.03):
        deadline = time.perf_counter() + timeout
        last = None
        while True:
            try:
                last = predicate()
                if last:
                    return last
            except AssertionError:
                raise
            except Exception as error:  # stale elements while the page re-renders
                last = error
            if time.perf_counter() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {message} (last: {last!r}; page: {self.safe_state()})")
            time.sleep(interval)

    def state(self):
        return self.js(STATE_JS)

    def safe_state(self):
        try:
            s = self.state()
            s["results"] = f"{len(s['results'])} results"
            return s
        except Exception as error:
            return f"(no state: {error})"

    def el(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def els(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def keys(self, *keys):
        """Keys to whatever has the focus, as a keyboard would (no element targeted)."""
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(self.driver).send_keys(*keys).perform()

    def type_into_search(self, text, clear=True):
        from selenium.webdriver.common.keys import Keys
        box = self.el("input#search")
        if clear and box.get_attribute("value"):
            box.send_keys(Keys.CONTROL, "a")
            box.send_keys(Keys.DELETE)
        for ch in text:
            box.send_keys(ch)
        return box

    def search_ui(self, text, enter=False):
        """Types a query and waits until the list shows the API's count for it."""
        from selenium.webdriver.common.keys import Keys
        box = self.type_into_search(text)
        if enter:
            box.send_keys(Keys.ENTER)
        return self.wait_for_count(text)

    def wait_for_count(self, text, scope=None, timeout=8):
        api = self.server.search(text, scope=scope)
        n = api["conversationCount"]
        if n == 0:
            self.wait(lambda: self.state()["empty"], timeout, f"the empty state for {text!r}")
        else:
            try:
                self.wait(lambda: number_in(self.state()["count"]) == n and len(self.state()["results"]) > 0,
                          timeout, f"#count to say {conversations_text(n)} for {text!r} (the API's conversationCount)")
            except AssertionError as error:
                keyword = self.server.search(text, scope=scope, mode="keyword")["conversationCount"]
                requests = [f"{r['q']!r} {r['mode']} {r['start']:.0f}–{r['end']:.0f} ms" for r in self.js(SEARCH_REQUESTS_JS)]
                raise AssertionError(f"{error}\n(the API's keyword-only count: {keyword}; the page's searches: {requests})") from None
        return api

    def query_param(self, name):
        return urllib.parse.parse_qs(urllib.parse.urlparse(self.driver.current_url).query).get(name, [None])[0]

    # MARK: console

    def drain_console(self):
        try:
            self.driver.get_log("browser")
        except Exception:
            pass

    def console_problems(self):
        problems = []
        for entry in self.driver.get_log("browser"):
            message = entry.get("message", "")
            if entry.get("level") == "SEVERE" or "Content Security Policy" in message or "Content-Security-Policy" in message:
                problems.append(f"{entry.get('level')} {entry.get('source')}: {message}")
        return problems

    def assert_console_clean(self, where="the search screen"):
        problems = self.console_problems()
        self.assertEqual(problems, [], f"console errors or CSP violations on {where}")
