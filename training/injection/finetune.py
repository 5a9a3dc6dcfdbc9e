"""Candidate E1: MiniLM-L6 fine-tuned as a binary classifier of one text (addressed to a machine
reader or not), on the labelled texts of data.py (written lines of data/ and candidates/, every
line and sentence of the corpora) with their splits. Calibrates the threshold on validation by
the same rule as train.py, measures once on the held-out sets with the int8 model as the product
runs it, and writes the model folder (int8 ONNX, tokenizer, configs, manifest).

    python finetune.py --corpus corpus.jsonl --minilm MINILM_DIR --out DIR

CPU only, seeded. See training/injection/finetune.sh for the whole rebuild."""
import argparse
import hashlib
import json
import os
import random
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from minilm import BASES, batches, export, int8_probabilities, int8_session, load_classifier, train, write_model_folder  # noqa: E402

from data import HELDOUT_GROUPS, SEED, VALIDATION_GROUPS, calibrate, load, report  # noqa: E402

LABELS = ["policy", "addressed"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--minilm", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--layers", type=int, help="encoder layers kept (default: all of MiniLM-L6's)")
    ap.add_argument("--corpus-per-epoch", type=int, default=6000, help="policy sentences of the corpora drawn per epoch (the written lines are all read every epoch)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = random.Random(SEED)

    rows = load(args.corpus, written=("data", "candidates"))
    by = {s: [r for r in rows if r["split"] == s] for s in ("train", "validation", "heldout")}
    for s, rs in by.items():
        print(f"{s}: {len(rs)} texts, {sum(r['label'] for r in rs)} addressed to a machine")
    tokenizer, model = load_classifier(args.minilm, LABELS, args.layers)

    def encode(batch):
        return tokenizer([r["text"] for r in batch], padding=True, truncation=True, max_length=args.max_length, return_tensors="pt")

    # Per epoch: every written line and planted line, and a fresh draw of the corpora's policy
    # sentences, so the written hard cases are not drowned by 13k ordinary sentences.
    kept = [r for r in by["train"] if not r["source"].startswith("corpus:") or r["label"] == 1]
    ordinary = [r for r in by["train"] if r["source"].startswith("corpus:") and r["label"] == 0]

    def sample(rng):
        return kept + rng.sample(ordinary, min(args.corpus_per_epoch, len(ordinary)))

    epoch_rows = sample(random.Random(SEED))
    positives = sum(r["label"] for r in epoch_rows)
    weights = torch.tensor([len(epoch_rows) / (2 * (len(epoch_rows) - positives)), len(epoch_rows) / (2 * positives)], dtype=torch.float)
    print(f"{len(epoch_rows)} rows per epoch, {positives} addressed; class weights {weights.tolist()}")
    seconds = train(model, epoch_rows, encode, lambda b: [r["label"] for r in b], epochs=args.epochs, lr=args.lr, batch=args.batch, rng=rng,
                    class_weights=weights, epoch_batches=lambda rng: (b for _, b in batches(sample(rng), args.batch, True, rng)))
    args.out.mkdir(parents=True, exist_ok=True)
    export(model, encode(by["validation"][:2]), args.out)

    # Everything below reads the int8 model through onnxruntime, one text per run, as the product does.
    sess = int8_session(args.out)
    scores = {s: int8_probabilities(sess, encode, rs)[:, 1] for s, rs in by.items() if s != "train"}
    threshold = calibrate(scores["validation"], by["validation"])
    validation = report(by["validation"], scores["validation"], threshold)
    heldout = report(by["heldout"], scores["heldout"], threshold)
    curve = {str(t): report(by["heldout"], scores["heldout"], t)["all"] for t in (0.3, 0.5, 0.7, 0.9)}
    print(f"threshold {threshold}")
    print("validation:", json.dumps(validation))
    print("held out:", json.dumps(heldout, indent=1))
    print("held out, missed:", *[r["text"] for r, s in zip(by["heldout"], scores["heldout"]) if r["label"] == 1 and s < threshold], sep="\n  ")
    print("held out, flagged policy sentences:", *[r["text"] for r, s in zip(by["heldout"], scores["heldout"]) if r["label"] == 0 and s >= threshold], sep="\n  ")

    # A few held-out texts with the score this export gives them: the product must compute the same.
    pick = sorted(set(np.random.default_rng(SEED).choice(len(by["heldout"]), 24, replace=False).tolist())
                  | {i for i, r in enumerate(by["heldout"]) if r["label"] == 1 and r["source"].startswith("corpus:")})
    write_model_folder(args.out, args.minilm, model, {
        "model_id": "injection-minilm-l6-ft-int8" if args.layers in (None, BASES["minilm-l6"][1]) else f"injection-minilm-l{args.layers}-ft-int8",
        "base": BASES["minilm-l6"][2],
        "labels": LABELS,
        "threshold": threshold,
        "max_length": args.max_length,
        "data": {
            "sha256": hashlib.sha256("\n".join(f"{r['label']}\t{r['split']}\t{r['text']}" for r in rows).encode()).hexdigest(),
            **{s: len(rs) for s, rs in by.items()},
            "validation_groups": sorted(VALIDATION_GROUPS),
            "heldout_groups": sorted(HELDOUT_GROUPS),
        },
        "training": {"layers": model.config.num_hidden_layers, "epochs": args.epochs, "lr": args.lr, "batch": args.batch,
                     "corpus_per_epoch": args.corpus_per_epoch, "seed": SEED, "seconds": seconds},
        "validation": validation,
        "heldout": {"at_threshold": heldout, "curve": curve},
        "parity": [[by["heldout"][i]["text"], float(scores["heldout"][i])] for i in pick],
    })
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
