#!/usr/bin/env bash
# Rebuilds the injection detector: reads every line and sentence of the policy corpora (the demo
# corpus, the judge's training systems, blind systems 1-58 in test/fixtures), trains logistic regression over hashed n-grams
# on them and the written lines (data/, blind-1 to blind-5, written-5 to written-7), calibrates the threshold on validation, measures the
# held-out sets, writes models/injection, and prints the manifest hash to pin as
# INJECTION_MODEL.manifestSha256 in src/policy/injection.ts. About a minute on 2 cores.
#
#   bash training/injection/train.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${CITETRACE_TRAIN_DIR:-${TMPDIR:-/tmp}/citetrace-train}"
mkdir -p "$work"
if [ ! -x "$work/injection-venv/bin/python" ]; then python3 -m venv "$work/injection-venv"; fi
"$work/injection-venv/bin/pip" install -q -r training/injection/requirements.txt
npx tsx training/injection/extract.ts "$work/injection-corpus.jsonl"
"$work/injection-venv/bin/python" training/injection/train.py --corpus "$work/injection-corpus.jsonl" --out models/injection
echo "manifest sha256 (pin as INJECTION_MODEL.manifestSha256): $(sha256sum models/injection/manifest.json | cut -d' ' -f1)"
