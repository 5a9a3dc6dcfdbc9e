"""Trains the injection detector: logistic regression over hashed word and character n-grams.

Data: the hand-written lines in data/ (positives-*.txt: addressed to a machine reader;
negatives-*.txt: policy sentences that share its words), and every line and sentence of the
policy corpora (extract.ts), negatives except the planted lines labelled by hand in
data/planted.tsv. Splits: whole corpora held out for validation and for the held-out measurement
(their sentences and planted lines), and a slice of the written lines by a hash of the text.
Chooses the regularization and the feature set on validation, calibrates the threshold on
validation, measures once on the held-out sets, and writes models/injection.

    python train.py --corpus corpus.jsonl --out models/injection
"""
import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

import features
from data import HELDOUT_GROUPS, SEED, VALIDATION_GROUPS, answer_calibrate, calibrate, load, report


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--buckets", type=int, default=1 << 18)
    args = ap.parse_args()
    rows = load(args.corpus)
    by = {s: [r for r in rows if r["split"] == s] for s in ("train", "validation", "heldout")}
    for s, rs in by.items():
        print(f"{s}: {len(rs)} texts, {sum(r['label'] for r in rs)} addressed to a machine")
    X = {s: features.matrix([r["text"] for r in rs], args.buckets) for s, rs in by.items()}
    y = {s: np.array([r["label"] for r in rs]) for s, rs in by.items()}
    # Written lines weigh as much as a whole corpus of policy sentences: they are the hard cases.
    def weights(rs):
        n_corpus = sum(1 for r in rs if r["source"].startswith("corpus:"))
        n_written = len(rs) - n_corpus
        return np.array([1.0 if r["source"].startswith("corpus:") else max(1.0, n_corpus / max(1, n_written) / 4) for r in rs])

    candidates = []
    for C in (1.0, 4.0, 16.0, 64.0):
        model = LogisticRegression(C=C, class_weight="balanced", max_iter=5000, random_state=SEED)
        model.fit(X["train"], y["train"], sample_weight=weights(by["train"]))
        val = sigmoid(X["validation"] @ model.coef_[0] + model.intercept_[0])
        t = calibrate(val, by["validation"])
        r = report(by["validation"], val, t)
        print(f"C={C}: threshold {t}, validation {json.dumps(r)}")
        candidates.append((r["all"]["recall"], r["all"]["precision"], -C, C, t, model))
    candidates.sort(key=lambda c: (c[0], c[1], c[2]), reverse=True)
    _, _, _, C, threshold, model = candidates[0]
    coef = model.coef_[0].astype(np.float32)
    intercept = float(np.float32(model.intercept_[0]))

    def score(matrix):
        return sigmoid(matrix @ coef.astype(np.float64) + intercept)

    val_scores, held_scores = score(X["validation"]), score(X["heldout"])
    validation = report(by["validation"], val_scores, threshold)
    heldout = report(by["heldout"], held_scores, threshold)
    curve = {str(t): report(by["heldout"], held_scores, t)["all"] for t in (0.3, 0.5, 0.7, 0.9)}
    missed = [r["text"] for r, s in zip(by["heldout"], held_scores) if r["label"] == 1 and s < threshold]
    flagged = [r["text"] for r, s in zip(by["heldout"], held_scores) if r["label"] == 0 and s >= threshold]
    answer_threshold = min(threshold, answer_calibrate(val_scores, by["validation"]))
    answer_heldout = report(by["heldout"], held_scores, answer_threshold)
    print(f"chosen C={C}, threshold {threshold}, answer threshold {answer_threshold}")
    print("held out at the answer threshold:", json.dumps(answer_heldout))
    print("held out:", json.dumps(heldout, indent=1))
    print("held out, missed:", *missed, sep="\n  ")
    print("held out, flagged policy sentences:", *flagged, sep="\n  ")

    args.out.mkdir(parents=True, exist_ok=True)
    weights_file = args.out / "weights.f32"
    weights_file.write_bytes(coef.astype("<f4").tobytes())
    data_digest = hashlib.sha256("\n".join(f"{r['label']}\t{r['split']}\t{r['text']}" for r in rows).encode()).hexdigest()
    # A few texts with the score this export gives them: the product must compute the same (test/injection.test.ts).
    rng = np.random.default_rng(SEED)
    pick = sorted(set(rng.choice(len(by["heldout"]), 24, replace=False).tolist()) | {i for i, r in enumerate(by["heldout"]) if r["label"] == 1 and r["source"].startswith("corpus:")})
    manifest = {
        "model_id": "injection-lr-hashed-ngrams-v1",
        "kind": "logistic regression over hashed word 1-2-grams and character 3-5-grams (training/injection/features.py)",
        "buckets": args.buckets,
        "intercept": intercept,
        "threshold": threshold,
        "answer_threshold": answer_threshold,
        "data": {
            "sha256": data_digest,
            "train": len(by["train"]),
            "validation": len(by["validation"]),
            "heldout": len(by["heldout"]),
            "validation_groups": sorted(VALIDATION_GROUPS),
            "heldout_groups": sorted(HELDOUT_GROUPS),
        },
        "training": {"C": C, "class_weight": "balanced", "seed": SEED},
        "validation": validation,
        "heldout": {"at_threshold": heldout, "at_answer_threshold": answer_heldout, "curve": curve},
        "parity": [[by["heldout"][i]["text"], float(held_scores[i])] for i in pick],
        "files": {"weights.f32": hashlib.sha256(weights_file.read_bytes()).hexdigest()},
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
