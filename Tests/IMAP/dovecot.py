#!/usr/bin/env python3
"""A real Dovecot IMAP server for tests, started and stopped by the test itself (Python 3 stdlib only).

    with Dovecot(users={"alice": "secret"}, mail={"alice": {"INBOX": [raw_bytes, ...]}}) as server:
        client = server.imap("alice")                  # imaplib, already logged in (plaintext port)
        server.deliver("alice", raw)                   # like an MTA: dovecot-lda, wakes IDLE clients
        server.set_uidvalidity("alice", "INBOX", 42)   # doveadm mailbox update --uid-validity
        server.kill(); server.restart()                # SIGKILL every Dovecot process; same ports, same data

What it runs: Debian's `dovecot-imapd` (Dovecot 2.3), `dovecot -F -c DIR/dovecot.conf` in a fresh temporary
directory, on 127.0.0.1 only, on two free ports: `port` (plaintext with STARTTLS, like 143) and `tls_port`
(implicit TLS, like 993), with a certificate for 127.0.0.1 and localhost signed by a CA generated here
(`ca_file`). Every Dovecot process runs unprivileged, as one user: the current user, or, when the tests run
as root (CI), the `dovecot` system account the package creates (MAILSEARCH_DOVECOT_USER to choose another),
because Dovecot refuses to run its login processes as root and to give mail to uid 0. Mail is Maildir++
(`DIR/home/USER/Maildir`), the hierarchy separator is "/", and every user has INBOX, Drafts, Sent, Archive,
Junk and Trash with their SPECIAL-USE flags.

With submission=True (command line: --submission) it is an SMTP server too, for the sending tests: Dovecot's
submission service (dovecot-submissiond) on `submission_port` (STARTTLS, like 587) and `submissions_port`
(implicit TLS, like 465), AUTH with the same users, SIZE `max_mail_size`, relaying each message through
lmtp_relay.py to Dovecot's LMTP (dovecot-lmtpd), which delivers into the recipients' INBOX; an unknown recipient
is refused at RCPT TO. (Postfix would be the usual relay, but its master refuses to run as anyone but root.)
    with Dovecot(submission=True) as server:
        client = server.smtp("alice")                  # smtplib, STARTTLS and logged in

With oauth=… IMAP and submission also take OAuth 2.0 bearer tokens (SASL XOAUTH2 and OAUTHBEARER, RFC 7628):
Dovecot's oauth2 passdb asks the token's authorization server about each one over RFC 7662 introspection
(POST, as the confidential client "dovecot"), alongside the password passdb, which then serves only PLAIN and
LOGIN (and the user lookups of LMTP and doveadm, mechanism "none"). oauth is an oauth_server.OAuthServer (Tests/IMAP/oauth_server.py, Authlib) or an introspection URL with
the client's credentials in it (http://dovecot:SECRET@127.0.0.1:PORT/introspect).
    with OAuthServer(access_lifetime=3) as oauth, Dovecot(oauth=oauth, submission=True) as server:
        client = server.imap_oauth("alice", oauth.issue_tokens("alice")["access_token"], mechanism="XOAUTH2")

Dovecot missing is an error (DovecotMissing), never a reason to skip: scripts/install-deps.sh installs it.

Command line, for manual use and for test programs in other languages (see `main`):
    python3 Tests/IMAP/dovecot.py --user alice:secret --mbox FILE --keep
    python3 Tests/IMAP/dovecot.py --control ...   # JSON lines on stdin/stdout; EOF on stdin stops it
    python3 Tests/IMAP/dovecot.py --submission --oauth-introspection-url http://dovecot:SECRET@127.0.0.1:PORT/introspect
"""
import argparse
import base64
import email.utils
import grp
import imaplib
import json
import mailbox as mailbox_module
import os
import pwd
import re
import shutil
import signal
import smtplib
import socket
import ssl
import stat
import subprocess
import sys
import tempfile
import time
import unittest

INSTALL_HINT = "run scripts/install-deps.sh (Debian: apt-get install dovecot-imapd openssl)"
SUBMISSION_INSTALL_HINT = ("run scripts/install-deps.sh (Debian: apt-get install dovecot-imapd dovecot-submissiond "
                           "dovecot-lmtpd openssl)")
DEFAULT_USERS = {"alice": "alice-password", "bob": "bob-password"}
# The folders every user has, with their RFC 6154 SPECIAL-USE flag (INBOX has none).
SPECIAL_USE = {"Drafts": "\\Drafts", "Sent": "\\Sent", "Archive": "\\Archive", "Junk": "\\Junk", "Trash": "\\Trash"}
SEPARATOR = "/"
# IMAP system flags and their Maildir info letters (the letters must be written in ASCII order).
MAILDIR_FLAGS = {"\\Draft": "D", "\\Flagged": "F", "\\Answered": "R", "\\Seen": "S", "\\Deleted": "T"}
# mbox Status/X-Status letters (as Python's mailbox module reports them) to IMAP flags.
MBOX_FLAGS = {"R": "\\Seen", "A": "\\Answered", "F": "\\Flagged", "D": "\\Deleted"}


class DovecotMissing(RuntimeError):
    """Dovecot (or openssl) is not installed: a test must fail with this, not skip."""


class DovecotError(RuntimeError):
    """Dovecot did not start, or a doveadm/dovecot-lda command failed; the message carries its output."""


def find_binaries(submission=False):
    """The programs the harness runs, or DovecotMissing naming what is missing. /usr/sbin is not on a
    normal user's PATH on Debian, so the usual places are looked at first. submission: also Dovecot's
    submission service and LMTP server (the SMTP tests' peer)."""
    wanted = {
        "dovecot": ["/usr/sbin/dovecot"],
        "doveadm": ["/usr/bin/doveadm"],
        "dovecot-lda": ["/usr/lib/dovecot/dovecot-lda"],
        "openssl": ["/usr/bin/openssl"],
    }
    if submission:
        wanted.update({
            "submission (dovecot-submissiond)": ["/usr/lib/dovecot/submission"],
            "submission-login (dovecot-submissiond)": ["/usr/lib/dovecot/submission-login"],
            "lmtp (dovecot-lmtpd)": ["/usr/lib/dovecot/lmtp"],
        })
    found, missing = {}, []
    for name, candidates in wanted.items():
        path = next((p for p in candidates if os.access(p, os.X_OK)), None) or shutil.which(name)
        if path:
            found[name] = path
        else:
            missing.append(name)
    if missing:
        hint = SUBMISSION_INSTALL_HINT if submission else INSTALL_HINT
        raise DovecotMissing(f"{', '.join(missing)} not found: the IMAP and SMTP tests need a real Dovecot; {hint}")
    return found


def ensure_installed(submission=False):
    """find_binaries(), after running scripts/install-deps.sh once when something is missing (it installs only
    what is missing, with apt-get, as root or through sudo). Still missing afterwards: DovecotMissing, never a
    skip. MAILSEARCH_NO_INSTALL=1 only looks."""
    try:
        return find_binaries(submission=submission)
    except DovecotMissing:
        script = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                              "scripts", "install-deps.sh")
        if os.environ.get("MAILSEARCH_NO_INSTALL") == "1" or not os.access(script, os.X_OK):
            raise
        print(f"Dovecot's packages are missing: running {script}", file=sys.stderr, flush=True)
        subprocess.run([script], check=False)
        return find_binaries(submission=submission)


def free_ports(count, host="127.0.0.1"):
    """`count` distinct ports nobody listens on now (all bound at once, so they differ)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind((host, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def imap_utf7(name):
    """A mailbox name in IMAP's modified UTF-7 (RFC 3501 §5.1.3), as Dovecot names Maildir++ folders on disk."""
    out, pending = [], []

    def flush():
        if pending:
            encoded = base64.b64encode("".join(pending).encode("utf-16-be")).decode("ascii")
            out.append("&" + encoded.rstrip("=").replace("/", ",") + "-")
            pending.clear()

    for ch in name:
        if 0x20 <= ord(ch) <= 0x7E:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            pending.append(ch)
    flush()
    return "".join(out)


_DATE_HEADER = re.compile(rb"^date:[ \t]*(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)


def header_date(raw):
    """The message's Date header as a Unix time, or None (only the header block is looked at)."""
    end = raw.find(b"\n\n")
    end2 = raw.find(b"\r\n\r\n")
    head = raw[: min(e for e in (end, end2, len(raw)) if e >= 0)]
    match = _DATE_HEADER.search(head)
    if not match:
        return None
    try:
        parsed = email.utils.parsedate_tz(match.group(1).decode("latin-1").replace("\r\n", " ").replace("\n", " "))
        return email.utils.mktime_tz(parsed) if parsed else None
    except (ValueError, OverflowError, TypeError):
        return None


class Message:
    """A fixture message: its bytes, IMAP flags (system flags and keywords) and INTERNALDATE (Unix time;
    None: the Date header, else now)."""

    def __init__(self, raw, flags=(), date=None):
        self.raw = raw if isinstance(raw, bytes) else raw.encode("utf-8")
        self.flags = tuple(flags)
        self.date = date

    @classmethod
    def of(cls, item):
        """A Message from a Message, bytes, a str of message text, or a path (os.PathLike or str naming a file)."""
        if isinstance(item, Message):
            return item
        if isinstance(item, bytes):
            return cls(item)
        if isinstance(item, os.PathLike) or (isinstance(item, str) and "\n" not in item and os.path.isfile(item)):
            with open(item, "rb") as f:
                return cls(f.read())
        if isinstance(item, str):
            return cls(item)
        raise TypeError(f"not a message: {type(item).__name__}")


_STATUS_HEADER = re.compile(rb"^(?:x-)?status:[ \t]*([A-Za-z]*)", re.IGNORECASE | re.MULTILINE)


def read_mbox(path):
    """Every message of an mbox file as a Message, with its flags from the Status/X-Status headers (read from
    the header block only: parsing whole messages would take seconds for a big mbox)."""
    box = mailbox_module.mbox(path, create=False)
    try:
        messages = []
        for key in box.iterkeys():
            raw = box.get_bytes(key)
            end = raw.find(b"\n\n")
            letters = b"".join(_STATUS_HEADER.findall(raw[: end if end >= 0 else len(raw)])).decode("ascii")
            messages.append(Message(raw, flags=sorted({MBOX_FLAGS[c] for c in letters if c in MBOX_FLAGS})))
        return messages
    finally:
        box.close()


def _service_account():
    """(user name, uid, group name, gid, drop privileges?) for every Dovecot process. As root: the `dovecot`
    account (Dovecot won't run login processes as root nor give mail to uid 0); else the current user."""
    if os.geteuid() == 0:
        name = os.environ.get("MAILSEARCH_DOVECOT_USER", "dovecot")
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            raise DovecotMissing(f"the tests run as root and Dovecot then runs as the user {name!r}, which does not "
                                 f"exist (set MAILSEARCH_DOVECOT_USER to an unprivileged user); {INSTALL_HINT}")
        return entry.pw_name, entry.pw_uid, grp.getgrgid(entry.pw_gid).gr_name, entry.pw_gid, True
    entry = pwd.getpwuid(os.getuid())
    return entry.pw_name, entry.pw_uid, grp.getgrgid(os.getgid()).gr_name, os.getgid(), False


def _session_processes(sid):
    """Pids of the live processes of session `sid` (every Dovecot process: the master is started with setsid and
    its children never leave its session)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        # Fields after the parenthesised command: state ppid pgrp session ...
        fields = data[data.rfind(b")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != b"Z":
            pids.append(int(entry))
    return pids


class Dovecot:
    """A Dovecot for one test (or one test class): see the module's docstring.

    users: {name: password} (passwords are stored in plain text, `{PLAIN}`, and must not contain ':').
    mail: {user: {mailbox: [message, ...]}} written into the Maildirs before Dovecot starts; a message is a
        Message, bytes, text or a file path; a mailbox name may use "/" for hierarchy and any Unicode.
    workdir: the directory to use (default: a new temporary one in `parent`, default the system's temporary
        directory; removed at close() unless keep).
    extra_config: text appended to dovecot.conf, for a test that needs another setting (a later setting wins).
    submission: also an SMTP server for sending tests — Dovecot's submission service on `submission_port`
        (plaintext with STARTTLS, like 587) and `submissions_port` (implicit TLS, like 465), AUTH PLAIN/LOGIN
        with the same users and certificate, SIZE `max_mail_size`; it relays every message through
        lmtp_relay.LMTPRelay (`relay_port`) to Dovecot's LMTP (`lmtp_port`), which delivers into the
        recipients' INBOX (`user@anydomain` is the user `user`; an unknown user is refused at RCPT TO).
    oauth: also OAuth 2.0 bearer tokens, AUTHENTICATE/AUTH XOAUTH2 and OAUTHBEARER on every IMAP and submission
        port, checked by Dovecot's oauth2 passdb through the introspection endpoint of an
        oauth_server.OAuthServer (anything with a `dovecot_introspection_url`) or of the URL given as a str
        (http://CLIENT:SECRET@HOST:PORT/PATH; the credentials go as HTTP Basic). The token's `username` must be
        the SASL user; an inactive answer (expired, revoked, unknown) refuses the login. The password passdb
        then serves only PLAIN and LOGIN (and "none": the passdb lookup a static userdb makes for LMTP's and
        doveadm's user lookups), so a password is never taken for a bearer token.
    """

    def __init__(self, users=None, mail=None, *, workdir=None, parent=None, keep=False, extra_config="",
                 startup_timeout=20, submission=False, max_mail_size=2_000_000, oauth=None):
        self.bin = find_binaries(submission=submission)
        if oauth is None or isinstance(oauth, str):
            self.oauth_introspection_url = oauth
        else:
            self.oauth_introspection_url = oauth.dovecot_introspection_url
        self.submission = submission
        self.max_mail_size = max_mail_size
        self.relay = None
        self.users = dict(DEFAULT_USERS if users is None else users)
        for name, password in self.users.items():
            self._check_credentials(name, password)
        self.keep = keep
        self.extra_config = extra_config
        self.startup_timeout = startup_timeout
        self.host = "127.0.0.1"
        # All at once: ports taken in two calls can repeat (the first call's sockets are closed).
        ports = free_ports(6 if submission else 2)
        self.port, self.tls_port = ports[:2]
        self.submission_port = self.submissions_port = self.lmtp_port = self.relay_port = None
        if submission:
            self.submission_port, self.submissions_port, self.lmtp_port, self.relay_port = ports[2:]
        self.user_name, self.uid, self.group_name, self.gid, self._drop = _service_account()
        if workdir:
            os.makedirs(workdir, exist_ok=True)
            self.dir = os.path.abspath(workdir)
        else:
            self.dir = tempfile.mkdtemp(prefix="mailsearch-dovecot-", dir=parent)
        self._check_reachable(self.dir)
        self.conf = os.path.join(self.dir, "dovecot.conf")
        self.passwd_file = os.path.join(self.dir, "passwd")
        self.oauth_conf = os.path.join(self.dir, "dovecot-oauth2.conf.ext")
        self.log_path = os.path.join(self.dir, "dovecot.log")
        self.ca_file = os.path.join(self.dir, "tls", "ca.pem")
        self.cert_file = os.path.join(self.dir, "tls", "server.pem")
        self._key_file = os.path.join(self.dir, "tls", "server.key")
        self.proc = None
        # Fixture file names: "<secs>.M<usecs>P<pid>..." with increasing times, because Dovecot gives new
        # Maildir files their UIDs in the order of those times: fixtures get UIDs in the order given.
        # (A day back, so that they never sort after the names of Dovecot's own deliveries.)
        self._seq = 0
        self._t0 = int(time.time()) - 86400
        self._chown(self.dir)
        self._make_certificates()
        self._write_passwd()
        self._write_config()
        for name in self.users:
            self._make_user_maildir(name)
        for user, boxes in (mail or {}).items():
            if user not in self.users:
                raise ValueError(f"mail for {user!r}, who is not among the users")
            for box, messages in boxes.items():
                self.write_messages(user, box, messages)

    # -- lifecycle -------------------------------------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def start(self):
        """Start Dovecot (foreground master, own session) and wait until both ports greet with `* OK`."""
        if self.running:
            return
        stale = os.path.join(self.dir, "run", "master.pid")
        if os.path.exists(stale):
            os.unlink(stale)  # left by a SIGKILLed master; Dovecot would refuse to start if the pid were reused
        # Dot-locks a SIGKILLed Dovecot left (dovecot-uidlist.lock while a folder's UID list was written): one younger than
        # 2 s when Dovecot first meets it is not checked for its dead owner, and Dovecot then waits for it to go stale, 2
        # minutes, with the client's command unanswered. An administrator restarting after a crash would see that wait
        # too; the tests restart Dovecot many times, and take them away (no Dovecot process runs now).
        for root, _, files in os.walk(os.path.join(self.dir, "home")):
            for name in files:
                if name.startswith("dovecot") and name.endswith(".lock"):
                    try:
                        os.unlink(os.path.join(root, name))
                    except FileNotFoundError:
                        pass
        self._stderr = open(os.path.join(self.dir, "dovecot.stderr"), "ab")
        self.proc = subprocess.Popen([self.bin["dovecot"], "-F", "-c", self.conf], stdin=subprocess.DEVNULL,
                                     stdout=self._stderr, stderr=subprocess.STDOUT, start_new_session=True,
                                     env=self._env(), **self._drop_kwargs())
        deadline = time.monotonic() + self.startup_timeout
        pending = {"plaintext": self.port, "implicit TLS": self.tls_port}
        if self.submission:
            pending.update({"submission": self.submission_port, "submissions (implicit TLS)": self.submissions_port})
            if self.relay is None:
                from lmtp_relay import LMTPRelay
                self.relay = LMTPRelay(self.host, self.relay_port, self.host, self.lmtp_port)
        while pending:
            if self.proc.poll() is not None:
                self._forget_process()
                raise DovecotError(f"dovecot exited with status {self.proc.returncode} while starting\n{self.log_tail()}")
            for label, port in list(pending.items()):
                if self._greets(port, tls="implicit TLS" in label, smtp=label.startswith("submission")):
                    del pending[label]
            if pending and time.monotonic() > deadline:
                self.kill()
                raise DovecotError(f"dovecot did not answer on {', '.join(pending)} within {self.startup_timeout} s\n{self.log_tail()}")
            if pending:
                time.sleep(0.05)

    def stop(self, timeout=10):
        """Stop Dovecot as an administrator would (SIGTERM; clients are disconnected). Data stays."""
        if not self.proc:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def kill(self):
        """SIGKILL every Dovecot process at once (master, login, imap, auth…): the connection dies mid-command,
        as in a crash or a cut network. Returns when they are all gone. Data stays; restart() serves it again."""
        if not self.proc:
            return
        sid = self.proc.pid
        deadline = time.monotonic() + 10
        while True:
            pids = _session_processes(sid)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                raise DovecotError(f"Dovecot processes {pids} survive SIGKILL")
            time.sleep(0.02)
        self.proc.wait()
        self._forget_process()

    def restart(self):
        """Stop if running (gracefully), then start again on the same ports with the same data."""
        self.stop()
        self.start()

    def close(self):
        """Stop, and remove the directory unless keep. (A graceful stop takes Dovecot's master about a second;
        when the data goes anyway, SIGKILL is as good and instant.)"""
        if self.keep:
            self.stop()
        else:
            self.kill()
            shutil.rmtree(self.dir, ignore_errors=True)
        if self.relay is not None:
            self.relay.close()
            self.relay = None

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid if self.running else None

    # -- users ---------------------------------------------------------------------------------------

    def add_user(self, name, password):
        """A new user (or a new password), no restart needed. Takes up to a second while Dovecot runs (see
        _write_passwd)."""
        self._check_credentials(name, password)
        self.users[name] = password
        self._write_passwd()
        self._make_user_maildir(name)

    def set_password(self, name, password):
        if name not in self.users:
            raise KeyError(name)
        self.add_user(name, password)

    def remove_user(self, name):
        """The user can no longer log in and their mail is deleted."""
        self.users.pop(name)
        self._write_passwd()
        shutil.rmtree(self.home(name), ignore_errors=True)

    def home(self, user):
        return os.path.join(self.dir, "home", user)

    def maildir(self, user, mailbox="INBOX"):
        """The Maildir++ directory of a mailbox ("Archive/2001" is `.Archive.2001`, names in modified UTF-7)."""
        root = os.path.join(self.home(user), "Maildir")
        if mailbox.upper() == "INBOX":
            return root
        if "." in mailbox:
            raise ValueError(f"{mailbox!r}: Maildir++ stores hierarchy as '.', so a name cannot contain one here")
        return os.path.join(root, "." + imap_utf7(mailbox).replace(SEPARATOR, "."))

    # -- mail --------------------------------------------------------------------------------------

    def write_messages(self, user, mailbox, messages):
        """Write messages straight into a Maildir's cur/ (through tmp/, as Maildir wants), with their flags as
        Maildir info letters and their INTERNALDATE as the file's mtime. Fast (no Dovecot involved); Dovecot
        gives them UIDs, in the order given, when a client or doveadm next looks at the mailbox. Works while
        Dovecot runs too (a client in IDLE hears of them through inotify, like any change of the Maildir), but
        deliver() and append() are what a real server sees. Returns the number written."""
        path = self._make_maildir(user, mailbox)
        keywords = self._keywords(path)
        count = 0
        for item in messages:
            message = Message.of(item)
            letters = []
            for flag in message.flags:
                if flag in MAILDIR_FLAGS:
                    letters.append(MAILDIR_FLAGS[flag])
                elif flag.startswith("\\"):
                    raise ValueError(f"{flag}: not a flag a Maildir stores (\\Recent is the server's own)")
                else:
                    if flag not in keywords:
                        if len(keywords) == 26:
                            raise ValueError("at most 26 keywords per Maildir")
                        keywords.append(flag)
                        # Letters a-z name keywords through this file; it must exist before a file uses one.
                        self._write_owned(os.path.join(path, "dovecot-keywords"),
                                          "".join(f"{i} {k}\n" for i, k in enumerate(keywords)).encode())
                    letters.append(chr(ord("a") + keywords.index(flag)))
            self._write_file(path, message.raw, "".join(sorted(set(letters))),
                             message.date if message.date is not None else header_date(message.raw))
            count += 1
        return count

    def load_tree(self, user, root, layout="folders", prefix=""):
        """Copy a tree of one-message-per-file folders (the Enron corpus: user/folder/.../N) into a user's
        Maildir. layout "folders": one IMAP folder per directory holding messages, named by its path
        ("allen-p/inbox/ene_portland"), under `prefix` if given; "inbox": every message into INBOX.
        Files are read in a stable order (directories sorted, numeric names numerically). Returns
        {mailbox: count}."""
        counts = {}
        for directory, subdirs, files in os.walk(root):
            subdirs.sort()
            if not files:
                continue
            files.sort(key=lambda n: (0, int(n.rstrip("."))) if n.rstrip(".").isdigit() else (1, n))
            relative = os.path.relpath(directory, root)
            if layout == "inbox":
                box = "INBOX"
            elif layout == "folders":
                box = relative.replace(os.sep, SEPARATOR) if relative != "." else "INBOX"
                if prefix:
                    box = prefix + SEPARATOR + box if box != "INBOX" else prefix
            else:
                raise ValueError(f"layout must be 'folders' or 'inbox', not {layout!r}")
            counts[box] = counts.get(box, 0) + self.write_messages(user, box, (os.path.join(directory, f) for f in files))
        return counts

    def append(self, user, mailbox, raw, flags=(), date=None):
        """APPEND through IMAP as the user (the server must run): returns the new message's UID (UIDPLUS)."""
        client = self.imap(user)
        try:
            internal = imaplib.Time2Internaldate(date) if date is not None else None
            flag_list = "(" + " ".join(flags) + ")" if flags else None
            typ, data = client.append(_quote(mailbox), flag_list, internal, raw if isinstance(raw, bytes) else raw.encode())
            if typ != "OK":
                raise DovecotError(f"APPEND failed: {data}")
            match = re.search(rb"APPENDUID (\d+) (\d+)", data[0] or b"")
            return int(match.group(2)) if match else None
        finally:
            client.logout()

    def deliver(self, user, raw, mailbox="INBOX"):
        """Deliver as an MTA would (dovecot-lda, into new/): IMAP clients in IDLE on that mailbox get EXISTS."""
        self._run([self.bin["dovecot-lda"], "-c", self.conf, "-d", user, "-m", mailbox, "-e"],
                  input=raw if isinstance(raw, bytes) else raw.encode())

    def doveadm(self, *args, input=None):
        """Run `doveadm -c dovecot.conf ARGS…` as Dovecot's user; returns its standard output (DovecotError if it
        fails). Mail commands need `-u USER` after the command name, e.g.
        doveadm("mailbox", "status", "-u", "alice", "messages uidnext", "INBOX")."""
        return self._run([self.bin["doveadm"], "-c", self.conf, *args], input=input)

    def status(self, user, mailbox="INBOX"):
        """{messages, recent, uidnext, uidvalidity, unseen, highestmodseq} of a mailbox, through doveadm."""
        out = self.doveadm("-f", "flow", "mailbox", "status", "-u", user,
                           "messages recent uidnext uidvalidity unseen highestmodseq", mailbox)
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", out)}

    def set_uidvalidity(self, user, mailbox, value):
        """Change a mailbox's UIDVALIDITY (messages keep their UIDs; a client must throw its UIDs away)."""
        self.doveadm("mailbox", "update", "-u", user, "--uid-validity", str(int(value)), mailbox)

    def expunge(self, user, mailbox, uids):
        """Expunge messages by UID (an int, a list, or an IMAP set like "3:5")."""
        self.doveadm("expunge", "-u", user, "mailbox", mailbox, "uid", _uid_set(uids))

    def add_flags(self, user, mailbox, uids, flags):
        self.doveadm("flags", "add", "-u", user, " ".join(flags), "mailbox", mailbox, "uid", _uid_set(uids))

    def remove_flags(self, user, mailbox, uids, flags):
        self.doveadm("flags", "remove", "-u", user, " ".join(flags), "mailbox", mailbox, "uid", _uid_set(uids))

    def create_mailbox(self, user, mailbox):
        """Create and subscribe a mailbox. (SPECIAL-USE flags come only from dovecot.conf in Dovecot 2.3: the
        five of SPECIAL_USE; doveadm has no option for them and IMAP CREATE … USE is not offered.)"""
        self.doveadm("mailbox", "create", "-u", user, "-s", mailbox)

    # -- clients ----------------------------------------------------------------------------------------

    def ssl_context(self):
        """A client TLS context that trusts only the generated CA (and checks the host name)."""
        return ssl.create_default_context(cafile=self.ca_file)

    def imap(self, user=None, password=None, security="plain"):
        """An imaplib client, logged in when a user is given. security: "plain" (port, no TLS), "starttls"
        (port, then STARTTLS) or "tls" (tls_port, implicit TLS); TLS verifies against ca_file."""
        if security == "tls":
            client = imaplib.IMAP4_SSL(self.host, self.tls_port, ssl_context=self.ssl_context(), timeout=30)
        else:
            client = imaplib.IMAP4(self.host, self.port, timeout=30)
            if security == "starttls":
                client.starttls(self.ssl_context())
            elif security != "plain":
                raise ValueError(security)
        if user is not None:
            try:
                client.login(user, self.users[user] if password is None else password)
            except BaseException:
                client.shutdown()
                raise
        return client

    def smtp(self, user=None, password=None, security="starttls"):
        """An smtplib client of the submission service, logged in when a user is given. security: "starttls"
        (submission_port, then STARTTLS), "plain" (submission_port, no TLS) or "tls" (submissions_port)."""
        if not self.submission:
            raise ValueError("this Dovecot was started without submission=True")
        if security == "tls":
            client = smtplib.SMTP_SSL(self.host, self.submissions_port, context=self.ssl_context(), timeout=30)
        else:
            client = smtplib.SMTP(self.host, self.submission_port, timeout=30)
            if security == "starttls":
                client.starttls(context=self.ssl_context())
            elif security != "plain":
                raise ValueError(security)
        if user is not None:
            client.login(user, self.users[user] if password is None else password)
        return client

    def imap_oauth(self, user, token, mechanism="XOAUTH2", security="plain"):
        """An imaplib client logged in with an OAuth 2.0 access token (SASL XOAUTH2 or OAUTHBEARER, RFC 7628);
        imaplib.IMAP4.error when Dovecot refuses it. security as for imap()."""
        client = self.imap(security=security)
        port = self.tls_port if security == "tls" else self.port
        try:
            client.authenticate(mechanism, sasl_bearer(mechanism, user, token, self.host, port))
        except BaseException:
            client.shutdown()
            raise
        return client

    def smtp_oauth(self, user, token, mechanism="XOAUTH2", security="starttls"):
        """An smtplib client of the submission service logged in with an OAuth 2.0 access token;
        smtplib.SMTPAuthenticationError when Dovecot refuses it. security as for smtp()."""
        client = self.smtp(security=security)
        port = self.submissions_port if security == "tls" else self.submission_port
        try:
            client.ehlo_or_helo_if_needed()
            client.auth(mechanism, sasl_bearer(mechanism, user, token, self.host, port, text=True))
        except BaseException:
            client.close()
            raise
        return client

    def log_tail(self, lines=30):
        chunks = []
        for path in (os.path.join(self.dir, "dovecot.stderr"), self.log_path):
            try:
                with open(path, errors="replace") as f:
                    chunks.extend(f.read().splitlines()[-lines:])
            except OSError:
                pass
        return "\n".join(chunks)

    def describe(self):
        """What a client needs, as a dict (the CLI prints it)."""
        return {"host": self.host, "port": self.port, "tls_port": self.tls_port, "ca_file": self.ca_file,
                "users": self.users, "dir": self.dir, "log": self.log_path, "pid": self.pid,
                "separator": SEPARATOR, "dovecot_user": self.user_name,
                "submission_port": self.submission_port, "submissions_port": self.submissions_port,
                "lmtp_port": self.lmtp_port, "relay_port": self.relay_port,
                "max_mail_size": self.max_mail_size if self.submission else None,
                "oauth": bool(self.oauth_introspection_url)}

    # -- internals -------------------------------------------------------------------------------------

    @staticmethod
    def _check_credentials(name, password):
        if not re.fullmatch(r"[A-Za-z0-9._@+-]+", name) or name.startswith("."):
            raise ValueError(f"user name {name!r}: letters, digits and . _ @ + - only")
        if any(c in password for c in ":\n\r") or not password:
            raise ValueError("a password must be non-empty, without ':' or line breaks")

    def _check_reachable(self, path):
        """As root, Dovecot runs as another user, who must be able to reach the working directory."""
        if not self._drop:
            return
        parent = os.path.dirname(path)
        while parent and parent != "/":
            mode = os.stat(parent).st_mode
            if not mode & stat.S_IXOTH:
                raise DovecotError(f"{path}: Dovecot runs as {self.user_name}, who cannot enter {parent}; "
                                   f"use a working directory under /tmp")
            parent = os.path.dirname(parent)

    def _env(self):
        return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}

    def _drop_kwargs(self):
        return {"user": self.uid, "group": self.gid, "extra_groups": []} if self._drop else {}

    def _chown(self, path):
        if self._drop:
            os.chown(path, self.uid, self.gid)

    def _run(self, cmd, input=None):
        done = subprocess.run(cmd, input=input, capture_output=True, env=self._env(), timeout=300, **self._drop_kwargs())
        if done.returncode != 0:
            raise DovecotError(f"{' '.join(cmd)} exited with {done.returncode}: "
                               f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode(errors="replace")

    def _forget_process(self):
        if getattr(self, "_stderr", None):
            self._stderr.close()
            self._stderr = None

    def _greets(self, port, tls, smtp=False):
        """True if the port accepts a connection and the server says `* OK` (SMTP: `220`), after the TLS
        handshake when tls."""
        greeting = b"220 " if smtp else b"* OK"
        try:
            with socket.create_connection((self.host, port), timeout=2) as raw:
                if not tls:
                    return raw.recv(256).startswith(greeting)
                with self.ssl_context().wrap_socket(raw, server_hostname=self.host) as sock:
                    return sock.recv(256).startswith(greeting)
        except (OSError, ssl.SSLError):
            return False

    def _make_certificates(self):
        """A CA and a server certificate for 127.0.0.1 and localhost signed by it (EC P-256: instant)."""
        tls = os.path.join(self.dir, "tls")
        os.makedirs(tls, exist_ok=True)
        self._chown(tls)
        ca_key = os.path.join(tls, "ca.key")
        csr = os.path.join(tls, "server.csr")
        ext = os.path.join(tls, "server.ext")
        with open(ext, "w") as f:
            # Python's ssl (3.13+: VERIFY_X509_STRICT) and rustls/BoringSSL want these extensions present.
            f.write("basicConstraints = critical, CA:FALSE\n"
                    "keyUsage = critical, digitalSignature, keyEncipherment\n"
                    "extendedKeyUsage = serverAuth\n"
                    "subjectAltName = DNS:localhost, IP:127.0.0.1\n"
                    "subjectKeyIdentifier = hash\n"
                    "authorityKeyIdentifier = keyid:always\n")
        openssl = self.bin["openssl"]
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        steps = [
            [openssl, "req", "-x509", *ec, "-keyout", ca_key, "-out", self.ca_file, "-days", "30",
             "-subj", "/CN=MailSearch Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-addext", "subjectKeyIdentifier=hash"],
            [openssl, "req", *ec, "-keyout", self._key_file, "-out", csr, "-subj", "/CN=localhost"],
            [openssl, "x509", "-req", "-in", csr, "-CA", self.ca_file, "-CAkey", ca_key, "-set_serial", "2",
             "-days", "30", "-extfile", ext, "-out", self.cert_file],
        ]
        for cmd in steps:
            done = subprocess.run(cmd, capture_output=True)
            if done.returncode != 0:
                raise DovecotError(f"openssl failed: {done.stderr.decode(errors='replace')}")
        for name in os.listdir(tls):
            self._chown(os.path.join(tls, name))
        os.chmod(self._key_file, 0o600)

    def _write_owned(self, path, data):
        with open(path, "wb") as f:
            f.write(data)
        self._chown(path)

    def _write_passwd(self):
        # passwd-file: user:password; only the first two fields are used (userdb is static).
        lines = "".join(f"{name}:{{PLAIN}}{password}\n" for name, password in self.users.items())
        tmp = self.passwd_file + ".tmp"
        self._write_owned(tmp, lines.encode())
        os.chmod(tmp, 0o600)
        # Dovecot reads a passwd-file again when its mtime (in whole seconds) or size changed since it last
        # read it: a new password of the same length within the same second would go unnoticed, so every
        # version gets a later mtime than the one before.
        self._passwd_mtime = max(int(time.time()), getattr(self, "_passwd_mtime", 0) + 1)
        os.utime(tmp, (self._passwd_mtime, self._passwd_mtime))
        os.replace(tmp, self.passwd_file)  # atomically: a lookup never sees half a file
        if self.running:
            # …and it looks at the file at most once a second (passwd_file_sync): a login in the same second
            # as an earlier one would still see the old file. Wait for the next second (at most 1 s).
            time.sleep(1.01 - time.time() % 1)

    def _make_user_maildir(self, user):
        for box in ["INBOX", *SPECIAL_USE]:
            self._make_maildir(user, box)

    def _make_maildir(self, user, mailbox):
        path = self.maildir(user, mailbox)
        home = self.home(user)
        for d in (os.path.join(self.dir, "home"), home, os.path.join(home, "Maildir"), path,
                  *(os.path.join(path, sub) for sub in ("cur", "new", "tmp"))):
            if not os.path.isdir(d):
                os.mkdir(d, 0o700)
                self._chown(d)
        marker = os.path.join(path, "maildirfolder")  # Maildir++ marks folders (not INBOX) with this file
        if mailbox.upper() != "INBOX" and not os.path.exists(marker):
            self._write_owned(marker, b"")
        return path

    @staticmethod
    def _keywords(path):
        try:
            with open(os.path.join(path, "dovecot-keywords")) as f:
                entries = dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)
            return [entries[str(i)] for i in range(len(entries))]
        except OSError:
            return []

    def _write_file(self, path, raw, letters, date):
        seq = self._seq
        self._seq += 1
        secs, usecs = self._t0 + seq // 1_000_000, seq % 1_000_000
        # Like Dovecot's own names: S= is the size on disk, W= the size with CRLF line ends (RFC822.SIZE), so
        # Dovecot need not read the file to answer a size.
        vsize = len(raw) + raw.count(b"\n") - raw.count(b"\r\n")
        base = f"{secs}.M{usecs}P{os.getpid()}.mailsearch,S={len(raw)},W={vsize}"
        tmp = os.path.join(path, "tmp", base)
        with open(tmp, "wb") as f:
            f.write(raw)
        self._chown(tmp)
        if date is not None:
            try:
                os.utime(tmp, (date, date))
            except (OverflowError, ValueError, OSError):
                pass
        os.rename(tmp, os.path.join(path, "cur", f"{base}:2,{letters}"))

    def _submission_config(self):
        """The submission service and LMTP, when asked for (see the class's docstring)."""
        if not self.submission:
            return ""
        return f"""# Sending tests: Dovecot's submission service (the SMTP server under test) relays to lmtp_relay.py on
# {self.relay_port}, which replays the session on Dovecot's LMTP on {self.lmtp_port}, which delivers into the Maildirs.
protocols = imap lmtp submission
# The submission service's SIZE (RFC 1870): larger messages are refused at MAIL FROM.
submission_max_mail_size = {self.max_mail_size}
submission_relay_host = {self.host}
submission_relay_port = {self.relay_port}
submission_relay_ssl = no
service submission-login {{
  chroot =
  inet_listener submission {{
    address = {self.host}
    port = {self.submission_port}
  }}
  inet_listener submissions {{
    address = {self.host}
    port = {self.submissions_port}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = {self.host}
    port = {self.lmtp_port}
  }}
}}
protocol lmtp {{
  # RCPT TO:<bob@example.com> is the user bob (the passwd-file holds bare names); unknown users are refused.
  auth_username_format = %Ln
}}
"""

    def _password_passdb(self):
        """The passwd-file passdb; with oauth only for PLAIN, LOGIN and "none" (see the class's docstring)."""
        if not self.oauth_introspection_url:
            return f"""passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.passwd_file}
}}
"""
        return f"""# Passwords for PLAIN and LOGIN only, so that a password is never taken for a bearer token; "none" is the
# passdb lookup a static userdb makes to see that a user exists (LMTP's RCPT TO, doveadm): without it LMTP
# fails with "All password databases were skipped".
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.passwd_file}
  mechanisms = none plain login
}}
"""

    def _oauth_passdb(self):
        """With oauth: the oauth2 passdb and its settings file (see the class's docstring). Dovecot 2.3 reads
        the file in the auth process, as the unprivileged user; it holds the introspection client's secret."""
        if not self.oauth_introspection_url:
            return ""
        settings = f"""# Written by Tests/IMAP/dovecot.py: bearer tokens are checked by RFC 7662 introspection.
# No tokeninfo_url: every token goes to introspection_url, POSTed as token=... with the credentials of the URL
# as HTTP Basic (the confidential client "dovecot").
introspection_mode = post
introspection_url = {self.oauth_introspection_url}
# Needed with active_attribute: without it a tokeninfo answer that has the username would be taken as is.
force_introspection = yes
# RFC 7662's answer: {{"active": true, "username": "alice", "exp": ..., "scope": ...}}; the username must be the
# SASL user, and an inactive token (expired, revoked, unknown) has no username and active false.
username_attribute = username
username_format = %Lu
active_attribute = active
active_value = true
timeout_msecs = 10000
"""
        self._write_owned(self.oauth_conf, settings.encode())
        os.chmod(self.oauth_conf, 0o600)
        return f"""# OAuth 2.0 bearer tokens (SASL XOAUTH2 and OAUTHBEARER) for IMAP and submission alike.
passdb {{
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = {self.oauth_conf}
}}
"""

    def _write_config(self):
        d = self.dir
        mailboxes = "".join(
            f"  mailbox {name} {{\n    special_use = {flag}\n    auto = subscribe\n  }}\n"
            for name, flag in SPECIAL_USE.items())
        # Why each setting (the Dovecot 2.3 of Debian 12):
        conf = f"""# Written by Tests/IMAP/dovecot.py for one test run.
protocols = imap
listen = {self.host}
# Everything of this instance lives in {d}; none of it in /run, /var or /etc.
base_dir = {d}/run
state_dir = {d}/state
instance_name = {os.path.basename(d)}
log_path = {self.log_path}
log_timestamp = "%Y-%m-%d %H:%M:%S "
auth_verbose = yes
verbose_proctitle = yes
# Unprivileged: every process runs as the user who started the master ({self.user_name}); Dovecot then
# cannot switch users, so all of its internal, login and mail users are that one.
default_internal_user = {self.user_name}
default_internal_group = {self.group_name}
default_login_user = {self.user_name}
first_valid_uid = {self.uid}
last_valid_uid = {self.uid}
first_valid_gid = {self.gid}
last_valid_gid = {self.gid}
# TLS: STARTTLS on the plaintext port, implicit TLS on the other; the certificate is signed by the test CA.
ssl = yes
ssl_cert = <{self.cert_file}
ssl_key = <{self._key_file}
# LOGIN and AUTHENTICATE PLAIN/LOGIN without TLS too (loopback counts as secure for Dovecot anyway).
auth_mechanisms = plain login{" xoauth2 oauthbearer" if self.oauth_introspection_url else ""}
disable_plaintext_auth = no
# Tests try wrong passwords on purpose: the NO comes after about 0.5 s (Dovecot 2.3 sends failures on a
# 500 ms timer) instead of 2 s, and repeated failures are not slowed down by anvil's penalty (up to 15 s).
auth_failure_delay = 0
{self._password_passdb()}{self._oauth_passdb()}userdb {{
  driver = static
  args = uid={self.uid} gid={self.gid} home={d}/home/%u
}}
mail_location = maildir:~/Maildir
# IDLE learns of new mail through inotify at once; without inotify (limits, odd file systems) it would look
# only every 30 s: 1 s keeps IDLE under the tests' 2 s either way.
mailbox_idle_check_interval = 1 secs
# A test server: a SIGKILL loses nothing that fsync would keep (only a machine crash would).
mail_fsync = never
# A sync engine may hold several connections per account, and tests reconnect often.
mail_max_userip_connections = 50
postmaster_address = postmaster@localhost
hostname = localhost
namespace inbox {{
  inbox = yes
  prefix =
  separator = {SEPARATOR}
  mailbox INBOX {{
    auto = subscribe
  }}
{mailboxes}}}
service imap-login {{
  # chroot needs root.
  chroot =
  inet_listener imap {{
    address = {self.host}
    port = {self.port}
  }}
  inet_listener imaps {{
    address = {self.host}
    port = {self.tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
  # Nobody may open the penalty socket: no authentication penalty (see auth_failure_delay).
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
{self._submission_config()}
{self.extra_config}
"""
        self._write_owned(self.conf, conf.encode())


def sasl_bearer(mechanism, user, token, host="127.0.0.1", port=None, text=False):
    """The authobject imaplib's authenticate() and smtplib's auth() call for XOAUTH2 or OAUTHBEARER: the first
    call gives the client response; a later call (the server sent its JSON error as a challenge) gives the
    answer that ends the exchange, empty for XOAUTH2 and a lone ^A for OAUTHBEARER (RFC 7628 §3.2.3), after
    which the server says NO. text: str answers (smtplib) instead of bytes (imaplib)."""
    mechanism = mechanism.upper()
    if mechanism == "XOAUTH2":
        first = f"user={user}\x01auth=Bearer {token}\x01\x01"
        after = ""
    elif mechanism == "OAUTHBEARER":
        first = f"n,a={user.replace('=', '=3D').replace(',', '=2C')},\x01host={host}\x01" \
                + (f"port={port}\x01" if port else "") + f"auth=Bearer {token}\x01\x01"
        after = "\x01"
    else:
        raise ValueError(f"not an OAuth mechanism: {mechanism}")
    calls = []

    def respond(challenge=None):
        calls.append(challenge)
        answer = first if len(calls) == 1 else after
        return answer if text else answer.encode()
    return respond


def _quote(mailbox):
    """A mailbox name as an IMAP quoted string (imaplib sends arguments as given), in modified UTF-7."""
    encoded = imap_utf7(mailbox)
    return '"' + encoded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _uid_set(uids):
    if isinstance(uids, int):
        return str(uids)
    if isinstance(uids, str):
        return uids
    return ",".join(str(u) for u in uids)


# -- command line --------------------------------------------------------------------------------------

CONTROL_HELP = """Control mode: one JSON object a line on standard input, one JSON answer a line on standard output.
The first line printed is the server's description ({"host", "port", "tls_port", "ca_file", "users", ...}).
Requests: {"op": NAME, ...arguments}; answers {"ok": true, "result": ...} or {"ok": false, "error": "..."}.
  start, stop, kill, restart                       (kill: SIGKILL every process; restart: same ports and data)
  describe
  doveadm       {"args": [...], "input_base64"?}  -> its standard output
  status        {"user", "mailbox"}               -> {"messages", "uidnext", "uidvalidity", "highestmodseq", ...}
  set_uidvalidity {"user", "mailbox", "value"}
  expunge       {"user", "mailbox", "uids"}        (uids: a list or an IMAP set "3:5")
  add_flags / remove_flags {"user", "mailbox", "uids", "flags": [...]}
  append        {"user", "mailbox", "path" | "data_base64", "flags"?, "date"?} -> the UID (APPENDUID)
  deliver       {"user", "path" | "data_base64", "mailbox"?}
  write_messages {"user", "mailbox", "paths": [...]}   (straight into the Maildir, no notification)
  create_mailbox {"user", "mailbox"}
  add_user / set_password {"user", "password"}, remove_user {"user"}
End of standard input stops Dovecot (and removes its directory unless --keep): a test that dies takes its
Dovecot with it."""


def _control_loop(server):
    def raw_of(req):
        if "path" in req:
            with open(req["path"], "rb") as f:
                return f.read()
        return base64.b64decode(req["data_base64"])

    ops = {
        "start": lambda r: server.start(),
        "stop": lambda r: server.stop(),
        "kill": lambda r: server.kill(),
        "restart": lambda r: server.restart(),
        "describe": lambda r: server.describe(),
        "doveadm": lambda r: server.doveadm(*r["args"], input=base64.b64decode(r["input_base64"]) if "input_base64" in r else None),
        "status": lambda r: server.status(r["user"], r.get("mailbox", "INBOX")),
        "set_uidvalidity": lambda r: server.set_uidvalidity(r["user"], r["mailbox"], r["value"]),
        "expunge": lambda r: server.expunge(r["user"], r["mailbox"], r["uids"]),
        "add_flags": lambda r: server.add_flags(r["user"], r["mailbox"], r["uids"], r["flags"]),
        "remove_flags": lambda r: server.remove_flags(r["user"], r["mailbox"], r["uids"], r["flags"]),
        "append": lambda r: server.append(r["user"], r["mailbox"], raw_of(r), r.get("flags", ()), r.get("date")),
        "deliver": lambda r: server.deliver(r["user"], raw_of(r), r.get("mailbox", "INBOX")),
        "write_messages": lambda r: server.write_messages(r["user"], r["mailbox"], r["paths"]),
        "create_mailbox": lambda r: server.create_mailbox(r["user"], r["mailbox"]),
        "add_user": lambda r: server.add_user(r["user"], r["password"]),
        "set_password": lambda r: server.set_password(r["user"], r["password"]),
        "remove_user": lambda r: server.remove_user(r["user"]),
    }
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            result = ops[req["op"]](req)
            answer = {"ok": True, "result": result}
        except Exception as error:  # every failure goes back to the caller as an answer
            answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Start a throwaway Dovecot on 127.0.0.1 (see the module docstring).",
                                     epilog=CONTROL_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--user", action="append", metavar="NAME:PASSWORD",
                        help="a user (repeatable; default alice:alice-password and bob:bob-password)")
    parser.add_argument("--mbox", action="append", default=[], metavar="[USER=]FILE",
                        help="an mbox file into INBOX of USER (default: the first user); repeatable")
    parser.add_argument("--eml", action="append", default=[], metavar="[USER=]DIR",
                        help="every file of DIR (sorted) into INBOX of USER as one message each")
    parser.add_argument("--tree", action="append", default=[], metavar="[USER=]DIR",
                        help="a tree of one-message-per-file folders (e.g. Enron's maildir), one IMAP folder per directory")
    parser.add_argument("--layout", choices=["folders", "inbox"], default="folders", help="for --tree")
    parser.add_argument("--dir", help="working directory (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the working directory at the end")
    parser.add_argument("--control", action="store_true", help="JSON control mode on stdin/stdout (below)")
    parser.add_argument("--submission", action="store_true",
                        help="also an SMTP server: Dovecot's submission service relaying to LMTP delivery (see the Dovecot class)")
    parser.add_argument("--max-mail-size", type=int, default=2_000_000, metavar="BYTES",
                        help="the submission service's SIZE (with --submission; default 2000000)")
    parser.add_argument("--oauth-introspection-url", metavar="URL",
                        help="also take OAuth 2.0 bearer tokens (XOAUTH2, OAUTHBEARER), checked at this RFC 7662 "
                             "introspection endpoint, http://CLIENT:SECRET@HOST:PORT/PATH (oauth_server.py prints it)")
    args = parser.parse_args(argv)

    users = dict(u.split(":", 1) for u in args.user) if args.user else None
    first = next(iter(users or DEFAULT_USERS))

    def target(spec):
        user, _, path = spec.rpartition("=")
        return (user or first), path

    try:
        server = Dovecot(users=users, workdir=args.dir, keep=args.keep, submission=args.submission,
                         max_mail_size=args.max_mail_size, oauth=args.oauth_introspection_url)
    except DovecotMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        started = time.monotonic()
        loaded = 0
        for spec in args.mbox:
            user, path = target(spec)
            loaded += server.write_messages(user, "INBOX", read_mbox(path))
        for spec in args.eml:
            user, path = target(spec)
            loaded += server.write_messages(user, "INBOX", [os.path.join(path, n) for n in sorted(os.listdir(path))])
        for spec in args.tree:
            user, path = target(spec)
            loaded += sum(server.load_tree(user, path, layout=args.layout).values())
        if loaded:
            print(f"Wrote {loaded} messages in {time.monotonic() - started:.1f} s", file=sys.stderr)
        # Subscribe every folder the fixtures made (the special-use ones subscribe themselves).
        server.start()
        for user in server.users:
            listed = server.doveadm("-f", "flow", "mailbox", "list", "-u", user)
            names = [line.strip() for line in listed.splitlines() if line.strip()]
            if names:
                server.doveadm("mailbox", "subscribe", "-u", user, *names)
        if args.control:
            print(json.dumps(server.describe()), flush=True)
            _control_loop(server)
        else:
            info = server.describe()
            print(f"Dovecot {info['pid']} on {info['host']}: plaintext+STARTTLS port {info['port']}, "
                  f"implicit TLS port {info['tls_port']}")
            if info["submission_port"]:
                print(f"SMTP submission: STARTTLS port {info['submission_port']}, implicit TLS port "
                      f"{info['submissions_port']} (SIZE {info['max_mail_size']}; delivers into the users' INBOX)")
            if info["oauth"]:
                print("OAuth 2.0: AUTHENTICATE XOAUTH2 and OAUTHBEARER, tokens checked at "
                      f"{server.oauth_introspection_url}")
            print(f"CA certificate: {info['ca_file']}")
            for name, password in server.users.items():
                print(f"user {name} password {password}")
            print(f"directory {info['dir']} (log {info['log']}); Ctrl-C stops", flush=True)
            signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
            try:
                while server.running:
                    time.sleep(0.5)
                print("Dovecot exited:\n" + server.log_tail(), file=sys.stderr)
                return 1
            except KeyboardInterrupt:
                pass
    except KeyboardInterrupt:  # Ctrl-C while loading: stop quietly
        return 130
    finally:
        server.close()
        if args.keep:
            print(f"kept {server.dir}", file=sys.stderr)
    return 0



def run_binary_tests(label, module):
    """Runs a test script's unittest cases against the mailsearch binary given by --binary (set as
    the module's BINARY), prints "LABEL: N passed, N failed, N skipped" for make test, and returns
    the exit status (1 on a failure or when nothing ran)."""
    parser = argparse.ArgumentParser(description=module.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=module.BINARY, help="the mailsearch binary (default: .build/debug/mailsearch)")
    args, rest = parser.parse_known_args()
    module.BINARY = os.path.abspath(args.binary)
    result = unittest.main(module=module, argv=[sys.argv[0], *rest], verbosity=2, exit=False).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    print(f"{label}: {max(result.testsRun - failed - skipped, 0)} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or not result.testsRun else 0

if __name__ == "__main__":
    sys.exit(main())
