#!/usr/bin/env bash
# Trains the support judge from training/judge/systems and reports it on the held-out systems
# beside the lexical baseline (about 5 minutes on 2 cores). Writes to $OUT (default
# $TMPDIR/citetrace-judge): the judge is not shipped in models/ until the pipeline uses it.
#
#   bash training/judge/train.sh [finetune.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
out="${OUT:-${TMPDIR:-/tmp}/citetrace-judge}"
"$python" training/judge/build_pairs.py "$work/judge-pairs.jsonl"
npx tsx training/judge/lexical-baseline.ts "$work/judge-pairs.jsonl"
"$python" training/judge/finetune.py --data "$work/judge-pairs.jsonl" --minilm "$work" --out "$out" "$@"
