#!/usr/bin/env bash
# Rebuilds the scope classifier from training/scope/data: builds the augmented data set with the
# product's normalizer, fine-tunes MiniLM-L6 on CPU (about 15 minutes on 2 cores), calibrates the
# thresholds on the validation split, exports int8 ONNX to models/scope with its manifest, and
# prints the manifest hash to pin as SCOPE_MODEL.manifestSha256 in src/scope/classifier.ts.
# URGENT=1 rebuilds the second classifier instead (it can only add an urgent routing; candidate S):
# the same recipe plus three more writers' emergencies and crises written as a booking question and
# clinical questions in appointment words, to models/scope-urgent, pinned as SCOPE_URGENT_MODEL.
#
#   bash training/scope/train.sh [finetune.py options]
#   URGENT=1 bash training/scope/train.sh [finetune.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
# Since session 24 (candidate P) the English messages of blind scope sets 1-12, written by eleven other
# writers (added/scope-sets-1-12.tsv, made by english-sets.ts), train too.
out=models/scope pin=SCOPE_MODEL added=()
if [ "${URGENT:-}" = 1 ]; then
  out=models/scope-urgent pin=SCOPE_URGENT_MODEL
  added=(--with training/scope/added/urgent-as-booking.tsv --with training/scope/added/crisis-as-booking.tsv --with training/scope/added/clinical-as-booking.tsv)
fi
npx tsx training/scope/build-data.ts "$work/scope-data.jsonl" --with training/scope/added/scope-sets-1-12.tsv "${added[@]}"
"$python" training/scope/finetune.py --data "$work/scope-data.jsonl" --minilm "$work" --out "$out" "$@"
# The graph onnxruntime-node would build at every start, built once (identical scores, checked).
npx tsx training/optimize-onnx.ts "$out"
echo "manifest sha256 (pin as $pin.manifestSha256): $(sha256sum "$out/manifest.json" | cut -d' ' -f1)"
