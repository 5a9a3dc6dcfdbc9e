import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { normalizeQuestion, routeScope } from './src/policy/index.js';
const f = parse(readFileSync('test/fixtures/scope-phrasings.yaml','utf8')) as Record<string,string[]>;
for (const [kind, list] of Object.entries(f)) {
  let bad = 0;
  for (const q of list) {
    const d = routeScope(normalizeQuestion(q).normalized);
    const got = d.inScope ? 'in_scope' : d.reason === 'EMERGENCY' ? 'emergency' : 'clinical';
    if (got !== kind) { bad++; console.log(`${kind} -> ${got}: ${q}${d.inScope ? '' : '  ['+d.rule+']'}`); }
  }
  console.log(kind, list.length, 'wrong', bad);
}
