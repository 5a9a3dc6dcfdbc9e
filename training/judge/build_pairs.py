"""The support judge's data set: (question, unit, label) from training/judge/systems/*/pairs.jsonl,
each unit read under its page title (as the product reads a passage under its title and headings),
plus two easy negatives per question that need no labelling (a unit of another system; a unit of
another page of the same system that no labelled pair ties to the question). Split by system:
the held-out systems measure the judge on policy sets it never saw.

    python training/judge/build_pairs.py OUT.jsonl"""
import json
import random
import re
import sys
from pathlib import Path

SYSTEMS = Path(__file__).resolve().parent / "systems"
HELD_OUT = {"a-granite-fork-health", "b-quillfeather"}
VALIDATION_SHARE = 0.15


def title_of(page):
    m = re.search(r"^title:\s*(.+)$", page.read_text(encoding="utf-8"), re.M)
    return m.group(1).strip().strip('"') if m else ""


def main():
    out = sys.argv[1]
    rng = random.Random(7)
    rows = []
    units_by_system = {}
    for system in sorted(p for p in SYSTEMS.iterdir() if p.is_dir()):
        pairs = [json.loads(l) for l in (system / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
        titles = {p["page"]: title_of(system / p["page"]) for p in pairs}
        units_by_system[system.name] = sorted({(p["page"], p["unit"]) for p in pairs})
        for p in pairs:
            rows.append({"system": system.name, "question": p["question"], "text": f"{titles[p['page']]}: {p['unit']}",
                         "label": 1 if p["label"] == "answers" else 0, "kind": p["kind"], "page": p["page"]})
    extra = []
    questions = sorted({(r["system"], r["question"]) for r in rows})
    for system, question in questions:
        pages = {r["page"] for r in rows if r["system"] == system and r["question"] == question}
        own = [u for u in units_by_system[system] if u[0] not in pages]
        others = [u for s, us in units_by_system.items() if s != system for u in us]
        for kind, pool, sys_name in [("other-page", own, system), ("other-system", others, None)]:
            if not pool:
                continue
            page, unit = rng.choice(pool)
            owner = sys_name or next(s for s, us in units_by_system.items() if (page, unit) in us)
            title = title_of(SYSTEMS / owner / page)
            extra.append({"system": system, "question": question, "text": f"{title}: {unit}", "label": 0, "kind": kind, "page": page})
    rows += extra
    for r in rows:
        if r["system"] in HELD_OUT:
            r["split"] = "heldout"
        else:
            r["split"] = "validation" if (hash_of(r["question"]) < VALIDATION_SHARE) else "train"
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    for split in ["train", "validation", "heldout"]:
        s = [r for r in rows if r["split"] == split]
        print(f"{split}: {len(s)} pairs, {sum(r['label'] for r in s)} answer")


def hash_of(text):
    import hashlib
    return int.from_bytes(hashlib.sha256(text.lower().encode()).digest()[:4], "big") / 2**32


if __name__ == "__main__":
    main()
