#!/usr/bin/env bash
# Candidate E1 (docs/injection.md): fine-tunes MiniLM-L6 as the injection detector on the same
# labelled texts as train.sh plus candidates/, calibrates and measures it with the int8 model, and
# writes the model folder to OUT (default models/injection-encoder). About 20 minutes on 2 cores.
#
#   OUT=DIR bash training/injection/finetune.sh [finetune.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
npx tsx training/injection/extract.ts "$work/injection-corpus.jsonl"
"$python" training/injection/finetune.py --corpus "$work/injection-corpus.jsonl" --minilm "$work" --out "${OUT:-models/injection-encoder}" "$@"
