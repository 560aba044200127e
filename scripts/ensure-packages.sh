#!/usr/bin/env bash
# Installs those of the Debian packages named that are missing (neither installed nor a command on
# PATH), with apt-get; through sudo when not root.
#   scripts/ensure-packages.sh PACKAGE...
set -euo pipefail
need=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || command -v "$pkg" >/dev/null || need+=("$pkg")
done
((${#need[@]})) || exit 0
echo "Installing missing packages: ${need[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
