"""Fine-tunes MiniLM-L6 as the support judge, a cross-encoder over (question, unit read under its
page title) that says whether the unit answers the question; picks the decision threshold on the
validation split as the product uses it (per question, the best unit against the threshold; an
unsupported answer costs twice a wrong abstention), and reports precision and recall of "answers" on held-out systems, overall and per
hard-negative kind. Writes a model folder (int8 ONNX, tokenizer, configs, manifest): the judge's first member,
models/judge/minilm, when run by train.sh.

    python training/judge/finetune.py --data PAIRS.jsonl --minilm MINILM_DIR --out models/judge/minilm"""
import argparse, json, os, random, sys
from collections import Counter
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from minilm import BASES, export, int8_probabilities, int8_session, load_classifier, sha256, train, write_model_folder  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibration import heldout_report, precision_recall, question_threshold  # noqa: E402

LABELS = ["other", "answers"]


def question_batches(rows, batch):
    """Batches of whole questions (every unit read for a question in one batch), questions in random order."""
    groups = {}
    for r in rows:
        groups.setdefault((r["system"], r["question"]), []).append(r)
    keys = sorted(groups)

    def epoch(rng):
        rng.shuffle(keys)
        current = []
        for k in keys:
            current.extend(groups[k])
            if len(current) >= batch:
                yield current
                current = []
        if current:
            yield current
    return epoch


def listwise_loss(weight):
    """Per question with an answering unit and another, a softmax over its units' "answers" margins
    that puts the answering units first: the judge must rank the unit that states the asked detail
    above its neighbours on the same topic, not only score each alone."""
    def loss(logits, b):
        margin = logits[:, 1] - logits[:, 0]
        labels = torch.tensor([r["label"] for r in b])
        ranked, start = [], 0
        for end in range(1, len(b) + 1):
            if end == len(b) or (b[end]["system"], b[end]["question"]) != (b[start]["system"], b[start]["question"]):
                m, lab = margin[start:end], labels[start:end]
                if 0 < int(lab.sum()) < len(lab):
                    ranked.append(torch.logsumexp(m, 0) - torch.logsumexp(m[lab == 1], 0))
                start = end
        return weight * torch.stack(ranked).mean() if ranked else torch.zeros(())
    return loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--minilm", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-length", type=int, default=160)
    ap.add_argument("--base", choices=sorted(BASES), default="minilm-l6", help="pretrained encoder to fine-tune (bge-small: twice the layers and the cost per token)")
    ap.add_argument("--layers", type=int, help="encoder layers kept (default: all of the base's; fewer cost less per token)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--reuse-export", action="store_true")
    ap.add_argument("--listwise", type=float, default=0.0,
                    help="weight of a per-question loss that ranks the answering unit above the other units read for the same question")
    ap.add_argument("--then", help="second-stage pairs (JSONL, train split): read after the first stage, from its weights")
    ap.add_argument("--then-epochs", type=int, default=1)
    ap.add_argument("--then-lr", type=float, default=1e-5)
    ap.add_argument("--checkpoint", help="first-stage weights: loaded when this file exists and was trained on the same data and options, else written")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(os.cpu_count() or 2)
    rng = random.Random(args.seed)

    rows = [json.loads(l) for l in open(args.data, encoding="utf-8") if l.strip()]
    split = {s: [r for r in rows if r["split"] == s] for s in ["train", "validation", "heldout"]}
    print({s: len(v) for s, v in split.items()})
    full = BASES[args.base][1]
    args.layers = full if args.layers is None else args.layers
    tokenizer, model = load_classifier(args.minilm, LABELS, layers=args.layers, base=args.base)
    length = lambda r: len(r["question"]) + len(r["text"])

    def encode(batch):
        return tokenizer([r["question"] for r in batch], [r["text"] for r in batch], padding=True, truncation="only_second",
                         max_length=args.max_length, return_tensors="pt")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # Re-scoring an exported model (--reuse-export) keeps the training time its manifest recorded.
    seconds = json.loads((out / "manifest.json").read_text())["training"]["seconds"] if args.reuse_export and (out / "manifest.json").exists() else None
    if not args.reuse_export:
        def stage(train_rows, epochs, lr):
            counts = Counter(r["label"] for r in train_rows)
            weights = torch.tensor([len(train_rows) / (2 * counts[c]) for c in [0, 1]], dtype=torch.float)
            grouped = {"epoch_batches": question_batches(train_rows, args.batch), "extra_loss": listwise_loss(args.listwise)} if args.listwise > 0 else {}
            return train(model, train_rows, encode, lambda b: [r["label"] for r in b], epochs=epochs, lr=lr,
                         batch=args.batch, rng=rng, class_weights=weights, length=length, **grouped)
        # A checkpoint is reused only for the data and options it was trained with.
        key = {"data": sha256(args.data), "epochs": args.epochs, "lr": args.lr, "batch": args.batch, "layers": args.layers,
               "base": args.base, "seed": args.seed, "listwise": args.listwise, "max_length": args.max_length}
        saved = torch.load(args.checkpoint) if args.checkpoint and os.path.exists(args.checkpoint) else None
        if saved is not None and saved["key"] == key:
            model.load_state_dict(saved["state"])
            seconds = saved["seconds"]
            print(f"first stage from {args.checkpoint}")
        else:
            seconds = stage(split["train"], args.epochs, args.lr)
            if args.checkpoint:
                torch.save({"key": key, "state": model.state_dict(), "seconds": seconds}, args.checkpoint)
        if args.then:
            second = [json.loads(l) for l in open(args.then, encoding="utf-8") if l.strip()]
            print({"second stage": len(second)})
            seconds += stage(second, args.then_epochs, args.then_lr)
        export(model, encode(split["validation"][:2]), out)

    sess = int8_session(out)

    def scores(rs):
        return int8_probabilities(sess, encode, rs)[:, 1]

    sv = scores(split["validation"])
    threshold, at, cost, questions = question_threshold(split["validation"], sv)
    print(f"question-level cost on {questions} validation questions at {threshold}: {at} (at 0.5: {cost(0.5)}, at 0.9: {cost(0.9)})")
    print(f"threshold {threshold} (validation: {precision_recall(split['validation'], sv, threshold)})")

    sh = scores(split["heldout"])
    heldout = heldout_report(split["heldout"], sh, threshold)
    with open(out / "heldout-scores.jsonl", "w", encoding="utf-8") as f:
        for r, x in zip(split["heldout"], sh):
            f.write(json.dumps({**{k: r[k] for k in ["system", "question", "text", "label", "kind"]}, "score": round(float(x), 4)}) + "\n")

    manifest = write_model_folder(out, args.minilm, model, {
        "model_id": f"judge-{args.base}-ft-int8" if args.layers == full else f"judge-{args.base}-first{args.layers}-ft-int8",
        "base": BASES[args.base][2],
        "labels": LABELS,
        "threshold": threshold,
        "max_length": args.max_length,
        "input": "question [SEP] judgeText(page title, headings, unit) (src/cite/units.ts)",
        "data": {"sha256": sha256(args.data), **{f"{s}_pairs": len(v) for s, v in split.items()},
                 **({"second_stage": {"sha256": sha256(args.then), "pairs": sum(1 for l in open(args.then, encoding="utf-8") if l.strip())}} if args.then else {})},
        "training": {"layers": args.layers, "epochs": args.epochs, "lr": args.lr, "batch": args.batch, "seed": args.seed, "listwise": args.listwise, "seconds": seconds,
                     **({"second_stage": {"epochs": args.then_epochs, "lr": args.then_lr}} if args.then else {})},
        "heldout": heldout,
    })
    print(f"wrote {out}; model_quantized.onnx sha256 {manifest['files']['model_quantized.onnx']}")


if __name__ == "__main__":
    main()
