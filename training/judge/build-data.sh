#!/usr/bin/env bash
# Builds the support judge's pairs into $pairs (and $stage2, the second-stage options, when
# STAGE2_SETS is set): the training systems' pairs read as the product reads them, the demo corpus's
# and the retired blind sets' cases, the validation split. Sourced by train.sh and ensemble.sh after
# training/setup.sh; the options in the environment are described where they are read.

pairs="$work/judge-pairs.jsonl"
# PARAPHRASES=1: every labelled question also under its two rewrites in patients' words (candidate
# v13, session 18; not the shipped judge).
"$python" training/judge/build_pairs.py "$pairs" ${PARAPHRASES:+--paraphrases} ${WRITER_E:+--writer-e}
npx tsx training/judge/contextualize.ts "$pairs" training/judge/systems
demo="$work/index-demo"; sawtooth="$work/index-sawtooth"
rm -rf "$demo" "$sawtooth"
npx citetrace --data "$demo" --init ingest corpus > /dev/null
npx citetrace --data "$sawtooth" --init ingest test/fixtures/blind-system-1/corpus > /dev/null
# The demo corpus's case files hold the textbook traps npm test pins as abstentions: every negative is
# kept for them (the case options below are for the retired blind sets), and DEMO_PASSES=N writes them
# N times, so a one-epoch run reads them as often as a two-epoch run.
demo_pairs="$work/judge-pairs-demo.jsonl"
rm -f "$demo_pairs"
for cases in corpus/cases.yaml corpus/heldout.yaml corpus/heldout-b.yaml; do
  env -u CASE_NEGATIVES -u CASE_NEGATIVES_PER_CASE npx tsx training/judge/from-cases.ts "$demo" "$cases" dev-demo train "$demo_pairs"
done
for _ in $(seq "${DEMO_PASSES:-1}"); do cat "$demo_pairs" >> "$pairs"; done
# Retired blind sets (their blind runs are on record in docs/eval) train too; the first (Sawtooth
# River) is the validation split. The shipped v7 read sets 2-4; the next candidate is meant to read
# CASE_SETS="2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 19 20" (17 and 18 kept out to compare judges on
# whole cases): 29,367 training pairs, about 3,700 steps per epoch, 45+ minutes per epoch on 2 idle cores.
# set_pairs N FILE: retired blind set N ingested on its own, its cases' pairs appended to FILE (the
# CASE_NEGATIVES options in the environment apply).
set_pairs() {
  local index="$work/index-blind-$1"
  rm -rf "$index"
  npx citetrace --data "$index" --init ingest "test/fixtures/blind-system-$1/corpus" > /dev/null
  npx tsx training/judge/from-cases.ts "$index" "test/fixtures/blind-system-$1/cases.yaml" "dev-blind-$1" train "$2"
}
for n in ${CASE_SETS:-2 3 4}; do set_pairs "$n" "$pairs"; done
npx tsx training/judge/from-cases.ts "$sawtooth" test/fixtures/blind-system-1/cases.yaml dev-sawtooth validation "$pairs"
# STAGE2_SETS="5 6 …": a second stage, from the first stage's weights (kept in $work/judge-stage1.pt
# and reused while its data and options are unchanged) at a lower learning rate (finetune.py
# --then-lr), reads those sets' cases (at most STAGE2_NEGATIVES_PER_CASE negatives from other pages
# each, default 8) and the demo case files once more, so the traps stay in view.
stage2=()
if [ -n "${STAGE2_SETS:-}" ]; then
  then_pairs="$work/judge-pairs-stage2.jsonl"
  cp "$demo_pairs" "$then_pairs"
  for n in $STAGE2_SETS; do
    CASE_NEGATIVES=other-pages CASE_NEGATIVES_PER_CASE="${STAGE2_NEGATIVES_PER_CASE:-8}" set_pairs "$n" "$then_pairs"
  done
  stage2=(--then "$then_pairs")
fi
