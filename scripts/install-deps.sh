#!/usr/bin/env bash
# Installs the system packages MailSearch builds and tests with, when they are missing.
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in libsqlite3-dev libopenblas-dev libgumbo-dev pkg-config zstd unzip; do
  have "$pkg" || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "Installing missing packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "error: swift is not on PATH; install Swift 6 (https://swift.org/install) and try again" >&2; exit 1; }
