"""The support judge's data set: (question, unit, label) from training/judge/systems/*/pairs.jsonl,
each unit read under its page title (contextualize.ts then rewrites it exactly as the product reads
it), plus pairs that need no labelling: an easy negative per question (a unit of another page of
the same system that no labelled pair ties to the question) and contrast
pairs made from each `answers` pair by editing the question only: another site of the system named
instead of the one the unit names (related, gen-other-site), another year than the one the unit
states (related, gen-other-period), and a misspelt copy (answers, gen-typo). Split by system:
the held-out systems measure the judge on policy sets it never saw.

Paraphrases (session 18, `--paraphrases`; candidate v13, not shipped): each system's
`paraphrases.jsonl` holds, per labelled question, two rewrites in patients' words that ask the same
thing with few of its words (written by helpers that read only those questions). Every labelled
pair is copied under a rewrite with the same label (kind `para-<kind>`), so the same unit answers,
or does not, however the question is worded: one rewrite per question (chosen by a hash) in the
train split, both in validation and held-out. A rewrite, and every pair made from it, keeps its
question's split. Without the option the output is what it was before.

Writer e (session 40, `--writer-e`; for the next candidate, not trained yet): five systems whose `related`
pairs are weighted toward the shipped judge's false positives on the dev pool (an unstated promise, a
neighbouring value, staff-side practice, who qualifies, a service not offered; README-e.md). Without the
option their folders are skipped, so the shipped judge's data is rebuilt as it was.

    python training/judge/build_pairs.py OUT.jsonl [--paraphrases] [--writer-e]"""
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


def site_names(system):
    """clinic slug -> its names, longest first, from the system's assistant.yaml."""
    import yaml
    config = yaml.safe_load((system / "assistant.yaml").read_text(encoding="utf-8")) or {}
    return {slug: sorted(names, key=len, reverse=True) for slug, names in ((config.get("entities") or {}).get("clinic") or {}).items()}


def names_in(text, names):
    return any(re.search(r"\b" + re.escape(n) + r"\b", text, re.I) for n in names)


def contrasts(row, sites, rng):
    """Question edits that change the label of an `answers` pair, or keep it (a typo)."""
    out = []
    context = row["text"]
    for slug, names in sites.items():
        asked = next((n for n in names if re.search(r"\b" + re.escape(n) + r"\b", row["question"], re.I)), None)
        if asked is None or not names_in(context, names):
            continue
        others = [o for o, ns in sites.items() if o != slug and not names_in(context, ns)]
        if others:
            other = sites[rng.choice(others)][0]
            out.append(("gen-other-site", 0, re.sub(r"\b" + re.escape(asked) + r"\b", other, row["question"], count=1, flags=re.I)))
        break
    for year in re.findall(r"\b20[2-3][0-9]\b", row["question"]):
        later = str(int(year) + 1)
        if year in context and later not in context:
            out.append(("gen-other-period", 0, row["question"].replace(year, later)))
            break
    words = row["question"].split()
    long_words = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if long_words and rng.random() < 0.5:
        i = rng.choice(long_words)
        w = words[i]
        j = rng.randrange(1, len(w) - 1)
        words[i] = w[:j] + w[j + 1:] if rng.random() < 0.5 else w[:j] + w[j + 1] + w[j] + w[j + 2:]
        out.append(("gen-typo", 1, " ".join(words)))
    return out


def main():
    out = sys.argv[1]
    rng = random.Random(7)
    rows = []
    kept = {}
    units_by_system = {}
    writer_e = "--writer-e" in sys.argv[2:]
    for system in sorted(p for p in SYSTEMS.iterdir() if (p / "pairs.jsonl").is_file() and (writer_e or not p.name.startswith("e-"))):
        pairs = [json.loads(l) for l in (system / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
        titles = {p["page"]: title_of(system / p["page"]) for p in pairs}
        units_by_system[system.name] = sorted({(p["page"], p["unit"]) for p in pairs})
        rewrites = paraphrases_of(system) if "--paraphrases" in sys.argv[2:] else {}
        for p in pairs:
            row = {"system": system.name, "question": p["question"], "text": f"{titles[p['page']]}: {p['unit']}",
                   "label": 1 if p["label"] == "answers" else 0, "kind": p["kind"], "page": p["page"],
                   "page_system": system.name, "title": titles[p["page"]], "unit": p["unit"]}
            rows.append(row)
            rows += [{**row, "question": q, "origin": p["question"], "rewrite": q, "kind": f"para-{p['kind']}"} for q in rewrites.get(p["question"], [])]
            if rewrites.get(p["question"]):
                kept[(system.name, p["question"])] = min(rewrites[p["question"]], key=lambda q: hash_of(p["question"] + "\x00" + q))
        sites = site_names(system)
        for r in [r for r in rows if r["system"] == system.name and r["label"] == 1]:
            for kind, label, question in contrasts(r, sites, rng):
                rows.append({**r, "question": question, "label": label, "kind": kind})
    extra = []
    questions = {(r["system"], r["question"]): r for r in rows if not r["kind"].startswith("gen-")}
    for (system, question), asked in sorted(questions.items(), key=lambda x: x[0]):
        pages = {r["page"] for r in rows if r["system"] == system and r["question"] == question}
        own = [u for u in units_by_system[system] if u[0] not in pages]
        if own:
            kind, owner = "other-page", system
            page, unit = rng.choice(own)
            title = title_of(SYSTEMS / owner / page)
            extra.append({"system": system, "question": question, "text": f"{title}: {unit}", "label": 0, "kind": kind, "page": page,
                          "page_system": owner, "title": title, "unit": unit,
                          **{k: asked[k] for k in ("origin", "rewrite") if k in asked}})
    rows += extra
    for r in rows:
        if r["system"] in HELD_OUT:
            r["split"] = "heldout"
        else:
            r["split"] = "validation" if (hash_of(r.get("origin", r["question"])) < VALIDATION_SHARE) else "train"
    rows = [r for r in rows if r["split"] != "train" or "rewrite" not in r or r["rewrite"] == kept[(r["system"], r["origin"])]]
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    for split in ["train", "validation", "heldout"]:
        s = [r for r in rows if r["split"] == split]
        print(f"{split}: {len(s)} pairs, {sum(r['label'] for r in s)} answer")


def paraphrases_of(system):
    """question -> its rewrites, from the system's paraphrases.jsonl (none when the file is absent)."""
    path = system / "paraphrases.jsonl"
    if not path.is_file():
        return {}
    return {x["q"]: x["p"] for x in (json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip())}


def hash_of(text):
    import hashlib
    return int.from_bytes(hashlib.sha256(text.lower().encode()).digest()[:4], "big") / 2**32


if __name__ == "__main__":
    main()
