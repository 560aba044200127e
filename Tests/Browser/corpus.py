"""The XSS corpus: an mbox with one HTML message per vector of Tests/Fixtures/xss-vectors.json, a
few messages carrying vectors in the fields the page renders as text (subject, sender name,
attachment name, plain-text body), a message whose HTML sanitizes to nothing, a newsletter with a
normal remote image and a tracking pixel, and a message with a cid: inline image.

Every message has a token of its own in the subject (xssvec0042, xssfield1, …) to find it by.
`REMOTE_HOST` in the vectors becomes the counting server the tests start (127.0.0.2:PORT), with a
path prefix per vector (/v0042/…) so a request can be traced back to the vector that made it.
"""
import json
import mailbox
import os
import struct
import zlib
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS_PATH = os.path.join(HERE, "..", "Fixtures", "xss-vectors.json")
PROBE = "window.__pwned=1"

# Vectors in the fields the page shows as text. Each must appear literally, as text.
FIELD_VECTORS = [
    {
        "token": "xssfield1",
        "subject": 'xssfield1 <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>',
        "from_name": '<svg onload=window.__pwned=1>',
        "attachment": '"><img src=x onerror=window.__pwned=1>.exe',
        "body": 'xssfield1 snippet <img src=x onerror=window.__pwned=1> and <b>bold</b> and <mark>fake</mark> '
                '{{constructor.constructor(\'window.__pwned=1\')()}} javascript:window.__pwned=1\n',
    },
    {
        "token": "xssfield2",
        "subject": 'xssfield2 <img src=http://REMOTE_HOST/subject.png> {{constructor.constructor(\'window.__pwned=1\')()}} '
                   '${window.__pwned=1} javascript:window.__pwned=1',
        "from_name": '"><img src=http://REMOTE_HOST/from.png onerror=window.__pwned=1>',
        "attachment": '<svg onload=window.__pwned=1>.pdf',
        "body": 'xssfield2 </textarea></title></style><script>window.__pwned=1</script> '
                '<iframe src="javascript:top.__pwned=1"></iframe>\n',
    },
]

NEWSLETTER_TOKEN = "xssnews1"
EMPTY_TOKEN = "xssempty1"
EMPTY_PLAIN = "xssempty1 This message only had a script; its plain text is what the reader sees."
CID_TOKEN = "xsscid1"
CID_SIZE = 40


def load_vectors():
    with open(VECTORS_PATH, encoding="utf-8") as f:
        vectors = json.load(f)
    if not isinstance(vectors, list) or not all(isinstance(v, str) for v in vectors):
        raise ValueError(f"{VECTORS_PATH} must be a JSON array of strings")
    return vectors


def vector_token(index):
    return f"xssvec{index:04d}"


def png(width, height, rgb):
    """A solid-colour RGB PNG (standard library only)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + bytes(rgb) * width
    raw = row * height
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


GIF_1X1 = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


class CorpusBuilder:
    def __init__(self, remote_host):
        """remote_host: host:port of the counting server (e.g. 127.0.0.2:40123)."""
        self.remote_host = remote_host
        self.date = datetime(2026, 10, 15, 9, 0, tzinfo=timezone.utc)
        self.count = 0

    def remote(self, text, prefix=""):
        return text.replace("REMOTE_HOST", self.remote_host + prefix)

    def _message(self, token, subject, from_name="Mallory", from_addr="mallory@attacker.example"):
        self.count += 1
        message = EmailMessage()
        message["From"] = Address(display_name=from_name, addr_spec=from_addr)
        message["To"] = Address(display_name="Alex Morgan", addr_spec="alex.morgan@example.com")
        message["Subject"] = subject
        message["Date"] = format_datetime(self.date + timedelta(minutes=self.count))
        message["Message-ID"] = f"<{token}.{self.count}@xss.mailsearch.test>"
        message["X-Gmail-Labels"] = "Inbox"
        return message

    def build(self, path):
        """Writes the mbox; returns the manifest the tests use."""
        vectors = load_vectors()
        if os.path.exists(path):
            os.remove(path)
        box = mailbox.mbox(path, create=True)
        manifest = {"vectors": [], "fields": [], "remote_host": self.remote_host}
        try:
            for index, vector in enumerate(vectors):
                token = vector_token(index)
                prefix = f"/{token}"
                html = self.remote(vector, prefix) + f"\n<p>{token} marker</p>\n"
                message = self._message(token, f"{token} XSS vector {index}")
                message.set_content(html, subtype="html", cte="base64")
                box.add(message)
                manifest["vectors"].append({"index": index, "token": token, "vector": vector,
                                            "prefix": prefix, "html": html})
            for field in FIELD_VECTORS:
                token = field["token"]
                subject = self.remote(field["subject"], f"/{token}")
                from_name = self.remote(field["from_name"], f"/{token}")
                message = self._message(token, subject, from_name=from_name)
                message.set_content(self.remote(field["body"], f"/{token}"))
                message.add_attachment(b"MZ not really a program\n", maintype="application",
                                       subtype="octet-stream", filename=field["attachment"])
                box.add(message)
                manifest["fields"].append(dict(field, subject=subject, from_name=from_name, prefix=f"/{token}"))

            # HTML that sanitizes to nothing: the plain-text alternative is what must be shown.
            message = self._message(EMPTY_TOKEN, f"{EMPTY_TOKEN} script only")
            message.set_content(EMPTY_PLAIN + "\n")
            message.add_alternative("<html><body><script>window.__pwned=1</script></body></html>", subtype="html")
            box.add(message)

            # A newsletter: one ordinary remote image, one tracking pixel.
            message = self._message(NEWSLETTER_TOKEN, f"{NEWSLETTER_TOKEN} The Weekly Digest",
                                    from_name="Weekly Digest", from_addr="news@digest.example")
            message.set_content(f"{NEWSLETTER_TOKEN} The Weekly Digest\n\nThis week: three stories.\n")
            message.add_alternative(
                '<div style="font-family: sans-serif">'
                f'<h1>{NEWSLETTER_TOKEN} The Weekly Digest</h1>'
                f'<img src="http://{self.remote_host}/news/banner.png" width="200" height="50" alt="banner">'
                '<p>This week: three stories worth your time.</p>'
                f'<img width="1" height="1" src="http://{self.remote_host}/track/open.gif" alt="">'
                '</div>', subtype="html")
            box.add(message)

            # A cid: inline image (multipart/related).
            message = self._message(CID_TOKEN, f"{CID_TOKEN} inline image",
                                    from_name="Photo Sender", from_addr="photos@example.org")
            message.set_content(f"{CID_TOKEN} a red square\n")
            message.add_alternative(
                f'<p>{CID_TOKEN} a red square:</p>'
                f'<img src="cid:redsquare@mailsearch.test" width="{CID_SIZE}" height="{CID_SIZE}" alt="red square">',
                subtype="html")
            html_part = message.get_payload()[1]
            html_part.add_related(png(CID_SIZE, CID_SIZE, (220, 20, 20)), maintype="image", subtype="png",
                                  cid="<redsquare@mailsearch.test>", disposition="inline", filename="red.png")
            box.add(message)
            box.flush()
        finally:
            box.close()
        manifest["count"] = self.count
        return manifest
