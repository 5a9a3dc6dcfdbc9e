#!/usr/bin/env bash
# Rebuilds the scope classifier from training/scope/data: builds the augmented data set with the
# product's normalizer, fine-tunes MiniLM-L6 on CPU (about 15-30 minutes on 2 cores), calibrates the
# thresholds on the validation split, exports int8 ONNX to models/scope with its manifest, and
# prints the manifest hash to pin as SCOPE_MODEL.manifestSha256 in src/scope/classifier.ts.
#
#   bash training/scope/train.sh [finetune.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
source training/setup.sh
# v3's data (data/) plus the files added for J, in this order (the augmentation draws depend on it),
# every message also with an administrative message attached (build-data.ts --attach-admin).
npx tsx training/scope/build-data.ts "$work/scope-data.jsonl" --attach-admin \
  --with training/scope/added/admin-context.txt --with training/scope/added/urgent-attached.txt --with training/scope/added/admin-judge-later.txt
"$python" training/scope/finetune.py --data "$work/scope-data.jsonl" --minilm "$work" --out models/scope "$@"
echo "manifest sha256 (pin as SCOPE_MODEL.manifestSha256): $(sha256sum models/scope/manifest.json | cut -d' ' -f1)"
