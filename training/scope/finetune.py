"""Fine-tunes MiniLM-L6 as the scope classifier (admin / clinical / emergency / crisis), calibrates
its routing thresholds on the validation split with the int8 model as the product runs it, and
writes models/scope (int8 ONNX, tokenizer, configs, manifest with hashes and metrics).

    python training/scope/finetune.py --data DATA.jsonl --minilm MINILM_DIR --out models/scope

CPU only, seeded. See training/scope/train.sh for the whole rebuild."""
import argparse, json, math, os, random, sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from minilm import BASES, batches, export, int8_probabilities, int8_session, load_classifier, sha256, train, write_model_folder  # noqa: E402

CLASSES = ["admin", "clinical", "emergency", "crisis"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--minilm", required=True, help="folder with all-minilm-l6-v2.onnx and all-minilm-l6-v2-tokenizer.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--base", choices=sorted(BASES), default="minilm-l6", help="pretrained encoder to fine-tune")
    ap.add_argument("--layers", type=int, help="encoder layers kept (default: all of the base's)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--reuse-export", action="store_true", help="skip training; calibrate and evaluate the int8 model already in --out")
    ap.add_argument("--variants", type=int, default=0, help="per epoch, this many random variants of each training message (0: all of them)")
    ap.add_argument("--source-cap", type=int, default=0, help="per epoch, at most this many messages of any one source (0: no cap)")
    ap.add_argument("--boost", action="append", default=[], help="SOURCE_PREFIX=N: messages of these sources give N variants per epoch")
    ap.add_argument("--val-probs", help="write the validation rows with the int8 model's probabilities here (JSON lines)")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)

    rows = [json.loads(l) for l in open(args.data, encoding="utf-8") if l.strip()]
    train_rows = [r for r in rows if r["split"] == "train"]
    val = [r for r in rows if r["split"] == "validation"]
    print(f"train {len(train_rows)} rows, validation {len(val)} rows")
    tokenizer, model = load_classifier(args.minilm, CLASSES, args.layers, args.base)

    def encode(batch):
        return tokenizer([r["text"] for r in batch], padding=True, truncation=True, max_length=args.max_length, return_tensors="pt")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # Re-scoring an exported model (--reuse-export) keeps the training time its manifest recorded.
    seconds = json.loads((out / "manifest.json").read_text())["training"]["seconds"] if args.reuse_export and (out / "manifest.json").exists() else None
    if args.reuse_export:
        print(f"reusing {out / 'model_quantized.onnx'}")
    else:
        boosts = [(b.split("=")[0], int(b.split("=")[1])) for b in args.boost]
        by_base = {}
        for r in train_rows:
            by_base.setdefault(r["base"], []).append(r)
        by_source = {}
        for variants in by_base.values():
            by_source.setdefault(variants[0].get("source", ""), []).append(variants)

        def sample(rng):
            # Per epoch: at most --source-cap messages of each source, --variants variants of each message
            # (or as many as --boost gives its source), so no single source or augmentation dominates.
            rows = []
            for source, messages in sorted(by_source.items()):
                chosen = messages if not args.source_cap or len(messages) <= args.source_cap else rng.sample(messages, args.source_cap)
                k = next((n for prefix, n in boosts if source.startswith(prefix)), args.variants)
                for variants in chosen:
                    rows.extend(variants if not k or k >= len(variants) else rng.sample(variants, k))
            return rows

        epoch_rows = sample(random.Random(args.seed)) if (args.variants or args.source_cap or boosts) else train_rows
        print(f"{len(epoch_rows)} rows per epoch from {len(by_base)} messages of {len(by_source)} sources")
        counts = [sum(r["label"] == c for r in epoch_rows) for c in CLASSES]
        weights = torch.tensor([len(epoch_rows) / (len(CLASSES) * n) for n in counts], dtype=torch.float)
        epoch_batches = (lambda rng: (b for _, b in batches(sample(rng), args.batch, True, rng))) if epoch_rows is not train_rows else None
        seconds = train(model, epoch_rows, encode, lambda b: [CLASSES.index(r["label"]) for r in b],
                        epochs=args.epochs, lr=args.lr, batch=args.batch, rng=rng, class_weights=weights, epoch_batches=epoch_batches)
        export(model, encode(val[:2]), out)

    # Everything below reads the int8 model through onnxruntime, as the product runs it.
    sess = int8_session(out)

    # Calibrate: the lowest thresholds that send at most 1% of validation admin rows away; never above 0.5 for urgent.
    p = int8_probabilities(sess, encode, val)
    labels = [r["label"] for r in val]
    if args.val_probs:
        with open(args.val_probs, "w", encoding="utf-8") as f:
            for r, q in zip(val, p):
                f.write(json.dumps({**r, "p": [round(float(x), 6) for x in q]}) + "\n")
    admin = p[[l == "admin" for l in labels]]

    def lowest_allowing(scores, share=0.01):
        s = np.sort(scores)[::-1]
        return math.ceil((s[int(len(s) * share)] + 1e-6) * 100) / 100

    urgent = min(0.5, lowest_allowing(admin[:, 2] + admin[:, 3]))
    clinical = lowest_allowing(admin[:, 1])
    thresholds = {"urgent": urgent, "clinical": clinical}

    def route(row):
        if row[2] + row[3] >= urgent:
            return "crisis" if row[3] > row[2] else "emergency"
        return "clinical" if row[1] >= clinical else "admin"

    confusion = {t: {c: 0 for c in CLASSES} for t in CLASSES}
    for t, g in zip(labels, map(route, p)):
        confusion[t][g] += 1
    per_class = []
    for c in CLASSES:
        tp = confusion[c][c]
        support = sum(confusion[c].values())
        predicted = sum(confusion[t][c] for t in CLASSES)
        per_class.append({"label": c, "precision": tp / predicted if predicted else 1.0, "recall": tp / support if support else 1.0, "support": support})
    print(f"thresholds {thresholds}")
    print("validation confusion (rows true, columns routed):", json.dumps(confusion))
    for m in per_class:
        print(f"  {m['label']:9} precision {m['precision']:.3f} recall {m['recall']:.3f} (n={m['support']})")

    manifest = write_model_folder(out, args.minilm, model, {
        "model_id": "scope-minilm-l6-ft-int8" if args.base == "minilm-l6" else f"scope-{args.base}-ft-int8",
        "base": BASES[args.base][2],
        "classes": CLASSES,
        "thresholds": thresholds,
        "max_length": args.max_length,
        "data": {"sha256": sha256(args.data), "train_rows": len(train_rows), "validation_rows": len(val)},
        "training": {"layers": model.config.num_hidden_layers, "epochs": args.epochs, "lr": args.lr, "batch": args.batch, "seed": args.seed, "seconds": seconds},
        "validation": {"confusion": confusion, "per_class": per_class},
    })
    print(f"wrote {out}; model_quantized.onnx sha256 {manifest['files']['model_quantized.onnx']}")


if __name__ == "__main__":
    main()
