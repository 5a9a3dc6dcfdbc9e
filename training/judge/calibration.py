"""How a judge's threshold is chosen and its held-out figures computed; shared by finetune.py (one
model) and cascade.py (two models read together), so both are calibrated by the same rule."""


def precision_recall(rows, scores, t):
    """Precision and recall of "answers" at threshold t over labelled pairs."""
    tp = sum(1 for r, x in zip(rows, scores) if x >= t and r["label"] == 1)
    fp = sum(1 for r, x in zip(rows, scores) if x >= t and r["label"] == 0)
    fn = sum(1 for r, x in zip(rows, scores) if x < t and r["label"] == 1)
    return {"precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0, "tp": tp, "fp": fp, "fn": fn}


def question_threshold(rows, scores):
    """The threshold as the product uses it: per question, the best-scored unit answers when it
    reaches the threshold. Over the validation questions, an unsupported answer (the top unit does
    not answer) costs 2 and a wrong abstention (some unit answers, none reaches it) costs 1; the
    cheapest of 0.05 … 0.99 wins (ties: the higher). Returns (threshold, cost at it, cost function,
    number of questions)."""
    groups = {}
    for r, x in zip(rows, scores):
        groups.setdefault((r["system"], r["question"]), []).append((x, r["label"]))

    def cost(t):
        total = 0
        for g in groups.values():
            top, label = max(g)
            total += (2 if label == 0 else 0) if top >= t else (1 if any(l for _, l in g) else 0)
        return total
    threshold = min((t / 100 for t in range(5, 100)), key=lambda t: (cost(t), -t))
    return threshold, cost(threshold), cost, len(groups)


def heldout_report(rows, scores, threshold):
    """Held-out figures at the threshold, a curve, and how each hard-negative kind was judged (printed too)."""
    at = precision_recall(rows, scores, threshold)
    print(f"held-out systems {sorted({r['system'] for r in rows})}: {at}")
    curve = {str(t): precision_recall(rows, scores, t) for t in [0.3, 0.5, 0.7, 0.9]}
    for t, m in curve.items():
        print(f"  at {t}: precision {m['precision']:.3f} recall {m['recall']:.3f}")
    kinds = {}
    for r, x in zip(rows, scores):
        k = kinds.setdefault(r["kind"], {"n": 0, "judged_answers": 0, "label": r["label"]})
        k["n"] += 1
        k["judged_answers"] += int(x >= threshold)
    for kind, k in sorted(kinds.items()):
        print(f"  {kind:22} n={k['n']:3} judged answers {k['judged_answers']:3} ({'should' if k['label'] else 'should not'})")
    return {"systems": sorted({r["system"] for r in rows}), "at_threshold": at, "curve": curve, "by_kind": kinds}
