#!/usr/bin/env python3
"""A judging set for text inside attachments: real documents sent as attachments of otherwise
neutral emails, questions about what they say, and hostile files that must not stop an import.

Documents (all real text, nothing generated): test data and documentation shipped in pinned PyPI
sdists (`pip download --no-deps --no-binary :all:`) and Debian packages (`apt-get download`, no root,
`dpkg-deb -x`), each download's SHA-256 checked, unpacked into --cache (git-ignored):

  PyPI    pypdf 7.1.1 (resources/*.pdf), odfpy 1.4.1 (.odt/.odp/.ods), icalendar 7.3.2 (tests' .ics),
          python-docx 1.2.0 and python-pptx 1.0.2 (their feature tests' .docx/.pptx, distractors only)
  Debian  debian-faq 11.1, debian-policy 4.6.2.0, debian-reference-en 2.100, developers-reference
          12.18, maint-guide 1.2.53, gnuplot-doc 5.4.4+dfsg1-2, distro-info-data 0.58+deb12u7

Where a package ships the text only as HTML (the FAQ's chapters, the policy documents, the Debian
Reference's chapters), LibreOffice (soffice --headless --convert-to; Debian's libreoffice-*-nogui)
converts it to DOCX, ODT, RTF or PDF (Writer), XLSX or ODS (Calc's HTML import: the chapters' tables
of packages and commands), and PDFs to PPTX or ODP (Impress's PDF import).

Deterministic: sources are read in a fixed order, every draw uses --seed, dates, Message-IDs and MIME
boundaries are fixed, so the same --cache gives byte-identical files. Conversions are kept in --cache;
made anew they are not byte-identical (LibreOffice stamps them) but their text is, and so are the
questions.

Written into OUT (default eval-data/attachments, git-ignored):

  mail.mbox        one email per target document (multipart/mixed: a neutral body, "see attached",
                   and the document base64-encoded with its real filename and content type), every
                   subject unique and free of the document's words; then distractors: --enron emails
                   of the Enron corpus (plain bodies, corpora/enron-inbox, a seeded sample) and one
                   email per other real document (python-docx and python-pptx test files, the other
                   .ics, .ods and PDFs, two more Debian Reference chapters as HTML); then the hostile
                   emails, each with a unique body word (hostileprobe1..4) so the email itself can be
                   found:
                     hostileprobe1  a zip bomb: bomb.zip and annual-report.docx, each one small file
                                    whose member (word/document.xml for the .docx) inflates to
                                    1.1 GiB (a stream of "0" inside a w:t element), written streamed
                     hostileprobe2  a 10,000-page PDF (tiny pages, one line of text each)
                     hostileprobe3  a billion-laughs .docx (word/document.xml: nine levels of nested
                                    entities, ten each, a 10^9-fold expansion)
                     hostileprobe4  a corrupt PDF: a real PDF cut at 55 % with 256 bytes of garbage
                                    in the middle of what is left
  questions.jsonl  questions about attachment content, each {"id", "query", "kind", "target"
                   (Message-ID without <>), "filename", "doc"}. Kinds:
                     phrase    4 (else 3) consecutive words of the document's text (its first 30,000
                               characters as an independent extractor reads them: pdftotext,
                               python-docx, openpyxl, python-pptx, odfpy, striprtf, icalendar,
                               html.parser), every content word a dictionary word and absent from all
                               email subjects and bodies, preferring words held by few documents
                               (seeded draw among the 5 best windows; phrase_windows says the rules)
                     topic     a short question or paraphrase written by reading the document
                               (TOPICS below)
                     filename  a word or part of the attachment's name (FILENAME_QUERIES below)
  documents.jsonl  per target and distractor document: id, role, format, filename, source package,
                   version and path inside it, conversion, SHA-256 of the attached bytes, characters,
                   distinct words and SHA-256 of the extracted text (the same from run to run when the
                   bytes of a conversion are not), Message-ID.
  emails.jsonl     per email: Message-ID, kind (doc, enron, hostile), subject, document or source.
  texts/ID.txt     each document's text as the independent extractor read it (the eval's reference).
  manifest.json    downloads (name, version, SHA-256), tool versions, counts per format, source and
                   question kind, the SHA-256 of mail.mbox and questions.jsonl.

  python3 scripts/eval/build_attachment_set.py [--out eval-data/attachments]
        [--cache bench-data/attachments] [--enron-dir corpora/enron-inbox] [--enron 60] [--seed 41]

Needs: python-docx, python-pptx, openpyxl, odfpy, striprtf, icalendar, pypdf (the venv `make
eval-attachments` makes), pdftotext (poppler-utils), soffice (libreoffice-writer-nogui,
libreoffice-calc-nogui, libreoffice-impress-nogui), /usr/share/dict/american-english (wamerican),
apt-get, dpkg-deb.
"""

import argparse
import datetime as dt
import email.policy
import gzip
import hashlib
import html
import html.parser
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import zipfile
from email.message import EmailMessage
from email.utils import format_datetime

from pinned import debian_package, sha256_file

PYPI = {
    # name: (version, sdist file, SHA-256)
    "pypdf": ("7.1.1", "pypdf-7.1.1.tar.gz", "2eff4e2fc5fb22a6d6711e6f1166cdc9ab5765d90cd0d77dfea3f4aa91a27b1d"),
    "odfpy": ("1.4.1", "odfpy-1.4.1.tar.gz", "db766a6e59c5103212f3cc92ec8dd50a0f3a02790233ed0b52148b70d3c438ec"),
    "icalendar": ("7.3.2", "icalendar-7.3.2.tar.gz", "f15380927aed4318860e001c03b543c48578c73aec46e2d384c5d0802082b808"),
    "python-docx": ("1.2.0", "python_docx-1.2.0.tar.gz", "7bc9d7b7d8a69c9c02ca09216118c86552704edc23bac179283f2e38f86220ce"),
    "python-pptx": ("1.0.2", "python_pptx-1.0.2.tar.gz", "479a8af0eaf0f0d76b6f00b0887732874ad2e3188230315290cd1f9dd9cc7095"),
}
DEBIAN = {
    # name: (version, deb SHA-256)
    "debian-faq": ("11.1", "427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0"),
    "debian-policy": ("4.6.2.0", "ef9d01b625c3b87c3a845c2cd1b66f1a16e9240b2b9e5bee53472a00e8457a39"),
    "debian-reference-en": ("2.100", "9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f"),
    "developers-reference": ("12.18", "0dba82f6fa16e373f2a84ad07e7971aa9264ad2e7d2ae46b37edbc9c5fd57e2e"),
    "maint-guide": ("1.2.53", "762c8a400a36668d2eb814a3ba356b06488fd889dfce478eb11d5cfb189a47b5"),
    "gnuplot-doc": ("5.4.4+dfsg1-2", "73fe1816a296594cf6a1d38528f8d740fd650f57a2cb62e029f7920fcd5b31f0"),
    "distro-info-data": ("0.58+deb12u7", "f015ac6966bea87484ef4f98a15077e46b410c0b3985ba55b428235cdb46663f"),
}

FAQ = "usr/share/doc/debian/FAQ/"
POLICY = "usr/share/doc/debian-policy/"
REF = "usr/share/debian-reference/"
ICS = "src/icalendar/tests/"

# Target documents: (id, source package, path inside it, attached as, conversion). The attached name is
# the source's own base name, with the new extension when converted ("-" keeps the file as it is).
TARGETS = [
    ("faq-basic-defs", "debian-faq", FAQ + "basic-defs.en.html", "docx", "writer"),
    ("faq-choosing", "debian-faq", FAQ + "choosing.en.html", "odt", "writer"),
    ("faq-compatibility", "debian-faq", FAQ + "compatibility.en.html", "rtf", "writer"),
    ("faq-contributing", "debian-faq", FAQ + "contributing.en.html", "docx", "writer"),
    ("faq-customizing", "debian-faq", FAQ + "customizing.en.html", "odt", "writer"),
    ("faq-faqinfo", "debian-faq", FAQ + "faqinfo.en.html", "html", "-"),
    ("faq-ftparchives", "debian-faq", FAQ + "ftparchives.en.html", "docx", "writer"),
    ("faq-getting-debian", "debian-faq", FAQ + "getting-debian.en.html", "pdf", "writer"),
    ("faq-kernel", "debian-faq", FAQ + "kernel.en.html", "rtf", "writer"),
    ("faq-nextrelease", "debian-faq", FAQ + "nextrelease.en.html", "odt", "writer"),
    ("faq-pkg-basics", "debian-faq", FAQ + "pkg-basics.en.html", "docx", "writer"),
    ("faq-pkgtools", "debian-faq", FAQ + "pkgtools.en.html", "pdf", "writer"),
    ("faq-redistributing", "debian-faq", FAQ + "redistributing.en.html", "odt", "writer"),
    ("faq-software", "debian-faq", FAQ + "software.en.html", "docx", "writer"),
    ("faq-support", "debian-faq", FAQ + "support.en.html", "html", "-"),
    ("faq-uptodate", "debian-faq", FAQ + "uptodate.en.html", "rtf", "writer"),
    ("policy-menu", "debian-policy", POLICY + "menu-policy-1.html", "docx", "writer"),
    ("policy-perl", "debian-policy", POLICY + "perl-policy-1.html", "odt", "writer"),
    ("policy-autopkgtest", "debian-policy", POLICY + "autopkgtest.html", "rtf", "writer"),
    ("policy-copyright-format", "debian-policy", POLICY + "copyright-format-1.0.html", "pdf", "writer"),
    ("policy-debconf", "debian-policy", POLICY + "debconf_specification.html", "docx", "writer"),
    ("policy-ch-docs", "debian-policy", POLICY + "policy.html/ch-docs.html", "odt", "writer"),
    ("policy-ch-scope", "debian-policy", POLICY + "policy.html/ch-scope.html", "html", "-"),
    ("policy-ch-archive", "debian-policy", POLICY + "policy.html/ch-archive.html", "docx", "writer"),
    ("policy-ch-maintainerscripts", "debian-policy", POLICY + "policy.html/ch-maintainerscripts.html", "pdf", "writer"),
    ("policy-ap-conffiles", "debian-policy", POLICY + "policy.html/ap-pkg-conffiles.html", "rtf", "writer"),
    ("policy-ap-diversions", "debian-policy", POLICY + "policy.html/ap-pkg-diversions.html", "odt", "writer"),
    ("policy-ap-alternatives", "debian-policy", POLICY + "policy.html/ap-pkg-alternatives.html", "docx", "writer"),
    ("policy-fhs", "debian-policy", POLICY + "fhs/fhs-3.0.pdf.gz", "pdf", "gunzip"),
    ("ref-ch03", "debian-reference-en", REF + "ch03.en.html", "xlsx", "calc"),
    ("ref-ch04", "debian-reference-en", REF + "ch04.en.html", "ods", "calc"),
    ("ref-ch05", "debian-reference-en", REF + "ch05.en.html", "xlsx", "calc"),
    ("ref-ch08", "debian-reference-en", REF + "ch08.en.html", "ods", "calc"),
    ("ref-apa", "debian-reference-en", REF + "apa.en.html", "xlsx", "calc"),
    ("devref-pdf", "developers-reference", "usr/share/developers-reference/developers-reference.pdf", "pdf", "-"),
    ("maint-guide-pdf", "maint-guide", "usr/share/doc/maint-guide/maint-guide.en.pdf", "pdf", "-"),
    ("gnuplot-pdf", "gnuplot-doc", "usr/share/doc/gnuplot/gnuplot.pdf", "pdf", "-"),
    ("distro-debian-csv", "distro-info-data", "usr/share/distro-info/debian.csv", "csv", "-"),
    ("distro-ubuntu-xlsx", "distro-info-data", "usr/share/distro-info/ubuntu.csv", "xlsx", "calc"),
    ("pypdf-crazyones", "pypdf", "resources/crazyones.pdf", "pdf", "-"),
    ("pypdf-example", "pypdf", "resources/example.pdf", "pdf", "-"),
    ("pypdf-containership", "pypdf", "resources/indirect-rotation.pdf", "pdf", "-"),
    ("pypdf-autocad", "pypdf", "resources/AutoCad_Diagram.pdf", "pdf", "-"),
    ("pypdf-sf424", "pypdf", "resources/SF424_page2.pdf", "pdf", "-"),
    ("pypdf-geobase", "pypdf", "resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "pdf", "-"),
    ("pypdf-vicksburg-pptx", "pypdf", "resources/Seige_of_Vicksburg_Sample_OCR.pdf", "pptx", "impress"),
    ("faq-kernel-pptx", "debian-faq", FAQ + "kernel.en.html", "pptx", "writer+impress"),
    ("policy-ap-scope-odp", "debian-policy", POLICY + "policy.html/ap-pkg-scope.html", "odp", "writer+impress"),
    ("odfpy-api", "odfpy", "api-for-odfpy.odt", "odt", "-"),
    ("odfpy-images", "odfpy", "tests/examples/images.odt", "odt", "-"),
    ("odfpy-poem", "odfpy", "tests/examples/serious_poem.odt", "odt", "-"),
    ("odfpy-cols", "odfpy", "tests/examples/cols.odp", "odp", "-"),
    ("ics-sixt", "icalendar", ICS + "calendars/issue_348_exception_parsing_value.ics", "ics", "-"),
    ("ics-devops", "icalendar", ICS + "events/issue_53_description_parsed_properly.ics", "ics", "-"),
    ("ics-fieldhouse", "icalendar", ICS + "events/issue_112_missing_tzinfo_on_exdate.ics", "ics", "-"),
    ("ics-rfc7265", "icalendar", ICS + "calendars/rfc_7265_appendix_example_2_ical.ics", "ics", "-"),
    ("ics-agenda", "icalendar", ICS + "alarms/rfc_5545_end.ics", "ics", "-"),
    ("devref-beyond-html", "developers-reference", "usr/share/developers-reference/l10n.html", "html", "-"),
    ("policy-upgrading-html", "debian-policy", POLICY + "policy.html/ap-process.html", "html", "-"),
    ("ref-pr01-docx", "debian-reference-en", REF + "pr01.en.html", "docx", "writer"),
    ("policy-perl-modules-rtf", "debian-policy", POLICY + "perl-policy.html/ch-embed.html", "rtf", "writer"),
]

# Distractors: real documents attached to emails that no question is about.
DISTRACTOR_GLOBS = [
    ("python-docx", r"features/steps/test_files/(par-hlink-frags|blk-paras-and-tables|par-rendered-page-breaks|"
                    r"tbl-having-tables|doc-coreprops|hdr-header-footer|comments-rich-para|par-known-paragraphs)\.docx$"),
    ("python-pptx", r"features/steps/test_files/(txt-font-typeface|txt-fit-text|txt-font-props|dml-line|"
                    r"shp-shapes|sld-slide|txt-text)\.pptx$"),
    ("icalendar", r"src/icalendar/tests/(calendars|events)/(example|issue_466_respect_unique_timezone|issue_1426|"
                  r"timezoned|rfc_7986_properties|issue_722_missing_timezones|alarm_google_future|"
                  r"alarm_thunderbird_future|property_params|rfc_7256_multi_value_parameters)\.ics$"),
    ("odfpy", r"tests/examples/(pythagoras|chinese_spreadsheet)\.ods$"),
    ("odfpy", r"tests/examples/(imageslabels|simpletable|definitionlists|twolevellist|parastyles)\.odt$"),
    ("pypdf", r"resources/(commented|side-by-side-subfig|pdflatex-outline|attachment|FormTestFromOo)\.pdf$"),
    ("debian-reference-en", r"usr/share/debian-reference/(ch06|ch07)\.en\.html$"),
    ("developers-reference", r"usr/share/developers-reference/(scope|new-maintainer)\.html$"),
]

# Topic questions, written by reading each document's extracted text (document id: queries).
TOPICS = {
    "faq-basic-defs": ["how do you pronounce debian", "what does the name debian mean"],
    "faq-choosing": ["should I install stable or testing"],
    "faq-compatibility": ["which hardware architectures does debian run on"],
    "faq-contributing": ["how can I donate money to debian"],
    "faq-customizing": ["change the default paper size"],
    "faq-ftparchives": ["where do the release code names come from"],
    "faq-getting-debian": ["how to get the installation images"],
    "faq-nextrelease": ["release goals for hardening the system"],
    "faq-pkg-basics": ["what does a debian binary package contain"],
    "faq-pkgtools": ["tools to install and remove packages"],
    "faq-redistributing": ["can I sell debian CDs"],
    "faq-software": ["which compiler packages are available"],
    "faq-support": ["where do I report a bug"],
    "faq-uptodate": ["how to upgrade to a new debian release"],
    "policy-menu": ["menu entries for programs"],
    "policy-perl": ["where should perl modules be installed"],
    "policy-autopkgtest": ["running a package's test suite after installation"],
    "policy-copyright-format": ["machine readable format for copyright files"],
    "policy-debconf": ["how packages ask configuration questions"],
    "policy-fhs": ["filesystem hierarchy standard var directory"],
    "gnuplot-pdf": ["how to plot data from a file with gnuplot"],
    "maint-guide-pdf": ["making a new debian package from upstream source"],
    "devref-pdf": ["duties of a debian developer"],
    "distro-debian-csv": ["bookworm release and eol"],
    "distro-ubuntu-xlsx": ["warty warthog release"],
    "pypdf-vicksburg-pptx": ["confederate army during the siege"],
    "pypdf-geobase": ["hydrographic network data model canada"],
    "pypdf-sf424": ["application for federal assistance"],
    "pypdf-crazyones": ["the misfits and rebels who change the world"],
    "pypdf-example": ["beautiful is better than ugly"],
    "ics-sixt": ["réservation véhicule aéroport genève"],
    "ics-devops": ["devops meetup at fathom creative"],
}

# Filename questions: a word or part of the attachment's name (document id: query).
FILENAME_QUERIES = {
    "pypdf-vicksburg-pptx": "Vicksburg",
    "pypdf-crazyones": "crazy",
    "pypdf-autocad": "AutoCad",
    "pypdf-geobase": "GeoBase",
    "pypdf-sf424": "SF424",
    "policy-autopkgtest": "autopkgtest",
    "policy-debconf": "specification",
    "faq-redistributing": "redistributing",
    "faq-nextrelease": "nextrelease",
    "ref-apa": "apa.en",
    "gnuplot-pdf": "gnuplot",
    "distro-ubuntu-xlsx": "ubuntu",
    "odfpy-poem": "poem",
    "policy-ap-conffiles": "conffiles",
    "maint-guide-pdf": "maint-guide",
}

CONTENT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "odp": "application/vnd.oasis.opendocument.presentation",
    "rtf": "application/rtf",
    "html": "text/html",
    "csv": "text/csv",
    "ics": "text/calendar",
    "zip": "application/zip",
}
LO_FILTERS = {"docx": "docx:MS Word 2007 XML", "odt": "odt", "rtf": "rtf", "pdf": "pdf:writer_pdf_Export",
              "xlsx": "xlsx:Calc MS Excel 2007 XML", "ods": "ods", "pptx": "pptx:Impress MS PowerPoint 2007 XML",
              "odp": "odp"}
IN_FILTERS = {"writer": "HTML (StarWriter)", "calc": "calc_HTML_WebQuery", "impress": "impress_pdf_import"}

SENDERS = ["Maria Keller <maria.keller@example.org>", "Tom Okafor <tom.okafor@example.net>",
           "Lena Novak <lena.novak@example.com>", "Sam Richter <sam.richter@example.org>",
           "Ines Duarte <ines.duarte@example.net>", "Paul Brandt <paul.brandt@example.com>"]
RECIPIENT = "Chris Avery <chris.avery@example.com>"
BODIES = ["Hi Chris,\n\nsee attached.\n\n{name}\n", "Here is the file you asked for.\n\n{name}\n",
          "Chris,\n\nattached, as promised.\n\nCheers,\n{name}\n", "FYI, attached.\n\n-- \n{name}\n"]
SUBJECT_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
                 "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]

STOP = set("""a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her
here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or
other our ours out over own same she should so some such than that the their theirs them then there these they
this those through to too under until up very was we were what when where which while who whom why will with
would you your yours also may must shall one two use used using see""".split())
WORD = re.compile(r"[A-Za-z][A-Za-z']*[A-Za-z]|[A-Za-z]")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


# ---------------------------------------------------------------- fetching

def fetch(cache):
    """Downloads (when missing) and unpacks every pinned source; {package: unpacked root}."""
    dl = os.path.join(cache, "dl")
    src = os.path.join(cache, "src")
    os.makedirs(dl, exist_ok=True)
    os.makedirs(src, exist_ok=True)
    roots, downloads = {}, []
    for name, (version, fname, sha) in sorted(PYPI.items()):
        path = os.path.join(dl, fname)
        if not os.path.exists(path):
            run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
                 "%s==%s" % (name, version), "-d", dl])
        got = sha256_file(path)
        if got != sha:
            sys.exit("error: %s has SHA-256 %s, expected %s" % (path, got, sha))
        root = os.path.join(src, fname[:-len(".tar.gz")])
        if not os.path.isdir(root):
            run(["tar", "xzf", path, "-C", src])
        roots[name] = root
        downloads.append({"registry": "pypi", "name": name, "version": version, "file": fname, "sha256": sha})
    for name, (version, sha) in sorted(DEBIAN.items()):
        path, fname = debian_package(name, version, sha, dl)
        root = os.path.join(src, "deb-" + name)
        if not os.path.isdir(root):
            run(["dpkg-deb", "-x", path, root])
        roots[name] = root
        downloads.append({"registry": "debian", "name": name, "version": version, "file": fname, "sha256": sha})
    return roots, downloads


# ---------------------------------------------------------------- conversion

LO_PROFILE_ROOT = "bench-data/attachments"  # set from --cache: LibreOffice's own profile, apart from the user's


def soffice(infile, outdir, to, infilter=None):
    os.makedirs(outdir, exist_ok=True)
    cmd = ["soffice", "--headless", "--norestore"]
    if infilter:
        cmd.append("--infilter=" + infilter)
    cmd += ["--convert-to", LO_FILTERS[to], "--outdir", outdir, infile]
    profile = os.path.abspath(os.path.join(LO_PROFILE_ROOT, "lo-profile"))
    cmd.insert(3, "-env:UserInstallation=file://" + profile)
    r = subprocess.run(cmd, capture_output=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("soffice failed (%d) on %s: %s" % (r.returncode, infile, r.stderr.decode()[-500:]))
    out = os.path.join(outdir, os.path.splitext(os.path.basename(infile))[0] + "." + to)
    if not os.path.exists(out):
        raise RuntimeError("soffice wrote no %s for %s" % (to, infile))
    return out


def materialise(doc, roots, cache):
    """The file to attach for a TARGETS entry: (path, filename)."""
    did, pkg, inner, fmt, conv = doc
    src = os.path.join(roots[pkg], inner)
    base = os.path.basename(inner)
    stem = base[:-3] if base.endswith(".gz") else base
    stem = os.path.splitext(stem)[0]
    outdir = os.path.join(cache, "converted", did)
    if conv == "-":
        return src, base
    name = stem + "." + fmt
    out = os.path.join(outdir, name)
    if os.path.exists(out):
        return out, name
    if conv == "gunzip":
        os.makedirs(outdir, exist_ok=True)
        with gzip.open(src, "rb") as f, open(out, "wb") as g:
            shutil.copyfileobj(f, g)
        return out, name
    if conv == "writer+impress":
        pdf = soffice(src, os.path.join(outdir, "pdf"), "pdf", IN_FILTERS["writer"])
        got = soffice(pdf, outdir, fmt, IN_FILTERS["impress"])
    elif conv == "calc" and src.endswith(".csv"):
        got = soffice(src, outdir, fmt, "CSV:44,34,76,1")
    else:
        got = soffice(src, outdir, fmt, IN_FILTERS[conv])
    return got, name


# ---------------------------------------------------------------- independent text extraction

class HTMLText(html.parser.HTMLParser):
    BLOCK = {"p", "div", "br", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "dt", "dd", "title"}

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def extract_text(path, fmt):
    if fmt == "pdf":
        return subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", path, "-"], capture_output=True,
                              timeout=120).stdout.decode("utf-8", "replace")
    if fmt == "docx":
        import docx
        d = docx.Document(path)
        lines = [p.text for p in d.paragraphs]
        for t in d.tables:
            for row in t.rows:
                lines.append("\t".join(c.text for c in row.cells))
        return "\n".join(lines)
    if fmt == "xlsx":
        import openpyxl
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        return "\n".join("\t".join(str(v) for v in row if v is not None)
                         for ws in wb.worksheets for row in ws.iter_rows(values_only=True))
    if fmt == "pptx":
        import pptx
        p = pptx.Presentation(path)
        return "\n".join(sh.text_frame.text for s in p.slides for sh in s.shapes if sh.has_text_frame)
    if fmt in ("odt", "ods", "odp"):
        from odf import opendocument, teletype, text as odftext
        d = opendocument.load(path)
        return "\n".join(teletype.extractText(e) for tag in (odftext.H, odftext.P)
                         for e in d.getElementsByType(tag))
    if fmt == "rtf":
        from striprtf.striprtf import rtf_to_text
        return rtf_to_text(open(path, encoding="latin-1").read())
    if fmt == "html":
        p = HTMLText()
        p.feed(open(path, encoding="utf-8", errors="replace").read())
        return html.unescape("".join(p.parts))
    if fmt == "ics":
        import icalendar
        cal = icalendar.Calendar.from_ical(open(path, "rb").read())
        out = []
        for comp in cal.walk():
            for key in ("SUMMARY", "DESCRIPTION", "LOCATION", "COMMENT"):
                if key in comp:
                    out.append(str(comp[key]))
        return "\n".join(out)
    if fmt == "csv":
        return open(path, encoding="utf-8", errors="replace").read()
    raise ValueError(fmt)


def phrase_windows(text, size, strict, df, body_words, bodies, lexicon):
    """(−score, position, phrase) of every window of `size` plain words on one line or sentence of
    `text`: lower-case words (a capital first letter allowed), not starting or ending with a stop
    word, two or more content words of 3+ letters; strict: no content word in any email subject or
    body, else: not all of them in one. Score: the content words' summed 1/df, +0.5 when one of them
    is in at most two documents. With a lexicon, every content word must be in it (lower-case entries
    of /usr/share/dict/american-english: no names, no identifiers), at most one word capitalised
    and, when strict, one content word in at most three documents."""
    out = []
    for line in re.split(r"[\n\t.;:!?()\[\]{}\"|]+", text):
        toks = line.split()
        for i in range(len(toks) - size + 1):
            window = toks[i:i + size]
            if not all(re.fullmatch(r"[A-Za-z][a-z]+(?:'[a-z]+)?,?", t) for t in window[:-1]) or \
                    not re.fullmatch(r"[A-Za-z][a-z]+(?:'[a-z]+)?", window[-1]):
                continue
            ws = [t.rstrip(",").lower() for t in window]
            if len(set(ws)) < size or ws[0] in STOP or ws[-1] in STOP:
                continue
            content = [w for w in ws if w not in STOP]
            if len(content) < 2 or any(len(w) < 3 for w in content):
                continue
            if lexicon is not None and (any(w not in lexicon for w in content) or
                                        sum(1 for t in window if t[0].isupper()) > 1 or
                                        (strict and min(df.get(w, 1) for w in content) > 3)):
                continue
            if strict and any(w in body_words for w in content):
                continue
            if not strict and any(all(w in b for w in content) for b in bodies):
                continue
            score = sum(1.0 / df.get(w, 1) for w in content) + (0.5 if min(df.get(w, 1) for w in content) <= 2 else 0)
            out.append((-round(score, 6), i, " ".join(t.rstrip(",") for t in window)))
    return out


def words_of(text):
    return [w.lower().strip("'") for w in WORD.findall(text)]


# ---------------------------------------------------------------- hostile files

def zip_bomb_member(zf, name, prefix, fill_bytes, suffix):
    """Writes one deflated member of len(prefix) + fill_bytes + len(suffix) bytes, streamed."""
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as f:
        f.write(prefix)
        chunk = b"0" * (1 << 20)
        left = fill_bytes
        while left > 0:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
        f.write(suffix)


DOCX_CT = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
           b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
           b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
           b'<Default Extension="xml" ContentType="application/xml"/>'
           b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
           b'wordprocessingml.document.main+xml"/></Types>')
DOCX_RELS = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
             b'officeDocument" Target="word/document.xml"/></Relationships>')
W_NS = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx_skeleton(zf):
    for name, data in (("[Content_Types].xml", DOCX_CT), ("_rels/.rels", DOCX_RELS)):
        zf.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)


BOMB_BYTES = 1_100 * (1 << 20) + 1  # 1.1 GiB and a byte, over a gigabyte however counted


def make_zip_bomb_docx(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        docx_skeleton(zf)
        zip_bomb_member(zf, "word/document.xml",
                        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ' + W_NS +
                        b'><w:body><w:p><w:r><w:t>', BOMB_BYTES, b"</w:t></w:r></w:p></w:body></w:document>")


def make_zip_bomb_zip(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zip_bomb_member(zf, "zeros.txt", b"", BOMB_BYTES, b"")


def make_billion_laughs_docx(path):
    ents = ['<!ENTITY lol "lol">'] + ['<!ENTITY lol%d "%s">' % (i, ("&lol%s;" % ("" if i == 1 else i - 1)) * 10)
                                      for i in range(1, 10)]
    doc = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE w:document [\n' + "\n".join(ents) + "\n]>\n"
           '<w:document %s><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>'
           % W_NS.decode()).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        docx_skeleton(zf)
        zf.writestr(zipfile.ZipInfo("word/document.xml", date_time=(2026, 1, 1, 0, 0, 0)), doc, zipfile.ZIP_DEFLATED)


def make_long_pdf(path, pages=10_000):
    """A minimal PDF of `pages` tiny pages (72 x 36 pt), one short line of text each."""
    objs = {}
    kids_start = 4
    content_of = lambda i: kids_start + 2 * i + 1  # noqa: E731
    objs[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objs[2] = ("<< /Type /Pages /Count %d /Kids [%s] >>" % (
        pages, " ".join("%d 0 R" % (kids_start + 2 * i) for i in range(pages)))).encode()
    objs[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    for i in range(pages):
        stream = ("BT /F1 6 Tf 4 16 Td (page %d of the long file) Tj ET" % (i + 1)).encode()
        objs[kids_start + 2 * i] = ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 36] /Resources << /Font << "
                                    "/F1 3 0 R >> >> /Contents %d 0 R >>" % content_of(i)).encode()
        objs[content_of(i)] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for n in sorted(objs):
        offsets[n] = out.tell()
        out.write(b"%d 0 obj\n" % n + objs[n] + b"\nendobj\n")
    xref = out.tell()
    count = max(objs) + 1
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % count)
    for n in range(1, count):
        out.write(b"%010d 00000 n \n" % offsets[n])
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (count, xref))
    with open(path, "wb") as f:
        f.write(out.getvalue())


def make_corrupt_pdf(src, path):
    data = open(src, "rb").read()
    cut = data[:int(len(data) * 0.55)]
    mid = len(cut) // 2
    garbage = bytes((i * 73 + 41) % 256 for i in range(256))
    with open(path, "wb") as f:
        f.write(cut[:mid] + garbage + cut[mid + 256:])


# ---------------------------------------------------------------- mail

def attachment_email(mid, n, subject, body, date, attachments, sender):
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["Message-ID"] = "<%s>" % mid
    msg["From"] = sender
    msg["To"] = RECIPIENT
    msg["Date"] = format_datetime(date)
    msg["Subject"] = subject
    msg.set_content(body)
    for data, filename, fmt in attachments:
        maintype, subtype = CONTENT_TYPES[fmt].split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    if msg.is_multipart():
        msg.set_boundary("=_attachment-set-%d" % n)  # not the email package's random one: the same mbox every run
    return msg


def enron_bodies(enron_dir, count, seed):
    """(subject, body, from, date) of `count` seeded plain Enron emails with 300-3000 character bodies."""
    import email as email_pkg
    root = os.path.join(enron_dir, "maildir")
    files = []
    for d, dirs, fs in os.walk(root):
        dirs.sort()
        files.extend(os.path.join(d, f) for f in sorted(fs))
    rng = random.Random(seed)
    rng.shuffle(files)
    out = []
    for path in files:
        with open(path, "rb") as f:
            m = email_pkg.message_from_binary_file(f, policy=email.policy.default)
        if m.is_multipart():
            continue
        try:
            body = m.get_content()
        except Exception:
            continue
        if not 300 <= len(body) <= 3000 or "-----Original Message-----" in body:
            continue
        out.append((str(m["Subject"] or "(no subject)"), body, str(m["From"] or "someone@enron.com"),
                    os.path.relpath(path, enron_dir)))
        if len(out) == count:
            break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="eval-data/attachments", help="where mail.mbox and questions.jsonl go")
    ap.add_argument("--cache", default="bench-data/attachments", help="downloads, unpacked sources, conversions")
    ap.add_argument("--enron-dir", default="corpora/enron-inbox", help="the unpacked Enron corpus (make corpora)")
    ap.add_argument("--enron", type=int, default=60, help="Enron distractor emails")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--dictionary", default="/usr/share/dict/american-english",
                    help="phrase words come from this word list first (Debian's wamerican)")
    ap.add_argument("--phrase-chars", type=int, default=30000,
                    help="phrases are drawn from this many first characters of a document's text")
    args = ap.parse_args()

    global LO_PROFILE_ROOT
    LO_PROFILE_ROOT = args.cache
    rng = random.Random(args.seed)
    roots, downloads = fetch(args.cache)
    os.makedirs(args.out, exist_ok=True)

    # Materialise every document and extract its text.
    docs = []
    for entry in TARGETS:
        path, filename = materialise(entry, roots, args.cache)
        did, pkg, inner, fmt, conv = entry
        docs.append({"id": did, "role": "target", "format": fmt, "filename": filename, "path": path,
                     "package": pkg, "version": (PYPI.get(pkg) or DEBIAN.get(pkg))[0], "inner": inner,
                     "conversion": conv})
    for pkg, pattern in DISTRACTOR_GLOBS:
        rx = re.compile(pattern)
        found = []
        for d, dirs, fs in os.walk(roots[pkg]):
            dirs.sort()
            for f in sorted(fs):
                rel = os.path.relpath(os.path.join(d, f), roots[pkg])
                if rx.search(rel):
                    found.append(rel)
        for rel in sorted(found):
            fmt = rel.rsplit(".", 1)[1]
            docs.append({"id": "x-%s-%s" % (pkg, os.path.basename(rel)), "role": "distractor", "format": fmt,
                         "filename": os.path.basename(rel), "path": os.path.join(roots[pkg], rel), "package": pkg,
                         "version": (PYPI.get(pkg) or DEBIAN.get(pkg))[0], "inner": rel, "conversion": "-"})
    for d in docs:
        d["text"] = extract_text(d["path"], d["format"])
        d["sha256"] = sha256_file(d["path"])
        d["words"] = set(words_of(d["text"]))
        if d["role"] == "target" and len(d["words"]) < 15:
            sys.exit("error: %s (%s) has too little text: %d distinct words" % (d["id"], d["path"], len(d["words"])))

    # Emails: targets and attached distractors interleaved in a seeded order, Enron bodies, hostile ones.
    enron = enron_bodies(args.enron_dir, args.enron, args.seed)
    if len(enron) < args.enron:
        sys.exit("error: %d Enron emails under %s (run make corpora)" % (len(enron), args.enron_dir))
    items = [("doc", d) for d in docs] + [("enron", e) for e in enron]
    rng.shuffle(items)
    base = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
    subjects_used, mails, emails_meta = set(), [], []
    all_body_words, all_bodies_text = set(), []
    for n, (kind, item) in enumerate(items, 1):
        date = base + dt.timedelta(hours=7 * n)
        mid = "att-%03d.%s@attachments.mailsearch.test" % (n, hashlib.sha256(
            (kind + (item["id"] if kind == "doc" else item[3])).encode()).hexdigest()[:10])
        if kind == "doc":
            while True:
                subject = "Shared file: %s %s %d" % (rng.choice(SUBJECT_WORDS), rng.choice(SUBJECT_WORDS), n)
                if subject not in subjects_used:
                    break
            sender = SENDERS[n % len(SENDERS)]
            body = BODIES[n % len(BODIES)].format(name=sender.split()[0])
            data = open(item["path"], "rb").read()
            msg = attachment_email(mid, n, subject, body, date, [(data, item["filename"], item["format"])], sender)
            item["message_id"] = mid
        else:
            subject, body, sender, rel = item
            msg = attachment_email(mid, n, subject, body, date, [], sender)
        subjects_used.add(subject)
        all_body_words |= set(words_of(subject + "\n" + body))
        all_bodies_text.append(set(words_of(subject + "\n" + body)))
        mails.append(msg)
        emails_meta.append({"message_id": mid, "kind": kind, "subject": subject,
                            "doc": item["id"] if kind == "doc" else None,
                            "source": None if kind == "doc" else item[3]})

    hostile_dir = os.path.join(args.cache, "hostile")
    os.makedirs(hostile_dir, exist_ok=True)
    bomb_docx, bomb_zip = os.path.join(hostile_dir, "annual-report.docx"), os.path.join(hostile_dir, "bomb.zip")
    long_pdf, laughs = os.path.join(hostile_dir, "long-file.pdf"), os.path.join(hostile_dir, "laughs.docx")
    corrupt = os.path.join(hostile_dir, "broken-scan.pdf")
    if not os.path.exists(bomb_docx):
        make_zip_bomb_docx(bomb_docx)
    if not os.path.exists(bomb_zip):
        make_zip_bomb_zip(bomb_zip)
    if not os.path.exists(long_pdf):
        make_long_pdf(long_pdf)
    make_billion_laughs_docx(laughs)
    make_corrupt_pdf(os.path.join(roots["pypdf"], "resources", "libreoffice-form.pdf"), corrupt)
    hostile = [
        ("hostileprobe1", "zip bomb", [(bomb_zip, "zip"), (bomb_docx, "docx")]),
        ("hostileprobe2", "10,000-page PDF", [(long_pdf, "pdf")]),
        ("hostileprobe3", "billion laughs", [(laughs, "docx")]),
        ("hostileprobe4", "corrupt PDF", [(corrupt, "pdf")]),
    ]
    for i, (word, what, files) in enumerate(hostile, 1):
        n = len(mails) + 1
        mid = "att-hostile-%d@attachments.mailsearch.test" % i
        body = "Hi Chris,\n\nthe files from the old share, %s.\n\nPaul\n" % word
        msg = attachment_email(mid, n, "Old share files %d" % i, body, base + dt.timedelta(hours=7 * n),
                               [(open(p, "rb").read(), os.path.basename(p), fmt) for p, fmt in files],
                               SENDERS[5])
        mails.append(msg)
        emails_meta.append({"message_id": mid, "kind": "hostile", "what": what, "probe": word,
                            "subject": "Old share files %d" % i,
                            "attachments": [{"filename": os.path.basename(p), "bytes": os.path.getsize(p),
                                             "sha256": sha256_file(p)} for p, _ in files]})

    mbox_path = os.path.join(args.out, "mail.mbox")
    with open(mbox_path, "wb") as f:
        for msg in mails:
            f.write(b"From mailsearch-eval@attachments Thu Jan  1 00:00:00 2026\n")
            raw = msg.as_bytes(policy=email.policy.SMTP).replace(b"\r\n", b"\n")
            raw = re.sub(rb"(?m)^(>*From )", rb">\1", raw)
            f.write(raw if raw.endswith(b"\n") else raw + b"\n")
            f.write(b"\n")

    # Document frequency of each word over every attached document.
    df = {}
    for d in docs:
        for w in d["words"]:
            df[w] = df.get(w, 0) + 1

    questions = []
    targets = [d for d in docs if d["role"] == "target"]
    with open(args.dictionary, encoding="utf-8") as f:
        dictionary = {w.strip() for w in f if w[:1].islower() and "'" not in w}
    for d in targets:
        text = d["text"][:args.phrase_chars]
        best = []
        # 4 words whose content words no email body holds; else 3; else 4 and 3 whose words only
        # together are in no body (the short calendar entries and tables); words of the dictionary
        # first, then any (the French calendar entry).
        for lexicon in (dictionary, None):
            for size, strict in ((4, True), (3, True), (4, False), (3, False)):
                if not best:
                    best = phrase_windows(text, size, strict, df, all_body_words, all_bodies_text, lexicon)
        if not best:
            print("warning: no phrase for %s" % d["id"], file=sys.stderr)
            continue
        best.sort()
        pick = random.Random("%d:%s" % (args.seed, d["id"])).choice(best[:5])
        questions.append({"query": pick[2], "kind": "phrase", "doc": d["id"]})
    for did, qs in sorted(TOPICS.items()):
        for q in qs:
            questions.append({"query": q, "kind": "topic", "doc": did})
    for did, q in sorted(FILENAME_QUERIES.items()):
        questions.append({"query": q, "kind": "filename", "doc": did})
    by_id = {d["id"]: d for d in docs}
    for i, q in enumerate(questions, 1):
        d = by_id[q["doc"]]
        q.update({"id": "a%03d" % i, "target": d["message_id"], "filename": d["filename"]})
        q["absent_words"] = [w for w in words_of(q["query"]) if w not in STOP and w not in d["words"]
                             and q["kind"] != "filename"]
        if q["kind"] == "filename" and q["query"].lower() not in d["filename"].lower():
            sys.exit("error: filename query %r is not part of %s" % (q["query"], d["filename"]))
    qpath = os.path.join(args.out, "questions.jsonl")
    with open(qpath, "w", encoding="utf-8") as f:
        for q in questions:
            f.write(json.dumps({k: q[k] for k in ("id", "query", "kind", "target", "filename", "doc", "absent_words")},
                               ensure_ascii=False) + "\n")
    with open(os.path.join(args.out, "documents.jsonl"), "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"id": d["id"], "role": d["role"], "format": d["format"], "filename": d["filename"],
                                "package": d["package"], "version": d["version"], "path_in_package": d["inner"],
                                "conversion": d["conversion"], "sha256": d["sha256"], "bytes": os.path.getsize(d["path"]),
                                "text_chars": len(d["text"]), "distinct_words": len(d["words"]),
                                "text_sha256": hashlib.sha256(d["text"].encode("utf-8")).hexdigest(),
                                "message_id": d.get("message_id")}, ensure_ascii=False) + "\n")
    text_dir = os.path.join(args.out, "texts")
    os.makedirs(text_dir, exist_ok=True)
    for d in docs:
        with open(os.path.join(text_dir, d["id"] + ".txt"), "w", encoding="utf-8") as f:
            f.write(d["text"])
    with open(os.path.join(args.out, "emails.jsonl"), "w", encoding="utf-8") as f:
        for e in emails_meta:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")

    def count(key, rows):
        out = {}
        for r in rows:
            out[key(r)] = out.get(key(r), 0) + 1
        return dict(sorted(out.items()))

    def version_of(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
        except Exception:
            return None
    manifest = {
        "downloads": downloads,
        "tools": {"soffice": version_of(["soffice", "--version"]),
                  "pdftotext": (subprocess.run(["pdftotext", "-v"], capture_output=True, text=True).stderr
                                .splitlines() or [None])[0]},
        "seed": args.seed,
        "emails": len(mails),
        "emails_by_kind": count(lambda e: e["kind"], emails_meta),
        "targets_by_format": count(lambda d: d["format"], targets),
        "targets_by_package": count(lambda d: d["package"], targets),
        "distractor_documents_by_format": count(lambda d: d["format"], [d for d in docs if d["role"] == "distractor"]),
        "questions_by_kind": count(lambda q: q["kind"], questions),
        "mail.mbox": sha256_file(mbox_path),
        "questions.jsonl": sha256_file(qpath),
    }
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%s: %d emails (%s), %d target documents (%s), %d questions (%s)" % (
        mbox_path, len(mails), manifest["emails_by_kind"], len(targets), manifest["targets_by_format"],
        len(questions), manifest["questions_by_kind"]))


if __name__ == "__main__":
    main()
