"""The search screen against docs/web-ui.md and spec 002 (AC-S-01…12, E-01, E-07, E-09…11)."""
import time

from support import (DEBOUNCE_MS, SEARCH_REQUESTS_JS, UITestCase, conversations_text, count_text, number_in,
                     strip_reply_prefixes)

CHIPS_JS = r"""
return [...document.querySelectorAll('#chips button.chip')].map(b => ({
  label: b.getAttribute('aria-label'), pressed: b.getAttribute('aria-pressed'), text: b.textContent.trim(),
  remove: b.parentElement.querySelector('button.chip-remove') ? b.parentElement.querySelector('button.chip-remove').getAttribute('aria-label') : null,
  shown: b.checkVisibility()}));
"""

SEARCHING_WATCH_JS = r"""
window.__searchingSeen = false;
const el = document.querySelector('#searching');
if (el) new MutationObserver(() => { if (!el.hidden && el.checkVisibility()) window.__searchingSeen = true; })
  .observe(el, {attributes: true, childList: true, subtree: true});
return !!el;
"""


class SearchScreenTests(UITestCase):

    def _callTestMethod(self, method):
        # A test that passed must also have left no console error or CSP violation behind.
        method()
        self.assert_console_clean()

    # MARK: helpers

    def settle_renders(self, quiet_ms=800, timeout=10):
        """Waits until #results and #count have not changed for quiet_ms; returns the recording."""
        deadline = time.perf_counter() + timeout
        while True:
            t = self.js("return {now: performance.now(), renders: window.__t.renders, keys: window.__t.keys}")
            last = max([r["mutation"] for r in t["renders"]] + [t["keys"][-1] if t["keys"] else 0])
            if t["now"] - last >= quiet_ms or time.perf_counter() > deadline:
                return t
            time.sleep(0.1)

    def chips(self):
        return self.js(CHIPS_JS)

    def result_li(self, thread_id):
        return self.el(f'ol#results > li.result[data-thread-id="{thread_id}"]')

    def clear_search_box(self):
        from selenium.webdriver.common.keys import Keys
        box = self.el("input#search")
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.DELETE)
        return box

    # MARK: AC-S-01

    def test_ac_s_01_search_as_you_type(self):
        """AC-S-01: typing char by char shows the results within 500 ms of the last keystroke (debounce
        excluded), the API's conversation count, <mark> highlights, and no search for a prefix."""
        q = "project update"
        api = self.server.search(q)
        self.assertGreater(api["keywordMatches"], 0, "precondition: the demo corpus has keyword matches for the query")
        n = api["conversationCount"]
        self.open("/")
        self.type_into_search(q)
        self.wait(lambda: number_in(self.state()["count"]) == n, 8,
                  f"#count to show {conversations_text(n)} (the API's conversationCount for {q!r})")
        t = self.settle_renders()
        keys = t["keys"]
        self.assertEqual(len(keys), len(q), "one keydown per character")
        gaps = [b - a for a, b in zip(keys, keys[1:])]
        last = keys[-1]
        after = [r for r in t["renders"] if r["mutation"] > last and r["n"] > 0]
        self.assertTrue(after, "no render of results after the last keystroke")
        first_ms = after[0]["frame"] - last - DEBOUNCE_MS
        final_ms = after[-1]["frame"] - last - DEBOUNCE_MS
        self.ctx.timings["AC-S-01 first render after last keystroke − 300 ms debounce (in-page performance.now, keydown → next frame after the DOM change)"] = f"{first_ms:.0f} ms"
        self.ctx.timings["AC-S-01 final render (hybrid) − 300 ms debounce"] = f"{final_ms:.0f} ms"
        self.ctx.timings["AC-S-01 largest gap between keystrokes"] = f"{max(gaps):.0f} ms"
        self.assertLess(max(gaps), DEBOUNCE_MS, "typing was too slow to test the debounce")
        self.assertLessEqual(first_ms, 500, f"first results {first_ms:.0f} ms after the debounce (AC-S-01: 500 ms)")
        self.assertLessEqual(final_ms, 500, f"final results {final_ms:.0f} ms after the debounce (AC-S-01: 500 ms)")
        self.assertGreaterEqual(after[0]["mutation"] - last, DEBOUNCE_MS - 20,
                                "results changed before the 300 ms debounce ran out")
        requested = {r["q"] for r in self.js(SEARCH_REQUESTS_JS)}
        self.assertIn(q, requested, "the page never asked /api/search for the whole query")
        prefixes = sorted(x for x in requested if x is not None and x != q and q.startswith(x.strip()) and x.strip() != q)
        self.assertEqual(prefixes, [], "searched for a prefix of what was typed: the 300 ms debounce is not working")

        s = self.state()
        self.assertEqual(s["count"], count_text(api), "the count text")
        self.assertIn(count_text(api), s["status"] or "", "#status (aria-live) must announce the count")
        self.assertFalse(s["zero"] or s["empty"], "zero or empty state shown next to results")
        ui_ids = [r["thread"] for r in s["results"]]
        api_ids = [str(r["threadId"]) for r in api["results"]]
        k = min(len(ui_ids), len(api_ids))
        self.assertGreater(k, 0)
        self.assertEqual(ui_ids[:k], api_ids[:k], "the list is not the API's ranking")
        self.assertEqual(len(set(ui_ids)), len(ui_ids), "a conversation is listed twice")

        # Highlights: the top result's matched terms are in <mark> where the API says.
        top = api["results"][0]
        li = self.result_li(top["threadId"])
        fields = {h["field"] for h in top["highlights"]}
        self.assertTrue(fields, "precondition: the API highlights the top result")
        terms = q.split()
        for field in fields & {"subject", "snippet"}:
            marks = [m.text.strip().lower() for m in li.find_elements("css selector", f".{field} mark")]
            self.assertTrue(marks, f"no <mark> in .{field} of the top result (API highlights: {top['highlights']})")
            for m in marks:
                self.assertTrue(any(m.startswith(t) for t in terms), f"<mark>{m}</mark> is not a query term")
        for part in (".senders", ".subject", ".snippet", "time.date", ".why"):
            self.assertTrue(li.find_elements("css selector", part), f"the result has no {part}")

        # Opening it.
        subject = li.find_element("css selector", ".subject").text
        li.click()
        self.wait(lambda: self.state()["thread"], 5, "#thread after clicking a result")
        thread = self.server.get_json(f"/api/threads/{top['threadId']}")
        title = self.wait(lambda: self.state()["threadTitle"], 5, "#thread h1")
        subjects = {strip_reply_prefixes(e["subject"]) for e in thread["emails"]}
        self.assertIn(strip_reply_prefixes(title), subjects, "#thread h1 is not the conversation's subject")
        self.assertEqual(strip_reply_prefixes(title), strip_reply_prefixes(subject))
        self.assertEqual(self.query_param("thread"), str(top["threadId"]), "the URL does not name the open conversation")
        articles = [a.get_attribute("data-email-id") for a in self.els("#thread article.message")]
        self.assertEqual(articles, [str(e["emailId"]) for e in thread["emails"]], "messages not one per email, oldest first")
        self.assertEqual(self.el("#thread").get_attribute("role"), "region")

    # MARK: AC-S-02, E-01, E-10

    def test_ac_s_02_zero_and_empty_states(self):
        """AC-S-02 / E-10 / E-01: an empty box shows the zero state (recent searches, contacts); a
        nonsense query shows the empty state, announced in #status, with the model and embeddings on."""
        status = self.server.get_json("/api/status")
        self.assertTrue(status["semanticAvailable"], "precondition: the model is installed")
        self.assertEqual(status["embeddedEmails"], status["emails"], "precondition: every email is embedded")
        self.open("/")
        self.wait(lambda: self.state()["zero"], 5, "#zero-state on an empty query")
        s = self.state()
        self.assertEqual(s["results"], [], "results listed in the zero state")
        self.assertFalse(s["empty"])
        contacts = self.els("#zero-state #contacts button.contact")
        self.assertGreaterEqual(len(contacts), 1, "no top contacts in the zero state")
        self.assertTrue(self.els("#zero-state #recent"), "no #recent in the zero state")

        q = "xyznonexistent12345"
        api = self.server.search(q)
        self.assertEqual(api["conversationCount"], 0, "precondition: the nonsense query matches nothing")
        # Letters that are no word are recognised before the search by meaning (QueryWords): the
        # semantic half answers why it did not run, and the list is the empty state all the same.
        self.assertEqual((api["semantic"]["status"], api["semantic"].get("reason")), ("skipped", "notWords"),
                         "precondition: the query is recognised as no words")
        self.type_into_search(q)
        self.wait(lambda: self.state()["empty"], 5, "#empty-state")
        s = self.state()
        self.assertIn("No results found for", s["emptyText"])
        self.assertIn(q, s["emptyText"])
        message = f"No results found for “{q}”"
        self.assertGreater(len(s["emptyText"]), len(message) + 10, "#empty-state has no hint to broaden the query")
        self.wait(lambda: "No results found for" in (self.state()["status"] or "") and q in self.state()["status"],
                  5, "#status to announce the empty result")
        self.assertEqual(s["results"], [])
        self.assertFalse(s["zero"], "zero state shown with a query")

        # Clearing the box brings the zero state back.
        self.clear_search_box()
        self.wait(lambda: self.state()["zero"] and not self.state()["empty"], 5, "#zero-state after clearing")

    # MARK: AC-S-03

    def test_ac_s_03_filter_chips(self):
        """AC-S-03: a typed filter shows active chips; removing one rewrites the query and the
        results; turning "Has attachment" on adds it to the query (AND with the text)."""
        self.open("/")
        q = "from john with attachments"
        api = self.search_ui(q)
        self.assertEqual(api["query"]["filters"].get("sender"), "john")
        chips = self.chips()
        active = [c for c in chips if c["pressed"] == "true"]
        sender = [c for c in active if (c["label"] or "").startswith("Filter: From") and "john" in c["label"].lower()]
        attach = [c for c in active if c["label"] == "Filter: Has attachment"]
        self.assertTrue(sender, f"no active sender chip (chips: {chips})")
        self.assertTrue(attach, f"no active Has attachment chip (chips: {chips})")
        self.assertTrue(all(c["remove"] and c["remove"].startswith("Remove filter: ") for c in active),
                        f"an active chip without a 'Remove filter: …' button: {active}")
        self.each_result(".attachment-icon", "a result without .attachment-icon under Has attachment")

        # Remove the sender chip.
        remove = [b for b in self.els("#chips button.chip-remove") if (b.get_attribute("aria-label") or "").startswith("Remove filter: From")]
        self.assertTrue(remove, "no remove button for the sender chip")
        remove[0].click()
        self.wait(lambda: "john" not in (self.state()["query"] or "").lower(), 5, "the query text to lose 'from john'")
        new = self.state()["query"]
        api2 = self.wait_for_count(new)
        self.assertNotIn("sender", api2["query"]["filters"], f"{new!r} still has a sender filter")
        self.assertTrue(api2["query"]["filters"].get("hasAttachment"), f"{new!r} lost the attachment filter")
        self.assertGreater(api2["conversationCount"], api["conversationCount"], "removing a filter must widen the results")
        self.assertFalse([c for c in self.chips() if c["pressed"] == "true" and (c["label"] or "").startswith("Filter: From")],
                         "the sender chip is still active")

        # Turn Has attachment on from a plain text query.
        self.clear_search_box()
        text = "invoice"
        base = self.search_ui(text)
        chip = [b for b in self.els("#chips button.chip") if b.get_attribute("aria-label") == "Filter: Has attachment"]
        self.assertTrue(chip, f"no 'Filter: Has attachment' chip to turn on (chips: {self.chips()})")
        self.assertNotEqual(chip[0].get_attribute("aria-pressed"), "true")
        chip[0].click()
        self.wait(lambda: (self.state()["query"] or "") != text, 5, "the query text to gain the attachment filter")
        new = self.state()["query"]
        self.assertIn("invoice", new)
        api3 = self.wait_for_count(new)
        self.assertTrue(api3["query"]["filters"].get("hasAttachment"), f"{new!r} does not ask for attachments")
        self.assertLess(api3["conversationCount"], base["conversationCount"], "Has attachment did not narrow the results")
        self.assertGreater(api3["conversationCount"], 0, "precondition: some invoices have attachments")
        self.wait(lambda: any(c["label"] == "Filter: Has attachment" and c["pressed"] == "true" for c in self.chips()),
                  3, "the Has attachment chip to be pressed")
        self.each_result(".attachment-icon", "a result without .attachment-icon")

    def each_result(self, selector, message):
        """The text of `selector` in each result, once the list is drawn and every result has one (read
        in one script: the list may be drawn again meanwhile, and elements held across that go stale)."""
        js = """return [...document.querySelectorAll('ol#results > li.result')]
          .map(li => { const e = li.querySelector(arguments[0]); return e ? e.textContent.trim() : null; });"""
        return self.wait(lambda: (lambda rows: rows if rows and None not in rows else None)(self.js(js, selector)), 5, message)

    # MARK: AC-S-04

    def mailbox_id(self, account, name):
        """The id of folder `name` of `account` from /api/mailboxes ({accounts: [...], folders: [...]})."""
        boxes = self.server.get_json("/api/mailboxes")
        accounts = {a["id"]: a["name"] for a in boxes.get("accounts", [])}
        for folder in boxes.get("folders", []):
            if folder.get("name") == name and accounts.get(folder.get("accountId")) == account:
                return folder["id"]
        self.fail(f"/api/mailboxes has no {account}/{name}: {boxes}")

    def test_ac_s_04_scope_current_folder(self):
        """AC-S-04: scope Current Folder limits the results to the selected folder (the API's
        scope=folder:ID count), persists across a reload, and All Mail widens them again."""
        from selenium.webdriver.support.ui import Select
        folder = self.mailbox_id("demo", "Inbox")
        q = "meeting"
        all_api = self.server.search(q)
        folder_api = self.server.search(q, scope=f"folder:{folder}")
        self.assertLess(folder_api["conversationCount"], all_api["conversationCount"], "precondition: the folder narrows it")
        self.assertGreater(folder_api["conversationCount"], 0, "precondition: the folder has matches")
        self.open("/")
        self.js("sessionStorage.clear()")
        self.open("/")
        scope = self.el("#scope")
        self.assertEqual(scope.tag_name, "select")
        self.assertEqual(scope.get_attribute("value"), "all", "default scope must be All Mail")
        self.assertEqual(scope.accessible_name, "Search in")
        target = self.js(r"""
          const id = String(arguments[0]);
          const hit = [...document.querySelectorAll('#folders *')].find(el =>
            [...el.attributes].some(a => a.name !== 'class' && (a.value === id || a.value === 'folder:' + id)));
          if (!hit) return null;
          return hit.closest('button, a, [role=option], [role=treeitem], li') || hit;""", folder)
        self.assertIsNotNone(target, f"#folders has no element for folder {folder} (demo/Inbox)")
        target.click()
        Select(scope).select_by_value("folder")
        self.type_into_search(q)
        self.wait(lambda: number_in(self.state()["count"]) == folder_api["conversationCount"], 8,
                  f"the Current Folder count {folder_api['conversationCount']} (All Mail: {all_api['conversationCount']})")
        self.assertEqual(self.query_param("scope"), f"folder:{folder}", "the URL does not carry the scope")
        ids = {r["thread"] for r in self.state()["results"]}
        self.assertTrue(ids <= {str(r["threadId"]) for r in self.server.search(q, scope=f"folder:{folder}", limit=200)["results"]},
                        "a result outside the folder")

        self.driver.refresh()
        self.wait(lambda: self.js("return !!document.querySelector('#scope')"), 10, "#scope after reload")
        self.wait(lambda: self.el("#scope").get_attribute("value") == "folder", 5, "the scope to persist after a reload")
        self.wait(lambda: number_in(self.state()["count"]) == folder_api["conversationCount"], 8, "the folder count after reload")

        # The session keeps the scope, not only the URL: a fresh page in this tab, a new query.
        q2 = "budget"
        folder_api2 = self.server.search(q2, scope=f"folder:{folder}")
        self.open("/")
        self.assertEqual(self.el("#scope").get_attribute("value"), "folder", "the scope did not persist in the session")
        self.type_into_search(q2)
        self.wait(lambda: number_in(self.state()["count"]) == folder_api2["conversationCount"], 8,
                  f"the Current Folder count {folder_api2['conversationCount']} for a new query "
                  f"(All Mail: {self.server.search(q2)['conversationCount']})")
        self.assertEqual(self.query_param("scope"), f"folder:{folder}")

        Select(self.el("#scope")).select_by_value("all")
        self.wait(lambda: number_in(self.state()["count"]) == self.server.search(q2)["conversationCount"], 8,
                  "the All Mail count after switching back")
        self.type_into_search(q)
        self.wait(lambda: number_in(self.state()["count"]) == all_api["conversationCount"], 8,
                  f"All Mail count {all_api['conversationCount']}")
        self.assertIn(self.query_param("scope"), (None, "all"))

    # MARK: AC-S-10

    def recent_labels(self):
        return [b.get_attribute("aria-label") for b in self.els("#recent button.recent")]

    def test_ac_s_10_recent_searches(self):
        """AC-S-10: a settled search (Enter) is listed in the zero state, most recent first and once;
        clicking one runs it; "Clear recent searches" empties the list."""
        self.open("/")
        for q in ("quarterly budget", "offsite"):
            self.search_ui(q, enter=True)
        self.wait(lambda: self.server.get_json("/api/suggestions")["recentSearches"][:2] == ["offsite", "quarterly budget"],
                  5, "the server to record both searches")
        self.clear_search_box()
        self.wait(lambda: self.state()["zero"], 5, "the zero state")
        expected = ["Recent search: offsite", "Recent search: quarterly budget"]
        self.wait(lambda: self.recent_labels()[:2] == expected, 5, f"the zero state to list {expected} first")
        button = [b for b in self.els("#recent button.recent") if b.get_attribute("aria-label") == "Recent search: quarterly budget"][0]
        self.assertEqual(button.accessible_name, "Recent search: quarterly budget")
        button.click()
        self.wait(lambda: self.state()["query"] == "quarterly budget", 5, "the recent search in the box")
        # The list appears under the pointer, which holds the hybrid ranking back
        # (test_hybrid_count_with_pointer_over_list): move it away.
        self.park_pointer()
        self.wait_for_count("quarterly budget")

        # Again: listed once, on top.
        self.search_ui("offsite", enter=True)
        self.search_ui("quarterly budget", enter=True)
        self.clear_search_box()
        self.wait(lambda: self.state()["zero"], 5, "the zero state")
        self.wait(lambda: self.recent_labels()[:2] == ["Recent search: quarterly budget", "Recent search: offsite"], 5,
                  "quarterly budget, searched again, on top")
        labels = self.recent_labels()
        self.assertEqual(labels.count("Recent search: quarterly budget"), 1, f"not deduplicated: {labels}")
        self.assertLessEqual(len(labels), 10)

        clear = self.el("button#clear-recent")
        self.assertEqual(clear.accessible_name, "Clear recent searches")
        clear.click()
        self.wait(lambda: self.recent_labels() == [], 5, "the recent searches to be cleared")
        self.assertEqual(self.server.get_json("/api/suggestions")["recentSearches"], [])
        self.driver.refresh()
        self.wait(lambda: self.state()["zero"], 8, "the zero state after reload")
        self.assertEqual(self.recent_labels(), [], "recent searches came back after a reload")

    # MARK: AC-S-12

    def test_ac_s_12_accessible_names(self):
        """AC-S-12: computed accessible names of the search box, chips, remove buttons, the thread
        region and its back button; #status is a polite live region that announces results."""
        self.open("/")
        box = self.el("input#search")
        self.assertEqual(box.accessible_name, "Search emails")
        self.assertEqual(box.get_attribute("type"), "search")
        status = self.el("#status")
        self.assertEqual(status.get_attribute("role"), "status")
        self.assertEqual(status.get_attribute("aria-live"), "polite")

        api = self.search_ui("from john with attachments")
        chips = self.els("#chips button.chip")
        self.assertTrue(chips, "no chips")
        for chip in chips:
            self.assertTrue(chip.accessible_name.startswith("Filter: "), f"chip named {chip.accessible_name!r}")
        self.assertIn("Filter: Has attachment", [c.accessible_name for c in chips])
        for remove in self.els("#chips button.chip-remove"):
            self.assertTrue(remove.accessible_name.startswith("Remove filter: "), remove.accessible_name)
        self.wait(lambda: count_text(api) in (self.el("#status").text or ""), 5, "#status to announce the count")

        self.el(f'ol#results > li.result[data-thread-id="{api["results"][0]["threadId"]}"]').click()
        self.wait(lambda: self.state()["thread"], 5, "#thread")
        thread = self.el("#thread")
        self.assertEqual(thread.get_attribute("role"), "region")
        self.assertEqual(thread.accessible_name, "Conversation")
        self.assertEqual(self.el("button#back").accessible_name, "Back to results")
        # The region shows at once; its messages follow the fetch of the conversation.
        header = self.wait(lambda: self.els("#thread article.message .message-header"), 5, "the conversation's .message-header")
        for h in header:
            self.assertEqual(h.tag_name, "button", ".message-header must be a button")
            self.assertIn(h.get_attribute("aria-expanded"), ("true", "false"))

    def test_ac_s_12_keyboard_only(self):
        """AC-S-12: without the mouse: / focuses the box, typing searches, arrows and j/k move the
        selection, Enter opens, u and Esc go back."""
        from selenium.webdriver.common.keys import Keys
        self.open("/")
        self.js("document.activeElement && document.activeElement.blur(); document.body.focus();")
        self.keys("/")
        self.wait(lambda: self.state()["focused"] == "search", 3, "/ to focus the search box")
        self.assertEqual(self.state()["query"], "", "the / was typed into the box")
        q = "deployment schedule"
        self.keys(q)
        api = self.wait_for_count(q)
        self.assertGreaterEqual(api["conversationCount"], 3, "precondition: three results to move through")
        ids = [r["thread"] for r in self.state()["results"]]

        def selected():
            return [r["thread"] for r in self.state()["results"] if r["selected"]]

        self.keys(Keys.ARROW_DOWN)
        self.wait(lambda: selected() == ids[:1], 3, "ArrowDown to select the first result")
        self.keys(Keys.ARROW_DOWN)
        self.wait(lambda: selected() == ids[1:2], 3, "ArrowDown to select the second result")
        self.keys(Keys.ARROW_UP)
        self.wait(lambda: selected() == ids[:1], 3, "ArrowUp to select the first result")
        self.keys("j")
        self.wait(lambda: selected() == ids[1:2], 3, "j to select the next result")
        self.keys("j")
        self.wait(lambda: selected() == ids[2:3], 3, "j to select the third result")
        self.keys("k")
        self.wait(lambda: selected() == ids[1:2], 3, "k to select the previous result")
        self.assertEqual(self.state()["query"], q, "j/k were typed into the search box")

        self.keys(Keys.ENTER)
        self.wait(lambda: self.state()["thread"], 5, "Enter to open the selected conversation")
        self.assertEqual(self.query_param("thread"), ids[1])
        self.keys("u")
        self.wait(lambda: not self.state()["thread"] and self.state()["results"], 5, "u to go back to the results")
        s = self.state()
        self.assertEqual([r["thread"] for r in s["results"]], ids, "the list changed after going back")
        self.assertEqual(s["query"], q)
        self.wait(lambda: selected() == ids[1:2], 3, "the selection to survive going back")
        self.keys("j")
        self.wait(lambda: selected() == ids[2:3], 3, "j after going back")
        self.keys(Keys.ENTER)
        self.wait(lambda: self.state()["thread"], 5, "Enter to open the third conversation")
        self.assertEqual(self.query_param("thread"), ids[2])
        self.keys(Keys.ESCAPE)
        self.wait(lambda: not self.state()["thread"] and self.state()["results"], 5, "Esc to go back to the results")
        self.assertEqual(self.state()["query"], q, "Esc in the thread view cleared the search")

    # MARK: E-11, E-07, E-09

    def test_e_11_escape_clears_and_restores(self):
        """E-11: Esc in the box clears it and returns to what was listed before the search."""
        from selenium.webdriver.common.keys import Keys
        self.open("/")
        self.wait(lambda: self.state()["zero"], 5, "the zero state")
        before = self.state()
        box = self.type_into_search("offsite")
        self.wait_for_count("offsite")
        box.send_keys(Keys.ESCAPE)
        self.wait(lambda: self.state()["query"] == "", 3, "Esc to clear the box")
        self.wait(lambda: self.state()["zero"] == before["zero"] and
                  [r["thread"] for r in self.state()["results"]] == [r["thread"] for r in before["results"]],
                  3, "Esc to bring back the previous list (here the zero state)")
        self.assertFalse(self.state()["empty"])
        self.assertIsNone(self.query_param("q"), "the URL still holds the query")

    def test_e_07_searching_indicator(self):
        """E-07: "Searching…" is shown only for a search over 500 ms: never for a fast one, shown for a
        slow one (network latency added through DevTools), and hidden once its results are in."""
        self.open("/")
        self.assertTrue(self.js(SEARCHING_WATCH_JS), "no #searching element")
        self.search_ui("budget")
        self.assertFalse(self.state()["searching"], "#searching still visible after the results")
        self.assertTrue(self.el("#searching").get_attribute("hidden") is not None or not self.el("#searching").is_displayed())
        # The page's own requests for the query: "Searching…" may show only if they took over 500 ms.
        took = max(r["end"] - r["start"] for r in self.js(SEARCH_REQUESTS_JS) if r["q"] == "budget")
        self.ctx.timings["E-07 the page's slowest /api/search for 'budget'"] = f"{took:.0f} ms"
        if took < 400:
            self.assertFalse(self.js("return window.__searchingSeen"), f"#searching flashed for a search of {took:.0f} ms")

        # A slow search, provoked with 1.2 s of network latency (DevTools): "Searching…" shows
        # while it runs and goes once the results are in.
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                                    {"offline": False, "latency": 1200, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            self.js(SEARCHING_WATCH_JS)
            self.type_into_search("offsite")
            self.wait(lambda: self.state()["searching"], 3, "#searching during a search slower than 500 ms")
            self.assertIn("Searching", self.el("#searching").text)
            self.wait(lambda: "Searching" in (self.el("#status").text or "")
                      or "Searching" in (self.js("return document.querySelector('#status').textContent") or ""),
                      2, "#status to announce Searching…")
            self.wait(lambda: not self.state()["searching"] and self.state()["results"], 10,
                      "#searching to go once the slow results are in")
        finally:
            self.driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                                        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
            self.driver.execute_cdp_cmd("Network.disable", {})
        self.wait_for_count("offsite")

    def test_e_09_account_badges(self):
        """E-09: with two accounts, each result carries its account's badge."""
        self.open("/")
        self.assertGreaterEqual(self.server.get_json("/api/status")["accounts"], 2)
        self.search_ui("budget")
        self.assertEqual(set(self.each_result(".badge.account", "a result without .badge.account")), {"demo"})
        self.search_ui("xssvec0001")
        badges = [b.text.strip() for b in self.els("ol#results > li.result .badge.account")]
        self.assertIn("xss", badges)

    def test_hybrid_count_with_pointer_over_list(self):
        """The list may keep still under the mouse, but the page must not stay on the keyword-only
        answer: with the pointer resting over the list while a new query is typed, #count still
        reaches the API's (hybrid) conversationCount."""
        from selenium.webdriver.common.action_chains import ActionChains
        q = "quarterly budget"
        hybrid = self.server.search(q)["conversationCount"]
        keyword = self.server.search(q, mode="keyword")["conversationCount"]
        self.assertNotEqual(hybrid, keyword, "precondition: semantic matches change the count")
        self.open("/")
        self.search_ui("budget")
        ActionChains(self.driver).move_to_element(self.els("ol#results > li.result")[2]).perform()
        self.type_into_search(q)
        self.wait(lambda: number_in(self.state()["count"]) == hybrid, 5,
                  f"#count to reach the hybrid count {hybrid} (keyword-only: {keyword}) with the mouse over the list")

    # MARK: URL state, paging

    def test_url_state_back_forward(self):
        """The query and the open conversation live in the URL: back and forward restore both, and
        a bookmarked URL opens straight onto them."""
        self.open("/")
        self.search_ui("offsite", enter=True)
        self.wait(lambda: self.query_param("q") == "offsite", 3, "?q=offsite")
        self.search_ui("budget", enter=True)
        self.wait(lambda: self.query_param("q") == "budget", 3, "?q=budget")
        first = self.state()["results"][0]
        self.result_li(first["thread"]).click()
        # The title shows once the conversation is read (empty while it loads): wait for it.
        self.wait(lambda: self.state()["thread"] and self.state()["threadTitle"], 5, "#thread with its title")
        title = self.state()["threadTitle"]
        self.assertEqual(self.query_param("thread"), first["thread"])
        self.assertEqual(self.query_param("q"), "budget")

        self.driver.back()
        self.wait(lambda: not self.state()["thread"] and self.state()["query"] == "budget" and self.state()["results"],
                  5, "back: the budget results without the conversation")
        self.driver.back()
        self.wait(lambda: self.state()["query"] == "offsite", 5, "back: the offsite search")
        self.wait_for_count("offsite")
        self.driver.forward()
        self.wait(lambda: self.state()["query"] == "budget" and not self.state()["thread"], 5, "forward: budget")
        self.driver.forward()
        self.wait(lambda: self.state()["thread"] and self.state()["threadTitle"] == title, 5, "forward: the conversation again")

        self.open(f"/?q=offsite&thread={first['thread']}")
        self.wait(lambda: self.state()["thread"] and self.state()["threadTitle"] == title, 5, "a bookmarked conversation")
        self.assertEqual(self.state()["query"], "offsite")

    def test_more_results(self):
        """button#more fetches the next page (the API's cursor): more conversations, none twice."""
        q = "with attachments"
        api = self.server.search(q)
        self.assertIn("cursor", api, "precondition: the query has a second page")
        self.open("/")
        self.search_ui(q)
        before = [r["thread"] for r in self.state()["results"]]
        self.assertLess(len(before), api["conversationCount"])
        more = self.el("button#more")
        self.assertTrue(more.is_displayed(), "#more hidden although there are more results")
        more.click()
        self.wait(lambda: len(self.state()["results"]) > len(before), 5, "more results after #more")
        after = [r["thread"] for r in self.state()["results"]]
        self.assertEqual(after[:len(before)], before, "the first page changed")
        self.assertEqual(len(set(after)), len(after), "a conversation listed twice across pages")
        self.assertEqual(number_in(self.state()["count"]), api["conversationCount"])

    # MARK: Categories

    def test_thread_summary_and_reply_chips(self):
        """A conversation of 3+ messages shows its summary above the messages, each line's sentence
        taken from the message it names; a 2-message one shows none; reply chips, when the latest
        message asks something, are the API's suggestions."""
        page = self.server.get_json("/api/search?q=budget&limit=50&mode=keyword&record=0")
        long = [t["id"] for t in page["threads"] if t["messageCount"] >= 3]
        short = [t["id"] for t in page["threads"] if t["messageCount"] == 2]
        self.assertTrue(long, "the demo mailbox has conversations of 3+ messages about budgets")
        thread = long[0]
        answer = self.server.get_json(f"/api/threads/{thread}/summary")
        self.assertEqual(answer["status"], "summarized")
        self.open(f"/?q=budget&thread={thread}", wait_for="#thread article.message")
        self.wait(lambda: self.els("#thread section.thread-summary:not([hidden]) li.summary-point"), 8, "the summary")
        shown = [li.text for li in self.els("#thread section.thread-summary li.summary-point")]
        self.assertEqual(len(shown), len(answer["summary"]["points"]))
        bodies = {e["emailId"]: e["body"] for e in self.server.get_json(f"/api/threads/{thread}")["emails"]}
        for point, text in zip(answer["summary"]["points"], shown):
            self.assertIn(point["sentence"], text)
            words = point["sentence"].split()
            self.assertIn(words[0], bodies[point["source"]["emailId"]], "the sentence is from the message it names")
        # Its first line's button opens the message it came from.
        self.el("#thread section.thread-summary li.summary-point button.summary-source").click()
        first = answer["summary"]["points"][0]["source"]["emailId"]
        self.wait(lambda: self.el(f'#thread article.message[data-email-id="{first}"] .message-header').get_attribute("aria-expanded") == "true",
                  5, "the summarized message to open")
        if short:
            self.open(f"/?q=budget&thread={short[0]}", wait_for="#thread article.message")
            time.sleep(0.5)
            self.assertFalse(self.els("#thread section.thread-summary:not([hidden])"))
        # Reply chips on the first conversation whose latest message asks something.
        for candidate in long[:15]:
            emails = self.server.get_json(f"/api/threads/{candidate}")["emails"]
            replies = self.server.get_json(f"/api/emails/{emails[-1]['emailId']}/replies")["replies"]
            if replies["triggered"]:
                self.open(f"/?q=budget&thread={candidate}", wait_for="#thread article.message")
                self.wait(lambda: len(self.els("#thread .reply-chips button.reply-chip")) == 3, 8, "three reply chips")
                self.assertEqual([b.text for b in self.els("#thread .reply-chips button.reply-chip")],
                                 [r["text"] for r in replies["suggestions"]])
                break
        self.assert_console_clean("the conversation with a summary")

    def test_category_badge_and_change(self):
        """Result rows carry the category badge; the conversation view shows the category and
        changing it reaches the API (the user's choice) and the results at once. Runs last among
        the search tests: it changes categories."""
        from selenium.webdriver.support.ui import Select
        self.open("/")
        self.search_ui("category:promotions")
        self.wait(lambda: self.state()["results"], 5, "promotions results")
        badges = [b.text.strip() for b in self.els("ol#results > li.result .badge.category")]
        self.assertTrue(badges and all(b == "Promotions" for b in badges), badges)
        first = self.state()["results"][0]
        self.result_li(first["thread"]).click()
        self.wait(lambda: self.state()["thread"], 5, "#thread")
        css = "#thread .thread-meta .badge.category select.category-select"
        self.wait(lambda: self.els(css), 5, "the category select of the conversation")
        select = Select(self.el(css))
        self.assertEqual(select.first_selected_option.get_attribute("value"), "promotions")
        select.select_by_value("updates")
        self.wait(lambda: all(e["category"] == "updates" for e in self.server.get_json(f"/api/threads/{first['thread']}")["emails"]),
                  5, "the API to show the thread in Updates")
        thread = self.server.get_json(f"/api/threads/{first['thread']}")
        self.assertEqual({e["categorization"]["method"] for e in thread["emails"]}, {"user"})
        self.wait(lambda: not self.els(f'ol#results > li.result[data-thread-id="{first["thread"]}"]'), 5,
                  "the conversation to leave the promotions results")

