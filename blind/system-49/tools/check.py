#!/usr/bin/env python3
"""Checks cases.yaml against repo/: YAML parses, ids exist, support is in force, forbid is not."""
import yaml, os, re, sys, datetime, glob
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
AS_OF = datetime.date(2026, 10, 14)
revs = []
cfg = yaml.safe_load(open(os.path.join(ROOT, 'repo/assistant.yaml')))
ent_keys = set(cfg['entities'])
errors = []
pairs = set()
for p in sorted(glob.glob(os.path.join(ROOT, 'repo/**/*.md'), recursive=True)):
    txt = open(p, encoding='utf-8').read()
    m = re.match(r'^---\n(.*?)\n---\n', txt, re.S)
    if not m: errors.append(f'{p}: no front matter'); continue
    fm = yaml.safe_load(m.group(1))
    for k in ('source_id', 'title', 'status', 'effective_date'):
        if k not in fm: errors.append(f'{p}: missing {k}')
    if not re.fullmatch(r'[a-z0-9][a-z0-9._-]*', fm['source_id']): errors.append(f'{p}: bad source_id')
    if fm['status'] not in ('approved', 'draft', 'retired'): errors.append(f'{p}: bad status')
    if not isinstance(fm['effective_date'], datetime.date): errors.append(f'{p}: bad date')
    for k in fm:
        if k not in ('source_id','title','status','effective_date','version','review_by','owner','audience') and k not in ent_keys:
            errors.append(f'{p}: unknown key {k}')
        if k in ent_keys and fm[k] not in cfg['entities'][k]: errors.append(f'{p}: unknown entity value {fm[k]}')
    pair = (fm['source_id'], str(fm.get('version')))
    if pair in pairs: errors.append(f'{p}: duplicate pair {pair}')
    pairs.add(pair)
    fm['audience'] = fm.get('audience', ['patient', 'staff'])
    fm['path'] = os.path.relpath(p, ROOT)
    revs.append(fm)

def in_force(role):
    best = {}
    for r in revs:
        if r['status'] != 'approved' or r['effective_date'] > AS_OF or role not in r['audience']: continue
        b = best.get(r['source_id'])
        if b is None or r['effective_date'] > b['effective_date']: best[r['source_id']] = r
    return {(r['source_id'], str(r['version'])) for r in best.values()}

sources = {r['source_id'] for r in revs}
cases = yaml.safe_load(open(os.path.join(ROOT, 'cases.yaml'), encoding='utf-8'))
forces = {role: in_force(role) for role in ('patient', 'staff')}
for cs in cases:
    role = cs.get('role', 'patient')
    assert cs['expect'] in ('answer', 'abstain', 'clarify', 'out_of_scope'), cs['id']
    for fld in ('support', 'forbid'):
        for ref in cs.get(fld, []) or []:
            sid, _, ver = ref.partition('@')
            if sid not in sources: errors.append(f"{cs['id']}: {fld} unknown source {sid}")
            elif ver and (sid, ver) not in pairs: errors.append(f"{cs['id']}: {fld} unknown revision {ref}")
            if fld == 'support' and (sid, ver) not in forces[role]:
                errors.append(f"{cs['id']}: support {ref} is not in force for {role} on {AS_OF}")
            if fld == 'forbid' and ver and (sid, ver) in forces[role]:
                errors.append(f"{cs['id']}: forbid {ref} IS in force for {role}")
    if cs['expect'] == 'answer' and not cs.get('support'): errors.append(f"{cs['id']}: answer without support")
    for f in cs.get('facts', []) or []:
        assert isinstance(f, list) and f and all(isinstance(x, str) for x in f), cs['id']
never = sorted((r['source_id'], str(r['version']), r['status'], str(r['effective_date']), ','.join(r['audience'])) for r in revs
               if (r['source_id'], str(r['version'])) not in forces['patient'])
print(f'{len(revs)} revisions, {len(sources)} sources, {len(cases)} cases')
print('never answer a patient:'); [print('  ', *x) for x in never]
print('\n'.join(errors) if errors else 'OK: no errors')
sys.exit(1 if errors else 0)
