#!/usr/bin/env bash
# Writes models/judge/manifest.json: the shipped judge's two members (models/judge/minilm, first;
# models/judge/bge-small, second, read where the first scores 0.05 or more) and the threshold of their
# combined score, chosen on the validation split of the pairs train.sh builds (cascade.py). A few
# minutes; pin the printed sha256 in src/judge/judge.ts (JUDGE_MODEL).
#
#   bash training/judge/cascade.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
source training/judge/build-data.sh
"$python" training/judge/cascade.py --data "$pairs" --first models/judge/minilm --second models/judge/bge-small --second-from 0.05 --out models/judge
