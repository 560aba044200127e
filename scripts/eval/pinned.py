"""Pinned downloads for the eval builders: a file's SHA-256, and a Debian package fetched with
`apt-get download` (the package lists read again once when they are older than the pin) and checked."""
import hashlib
import os
import subprocess
import sys


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def debian_package(name, version, sha, directory):
    """The .deb of NAME=VERSION in DIRECTORY (downloaded when missing), its SHA-256 checked; (path, file name)."""
    fname = "%s_%s_all.deb" % (name, version.replace(":", "%3a"))
    path = os.path.join(directory, fname)
    if not os.path.exists(path):
        print("apt-get download %s=%s" % (name, version), file=sys.stderr)
        cmd = ["apt-get", "download", "-q", "%s=%s" % (name, version)]
        if subprocess.run(cmd, cwd=directory, capture_output=True).returncode != 0:
            sudo = [] if os.geteuid() == 0 else ["sudo"]
            subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, capture_output=True)
            subprocess.run(cmd, cwd=directory, check=True, capture_output=True)
    got = sha256_file(path)
    if got != sha:
        sys.exit("error: %s has SHA-256 %s, expected %s" % (path, got, sha))
    return path, fname
