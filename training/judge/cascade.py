"""Two trained judges read together (candidate C, docs/support-judge.md): the first reads every unit;
the second also reads each unit the first scores at `--second-from` or more, and such a unit's score
is the sigmoid of the mean of the two models' logits (any other unit keeps the first's score). The
threshold is chosen on the validation split by the rule finetune.py uses for one judge
(calibration.py). Writes the cascade's manifest, which pins both members' manifests by sha256; the
members stay in their own folders (models/judge/minilm and models/judge/bge-small).

    python training/judge/cascade.py --data PAIRS.jsonl --first models/judge/minilm --second models/judge/bge-small --out models/judge-cascade"""
import argparse, hashlib, json, sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from minilm import int8_probabilities, int8_session, load_tokenizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibration import heldout_report, precision_recall, question_threshold  # noqa: E402


def member(folder):
    """A member's manifest, its sha256, and a function giving its P(answers) for rows, scored as the product scores (one row per run)."""
    folder = Path(folder)
    raw = (folder / "manifest.json").read_bytes()
    manifest = json.loads(raw)
    tokenizer = load_tokenizer(str(folder / "tokenizer.json"))
    session = int8_session(folder)

    def encode(batch):
        return tokenizer([r["question"] for r in batch], [r["text"] for r in batch], padding=True, truncation="only_second",
                         max_length=manifest["max_length"], return_tensors="pt")
    return manifest, hashlib.sha256(raw).hexdigest(), lambda rows: int8_probabilities(session, encode, rows)


def combined(first, second, second_from):
    """The cascade's P(answers): the mean logit where the first model's score reaches second_from, else the first's."""
    logit = lambda p: np.log(p[:, 1]) - np.log(p[:, 0])
    mean = 1 / (1 + np.exp(-(logit(first) + logit(second)) / 2))
    return np.where(first[:, 1] >= second_from, mean, first[:, 1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--first", required=True)
    ap.add_argument("--second", required=True)
    ap.add_argument("--second-from", type=float, default=0.05)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threshold", type=float, help="the threshold, chosen elsewhere (candidate C': on dev sets 30-37 at v7's refusal rate), instead of validation's")
    args = ap.parse_args()
    rows = [json.loads(l) for l in open(args.data, encoding="utf-8") if l.strip()]
    split = {s: [r for r in rows if r["split"] == s] for s in ["validation", "heldout"]}
    print({s: len(v) for s, v in split.items()})
    m1, sha1, first = member(args.first)
    m2, sha2, second = member(args.second)
    scored = {}
    for name, rs in split.items():
        p1, p2 = first(rs), second(rs)
        scored[name] = combined(p1, p2, args.second_from)
        print(f"{name}: the second model read {int((p1[:, 1] >= args.second_from).sum())} of {len(rs)} pairs")
    sv = scored["validation"]
    chosen, at, cost, questions = question_threshold(split["validation"], sv)
    print(f"question-level cost on {questions} validation questions at {chosen}: {at} (at 0.5: {cost(0.5)}, at 0.9: {cost(0.9)})")
    threshold = chosen if args.threshold is None else args.threshold
    if args.threshold is not None:
        print(f"threshold {threshold} as given (question-level cost there: {cost(threshold)})")
    print(f"threshold {threshold} (validation: {precision_recall(split['validation'], sv, threshold)})")
    heldout = heldout_report(split["heldout"], scored["heldout"], threshold)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "model_id": f"judge-cascade({m1['model_id']}+{m2['model_id']},from={args.second_from})",
        "combine": "mean-logit",
        "second_from": args.second_from,
        "threshold": threshold,
        "threshold_chosen_by": "validation split, question-level cost" if args.threshold is None else "given (--threshold)",
        "members": {"first": {"dir": Path(args.first).name, "manifest_sha256": sha1}, "second": {"dir": Path(args.second).name, "manifest_sha256": sha2}},
        "data": {"sha256": hashlib.sha256(open(args.data, "rb").read()).hexdigest(), **{f"{s}_pairs": len(v) for s, v in split.items()}},
        "heldout": heldout,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out / 'manifest.json'} (sha256 {hashlib.sha256((out / 'manifest.json').read_bytes()).hexdigest()})")


if __name__ == "__main__":
    main()
