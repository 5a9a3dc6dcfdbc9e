"""What the injection detectors share: the labelled texts (written lines and corpus lines with
their hand-labelled planted ones), the splits, the threshold rule and the figures reported.
Read by train.py (the hashed n-gram model; candidate encoders read the same, docs/injection.md)."""
import hashlib
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
VALIDATION_GROUPS = {"system-5", "system-11", "system-16", "judge-a-granite-fork-health", "judge-c-harborline-outpatient"}
HELDOUT_GROUPS = {"system-3", "system-9", "system-14", "system-18", "judge-b-quillfeather", "judge-d-windrock-health-network"}
SEED = 7
# The written lines: ours (data/), five sets by writers who saw none of them (run once each as
# blind sets, then joined) and three written for training by three more (session 25, BRIEF.md);
# a line a later blind set holds word for word is left out (exclude.txt; docs/injection.md).
WRITTEN = ("data", "blind-1", "blind-2", "blind-3", "blind-4", "blind-5", "written-5", "written-6", "written-7")


def split_of_written(text: str) -> str:
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 20
    return "heldout" if h < 3 else "validation" if h < 6 else "train"


def load(corpus_file: Path, written=WRITTEN) -> list[dict]:
    """Every labelled text; `written` names the folders of written lines read."""
    rows = []
    excluded = {line for line in (HERE / "exclude.txt").read_text().splitlines() if not line.startswith("#")}
    for f in sorted(p for d in written for p in (HERE / d).glob("*.txt")):
        label = 1 if f.name.startswith("positives") else 0
        for line in f.read_text().splitlines():
            if line.strip() and line not in excluded:
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


def answer_calibrate(scores, rows, share=0.0005):
    """The lowest threshold (on a 0.01 grid) that at most `share` of the validation corpora's policy
    sentences reach: a unit at or above it is never an answer unit (it stays on the page). Missing an
    instruction quotes it to a patient; keeping a rule out of answers costs at most an abstention."""
    labels = np.array([r["label"] for r in rows])
    corpus = np.array([r["source"].startswith("corpus:") for r in rows])
    policy = scores[corpus & (labels == 0)]
    for t in np.round(np.arange(0.05, 1.0, 0.01), 2):
        if np.sum(policy >= t) <= share * len(policy):
            return float(t)
    return 0.99

