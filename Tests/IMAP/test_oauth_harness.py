#!/usr/bin/env python3
"""The OAuth 2.0 peer (oauth_server.py, Authlib) and Dovecot's oauth2 passdb (dovecot.py, oauth=…) checked with
Python's urllib, imaplib and smtplib, so that the Swift and browser OAuth tests can trust them.

    python3 Tests/IMAP/test_oauth_harness.py

What is proved against the real servers: the authorization code flow with PKCE done by hand (consent page,
Allow, redirect to a loopback listener, token exchange) and what it refuses (a wrong or missing verifier, a reused
code, a redirect that is not loopback, Deny); IMAP AUTHENTICATE XOAUTH2 and OAUTHBEARER on the STARTTLS and the
implicit-TLS ports; SMTP submission AUTH XOAUTH2 with a message delivered; expiry, refresh, rotation,
revocation; introspection only for Dovecot's client. Authlib or Dovecot missing is a failure, never a skip: run
scripts/install-deps.sh. The last line is "OAuth harness: N passed, N failed, N skipped" (make test reads it).
"""
import base64
import hashlib
import http.server as http_server
import imaplib
import json
import os
import re
import secrets
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dovecot  # noqa: E402
import oauth_server  # noqa: E402
from dovecot import Dovecot  # noqa: E402
from oauth_server import OAuthServer  # noqa: E402

USERS = {"alice": "alice-password", "bob": "bob-password"}
OAUTH = DOVECOT = None


def setUpModule():
    # AuthlibMissing / DovecotMissing: unittest counts them as errors, never as skips.
    global OAUTH, DOVECOT
    oauth_server.ensure_authlib()
    dovecot.find_binaries(submission=True)
    OAUTH = OAuthServer(USERS, access_lifetime=300)
    OAUTH.start()
    try:
        DOVECOT = Dovecot(USERS, oauth=OAUTH, submission=True)
        DOVECOT.start()
    except BaseException:
        OAUTH.close()
        raise


def tearDownModule():
    if DOVECOT is not None:
        DOVECOT.close()
    if OAUTH is not None:
        OAUTH.close()


# -- HTTP helpers ------------------------------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_NO_REDIRECT = urllib.request.build_opener(_NoRedirect)


def http(url, form=None, basic=None, follow=True):
    """(status, headers, body text) of a GET (form None) or a urlencoded POST; errors are answers too."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=data)
    if basic:
        request.add_header("Authorization", "Basic " + base64.b64encode(":".join(basic).encode()).decode())
    opener = urllib.request.build_opener() if follow else _NO_REDIRECT
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read().decode()


def token_request(form, basic=None):
    status, _, body = http(OAUTH.token_url, form, basic)
    return status, json.loads(body)


def pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class LoopbackListener:
    """The app's side of RFC 8252 §7.3: an HTTP listener on 127.0.0.1, a free port, that keeps the query of every
    request it gets (the authorization response)."""

    def __init__(self, path="/oauth/callback"):
        self.queries = []
        listener = self

        class Handler(http_server.BaseHTTPRequestHandler):
            def do_GET(self):
                listener.queries.append((urllib.parse.urlsplit(self.path).path,
                                         dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))))
                body = b"<!DOCTYPE html><p>You may close this window.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http_server.HTTPServer(("127.0.0.1", 0), Handler)
        self.redirect_uri = f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def authorize_query(redirect_uri, challenge, state="st-1", login_hint="alice", **extra):
    params = {"response_type": "code", "client_id": OAUTH.client_id, "redirect_uri": redirect_uri,
              "scope": "imap smtp", "state": state, "code_challenge": challenge, "code_challenge_method": "S256"}
    if login_hint:
        params["login_hint"] = login_hint
    params.update(extra)
    return OAUTH.authorize_url + "?" + urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})


def form_fields(page):
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))


class OAuthTestCase(unittest.TestCase):
    def listener(self):
        listener = LoopbackListener()
        self.addCleanup(listener.close)
        return listener

    def consent(self, listener, challenge, decision="allow", state="st-1", login_hint="alice", credentials=None):
        """GET the authorization endpoint, then press Allow or Deny on its page (with a user name and password
        when there is no login_hint); returns what the loopback listener got (following the 302 as a browser)."""
        status, _, page = http(authorize_query(listener.redirect_uri, challenge, state, login_hint))
        self.assertEqual(status, 200, page)
        if login_hint:
            self.assertIn(f"Allow MailSearch to read and send mail as {login_hint}?", page)
        fields = form_fields(page)
        fields["decision"] = decision
        if credentials:
            fields["username"], fields["password"] = credentials
        before = len(listener.queries)
        status, _, body = http(OAUTH.authorize_url, fields)
        self.assertEqual(status, 200, body)
        self.assertEqual(len(listener.queries), before + 1, "the browser was not sent to the loopback listener")
        path, query = listener.queries[-1]
        self.assertEqual(path, "/oauth/callback")
        return query

    def code_flow(self, listener=None):
        """The whole dance; returns (token response, listener, verifier)."""
        listener = listener or self.listener()
        verifier, challenge = pkce_pair()
        query = self.consent(listener, challenge)
        status, tokens = token_request({"grant_type": "authorization_code", "code": query["code"],
                                        "redirect_uri": listener.redirect_uri, "client_id": OAUTH.client_id,
                                        "code_verifier": verifier})
        self.assertEqual(status, 200, tokens)
        return tokens

    def refresh(self, refresh_token):
        return token_request({"grant_type": "refresh_token", "refresh_token": refresh_token,
                              "client_id": OAUTH.client_id})

    def assertIMAPAccepts(self, token, mechanism="XOAUTH2", security="plain", user="alice"):
        client = DOVECOT.imap_oauth(user, token, mechanism=mechanism, security=security)
        try:
            self.assertEqual(client.state, "AUTH")
            typ, _ = client.select("INBOX")
            self.assertEqual(typ, "OK")
        finally:
            client.logout()

    def assertIMAPRefuses(self, token, mechanism="XOAUTH2", security="plain", user="alice"):
        with self.assertRaises(imaplib.IMAP4.error) as caught:
            DOVECOT.imap_oauth(user, token, mechanism=mechanism, security=security).logout()
        self.assertIn("AUTHENTICATIONFAILED", str(caught.exception))


class CodeFlowTests(OAuthTestCase):
    def test_code_flow_with_pkce_gives_tokens_that_open_the_mailbox(self):
        listener = self.listener()
        verifier, challenge = pkce_pair()
        query = self.consent(listener, challenge, state="opaque-42")
        self.assertEqual(query["state"], "opaque-42")
        self.assertRegex(query["code"], r"^[A-Za-z0-9]{20,}$")
        status, tokens = token_request({"grant_type": "authorization_code", "code": query["code"],
                                        "redirect_uri": listener.redirect_uri, "client_id": OAUTH.client_id,
                                        "code_verifier": verifier})
        self.assertEqual(status, 200, tokens)
        self.assertEqual(tokens["token_type"], "Bearer")
        self.assertEqual(tokens["expires_in"], 300)
        self.assertEqual(set(tokens["scope"].split()), {"imap", "smtp"})
        self.assertIn("refresh_token", tokens)
        self.assertIMAPAccepts(tokens["access_token"])

    def test_signing_in_on_the_consent_page_with_a_password(self):
        listener = self.listener()
        verifier, challenge = pkce_pair()
        status, _, page = http(authorize_query(listener.redirect_uri, challenge, login_hint=None))
        self.assertEqual(status, 200)
        self.assertIn('name="password"', page)
        fields = form_fields(page)
        status, _, page = http(OAUTH.authorize_url, {**fields, "username": "bob", "password": "wrong",
                                                     "decision": "allow"})
        self.assertEqual(status, 200)
        self.assertIn("Wrong user name or password.", page)
        self.assertEqual(listener.queries, [])
        query = self.consent(listener, challenge, login_hint=None, credentials=("bob", "bob-password"))
        status, tokens = token_request({"grant_type": "authorization_code", "code": query["code"],
                                        "redirect_uri": listener.redirect_uri, "client_id": OAUTH.client_id,
                                        "code_verifier": verifier})
        self.assertEqual(status, 200, tokens)
        self.assertIMAPAccepts(tokens["access_token"], user="bob")
        self.assertIMAPRefuses(tokens["access_token"], user="alice")  # bob's token is not alice's

    def test_any_loopback_port_is_accepted(self):
        first, second = self.listener(), self.listener()
        self.assertNotEqual(first.redirect_uri, second.redirect_uri)
        for listener in (first, second):
            self.code_flow(listener)

    def test_a_wrong_verifier_is_refused(self):
        listener = self.listener()
        _, challenge = pkce_pair()
        query = self.consent(listener, challenge)
        other_verifier, _ = pkce_pair()
        status, answer = token_request({"grant_type": "authorization_code", "code": query["code"],
                                        "redirect_uri": listener.redirect_uri, "client_id": OAUTH.client_id,
                                        "code_verifier": other_verifier})
        self.assertEqual(status, 400)
        self.assertEqual(answer["error"], "invalid_grant")

    def test_a_missing_verifier_is_refused(self):
        listener = self.listener()
        _, challenge = pkce_pair()
        query = self.consent(listener, challenge)
        status, answer = token_request({"grant_type": "authorization_code", "code": query["code"],
                                        "redirect_uri": listener.redirect_uri, "client_id": OAUTH.client_id})
        self.assertEqual(status, 400)
        self.assertEqual(answer["error"], "invalid_request")

    def test_a_reused_code_is_refused_and_revokes_what_it_gave(self):
        listener = self.listener()
        verifier, challenge = pkce_pair()
        query = self.consent(listener, challenge)
        form = {"grant_type": "authorization_code", "code": query["code"], "redirect_uri": listener.redirect_uri,
                "client_id": OAUTH.client_id, "code_verifier": verifier}
        status, tokens = token_request(form)
        self.assertEqual(status, 200, tokens)
        self.assertIMAPAccepts(tokens["access_token"])
        status, answer = token_request(form)
        self.assertEqual(status, 400)
        self.assertEqual(answer["error"], "invalid_grant")
        self.assertIMAPRefuses(tokens["access_token"])
        status, answer = self.refresh(tokens["refresh_token"])
        self.assertEqual(answer.get("error"), "invalid_grant")

    def test_a_redirect_uri_other_than_at_exchange_is_refused(self):
        listener = self.listener()
        verifier, challenge = pkce_pair()
        query = self.consent(listener, challenge)
        status, answer = token_request({"grant_type": "authorization_code", "code": query["code"],
                                        "redirect_uri": listener.redirect_uri + "x", "client_id": OAUTH.client_id,
                                        "code_verifier": verifier})
        self.assertEqual(answer["error"], "invalid_grant")

    def test_a_redirect_that_is_not_loopback_is_refused_without_redirecting(self):
        _, challenge = pkce_pair()
        for uri in ("http://example.com:8080/oauth/callback", "https://example.com/oauth/callback",
                    "http://localhost:8080/oauth/callback", "http://127.0.0.1/oauth/callback#frag",
                    "http://user@127.0.0.1:8080/oauth/callback"):
            with self.subTest(uri=uri):
                status, headers, body = http(authorize_query(uri, challenge), follow=False)
                self.assertEqual(status, 400, body)
                self.assertIsNone(headers.get("Location"))
                self.assertEqual(json.loads(body)["error"], "invalid_request")

    def test_pkce_s256_is_required_of_the_public_client(self):
        listener = self.listener()
        verifier, challenge = pkce_pair()
        cases = {"no challenge": {"code_challenge": None, "code_challenge_method": None},
                 "plain": {"code_challenge": verifier, "code_challenge_method": "plain"},
                 "no method": {"code_challenge_method": None}}
        for name, extra in cases.items():
            with self.subTest(name):
                url = authorize_query(listener.redirect_uri, challenge, state="s", **extra)
                status, headers, _ = http(url, follow=False)
                self.assertEqual(status, 302)
                location = urllib.parse.urlsplit(headers["Location"])
                query = dict(urllib.parse.parse_qsl(location.query))
                self.assertEqual(query["error"], "invalid_request")
                self.assertEqual(query["state"], "s")
                self.assertNotIn("code", query)

    def test_deny_gives_access_denied(self):
        listener = self.listener()
        _, challenge = pkce_pair()
        query = self.consent(listener, challenge, decision="deny", state="st-deny")
        self.assertEqual(query["error"], "access_denied")
        self.assertEqual(query["state"], "st-deny")
        self.assertNotIn("code", query)

    def test_a_consent_form_is_answered_once(self):
        listener = self.listener()
        _, challenge = pkce_pair()
        status, _, page = http(authorize_query(listener.redirect_uri, challenge))
        fields = {**form_fields(page), "decision": "allow"}
        self.assertEqual(http(OAUTH.authorize_url, fields)[0], 200)
        status, _, body = http(OAUTH.authorize_url, fields)
        self.assertEqual(status, 400)
        self.assertEqual(len(listener.queries), 1)

    def test_metadata(self):
        status, _, body = http(OAUTH.metadata_url)
        self.assertEqual(status, 200)
        metadata = json.loads(body)
        self.assertEqual(metadata["issuer"], OAUTH.issuer)
        self.assertEqual(metadata["token_endpoint"], OAUTH.token_url)
        self.assertEqual(metadata["code_challenge_methods_supported"], ["S256"])


class MailTests(OAuthTestCase):
    def test_imap_xoauth2_and_oauthbearer_on_starttls_and_implicit_tls(self):
        token = OAUTH.issue_tokens("alice")["access_token"]
        for mechanism in ("XOAUTH2", "OAUTHBEARER"):
            for security in ("starttls", "tls"):
                with self.subTest(mechanism=mechanism, security=security):
                    self.assertIMAPAccepts(token, mechanism=mechanism, security=security)

    def test_imap_refuses_a_bad_token_and_someone_elses(self):
        for mechanism in ("XOAUTH2", "OAUTHBEARER"):
            with self.subTest(mechanism):
                self.assertIMAPRefuses("not-a-token", mechanism=mechanism, security="tls")
                self.assertIMAPRefuses(OAUTH.issue_tokens("bob")["access_token"], mechanism=mechanism)

    def test_passwords_still_work_and_are_not_bearer_tokens(self):
        DOVECOT.imap("alice", security="tls").logout()
        self.assertIMAPRefuses(USERS["alice"])
        client = DOVECOT.smtp("alice")
        client.quit()

    def test_a_refresh_token_is_not_an_access_token(self):
        tokens = OAUTH.issue_tokens("alice")
        self.assertIMAPRefuses(tokens["refresh_token"])

    def test_smtp_xoauth2_sends_and_the_message_is_delivered(self):
        token = OAUTH.issue_tokens("alice")["access_token"]
        subject = "oauth-" + secrets.token_hex(4)
        raw = (f"From: alice@example.org\r\nTo: bob@example.com\r\nSubject: {subject}\r\n"
               f"Message-ID: <{subject}@example.org>\r\n\r\nSent with a bearer token.\r\n").encode()
        for mechanism, security in (("XOAUTH2", "starttls"), ("OAUTHBEARER", "tls")):
            with self.subTest(mechanism=mechanism, security=security):
                client = DOVECOT.smtp_oauth("alice", token, mechanism=mechanism, security=security)
                try:
                    self.assertEqual(client.sendmail("alice@example.org", ["bob@example.com"], raw), {})
                finally:
                    client.quit()
        imap = DOVECOT.imap("bob")
        try:
            imap.select("INBOX")
            typ, data = imap.search(None, "HEADER", "Message-ID", f"<{subject}@example.org>")
            self.assertEqual(len(data[0].split()), 2)
        finally:
            imap.logout()

    def test_smtp_refuses_a_revoked_token(self):
        token = OAUTH.issue_tokens("alice")["access_token"]
        OAUTH.revoke(token)
        with self.assertRaises(smtplib.SMTPAuthenticationError):
            DOVECOT.smtp_oauth("alice", token).quit()

    def test_an_expired_token_is_refused_and_a_refresh_gives_one_that_works(self):
        OAUTH.access_lifetime = 3
        self.addCleanup(setattr, OAUTH, "access_lifetime", 300)
        tokens = self.code_flow()
        self.assertEqual(tokens["expires_in"], 3)
        self.assertIMAPAccepts(tokens["access_token"])
        time.sleep(3.2)
        self.assertIMAPRefuses(tokens["access_token"])
        self.assertIMAPRefuses(tokens["access_token"], mechanism="OAUTHBEARER", security="tls")
        with self.assertRaises(smtplib.SMTPAuthenticationError):
            DOVECOT.smtp_oauth("alice", tokens["access_token"]).quit()
        status, fresh = self.refresh(tokens["refresh_token"])
        self.assertEqual(status, 200, fresh)
        self.assertNotEqual(fresh["access_token"], tokens["access_token"])
        self.assertIMAPAccepts(fresh["access_token"])
        DOVECOT.smtp_oauth("alice", fresh["access_token"]).quit()

    def test_expire_now(self):
        token = OAUTH.issue_tokens("alice")["access_token"]
        self.assertIMAPAccepts(token)
        self.assertTrue(OAUTH.expire_now(token))
        self.assertIMAPRefuses(token)

    def test_refresh_tokens_rotate_and_a_replayed_one_kills_the_grant(self):
        tokens = self.code_flow()
        status, second = self.refresh(tokens["refresh_token"])
        self.assertEqual(status, 200, second)
        self.assertNotEqual(second["refresh_token"], tokens["refresh_token"])
        self.assertIMAPAccepts(tokens["access_token"])  # the old access token lives on until it expires
        status, answer = self.refresh(tokens["refresh_token"])  # the retired one again: theft
        self.assertEqual(answer.get("error"), "invalid_grant")
        self.assertIMAPRefuses(second["access_token"])
        self.assertEqual(self.refresh(second["refresh_token"])[1].get("error"), "invalid_grant")

    def test_without_rotation_the_refresh_token_stays(self):
        OAUTH.rotate_refresh_tokens = False
        self.addCleanup(setattr, OAUTH, "rotate_refresh_tokens", True)
        tokens = self.code_flow()
        for _ in range(2):
            status, fresh = self.refresh(tokens["refresh_token"])
            self.assertEqual(status, 200, fresh)
            self.assertNotIn("refresh_token", fresh)
            self.assertIMAPAccepts(fresh["access_token"])

    def test_a_revoked_refresh_token_cannot_refresh_and_its_access_tokens_are_refused(self):
        tokens = self.code_flow()
        status, fresh = self.refresh(tokens["refresh_token"])
        self.assertEqual(status, 200, fresh)
        self.assertIMAPAccepts(fresh["access_token"])
        # RFC 7009, as the app does it: the public client authenticates with its client_id alone.
        status, _, body = http(OAUTH.revoke_url, {"token": fresh["refresh_token"], "token_type_hint": "refresh_token",
                                                  "client_id": OAUTH.client_id})
        self.assertEqual(status, 200, body)
        status, answer = self.refresh(fresh["refresh_token"])
        self.assertEqual(status, 400)
        self.assertEqual(answer["error"], "invalid_grant")
        for token in (tokens["access_token"], fresh["access_token"]):
            self.assertIMAPRefuses(token)
            self.assertIMAPRefuses(token, mechanism="OAUTHBEARER", security="tls")

    def test_revoking_an_access_token_leaves_the_refresh_token(self):
        tokens = self.code_flow()
        status, _, _ = http(OAUTH.revoke_url, {"token": tokens["access_token"], "client_id": OAUTH.client_id})
        self.assertEqual(status, 200)
        self.assertIMAPRefuses(tokens["access_token"])
        status, fresh = self.refresh(tokens["refresh_token"])
        self.assertEqual(status, 200, fresh)
        self.assertIMAPAccepts(fresh["access_token"])


    def test_revoke_user_revokes_every_grant_of_that_user_only(self):
        OAUTH.add_user("dave", "dave-password")
        first, second = self.code_flow(), OAUTH.issue_tokens("alice")
        other = OAUTH.issue_tokens("bob")
        dave = OAUTH.issue_tokens("dave")
        OAUTH.revoke(dave["refresh_token"])
        self.assertEqual(OAUTH.revoke_user("dave"), 0, "a revoked grant is not counted again")
        self.assertGreaterEqual(OAUTH.revoke_user("alice"), 2)
        for tokens in (first, second):
            self.assertIMAPRefuses(tokens["access_token"])
            status, answer = self.refresh(tokens["refresh_token"])
            self.assertEqual((status, answer.get("error")), (400, "invalid_grant"))
        self.assertEqual(OAUTH.revoke_user("alice"), 0)
        self.assertIMAPAccepts(other["access_token"], user="bob")
        self.assertEqual(self.refresh(other["refresh_token"])[0], 200, "bob's grant is untouched")
        # A new sign-in after it works again.
        self.assertIMAPAccepts(self.code_flow()["access_token"])


class IntrospectionTests(OAuthTestCase):
    def test_only_dovecots_client_may_introspect(self):
        token = OAUTH.issue_tokens("alice")["access_token"]
        cases = {"no credentials": ({"token": token}, None),
                 "the public client": ({"token": token, "client_id": OAUTH.client_id}, None),
                 "the public client as Basic": ({"token": token}, (OAUTH.client_id, "x")),
                 "a wrong secret": ({"token": token}, (OAUTH.dovecot_client_id, "wrong")),
                 "a wrong secret in the form": ({"token": token, "client_id": OAUTH.dovecot_client_id,
                                                 "client_secret": "wrong"}, None)}
        for name, (form, basic) in cases.items():
            with self.subTest(name):
                status, _, body = http(OAUTH.introspect_url, form, basic)
                self.assertIn(status, (400, 401), body)
                self.assertEqual(json.loads(body)["error"], "invalid_client")
                self.assertNotIn("active", json.loads(body))
        status, _, body = http(OAUTH.introspect_url, {"token": token},
                               (OAUTH.dovecot_client_id, OAUTH.dovecot_secret))
        self.assertEqual(status, 200)
        answer = json.loads(body)
        self.assertEqual((answer["active"], answer["username"], answer["sub"]), (True, "alice", "alice"))
        self.assertEqual(set(answer["scope"].split()), {"imap", "smtp"})
        self.assertGreater(answer["exp"], time.time())

    def test_inactive_answers(self):
        tokens = OAUTH.issue_tokens("alice")
        expired = OAUTH.issue_tokens("alice")["access_token"]
        OAUTH.expire_now(expired)
        for name, token in {"unknown": "nope", "refresh token": tokens["refresh_token"], "expired": expired}.items():
            with self.subTest(name):
                status, _, body = http(OAUTH.introspect_url, {"token": token},
                                       (OAUTH.dovecot_client_id, OAUTH.dovecot_secret))
                self.assertEqual((status, json.loads(body)), (200, {"active": False}))


class CommandLineTests(unittest.TestCase):
    def test_control_mode_and_port_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            port_file = os.path.join(tmp, "port")
            proc = subprocess.Popen([sys.executable, os.path.join(HERE, "oauth_server.py"), "--control",
                                     "--user", "carol:carol-pw", "--access-lifetime", "7", "--port-file", port_file],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            self.addCleanup(proc.stdout.close)
            self.addCleanup(proc.kill)
            info = json.loads(proc.stdout.readline())
            with open(port_file) as f:
                self.assertEqual(int(f.read()), info["port"])
            self.assertEqual(info["access_lifetime"], 7)

            def ask(**request):
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
                return json.loads(proc.stdout.readline())

            tokens = ask(op="issue_tokens", user="carol")["result"]
            self.assertEqual(tokens["expires_in"], 7)
            self.assertTrue(ask(op="introspect", token=tokens["access_token"])["result"]["active"])
            status, _, body = http(info["introspect_url"], {"token": tokens["access_token"]},
                                   (info["dovecot_client_id"], info["dovecot_secret"]))
            self.assertEqual(json.loads(body)["username"], "carol")
            self.assertTrue(ask(op="revoke", token=tokens["refresh_token"])["result"])
            self.assertFalse(ask(op="introspect", token=tokens["access_token"])["result"]["active"])
            again = ask(op="issue_tokens", user="carol")["result"]
            self.assertEqual(ask(op="revoke_user", user="carol")["result"], 1)
            self.assertFalse(ask(op="introspect", token=again["access_token"])["result"]["active"])
            self.assertFalse(ask(op="bogus")["ok"])
            proc.stdin.close()
            self.assertEqual(proc.wait(timeout=20), 0)


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    # max(): a failed setUpModule (no Authlib, no Dovecot) is an error without a test run.
    print(f"OAuth harness: {max(result.testsRun - failed - skipped, 0)} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed or not result.testsRun else 0)
