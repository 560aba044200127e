"""An SMTP-to-LMTP relay for the Dovecot harness (Python 3 stdlib only): the one hop between Dovecot's submission
service and Dovecot's LMTP delivery that no Debian program makes unprivileged.

Why it exists: Dovecot's submission service (the SMTP server the client under test talks to: EHLO, STARTTLS,
AUTH, SIZE, 8BITMIME) hands every message to a relay over SMTP (`submission_relay_host`); Dovecot's LMTP
server, which delivers into the users' Maildirs, speaks LMTP only (it answers EHLO with 500); and Postfix, the
MTA that would normally sit between them, cannot run unprivileged (its master exits with "the master command
is reserved for the superuser"). This relay accepts the submission service's SMTP session and replays each
command on an LMTP session with the same Dovecot: EHLO becomes LHLO, MAIL/RCPT/RSET/NOOP go through as they
are and their replies come back as they are (so an unknown recipient is refused by Dovecot's own RCPT check,
with its own reply), and after DATA the per-recipient LMTP replies become one SMTP reply (the first failure,
else the last success). It adds nothing to the message and decides nothing itself.
"""
import socket
import socketserver
import threading

# LHLO capabilities that the relay does not pass on: it relays line by line, without pipelining, BDAT,
# STARTTLS, AUTH or XCLIENT.
_DROPPED = {"PIPELINING", "CHUNKING", "BINARYMIME", "STARTTLS", "AUTH", "XCLIENT", "BURL"}


def _read_reply(stream):
    """One (possibly multi-line) reply as a list of raw lines (CRLF included); [] at end of stream."""
    lines = []
    while True:
        line = stream.readline(8192)
        if not line:
            return lines
        lines.append(line if line.endswith(b"\r\n") else line.rstrip(b"\r\n") + b"\r\n")
        if len(line) < 4 or line[3:4] != b"-":
            return lines


class _Session(socketserver.StreamRequestHandler):
    timeout = 120

    def handle(self):
        relay = self.server.relay
        lmtp = None
        lmtp_in = None
        accepted = 0

        def send(data):
            self.wfile.write(data)
            self.wfile.flush()

        def lmtp_command(line):
            lmtp.sendall(line)
            return _read_reply(lmtp_in)

        send(b"220 relay.localhost ESMTP harness relay to Dovecot LMTP\r\n")
        try:
            while True:
                line = self.rfile.readline(8192)
                if not line:
                    return
                verb = line.split(b" ", 1)[0].strip().upper()
                if verb in (b"EHLO", b"HELO"):
                    if lmtp is None:
                        lmtp = socket.create_connection((relay.lmtp_host, relay.lmtp_port), timeout=60)
                        lmtp_in = lmtp.makefile("rb")
                        _read_reply(lmtp_in)  # the LMTP greeting
                    reply = lmtp_command(b"LHLO relay.localhost\r\n")
                    if not reply or not reply[0].startswith(b"250"):
                        send(b"421 4.3.0 LMTP refused LHLO\r\n")
                        return
                    keep = [r[4:].rstrip(b"\r\n") for r in reply[1:]
                            if r[4:].split(b" ", 1)[0].strip().upper().decode("ascii", "replace") not in _DROPPED]
                    if verb == b"HELO":
                        send(b"250 relay.localhost\r\n")
                    else:
                        lines = [b"relay.localhost"] + keep
                        send(b"".join(b"250" + (b" " if i == len(lines) - 1 else b"-") + text + b"\r\n"
                                      for i, text in enumerate(lines)))
                elif verb == b"QUIT":
                    send(b"221 2.0.0 Bye\r\n")
                    return
                elif lmtp is None:
                    send(b"503 5.5.1 EHLO first\r\n")
                elif verb in (b"MAIL", b"RSET", b"NOOP"):
                    if verb == b"RSET" or verb == b"MAIL":
                        accepted = 0
                    send(b"".join(lmtp_command(line)))
                elif verb == b"RCPT":
                    reply = lmtp_command(line)
                    if reply and reply[0].startswith(b"2"):
                        accepted += 1
                    send(b"".join(reply))
                elif verb == b"DATA":
                    reply = lmtp_command(line)
                    send(b"".join(reply))
                    if not reply or not reply[0].startswith(b"354"):
                        continue
                    # The dot-stuffed data goes through unchanged, up to and including the final ".".
                    while True:
                        data_line = self.rfile.readline(1 << 20)
                        if not data_line:
                            return
                        lmtp.sendall(data_line)
                        if data_line == b".\r\n":
                            break
                    replies = [_read_reply(lmtp_in) for _ in range(accepted)]
                    accepted = 0
                    relay.delivered += 1
                    failed = [r for r in replies if not r or not r[0].startswith(b"2")]
                    chosen = failed[0] if failed else (replies[-1] if replies else [b"554 5.5.1 No valid recipients\r\n"])
                    send(b"".join(chosen) or b"451 4.3.0 LMTP closed the connection\r\n")
                else:
                    send(b"502 5.5.1 Not relayed to LMTP\r\n")
        except (OSError, ValueError):
            return
        finally:
            if lmtp is not None:
                try:
                    lmtp.sendall(b"QUIT\r\n")
                except OSError:
                    pass
                lmtp.close()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class LMTPRelay:
    """Listens on host:port (SMTP), relays to the LMTP server at lmtp_host:lmtp_port; runs in threads of this
    process until close()."""

    def __init__(self, host, port, lmtp_host, lmtp_port):
        self.host, self.port = host, port
        self.lmtp_host, self.lmtp_port = lmtp_host, lmtp_port
        self.delivered = 0
        self._server = _Server((host, port), _Session)
        self._server.relay = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="lmtp-relay", daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
