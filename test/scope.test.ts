import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeQuestion, routeScope, scopeRulesWith } from '../src/policy/index.js';

const phrasings = parse(readFileSync(new URL('./fixtures/scope-phrasings.yaml', import.meta.url), 'utf8')) as {
  emergency: string[];
  clinical: string[];
  in_scope: string[];
};
const route = (q: string) => routeScope(normalizeQuestion(q).normalized);

describe('scope routing', () => {
  it('has dozens of real-sounding phrasings each way', () => {
    expect(phrasings.emergency.length).toBeGreaterThanOrEqual(30);
    expect(phrasings.clinical.length).toBeGreaterThanOrEqual(30);
    expect(phrasings.in_scope.length).toBeGreaterThanOrEqual(30);
  });

  it.each(phrasings.emergency)('routes an emergency to 911: %s', (q) => {
    expect(route(q)).toMatchObject({ inScope: false, reason: 'EMERGENCY' });
  });

  it.each(phrasings.clinical)('routes a clinical question to the care team: %s', (q) => {
    expect(route(q)).toMatchObject({ inScope: false, reason: 'CLINICAL' });
  });

  it.each(phrasings.in_scope)('keeps an appointment question that mentions a symptom in scope: %s', (q) => {
    expect(route(q)).toEqual({ inScope: true });
  });

  it('takes extra patterns from assistant.yaml', () => {
    const rules = scopeRulesWith({ clinical: ['\\bis my baby teething\\b'] });
    expect(routeScope('is my baby teething already?', rules)).toMatchObject({ inScope: false, reason: 'CLINICAL' });
    expect(routeScope('is my baby teething already?')).toEqual({ inScope: true });
  });
});
