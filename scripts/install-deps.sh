#!/usr/bin/env bash
# Installs the system packages MailSearch builds and tests with, when they are missing.
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# chromium and chromium-driver: the web UI's browser tests (Tests/Browser, Selenium).
# dovecot-imapd and openssl: the IMAP tests' real Dovecot and its test CA (Tests/IMAP/dovecot.py).
# dovecot-submissiond and dovecot-lmtpd: the SMTP tests' server, Dovecot's submission service delivering
# through LMTP (Tests/IMAP/test_smtp_send.py; Postfix cannot run unprivileged).
# poppler-utils (pdftotext) and unzip: reading the text of attached PDFs and office documents
# (MailImport's AttachmentText, in a limited child process).
# libsecret-1-0: the Secret Service store's library, loaded with dlopen (SecretStore, CSecret); dbus-daemon, dbus-bin,
# gnome-keyring and libsecret-tools (secret-tool): the real Secret Service its tests run against, on a private bus
# (Tests/SecretStoreTests); binutils (readelf): the test that libsecret is not linked.
secret_packages=(libsecret-1-0 dbus-daemon dbus-bin gnome-keyring libsecret-tools binutils)
dovecot_packages=(dovecot-imapd dovecot-submissiond dovecot-lmtpd)
for pkg in libsqlite3-dev sqlite3 libopenblas-dev libgumbo-dev pkg-config zstd unzip poppler-utils chromium chromium-driver \
           "${dovecot_packages[@]}" openssl "${secret_packages[@]}"; do
  have "$pkg" || need+=("$pkg")
done
new_dovecot=0
for pkg in "${dovecot_packages[@]}"; do have "$pkg" || new_dovecot=1; done
# Selenium, for the browser tests, and Authlib, the OAuth 2.0 tests' authorization server (Tests/IMAP/oauth_server.py),
# come from PyPI through pip (Debian's python3-authlib 1.2 predates the request API oauth_server.py uses, and the
# python3 on PATH need not be Debian's).
selenium=1
python3 -c 'import selenium' 2>/dev/null || selenium=0
authlib=1
python3 -c 'from authlib.oauth2.rfc6749.requests import OAuth2Payload' 2>/dev/null || authlib=0
if { ((!selenium)) || ((!authlib)); } && ! python3 -m pip --version >/dev/null 2>&1; then
  have python3-pip || need+=(python3-pip)
fi
if ((${#need[@]})); then
  echo "Installing missing packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# The IMAP and SMTP tests start Dovecots of their own, unprivileged and on free ports. The system service the
# packages may have just started (where init scripts may run) would only hold ports 143/993/587: stop it, and keep it
# from starting at boot. A Dovecot that was there before this script is left alone.
if ((new_dovecot)); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if [ -s /run/dovecot/master.pid ] && kill -0 "$(cat /run/dovecot/master.pid)" 2>/dev/null; then
    echo "Stopping the system Dovecot the package started (the IMAP tests run their own)"
    $SUDO doveadm stop 2>/dev/null || $SUDO kill "$(cat /run/dovecot/master.pid)"
  fi
  if [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now dovecot.service dovecot.socket >/dev/null 2>&1 || true
  elif command -v update-rc.d >/dev/null; then
    $SUDO update-rc.d dovecot disable >/dev/null 2>&1 || true
  fi
fi
if ((!selenium)); then
  echo "Installing the Python package selenium"
  # Debian's own Python is "externally managed" (PEP 668): then pip needs --break-system-packages.
  python3 -m pip install --quiet selenium 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages selenium
  python3 -c 'import selenium' || { echo "error: selenium is still not importable by $(command -v python3)" >&2; exit 1; }
fi
if ((!authlib)); then
  echo "Installing the Python package authlib"
  python3 -m pip install --quiet 'authlib>=1.6,<2' 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages 'authlib>=1.6,<2'
  python3 -c 'from authlib.oauth2.rfc6749.requests import OAuth2Payload' \
    || { echo "error: authlib (1.6 or later) is still not importable by $(command -v python3)" >&2; exit 1; }
fi
command -v swift >/dev/null || { echo "error: swift is not on PATH; install Swift 6 (https://swift.org/install) and try again" >&2; exit 1; }
