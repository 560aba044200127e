#!/usr/bin/env python3
"""A real OAuth 2.0 authorization server for tests (Authlib's server classes on Python's http.server).

The peer the OAuth sign-in tests talk to, as Google's or Microsoft's servers would be: authorization code grant
with PKCE (RFC 7636, S256 required of public clients), loopback redirect URIs on any port (RFC 8252 §7.3), a
consent page in plain HTML, refresh tokens, revocation (RFC 7009), introspection for Dovecot (RFC 7662) and
the metadata document (RFC 8414). Dovecot's oauth2 passdb asks the introspection endpoint about every token
(dovecot.py: `Dovecot(oauth=server)`), so IMAP and SMTP submission accept AUTHENTICATE XOAUTH2 / OAUTHBEARER
with a live access token and refuse an expired or revoked one.

    with OAuthServer(users={"alice": "alice-password"}, access_lifetime=3) as oauth, \\
         Dovecot(users={"alice": "alice-password"}, oauth=oauth, submission=True) as dovecot:
        tokens = oauth.issue_tokens("alice")           # {"access_token", "refresh_token", "expires_in", ...}
        oauth.authorize_url, oauth.token_url, oauth.revoke_url, oauth.introspect_url, oauth.metadata_url
        oauth.revoke(tokens["refresh_token"])          # as the revocation endpoint: its access tokens die too
        oauth.expire_now(tokens["access_token"])       # the access token is past its lifetime from now on
        oauth.revoke_user("alice")                     # every grant alice gave (as "remove access" in an account page)

What it is:
- http://127.0.0.1:PORT on a free port (`issuer`); plain HTTP, which RFC 8252 allows on loopback. Everything is
  in memory (dicts behind one lock): nothing is written to disk.
- Clients: "mailsearch", public (no secret; token_endpoint_auth_method none), grant types authorization_code and
  refresh_token, redirect URIs http://127.0.0.1:ANY-PORT/ANY-PATH and http://[::1]:ANY-PORT/ANY-PATH (the
  loopback IP literals of RFC 8252 §7.3; "localhost" is refused, as §8.3 advises); and "dovecot", confidential
  (secret `dovecot_secret`), which may only introspect (HTTP Basic or client_secret_post).
- Scopes: "imap" and "smtp" (the default when none is asked for: both), "offline_access" accepted and ignored.
- The authorization endpoint (GET /authorize) shows a consent page: "Allow MailSearch to read and send mail as
  alice?" with Allow and Deny buttons. With `login_hint=alice` the user counts as signed in already; without
  it the page has a user name and a password field (the `users` passwords). The form posts to /authorize with
  only a one-time `request_id` (the validated authorization request waits on the server) and `decision`.
  Allow redirects with `code` and `state`; Deny with `error=access_denied`. Codes live 60 s and work once;
  a second use is refused (invalid_grant) and revokes every token issued from that code (RFC 6749 §4.1.2).
- PKCE: a public client must send code_challenge with code_challenge_method=S256 (plain is refused), and the
  token request must carry the matching code_verifier (missing: invalid_request; wrong: invalid_grant).
- Tokens are random strings (not JWTs). Access tokens live `access_lifetime` seconds (default 3600); refresh
  tokens do not expire unless `refresh_lifetime` is given. Refresh tokens ROTATE by default
  (rotate_refresh_tokens=True, as Microsoft does): each refresh returns a new refresh token and the old one
  stops working; presenting a rotated-out refresh token again is taken as theft (RFC 9700 §4.14.2) and
  revokes the whole grant. rotate_refresh_tokens=False keeps one refresh token for the grant's life (as Google).
- Revocation (POST /revoke, RFC 7009; the public client authenticates with client_id alone): revoking a refresh
  token revokes its grant, i.e. every access and refresh token issued from the same authorization; revoking an
  access token revokes only that one.
- Introspection (POST /introspect, RFC 7662): only the "dovecot" client, with its secret (else 401
  invalid_client), and only of access tokens. Answers {"active", "username", "sub", "scope", "exp", "iat",
  "client_id", "token_type"}; an expired, revoked or unknown token, or a refresh token (which must not open a
  mailbox), is {"active": false}.
- Metadata: GET /.well-known/oauth-authorization-server (RFC 8414).

Authlib missing is an error (AuthlibMissing), never a reason to skip: scripts/install-deps.sh installs it (pip).

Command line, for the Swift and browser tests (see `main`):
    python3 Tests/IMAP/oauth_server.py --user alice:alice-password --access-lifetime 3
    python3 Tests/IMAP/oauth_server.py --control     # JSON lines on stdin/stdout; EOF on stdin stops it
    python3 Tests/IMAP/oauth_server.py --port-file F # writes the port to F once it listens
"""
import argparse
import html
import json
import os
import secrets
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from authlib.common.security import generate_token
    from authlib.oauth2 import AuthorizationServer as _AuthorizationServerBase
    from authlib.oauth2 import OAuth2Error
    from authlib.oauth2.rfc6749 import ClientMixin, AuthorizationCodeMixin, TokenMixin, grants
    from authlib.oauth2.rfc6749 import InvalidGrantError, InvalidRequestError
    from authlib.oauth2.rfc6749.requests import OAuth2Payload, OAuth2Request
    from authlib.oauth2.rfc6749.util import scope_to_list, list_to_scope
    from authlib.oauth2.rfc6750 import BearerTokenGenerator
    from authlib.oauth2.rfc7009 import RevocationEndpoint
    from authlib.oauth2.rfc7636 import CodeChallenge
    from authlib.oauth2.rfc7662 import IntrospectionEndpoint
    _AUTHLIB_ERROR = None
except ImportError as error:  # reported when a server is made, so that importing this module never fails
    _AUTHLIB_ERROR = error
    _AuthorizationServerBase = ClientMixin = AuthorizationCodeMixin = TokenMixin = CodeChallenge = object
    RevocationEndpoint = IntrospectionEndpoint = OAuth2Payload = OAuth2Request = object

    class grants:  # noqa: N801 (placeholders so that the classes below can be defined)
        AuthorizationCodeGrant = RefreshTokenGrant = object

INSTALL_HINT = "run scripts/install-deps.sh (pip install 'authlib>=1.6,<2')"
DEFAULT_USERS = {"alice": "alice-password", "bob": "bob-password"}
PUBLIC_CLIENT_ID = "mailsearch"
RESOURCE_CLIENT_ID = "dovecot"
SCOPES = ("imap", "smtp", "offline_access")
DEFAULT_SCOPE = "imap smtp"
CODE_LIFETIME = 60
LOOPBACK_HOSTS = ("127.0.0.1", "::1")


class AuthlibMissing(RuntimeError):
    """Authlib is not installed: a test must fail with this, not skip."""


def ensure_authlib():
    """Raises AuthlibMissing unless Authlib (1.6 or later: the payload API used here) is importable."""
    if _AUTHLIB_ERROR is not None:
        raise AuthlibMissing(f"Authlib is not importable by {sys.executable} ({_AUTHLIB_ERROR}); {INSTALL_HINT}")


# -- models (Authlib's mixins over plain objects) --------------------------------------------------------

class Client(ClientMixin):
    def __init__(self, client_id, secret=None, grant_types=(), redirect_uris=(), scope=DEFAULT_SCOPE,
                 may_introspect=False):
        self.client_id = client_id
        self.secret = secret
        self.grant_types = set(grant_types)
        self.redirect_uris = list(redirect_uris)
        self.scope = scope
        self.may_introspect = may_introspect

    @property
    def public(self):
        return self.secret is None

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None  # a loopback client's port changes each time: it must always send redirect_uri

    def get_allowed_scope(self, scope):
        if not scope:
            return self.scope
        allowed = set(scope_to_list(self.scope)) | {"offline_access"}
        return list_to_scope([s for s in scope_to_list(scope) if s in allowed])

    def check_redirect_uri(self, redirect_uri):
        return any(redirect_matches(registered, redirect_uri) for registered in self.redirect_uris)

    def check_client_secret(self, client_secret):
        return self.secret is not None and secrets.compare_digest(self.secret, client_secret)

    def check_endpoint_auth_method(self, method, endpoint):
        if self.public:
            return method == "none" and endpoint in ("token", "revocation")
        if endpoint == "introspection":
            return self.may_introspect and method in ("client_secret_basic", "client_secret_post")
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type):
        return response_type == "code" and "authorization_code" in self.grant_types

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


def redirect_matches(registered, uri):
    """RFC 8252 §7.3: for a loopback IP literal the port is not compared (the app listens on whatever port it
    got). A registered path ending in "*" matches any path with that prefix. Anything else must be equal."""
    try:
        reg, got = urllib.parse.urlsplit(registered), urllib.parse.urlsplit(uri)
        got_port = got.port  # ValueError for a bad port
    except ValueError:
        return False
    if got.fragment or got.username or got.password:
        return False
    if reg.hostname in LOOPBACK_HOSTS and reg.scheme == "http":
        if got.scheme != "http" or got.hostname != reg.hostname or got_port is None:
            return False
        if reg.path.endswith("*"):
            return got.path.startswith(reg.path[:-1])
        return got.path == reg.path and got.query == reg.query
    return uri == registered


class AuthorizationCode(AuthorizationCodeMixin):
    def __init__(self, code, client_id, redirect_uri, scope, user, code_challenge, code_challenge_method):
        self.code = code
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.user = user
        self.code_challenge = code_challenge
        self.code_challenge_method = code_challenge_method
        self.expires_at = time.time() + CODE_LIFETIME
        self.grant_id = None  # set when it is exchanged: a reuse revokes that grant

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope


class Token(TokenMixin):
    """One access or refresh token. `grant_id` ties every token of one authorization together (the grant a
    refresh token revocation kills)."""

    def __init__(self, value, kind, client_id, user, scope, grant_id, lifetime):
        self.value = value
        self.kind = kind  # "access_token" or "refresh_token"
        self.client_id = client_id
        self.user = user
        self.scope = scope
        self.grant_id = grant_id
        self.issued_at = int(time.time())
        self.expires_at = None if lifetime is None else time.time() + lifetime
        self.revoked = False
        self.rotated = False  # a refresh token that was used and replaced (rotation)

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return 0 if self.expires_at is None else max(int(self.expires_at - time.time()), 0)

    def is_expired(self):
        return self.expires_at is not None and time.time() >= self.expires_at

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return None


# -- Authlib wiring ---------------------------------------------------------------------------------------

class _Payload(OAuth2Payload):
    def __init__(self, pairs):
        self._datalist = {}
        for key, value in pairs:
            self._datalist.setdefault(key, []).append(value)
        self._data = {key: values[0] for key, values in self._datalist.items()}

    @property
    def data(self):
        return self._data

    @property
    def datalist(self):
        return self._datalist


class _Request(OAuth2Request):
    """An OAuth2Request from http.server's pieces: `args` from the query, `form` from a urlencoded body, and the
    payload both (query first), as Flask's request.values."""

    def __init__(self, method, uri, headers, query_pairs, form_pairs):
        super().__init__(method=method, uri=uri, headers=headers)
        self._args = dict(reversed(query_pairs))
        self._form = dict(reversed(form_pairs))
        self.payload = _Payload(list(query_pairs) + list(form_pairs))

    @property
    def args(self):
        return self._args

    @property
    def form(self):
        return self._form


class _S256Required(CodeChallenge):
    """PKCE with S256 only, and required of public clients at the authorization endpoint too (Authlib's
    CodeChallenge(required=True) would accept an authorization request without a challenge)."""
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]
    DEFAULT_CODE_CHALLENGE_METHOD = "S256"

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if grant.request.client is not None and grant.request.client.public:
            if not data.get("code_challenge"):
                raise InvalidRequestError("PKCE is required: 'code_challenge' is missing")
            if data.get("code_challenge_method") != "S256":
                raise InvalidRequestError("PKCE: 'code_challenge_method' must be S256")
        super().validate_code_challenge(grant, redirect_uri)


class _CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def save_authorization_code(self, code, request):
        data = request.payload.data
        self.server.store.codes[code] = AuthorizationCode(
            code, request.client.client_id, request.payload.redirect_uri, request.scope, request.user,
            data.get("code_challenge"), data.get("code_challenge_method"))

    def query_authorization_code(self, code, client):
        store = self.server.store
        item = store.codes.get(code)
        if item is None:
            used = store.used_codes.get(code)
            if used is not None:  # RFC 6749 §4.1.2: a code used twice revokes what it gave
                store.revoke_grant(used)
            return None
        if item.client_id != client.client_id or time.time() > item.expires_at:
            return None
        return item

    def delete_authorization_code(self, authorization_code):
        store = self.server.store
        store.codes.pop(authorization_code.code, None)
        store.used_codes[authorization_code.code] = authorization_code.grant_id

    def authenticate_user(self, authorization_code):
        return authorization_code.user


class _RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def authenticate_refresh_token(self, refresh_token):
        store = self.server.store
        token = store.refresh_tokens.get(refresh_token)
        if token is None or token.revoked or token.is_expired():
            return None
        if token.rotated:  # a replaced refresh token used again: taken as stolen, the grant dies
            store.revoke_grant(token.grant_id)
            return None
        return token

    def authenticate_user(self, refresh_token):
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        if self.server.rotate_refresh_tokens:
            refresh_token.rotated = True


class _Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def query_token(self, token_string, token_type_hint):
        return self.server.store.find(token_string, token_type_hint)

    def revoke_token(self, token, request):
        self.server.store.revoke(token)


class _Introspection(IntrospectionEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def query_token(self, token_string, token_type_hint):
        return self.server.store.find(token_string, token_type_hint)

    def check_permission(self, token, client, request):
        # A resource server is told about access tokens only: a refresh token presented to IMAP as a bearer
        # token must not log in (RFC 7662 §2.2 lets the answer be inactive for a token it may not see).
        return client.may_introspect and token.kind == "access_token"

    def introspect_token(self, token):
        return self.server.store.describe(token)


class _Store:
    """Every code and token, in memory."""

    def __init__(self):
        self.codes = {}
        self.used_codes = {}  # code -> grant id
        self.access_tokens = {}
        self.refresh_tokens = {}
        self.revoked_grants = set()

    def find(self, value, hint=None):
        order = ("refresh_tokens", "access_tokens") if hint == "refresh_token" else ("access_tokens", "refresh_tokens")
        for name in order:
            token = getattr(self, name).get(value)
            if token is not None:
                return token
        return None

    def revoke(self, token):
        if token.kind == "refresh_token":
            self.revoke_grant(token.grant_id)
        else:
            token.revoked = True

    def revoke_grant(self, grant_id):
        if grant_id is None:
            return
        self.revoked_grants.add(grant_id)
        for table in (self.access_tokens, self.refresh_tokens):
            for token in table.values():
                if token.grant_id == grant_id:
                    token.revoked = True

    def describe(self, token):
        return {"active": True, "client_id": token.client_id, "username": token.user, "sub": token.user,
                "scope": token.scope, "iat": token.issued_at,
                "token_type": "Bearer" if token.kind == "access_token" else "refresh_token",
                **({"exp": int(token.expires_at)} if token.expires_at is not None else {})}


class _AuthlibServer(_AuthorizationServerBase):
    """Authlib's framework-agnostic AuthorizationServer, its framework part done here: requests are _Request,
    responses (status, body bytes, headers) tuples for the HTTP handler."""

    def __init__(self, clients, store, access_lifetime, refresh_lifetime, rotate_refresh_tokens):
        super().__init__(scopes_supported=list(SCOPES))
        self.clients = clients
        self.store = store
        self.access_lifetime = access_lifetime
        self.refresh_lifetime = refresh_lifetime
        self.rotate_refresh_tokens = rotate_refresh_tokens
        self.register_token_generator("default", BearerTokenGenerator(
            lambda **kw: generate_token(42), lambda **kw: generate_token(48), lambda client, grant_type: self.access_lifetime))
        self.register_grant(_CodeGrant, [_S256Required(required=True)])
        self.register_grant(_RefreshGrant)
        self.register_endpoint(_Revocation)
        self.register_endpoint(_Introspection)

    def query_client(self, client_id):
        return self.clients.get(client_id)

    def save_token(self, token, request):
        if request.refresh_token is not None:  # refresh_token grant: the same authorization goes on
            grant_id = request.refresh_token.grant_id
        else:
            grant_id = generate_token(16)
            if request.authorization_code is not None:
                request.authorization_code.grant_id = grant_id
        self.store_token(token, request.client.client_id, request.user, grant_id)

    def store_token(self, token, client_id, user, grant_id):
        scope = token.get("scope", "")
        access = Token(token["access_token"], "access_token", client_id, user, scope, grant_id, token.get("expires_in"))
        self.store.access_tokens[access.value] = access
        if "refresh_token" in token:
            refresh = Token(token["refresh_token"], "refresh_token", client_id, user, scope, grant_id, self.refresh_lifetime)
            self.store.refresh_tokens[refresh.value] = refresh

    def get_token_grant(self, request):
        grant = super().get_token_grant(request)
        if isinstance(grant, _RefreshGrant):
            grant.INCLUDE_NEW_REFRESH_TOKEN = self.rotate_refresh_tokens
        return grant

    def send_signal(self, name, *args, **kwargs):
        pass

    def create_oauth2_request(self, request):
        return request

    def create_json_request(self, request):
        return request

    def handle_response(self, status, body, headers):
        if isinstance(body, dict):
            body = json.dumps(body)
        return status, (body or "").encode("utf-8"), list(headers or [])


# -- the server -------------------------------------------------------------------------------------------

class OAuthServer:
    """The authorization server of one test (see the module's docstring).

    users: {name: password} (the consent page's sign-in; default alice and bob with DEFAULT_USERS' passwords).
    access_lifetime: seconds an access token lives (the expiry tests use 3).
    refresh_lifetime: seconds a refresh token lives (None: until revoked).
    rotate_refresh_tokens: a refresh returns a new refresh token and retires the old one (default True).
    redirect_uris: the public client's registered redirect URIs (default: any path on 127.0.0.1 and [::1],
        any port).
    dovecot_secret: the "dovecot" client's secret for the introspection endpoint (default: random).
    port: 0 for a free one.
    """

    def __init__(self, users=None, *, access_lifetime=3600, refresh_lifetime=None, rotate_refresh_tokens=True,
                 redirect_uris=("http://127.0.0.1/*", "http://[::1]/*"), dovecot_secret=None, host="127.0.0.1",
                 port=0, client_id=PUBLIC_CLIENT_ID):
        ensure_authlib()
        self.users = dict(DEFAULT_USERS if users is None else users)
        self.host = host
        self.client_id = client_id
        self.dovecot_client_id = RESOURCE_CLIENT_ID
        self.dovecot_secret = dovecot_secret or generate_token(32)
        self.lock = threading.RLock()
        self.store = _Store()
        clients = {
            client_id: Client(client_id, None, ("authorization_code", "refresh_token"), redirect_uris),
            RESOURCE_CLIENT_ID: Client(RESOURCE_CLIENT_ID, self.dovecot_secret, may_introspect=True),
        }
        self.authlib = _AuthlibServer(clients, self.store, access_lifetime, refresh_lifetime, rotate_refresh_tokens)
        self.pending = {}  # consent page request_id -> (expires at, query pairs)
        self.httpd = ThreadingHTTPServer((host, port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.oauth = self
        self.port = self.httpd.server_address[1]
        self.thread = None

    # settings a test may change while the server runs
    @property
    def access_lifetime(self):
        return self.authlib.access_lifetime

    @access_lifetime.setter
    def access_lifetime(self, seconds):
        self.authlib.access_lifetime = seconds

    @property
    def rotate_refresh_tokens(self):
        return self.authlib.rotate_refresh_tokens

    @rotate_refresh_tokens.setter
    def rotate_refresh_tokens(self, value):
        self.authlib.rotate_refresh_tokens = bool(value)

    # -- lifecycle ---------------------------------------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def start(self):
        if self.thread is None:
            self.thread = threading.Thread(target=self.httpd.serve_forever, name="oauth-server", daemon=True)
            self.thread.start()

    def close(self):
        if self.thread is not None:
            self.httpd.shutdown()
            self.thread.join()
            self.thread = None
        self.httpd.server_close()

    # -- addresses ---------------------------------------------------------------------------------------

    @property
    def issuer(self):
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    authorize_url = property(lambda self: self.issuer + "/authorize")
    token_url = property(lambda self: self.issuer + "/token")
    revoke_url = property(lambda self: self.issuer + "/revoke")
    introspect_url = property(lambda self: self.issuer + "/introspect")
    metadata_url = property(lambda self: self.issuer + "/.well-known/oauth-authorization-server")

    @property
    def dovecot_introspection_url(self):
        """The introspection URL with the dovecot client's credentials in it, as Dovecot's oauth2 passdb wants
        them (it sends them as HTTP Basic)."""
        user = urllib.parse.quote(self.dovecot_client_id, safe="")
        password = urllib.parse.quote(self.dovecot_secret, safe="")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{user}:{password}@{host}:{self.port}/introspect"

    def metadata(self):
        return {
            "issuer": self.issuer,
            "authorization_endpoint": self.authorize_url,
            "token_endpoint": self.token_url,
            "revocation_endpoint": self.revoke_url,
            "introspection_endpoint": self.introspect_url,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": list(SCOPES),
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def describe(self):
        return {"issuer": self.issuer, "host": self.host, "port": self.port, "authorize_url": self.authorize_url,
                "token_url": self.token_url, "revoke_url": self.revoke_url, "introspect_url": self.introspect_url,
                "metadata_url": self.metadata_url, "client_id": self.client_id,
                "dovecot_client_id": self.dovecot_client_id, "dovecot_secret": self.dovecot_secret,
                "dovecot_introspection_url": self.dovecot_introspection_url, "users": self.users,
                "access_lifetime": self.access_lifetime, "rotate_refresh_tokens": self.rotate_refresh_tokens}

    # -- test helpers --------------------------------------------------------------------------------------

    def add_user(self, name, password):
        with self.lock:
            self.users[name] = password

    def issue_tokens(self, user, scope=DEFAULT_SCOPE, refresh=True):
        """A token pair for `user`, as if the browser dance had happened: {"access_token", "refresh_token",
        "token_type", "expires_in", "scope"}."""
        with self.lock:
            client = self.authlib.query_client(self.client_id)
            token = self.authlib.generate_token("authorization_code", client, user=user, scope=scope,
                                                include_refresh_token=refresh)
            self.authlib.store_token(token, self.client_id, user, generate_token(16))
            return token

    def revoke(self, token):
        """As the revocation endpoint: a refresh token takes its whole grant along. False if unknown."""
        with self.lock:
            found = self.store.find(token)
            if found is None:
                return False
            self.store.revoke(found)
            return True

    def revoke_user(self, user):
        """Revokes every live grant of `user` (all its access and refresh tokens), as a person removing the app's
        access in their account settings would; for tests that cannot see the tokens a client holds. Returns
        the number of grants revoked (0 if none)."""
        with self.lock:
            grant_ids = {token.grant_id for table in (self.store.access_tokens, self.store.refresh_tokens)
                         for token in table.values() if token.user == user and not token.revoked}
            for grant_id in grant_ids:
                self.store.revoke_grant(grant_id)
            return len(grant_ids)

    def expire_now(self, token):
        """Make a token (access or refresh) expired from now on. False if unknown."""
        with self.lock:
            found = self.store.find(token)
            if found is None:
                return False
            found.expires_at = time.time() - 1
            return True

    def introspect(self, token):
        """What the introspection endpoint would answer the dovecot client."""
        with self.lock:
            found = self.store.find(token)
            if found is None or found.kind != "access_token" or found.is_expired() or found.is_revoked():
                return {"active": False}
            return self.store.describe(found)

    # -- consent page -----------------------------------------------------------------------------------------

    def consent_page(self, query_pairs, request_id, user, error=""):
        client = html.escape(self.client_display_name())
        scope = dict(query_pairs).get("scope") or DEFAULT_SCOPE
        wanted = []
        if "imap" in scope.split():
            wanted.append("read")
        if "smtp" in scope.split():
            wanted.append("send")
        what = " and ".join(wanted) or "use"
        if user:
            question = f"Allow {client} to {what} mail as {html.escape(user)}?"
            sign_in = f'<input type="hidden" name="username" value="{html.escape(user)}">'
        else:
            question = f"Allow {client} to {what} mail as the user signing in below?"
            sign_in = ('<p><label>User name <input type="text" name="username" id="username" autocomplete="username">'
                       '</label></p>\n<p><label>Password <input type="password" name="password" id="password" '
                       'autocomplete="current-password"></label></p>')
        error_html = f'<p class="error" id="error">{html.escape(error)}</p>' if error else ""
        return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in - MailSearch test OAuth server</title></head>
<body>
<h1 id="question">{question}</h1>
<p>Scopes: <code id="scope">{html.escape(scope)}</code></p>
{error_html}
<form method="post" action="/authorize" id="consent">
<input type="hidden" name="request_id" value="{html.escape(request_id)}">
{sign_in}
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>
</body>
</html>
"""

    def client_display_name(self):
        return "MailSearch"


class _Handler(BaseHTTPRequestHandler):
    server_version = "MailSearchTestOAuth/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        if os.environ.get("MAILSEARCH_OAUTH_LOG"):
            super().log_message(format, *args)

    @property
    def oauth(self):
        return self.server.oauth

    def _pairs(self):
        parts = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        form = []
        if self.command == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if (self.headers.get("Content-Type") or "").split(";")[0].strip() == "application/x-www-form-urlencoded":
                form = urllib.parse.parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        return parts.path, query, form

    def _request(self, query, form, method=None, path=None):
        uri = self.oauth.issuer + (path or self.path)
        return _Request(method or self.command, uri, self.headers, query, form)

    def _send(self, status, body=b"", headers=()):
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        names = set()
        for name, value in headers:
            names.add(name.lower())
            self.send_header(name, value)
        if "content-type" not in names and body:
            self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _html(self, status, text):
        self._send(status, text, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")])

    def do_GET(self):
        path, query, form = self._pairs()
        with self.oauth.lock:
            if path == "/authorize":
                return self._authorize_page(query)
            if path == "/.well-known/oauth-authorization-server":
                return self._send(200, json.dumps(self.oauth.metadata()), [("Content-Type", "application/json")])
        self._send(404, "not found")

    def do_POST(self):
        path, query, form = self._pairs()
        server = self.oauth.authlib
        with self.oauth.lock:
            if path == "/authorize":
                return self._authorize_decision(dict(form))
            if path == "/token":
                return self._send(*server.create_token_response(self._request(query, form)))
            if path == "/revoke":
                return self._send(*server.create_endpoint_response("revocation", self._request(query, form)))
            if path == "/introspect":
                return self._send(*server.create_endpoint_response("introspection", self._request(query, form)))
        self._send(404, "not found")

    def _authorize_page(self, query):
        """Validate the authorization request (errors go to the client's redirect URI when it is valid, else
        are shown here), then show the consent page."""
        server = self.oauth.authlib
        hint = dict(query).get("login_hint")
        user = hint if hint in self.oauth.users else None
        request = self._request(query, [])
        try:
            server.get_consent_grant(request, end_user=user)
        except OAuth2Error as error:
            return self._send(*server.handle_error_response(request, error))
        now = time.time()
        for key in [k for k, (expires, _) in self.oauth.pending.items() if expires < now]:
            del self.oauth.pending[key]
        request_id = generate_token(32)
        self.oauth.pending[request_id] = (now + 600, list(query))
        self._html(200, self.oauth.consent_page(query, request_id, user))

    def _authorize_decision(self, form):
        server = self.oauth.authlib
        entry = self.oauth.pending.pop(form.get("request_id", ""), None)
        if entry is None:
            return self._html(400, "<!DOCTYPE html><p id=\"error\">This sign-in request is unknown or was "
                                   "already answered.</p>")
        _, query = entry
        path = "/authorize?" + urllib.parse.urlencode(query)
        request = self._request(query, [], method="GET", path=path)
        grant_user = None
        if form.get("decision") == "allow":
            user, password = form.get("username", ""), form.get("password")
            hint = dict(query).get("login_hint")
            signed_in = user and user == hint and hint in self.oauth.users
            if not signed_in:
                if user not in self.oauth.users or password is None or \
                        not secrets.compare_digest(self.oauth.users[user], password):
                    request_id = generate_token(32)
                    self.oauth.pending[request_id] = entry
                    return self._html(200, self.oauth.consent_page(query, request_id, None,
                                                                   error="Wrong user name or password."))
            grant_user = user
        try:
            grant = server.get_consent_grant(request, end_user=grant_user)
        except OAuth2Error as error:
            return self._send(*server.handle_error_response(request, error))
        self._send(*server.create_authorization_response(request, grant_user=grant_user, grant=grant))


# -- command line -----------------------------------------------------------------------------------------

CONTROL_HELP = """Control mode: one JSON object a line on standard input, one JSON answer a line on standard output.
The first line printed is the server's description ({"issuer", "port", "authorize_url", "token_url", ...,
"dovecot_introspection_url"}). Requests {"op": NAME, ...}; answers {"ok": true, "result": ...} or
{"ok": false, "error": "..."}.
  describe
  issue_tokens  {"user", "scope"?, "refresh"?}  -> {"access_token", "refresh_token", "expires_in", ...}
  revoke        {"token"}                         (a refresh token: its whole grant)
  revoke_user   {"user"}                          -> how many grants of the user were revoked
  expire_now    {"token"}
  introspect    {"token"}                         -> what Dovecot would be told
  add_user      {"user", "password"}
  set           {"access_lifetime"?, "rotate_refresh_tokens"?}
End of standard input stops the server."""


def _control_loop(server):
    def set_options(r):
        if "access_lifetime" in r:
            server.access_lifetime = r["access_lifetime"]
        if "rotate_refresh_tokens" in r:
            server.rotate_refresh_tokens = r["rotate_refresh_tokens"]

    ops = {
        "describe": lambda r: server.describe(),
        "issue_tokens": lambda r: server.issue_tokens(r["user"], r.get("scope", DEFAULT_SCOPE), r.get("refresh", True)),
        "revoke": lambda r: server.revoke(r["token"]),
        "revoke_user": lambda r: server.revoke_user(r["user"]),
        "expire_now": lambda r: server.expire_now(r["token"]),
        "introspect": lambda r: server.introspect(r["token"]),
        "add_user": lambda r: server.add_user(r["user"], r["password"]),
        "set": set_options,
    }
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            answer = {"ok": True, "result": ops[req["op"]](req)}
        except Exception as error:  # every failure goes back to the caller as an answer
            answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description="A throwaway OAuth 2.0 authorization server on 127.0.0.1 "
                                                 "(see the module docstring).",
                                     epilog=CONTROL_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--user", action="append", metavar="NAME:PASSWORD",
                        help="a user (repeatable; default alice:alice-password and bob:bob-password)")
    parser.add_argument("--port", type=int, default=0, help="default: a free one")
    parser.add_argument("--access-lifetime", type=int, default=3600, metavar="SECONDS")
    parser.add_argument("--refresh-lifetime", type=int, default=None, metavar="SECONDS")
    parser.add_argument("--no-rotate", action="store_true", help="keep one refresh token per grant")
    parser.add_argument("--dovecot-secret", help="the dovecot client's secret (default: random)")
    parser.add_argument("--port-file", help="write the port into this file once the server listens")
    parser.add_argument("--control", action="store_true", help="JSON control mode on stdin/stdout (below)")
    args = parser.parse_args(argv)
    users = dict(u.split(":", 1) for u in args.user) if args.user else None
    try:
        server = OAuthServer(users, access_lifetime=args.access_lifetime, refresh_lifetime=args.refresh_lifetime,
                             rotate_refresh_tokens=not args.no_rotate, dovecot_secret=args.dovecot_secret,
                             port=args.port)
    except AuthlibMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    server.start()
    try:
        if args.port_file:
            tmp = args.port_file + ".tmp"
            with open(tmp, "w") as f:
                f.write(f"{server.port}\n")
            os.replace(tmp, args.port_file)
        if args.control:
            print(json.dumps(server.describe()), flush=True)
            _control_loop(server)
        else:
            info = server.describe()
            print(f"OAuth server {info['issuer']} (metadata {info['metadata_url']})")
            print(f"public client {info['client_id']}; dovecot client secret {info['dovecot_secret']}")
            print(f"Dovecot introspection_url {info['dovecot_introspection_url']}")
            for name, password in server.users.items():
                print(f"user {name} password {password}")
            print("Ctrl-C stops", flush=True)
            signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
