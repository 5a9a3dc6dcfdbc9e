#!/usr/bin/env bash
# Rebuilds the support judge: the pairs of training/judge/systems (build_pairs.py), each unit read
# exactly as the product reads it, plus same-page negatives (contextualize.ts, through
# src/cite/units.ts), pairs from the dev-pool evaluation cases (from-cases.ts: the demo corpus's
# case files for training, the retired blind set Sawtooth River for validation), fine-tuning and
# int8 export (finetune.py), the threshold calibrated on the validation split, metrics printed for
# the held-out systems. About 35 minutes on 2 cores. Writes models/judge/minilm, the cascade's first
# member, by default ($OUT to write elsewhere; the second member is
# `OUT=models/judge/bge-small bash training/judge/train.sh --base bge-small`, about 70 minutes); after
# a rebuild, run training/judge/cascade.sh, which writes the cascade's manifest over both members,
# and pin its sha256 in src/judge/judge.ts (JUDGE_MODEL).
#
#   bash training/judge/train.sh [finetune.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
out="${OUT:-models/judge/minilm}"
source training/judge/build-data.sh
"$python" training/judge/finetune.py --data "$pairs" --minilm "$work" --out "$out" --epochs 2 --max-length 128 --lr 5e-5 --listwise 1.0 \
  --checkpoint "$work/judge-stage1.pt" "${stage2[@]}" "$@"
# The graph onnxruntime-node would build at every start, built once (identical scores, checked).
npx tsx training/optimize-onnx.ts "$out"
