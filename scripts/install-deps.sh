#!/usr/bin/env bash
# Installs the system packages MailSearch builds and tests with, when they are missing.
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# chromium and chromium-driver: the web UI's browser tests (Tests/Browser, Selenium).
for pkg in libsqlite3-dev libopenblas-dev libgumbo-dev pkg-config zstd unzip chromium chromium-driver; do
  have "$pkg" || need+=("$pkg")
done
# Selenium, for the browser tests, comes from PyPI through pip.
selenium=1
python3 -c 'import selenium' 2>/dev/null || selenium=0
if ((!selenium)) && ! python3 -m pip --version >/dev/null 2>&1; then
  have python3-pip || need+=(python3-pip)
fi
if ((${#need[@]})); then
  echo "Installing missing packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ((!selenium)); then
  echo "Installing the Python package selenium"
  # Debian's own Python is "externally managed" (PEP 668): then pip needs --break-system-packages.
  python3 -m pip install --quiet selenium 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages selenium
  python3 -c 'import selenium' || { echo "error: selenium is still not importable by $(command -v python3)" >&2; exit 1; }
fi
command -v swift >/dev/null || { echo "error: swift is not on PATH; install Swift 6 (https://swift.org/install) and try again" >&2; exit 1; }
