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

HERE = Path(__file__).resolve().parent
VALIDATION_GROUPS = {"system-5", "system-11", "system-16", "judge-a-granite-fork-health", "judge-c-harborline-outpatient"}
HELDOUT_GROUPS = {"system-3", "system-9", "system-14", "system-18", "judge-b-quillfeather", "judge-d-windrock-health-network"}
SEED = 7


def split_of_written(text: str) -> str:
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 20
    return "heldout" if h < 3 else "validation" if h < 6 else "train"


def load(corpus_file: Path) -> list[dict]:
    rows = []
    for f in sorted((HERE / "data").glob("*.txt")):
        label = 1 if f.name.startswith("positives-") else 0
        for line in f.read_text().splitlines():
            if line.strip():
                rows.append({"text": line.strip(), "label": label, "source": f"written:{f.stem}", "split": split_of_written(line.strip())})
    planted = {}
    for line in (HERE / "data" / "planted.tsv").read_text().splitlines()[1:]:
        label, group, text = line.split("\t")
        planted[text] = label
    found = set()
    for line in corpus_file.read_text().splitlines():
        r = json.loads(line)
        mark = planted.get(r["text"])
        if mark is not None:
            found.add(r["text"])
        if mark == "skip":
            continue
        g = r["group"]
        split = "heldout" if g in HELDOUT_GROUPS else "validation" if g in VALIDATION_GROUPS else "train"
        rows.append({"text": r["text"], "label": 1 if mark == "1" else 0, "source": f"corpus:{g}", "split": split})
    missing = set(planted) - found
    if missing:
        raise SystemExit(f"planted.tsv names texts the corpora do not hold: {sorted(missing)[:3]}")
    return rows


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def counts(scores, labels, threshold):
    pred = scores >= threshold
    tp = int(np.sum(pred & (labels == 1)))
    fp = int(np.sum(pred & (labels == 0)))
    fn = int(np.sum(~pred & (labels == 1)))
    return {"tp": tp, "fp": fp, "fn": fn, "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0}


def report(rows, scores, threshold):
    labels = np.array([r["label"] for r in rows])
    corpus = np.array([r["source"].startswith("corpus:") for r in rows])
    return {
        "all": counts(scores, labels, threshold),
        "corpora": {**counts(scores[corpus], labels[corpus], threshold), "sentences": int(np.sum(corpus & (labels == 0))), "planted": int(np.sum(corpus & (labels == 1)))},
        "written": {**counts(scores[~corpus], labels[~corpus], threshold), "positives": int(np.sum(~corpus & (labels == 1))), "negatives": int(np.sum(~corpus & (labels == 0)))},
    }


def calibrate(scores, rows):
    """The lowest threshold (on a 0.01 grid) that flags no validation policy sentence of the corpora
    and at most 1% of the written hard negatives: a false positive drops a real rule."""
    labels = np.array([r["label"] for r in rows])
    corpus = np.array([r["source"].startswith("corpus:") for r in rows])
    neg_corpus = scores[corpus & (labels == 0)]
    neg_written = scores[~corpus & (labels == 0)]
    for t in np.round(np.arange(0.05, 1.0, 0.01), 2):
        if np.sum(neg_corpus >= t) == 0 and np.sum(neg_written >= t) <= 0.01 * len(neg_written):
            return float(t)
    return 0.99


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
    print(f"chosen C={C}, threshold {threshold}")
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
        "heldout": {"at_threshold": heldout, "curve": curve},
        "parity": [[by["heldout"][i]["text"], float(held_scores[i])] for i in pick],
        "files": {"weights.f32": hashlib.sha256(weights_file.read_bytes()).hexdigest()},
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
