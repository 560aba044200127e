#!/usr/bin/env python3
"""The web UI's acceptance tests, in headless Chromium (Selenium), against docs/web-ui.md.

Seeds a data directory (the 2,000-message demo mailbox, embedded with the real model, plus an
"xss" account built from Tests/Fixtures/xss-vectors.json), serves it with `mailsearch serve`,
and drives the page. Missing prerequisites (Chromium, chromedriver, selenium, the model) fail
the run; nothing is skipped.

usage: run_browser_tests.py --binary PATH [--model-dir DIR] [--screenshots DIR]
                            [--web-dir DIR] [--only SUBSTRING] [--keep] [--reuse-data DIR]

Prints one line per test and, last, `Browser tests: N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import harness  # noqa: E402
from support import Context  # noqa: E402

# Run order: the search screen first (it expects the recent searches it makes itself), the sync
# status, the compose panel and the Accounts dialog (mailboxes of their own, with a real Dovecot), then the hostile mail,
# then the screenshots.
ORDER = [
    ("test_search", "SearchScreenTests", [
        "test_ac_s_01_search_as_you_type", "test_ac_s_02_zero_and_empty_states", "test_ac_s_03_filter_chips",
        "test_ac_s_04_scope_current_folder", "test_ac_s_10_recent_searches", "test_ac_s_12_accessible_names",
        "test_ac_s_12_keyboard_only", "test_e_11_escape_clears_and_restores", "test_e_07_searching_indicator",
        "test_e_09_account_badges", "test_hybrid_count_with_pointer_over_list", "test_url_state_back_forward", "test_more_results",
        "test_thread_summary_and_reply_chips", "test_category_badge_and_change"]),
    ("test_sync", "SyncStatusTests", ["test_embedding_progress", "test_sync_status_and_new_mail",
                                      "test_mailbox_actions_reach_the_server", "test_move_through_the_folder_picker",
                                      "test_a_refused_action_is_undone"]),
    ("test_compose", "ComposeTests", ["test_a_suggested_reply_in_the_conversation_opens_the_reply",
                                      "test_compose_a_new_message", "test_reply_threads_on_the_server",
                                      "test_reply_all_and_forward_with_the_attachment", "test_replying_to_html_mail_loads_nothing_remote",
                                      "test_an_attachment_over_the_servers_size_is_refused", "test_undo_send_never_arrives"]),
    ("test_accounts", "AccountsTests", ["test_first_start_welcomes_and_adds_an_account", "test_test_connection_names_the_field",
                                        "test_remove_asks_for_the_name", "test_change_sync_window_and_default_sender",
                                        "test_keyboard_and_accessibility",
                                        "test_oauth_sign_in_in_the_browser", "test_oauth_deny_and_sign_in_again",
                                        "test_sync_window_limits_what_is_fetched", "test_remove_leaves_nothing_of_the_account",
                                        "test_model_step"]),
    ("test_views", "AccountViewsTests", ["test_1_unified_inbox_and_account_views",
                                         "test_2_account_on_messages_and_reply_from"]),
    ("test_settings", "SettingsTests", ["test_theme_undo_delay_and_sections", "test_category_badges_can_be_hidden",
                                        "test_embedding_line_says_what_can_be_searched_by_meaning",
                                        "test_storage_per_account_export_and_clear_caches",
                                        "test_embedding_progress_follows_the_status",
                                        "test_notifications_per_account"]),
    ("test_applock", "AppLockTests", ["test_passcode_locks_the_page_and_the_api"]),
    ("test_xss", "XSSTests", [
        "test_xss_vectors_run_nothing", "test_xss_vectors_load_nothing_remote", "test_xss_frames_are_inert",
        "test_xss_console_has_no_violations", "test_xss_in_text_fields", "test_plain_text_fallback",
        "test_remote_images_and_trackers", "test_cid_inline_image"]),
    ("test_screenshots", "ScreenshotTests", ["test_screenshots"]),
]


class LineResult(unittest.TestResult):
    """One line per test: PASS/FAIL, name, seconds; the failures' messages indented below."""

    def __init__(self):
        super().__init__()
        self.passed = 0
        self.failed = 0

    def startTest(self, test):
        super().startTest(test)
        self._started = time.perf_counter()
        self._problems = []

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._problems.append("".join(traceback.format_exception_only(err[0], err[1])).strip()[:6000])

    def addError(self, test, err):
        super().addError(test, err)
        text = "error: " + "".join(traceback.format_exception(*err))[-4000:]
        if not isinstance(test, unittest.TestCase):
            # A class's or module's setUp or tearDown (unittest's _ErrorHolder): no test ran, so
            # it is counted and printed here.
            self.failed += 1
            print(f"FAIL  {test.description}", flush=True)
            for line in text.rstrip().splitlines():
                print(f"      {line}", flush=True)
            return
        self._problems.append(text)

    def addSkip(self, test, reason):
        # Nothing may be skipped: a skip is a failure here.
        super().addSkip(test, reason)
        self._problems.append(f"skipped: {reason}")

    def stopTest(self, test):
        super().stopTest(test)
        seconds = time.perf_counter() - self._started
        verdict = "FAIL" if self._problems else "PASS"
        if self._problems:
            self.failed += 1
        else:
            self.passed += 1
        print(f"{verdict}  {type(test).__name__}.{test._testMethodName} ({seconds:.1f} s)", flush=True)
        for problem in self._problems:
            for line in problem.rstrip().splitlines():
                print(f"      {line}")
        sys.stdout.flush()


def build_suite(only, with_screenshots):
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for module_name, class_name, methods in ORDER:
        if module_name == "test_screenshots" and not with_screenshots:
            continue
        module = __import__(module_name)
        cls = getattr(module, class_name)
        found = set(loader.getTestCaseNames(cls))
        missing = set(methods) ^ found
        if missing:
            raise RuntimeError(f"ORDER and {class_name} disagree on {sorted(missing)}")
        for m in methods:
            # --only matches the module too: `--only test_accounts` runs that file's tests.
            if not only or any(o in f"{module_name}.{class_name}.{m}" for o in only):
                suite.addTest(cls(m))
    return suite


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the mailsearch binary (with the web UI)")
    ap.add_argument("--model-dir", default=None, help="all-MiniLM-L6-v2 (default: $MAILSEARCH_MODEL_DIR or ~/.cache/mailsearch/models/all-MiniLM-L6-v2)")
    ap.add_argument("--screenshots", default=None, help="write search.png, thread.png, accounts.png, onboarding-1…4-*.png and settings.png (1280×900) here")
    ap.add_argument("--web-dir", default=None, help="serve the front end from this folder (serve --web-dir)")
    ap.add_argument("--only", action="append", default=[], help="run only tests whose module.Class.method contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (data, logs)")
    ap.add_argument("--reuse-data", default=None, help="development: keep the embedded demo account here between runs")
    args = ap.parse_args()

    binary = os.path.abspath(args.binary)
    model_dir = os.path.abspath(os.path.expanduser(args.model_dir or harness.default_model_dir()))
    started = time.perf_counter()
    try:
        chromium, chromedriver = harness.check_prerequisites(binary, model_dir)
    except harness.PrerequisiteError as error:
        print(f"FAIL  prerequisites: {error}")
        print("Browser tests: 0 passed, 1 failed")
        return 1

    work = tempfile.mkdtemp(prefix="mailsearch-browser-")
    log = open(os.path.join(work, "setup.log"), "w")
    hits = server = driver = None
    result = LineResult()
    setup_ok = False
    try:
        hits = harness.HitServer().start()
        data, manifest, timings = harness.seed(binary, model_dir, work, hits.host, log,
                                               reuse_dir=os.path.abspath(args.reuse_data) if args.reuse_data else None)
        server = harness.Server(binary, data, model_dir, os.path.join(work, "serve.log"),
                                web_dir=os.path.abspath(args.web_dir) if args.web_dir else None).start()
        status = server.status
        driver = harness.start_browser(chromium, chromedriver, os.path.join(work, "profile"),
                                       os.path.join(work, "chromedriver.log"))
        Context.server, Context.driver, Context.hits, Context.manifest = server, driver, hits, manifest
        Context.screenshots = os.path.abspath(args.screenshots) if args.screenshots else None
        Context.timings = {}
        print(f"[{server.base}: {status['emails']} emails in {status['accounts']} accounts, "
              f"{status['embeddedEmails']} embedded; {len(manifest['vectors'])} XSS vectors; "
              f"remote host {hits.host}; setup "
              + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()) + "]", flush=True)
        setup_ok = True
        suite = build_suite(args.only, Context.screenshots is not None)
        suite.run(result)
    except Exception:
        if not setup_ok:
            print("FAIL  setup: " + traceback.format_exc().strip().replace("\n", "\n      "))
            print(f"      (logs in {work})")
            result.failed += 1
        else:
            raise
    finally:
        harness.quit_browser(driver)
        if server:
            server.stop()
        if hits:
            hits.stop()
        log.close()
        for k, v in Context.timings.items():
            print(f"  {k}: {v}")
        print(f"  total {time.perf_counter() - started:.0f} s")
        if args.keep or result.failed:
            print(f"  logs and data kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"Browser tests: {result.passed} passed, {result.failed} failed")
    return 0 if result.failed == 0 and result.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
