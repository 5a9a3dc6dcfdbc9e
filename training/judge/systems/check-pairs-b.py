#!/usr/bin/env python3
"""Check the b-* judge training systems.

For every system directory given (default: every b-* directory next to this file):
  * assistant.yaml has organization, appointment_channel and clinic entities;
  * every page has valid front matter (contract section 1) and a clinic tag, if any,
    that assistant.yaml declares; source_ids are unique within the system;
  * every pairs.jsonl line has question/page/unit/label/kind, a label/kind pair from
    the brief, and a unit copied verbatim from its page:
      - plain units (sentences, FAQ question + answer) appear in the page text with
        whitespace collapsed;
      - table rows 'Header1: cell1; Header2: cell2' have every header and cell in the page;
      - list items 'Lead-in sentence: item' have the lead-in and the item in the page.
Exit 1 on any problem.
"""
import json, os, re, sys, glob, collections

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pair_format import KINDS, REQUIRED  # noqa: E402

def norm(s):
    return re.sub(r'\s+', ' ', s).strip()

def front_matter(text):
    m = re.match(r'^---\n(.*?)\n---\n', text, re.S)
    if not m:
        return None, text
    fm = {}
    for line in m.group(1).split('\n'):
        line = re.sub(r'\s+#.*$', '', line)
        if not line.strip():
            continue
        k, _, v = line.partition(':')
        fm[k.strip()] = v.strip()
    return fm, text[m.end():]

def clinics(path):
    vals, in_clinic = set(), False
    for line in open(path, encoding='utf-8'):
        if re.match(r'^  clinic:\s*$', line):
            in_clinic = True; continue
        if in_clinic:
            m = re.match(r'^    ([a-z0-9][a-z0-9._-]*):', line)
            if m:
                vals.add(m.group(1))
            elif re.match(r'^  \S', line) or re.match(r'^\S', line):
                in_clinic = False
    return vals

def unit_in_page(unit, body):
    nb = norm(body)
    # page text with markdown markers removed from line starts (bullets, headings, table pipes)
    lines = [re.sub(r'^\s*(?:[-*]|\d+\.|#+)\s+', '', l) for l in body.split('\n')]
    nl = norm(' '.join(lines))
    if norm(unit) in nb or norm(unit) in nl:
        return True
    # table row
    if '; ' in unit and all(': ' in part for part in unit.split('; ')):
        ok = True
        for part in unit.split('; '):
            h, _, c = part.partition(': ')
            if not any(h == x.strip() for x in body.replace('|', '\n').split('\n')) or \
               not any(c == x.strip() for x in body.replace('|', '\n').split('\n')):
                ok = False
        if ok:
            return True
    # list item with its lead-in sentence
    items = [re.sub(r'^\s*(?:[-*]|\d+\.)\s+', '', l).strip() for l in body.split('\n')
             if re.match(r'^\s*(?:[-*]|\d+\.)\s+', l)]
    for it in items:
        if unit.endswith(' ' + it):
            lead = unit[:-len(it) - 1]
            if lead.endswith(':') and lead in nb:
                return True
    return False

def check(sysdir):
    errs = []
    name = os.path.basename(sysdir.rstrip('/'))
    ay = os.path.join(sysdir, 'assistant.yaml')
    txt = open(ay, encoding='utf-8').read()
    for k in ('organization:', 'appointment_channel:', 'entities:'):
        if k not in txt:
            errs.append(f'{ay}: missing {k}')
    cl = clinics(ay)
    if not 3 <= len(cl) <= 4:
        errs.append(f'{ay}: {len(cl)} clinics')
    pages, sids = {}, collections.Counter()
    for p in sorted(glob.glob(os.path.join(sysdir, 'pages', '*.md'))):
        raw = open(p, 'rb').read()
        text = raw.decode('utf-8')
        fm, body = front_matter(text)
        if fm is None:
            errs.append(f'{p}: no front matter'); continue
        for k in REQUIRED:
            if k not in fm:
                errs.append(f'{p}: missing {k}')
        if fm.get('status') != 'approved':
            errs.append(f'{p}: status {fm.get("status")}')
        if not re.fullmatch(r'\d{4}-\d{2}-\d{2}', fm.get('effective_date', '')):
            errs.append(f'{p}: bad effective_date')
        if not re.fullmatch(r'[a-z0-9][a-z0-9._-]*', fm.get('source_id', '')):
            errs.append(f'{p}: bad source_id')
        if 'clinic' in fm and fm['clinic'] not in cl:
            errs.append(f'{p}: unknown clinic {fm["clinic"]}')
        sids[fm.get('source_id')] += 1
        pages['pages/' + os.path.basename(p)] = body
    for s, n in sids.items():
        if n > 1:
            errs.append(f'{name}: source_id {s} used {n} times')
    if not 10 <= len(pages) <= 14:
        errs.append(f'{name}: {len(pages)} pages')
    labels = collections.Counter()
    pj = os.path.join(sysdir, 'pairs.jsonl')
    for i, line in enumerate(open(pj, encoding='utf-8'), 1):
        r = json.loads(line)
        for k in ('question', 'page', 'unit', 'label', 'kind'):
            if not r.get(k):
                errs.append(f'{pj}:{i}: missing {k}')
        if r.get('kind') not in KINDS.get(r.get('label'), ()):
            errs.append(f'{pj}:{i}: bad label/kind {r.get("label")}/{r.get("kind")}')
        if r.get('page') not in pages:
            errs.append(f'{pj}:{i}: unknown page {r.get("page")}'); continue
        if not unit_in_page(r['unit'], pages[r['page']]):
            errs.append(f'{pj}:{i}: unit not in page: {r["unit"][:80]}')
        labels[r['label']] += 1
    n = sum(labels.values())
    if n < 70:
        errs.append(f'{pj}: only {n} pairs')
    print(f'{name}: {len(pages)} pages, {n} pairs ' +
          ', '.join(f'{l} {labels[l]} ({labels[l] / max(n, 1):.0%})' for l in ('answers', 'related', 'unrelated')))
    return errs

if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = sys.argv[1:] or sorted(glob.glob(os.path.join(here, 'b-*')))
    errs = []
    for d in dirs:
        errs += check(d)
    for e in errs:
        print('ERROR', e)
    sys.exit(1 if errs else 0)
