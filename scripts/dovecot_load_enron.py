#!/usr/bin/env python3
"""The Enron corpus in a local Dovecot, for the IMAP initial-sync benchmark.

    python3 scripts/dovecot_load_enron.py                  # load, index, check, report the times, stop
    python3 scripts/dovecot_load_enron.py --serve          # …then serve it until Ctrl-C
    python3 scripts/dovecot_load_enron.py --control        # …then dovecot.py's JSON control mode on stdin/stdout

How: the corpus (after `make corpora`: corpora/enron-inbox/maildir, one message per file in
person/folder[/subfolder…]/N) is copied file by file straight into the Maildir of the harness user `enron`
(Tests/IMAP/dovecot.py, Dovecot.load_tree): no IMAP, no doveadm, so it takes seconds, not the minutes that
44.7K APPENDs or `doveadm save` processes would. Each message keeps its bytes; its INTERNALDATE is its Date
header (the file's mtime), and its file name carries S= and W= (sizes) as Dovecot's own deliveries do.

Layout "folders" (default): one IMAP folder per corpus directory that holds messages, named by its path with
"/" as the hierarchy separator: "allen-p/inbox", "motley-m/inbox/ene_portland", … (261 folders; the
person-level folders such as "allen-p" exist only as hierarchy, \\NoSelect-like). INBOX stays empty. A
many-folder account, as a real one is. Layout "inbox": all 44.7K messages in INBOX (one big mailbox).

Where: in /dev/shm (memory; 160 MiB of mail plus Dovecot's indexes) unless --dir or --on-disk: on this
project's machines writing and removing 44.7K small files on disk takes from 12 s to over a minute, varying with
the disk's write-back, which would only add noise to a benchmark of the client.

Then, unless --no-index, `doveadm mailbox status` on every folder makes Dovecot scan the Maildirs and give
every message its UID (its dovecot-uidlist and index), as a server that has had the mail for years has done:
the benchmark then times the client's sync, not Dovecot's first look at 44.7K new files. (Dovecot still
parses each message the first time a client FETCHes ENVELOPE/BODYSTRUCTURE/headers and caches what clients
asked for, as a real server does.)
"""
import argparse
import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "IMAP"))

from dovecot import Dovecot, DovecotMissing, _control_loop  # noqa: E402

USER, PASSWORD = "enron", "enron-password"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.join(HERE, "..", "corpora", "enron-inbox", "maildir"))
    parser.add_argument("--layout", choices=["folders", "inbox"], default="folders")
    parser.add_argument("--no-index", action="store_true", help="leave the UIDs to the first client")
    parser.add_argument("--dir", help="working directory (default: a new one in /dev/shm, else in the temporary directory)")
    parser.add_argument("--on-disk", action="store_true", help="a new working directory in the temporary directory, not /dev/shm")
    parser.add_argument("--keep", action="store_true", help="keep the working directory")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--serve", action="store_true", help="serve until Ctrl-C")
    mode.add_argument("--control", action="store_true", help="JSON control mode (see dovecot.py --help)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.corpus):
        print(f"error: no Enron corpus at {args.corpus}: run `make corpora`", file=sys.stderr)
        return 2
    # Progress and timings go to standard error: in --control mode standard output is the JSON channel.
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731

    try:
        in_memory = not args.on_disk and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK)
        server = Dovecot(users={USER: PASSWORD}, workdir=args.dir, parent="/dev/shm" if in_memory else None,
                         keep=args.keep)
    except DovecotMissing as error:
        log(f"error: {error}")
        return 2
    try:
        started = time.monotonic()
        counts = server.load_tree(USER, args.corpus, layout=args.layout)
        copied = time.monotonic() - started
        total = sum(counts.values())
        log(f"copied {total} messages into {len(counts)} folders in {copied:.1f} s")

        started = time.monotonic()
        server.start()
        boxes = [b for b in counts if b != "INBOX"]
        if boxes:  # subscribed, as a mail client would have made them (the special-use ones already are)
            server.doveadm("mailbox", "subscribe", "-u", USER, *boxes)
        log(f"Dovecot started in {time.monotonic() - started:.1f} s")
        if not args.no_index:
            started = time.monotonic()
            out = server.doveadm("-f", "flow", "mailbox", "status", "-u", USER, "messages", "*")
            indexed = sum(int(n) for n in re.findall(r"messages=(\d+)", out))
            log(f"Dovecot indexed {indexed} messages in {time.monotonic() - started:.1f} s")
            if indexed != total:
                log(f"error: Dovecot counts {indexed} messages, {total} were copied")
                return 1

        info = server.describe()
        if args.control:
            print(json.dumps(info), flush=True)
            _control_loop(server)
        elif args.serve:
            log(f"Dovecot on {info['host']} port {info['port']} (STARTTLS), {info['tls_port']} (TLS); "
                f"user {USER} password {PASSWORD}; CA {info['ca_file']}; Ctrl-C stops")
            signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
            try:
                while server.running:
                    time.sleep(0.5)
            except KeyboardInterrupt:
                pass
    finally:
        server.close()
        if args.keep:
            log(f"kept {server.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
