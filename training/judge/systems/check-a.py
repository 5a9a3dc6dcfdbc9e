#!/usr/bin/env python3
"""Check the judge training systems written by writer "a" (slugs starting with "a-").

For every system folder: assistant.yaml parses, every page has valid front matter,
and every line of pairs.jsonl names an existing page and a unit copied verbatim from it.
A unit must be exactly one of:
  * a sentence of a prose paragraph,
  * a list item prefixed by its lead-in sentence ("Lead-in: item"),
  * a table row written as "Header1: cell1; Header2: cell2; ...",
  * an FAQ "### question" heading followed by its answer ("Question? Answer.").
Usage: python3 check-a.py [SYSTEM_DIR ...]   (default: every a-*, c-*, d-* and e-* folder beside this file)
"""
import json, os, re, sys, collections
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pair_format import KINDS, REQUIRED  # noqa: E402
SENT_SPLIT = re.compile(r'(?<=[.!?])\s+(?=[A-Z0-9"($])')


def split_front_matter(text):
    if not text.startswith("---\n"):
        raise ValueError("no front matter")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]), text[end + 5:]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_units(body):
    """Return dict kind -> set of units found in a page body."""
    lines = body.split("\n")
    units = {"sentence": set(), "row": set(), "list": set(), "faq": set()}
    i = 0
    last_para = None          # last prose paragraph line (for list lead-ins)
    faq_q = None
    faq_answer = []

    def close_faq():
        nonlocal faq_q, faq_answer
        if faq_q and faq_answer:
            units["faq"].add(faq_q + " " + " ".join(faq_answer))
        faq_q, faq_answer = None, []

    while i < len(lines):
        line = lines[i].rstrip()
        s = line.strip()
        if s.startswith("|"):
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i]); i += 1
            header = cells(block[0])
            for row in block[2:]:
                c = cells(row)
                if len(c) != len(header):
                    raise ValueError("table row has %d cells, header %d: %s" % (len(c), len(header), row))
                units["row"].add("; ".join("%s: %s" % (h, v) for h, v in zip(header, c)))
            last_para = None
            continue
        if s.startswith("#"):
            close_faq()
            if s.startswith("### "):
                faq_q = s[4:].strip()
            last_para = None
        elif s.startswith("- "):
            item = s[2:].strip()
            if last_para is not None:
                lead = SENT_SPLIT.split(last_para)[-1]
                if lead.endswith(":"):
                    units["list"].add(lead + " " + item)
            if faq_q:
                faq_answer.append(item)
        elif s:
            for sent in SENT_SPLIT.split(s):
                units["sentence"].add(sent.strip())
            last_para = s
            if faq_q:
                faq_answer.append(s)
        i += 1
    close_faq()
    return units


def check_system(d):
    errors = []
    cfg = yaml.safe_load(open(os.path.join(d, "assistant.yaml")))
    for k in ("organization", "appointment_channel", "entities"):
        if k not in cfg:
            errors.append("assistant.yaml: missing %s" % k)
    clinics = set((cfg.get("entities") or {}).get("clinic", {}))
    pages = {}
    ids = collections.Counter()
    for name in sorted(os.listdir(os.path.join(d, "pages"))):
        if not name.endswith(".md"):
            continue
        rel = "pages/" + name
        fm, body = split_front_matter(open(os.path.join(d, rel), encoding="utf-8").read())
        for k in REQUIRED:
            if k not in fm:
                errors.append("%s: missing %s" % (rel, k))
        if fm.get("status") not in ("approved", "draft", "retired"):
            errors.append("%s: bad status" % rel)
        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", str(fm.get("source_id", ""))):
            errors.append("%s: bad source_id" % rel)
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(fm.get("effective_date"))):
            errors.append("%s: bad effective_date" % rel)
        tag = fm.get("clinic")
        for t in ([tag] if isinstance(tag, str) else (tag or [])):
            if t not in clinics:
                errors.append("%s: unknown clinic %s" % (rel, t))
        ids[fm.get("source_id")] += 1
        pages[rel] = parse_units(body)
    for sid, n in ids.items():
        if n > 1:
            errors.append("source_id %s used by %d pages" % (sid, n))
    counts = collections.Counter()
    kinds = collections.Counter()
    seen = set()
    for n, line in enumerate(open(os.path.join(d, "pairs.jsonl"), encoding="utf-8"), 1):
        p = json.loads(line)
        if set(p) != {"question", "page", "unit", "label", "kind"}:
            errors.append("line %d: keys %s" % (n, sorted(p)))
            continue
        if p["page"] not in pages:
            errors.append("line %d: no page %s" % (n, p["page"])); continue
        if p["kind"] not in KINDS.get(p["label"], ()):
            errors.append("line %d: kind %s not allowed for %s" % (n, p["kind"], p["label"]))
        u = pages[p["page"]]
        if not any(p["unit"] in u[k] for k in u):
            errors.append("line %d: unit not found verbatim in %s: %s" % (n, p["page"], p["unit"][:90]))
        key = (p["question"], p["unit"])
        if key in seen:
            errors.append("line %d: duplicate pair" % n)
        seen.add(key)
        counts[p["label"]] += 1
        kinds[(p["label"], p["kind"])] += 1
    return errors, counts, kinds, len(pages)


def main():
    dirs = sys.argv[1:] or sorted(os.path.join(HERE, x) for x in os.listdir(HERE)
                                  if x[:2] in ("a-", "c-", "d-", "e-") and os.path.isdir(os.path.join(HERE, x)))
    bad = 0
    for d in dirs:
        errors, counts, kinds, npages = check_system(d)
        total = sum(counts.values())
        print("%s: %d pages, %d pairs, %s" % (os.path.basename(d), npages, total,
              ", ".join("%s %d (%.0f%%)" % (l, counts[l], 100.0 * counts[l] / max(total, 1))
                        for l in ("answers", "related", "unrelated"))))
        print("   " + ", ".join("%s/%s %d" % (l, k, c) for (l, k), c in sorted(kinds.items())))
        for e in errors:
            print("   ERROR " + e)
        bad += len(errors)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
