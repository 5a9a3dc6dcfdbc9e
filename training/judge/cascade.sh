#!/usr/bin/env bash
# Writes models/judge/manifest.json: the shipped judge's two members (models/judge/minilm, first;
# models/judge/bge-small, second, read where the first scores 0.05 or more) and the threshold of their
# combined score: 0.15, chosen on dev sets 30-37 end to end as the highest at which the cascade refuses
# no more answerable questions than v7 alone (candidate C', docs/support-judge.md); cascade.py prints
# validation's choice beside it, and the held-out figures. A few minutes; pin the printed sha256 in
# src/judge/judge.ts (JUDGE_MODEL).
#
#   bash training/judge/cascade.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
source training/judge/build-data.sh
"$python" training/judge/cascade.py --data "$pairs" --first models/judge/minilm --second models/judge/bge-small --second-from 0.05 --threshold 0.15 --out models/judge
