#!/usr/bin/env bash
# Rebuilds the support judge from training/judge/systems: the pairs (build_pairs.py), each unit read
# exactly as the product reads it (contextualize.ts, through src/cite/units.ts), fine-tuning and
# int8 export (finetune.py), threshold calibrated on the validation split, metrics printed for the
# held-out systems. About 10–20 minutes on 2 cores. Writes models/judge by default ($OUT to write
# elsewhere); after a rebuild, pin the new manifest's sha256 in src/judge/judge.ts (JUDGE_MODEL).
#
#   bash training/judge/train.sh [finetune.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
out="${OUT:-models/judge}"
"$python" training/judge/build_pairs.py "$work/judge-pairs.jsonl"
npx tsx training/judge/contextualize.ts "$work/judge-pairs.jsonl" training/judge/systems
"$python" training/judge/finetune.py --data "$work/judge-pairs.jsonl" --minilm "$work" --out "$out" "$@"
sha256sum "$out/manifest.json"
