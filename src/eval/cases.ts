import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CitetraceError, IsoDateSchema, OutcomeSchema, RoleSchema } from '../domain/index.js';

/** `source_id@version`, or a bare `source_id` meaning any revision of it. */
const RefSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]*(?:@.+)?$/, 'expected source_id or source_id@version');

/** Contract section 5. */
export const EvalCaseSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  role: RoleSchema.default('patient'),
  as_of: IsoDateSchema.optional(),
  expect: OutcomeSchema,
  support: z.array(RefSchema).default([]),
  forbid: z.array(RefSchema).default([]),
  facts: z.array(z.array(z.string().min(1)).min(1)).default([]),
  must_not_say: z.array(z.string().min(1)).default([]),
  tags: z.array(z.string()).default([]),
});
export type EvalCase = z.output<typeof EvalCaseSchema>;

export async function readCases(file: string): Promise<EvalCase[]> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    throw new CitetraceError('BAD_INPUT', `${file}: cannot read the case file`);
  }
  let data: unknown;
  try {
    data = parseYaml(raw);
  } catch (error) {
    throw new CitetraceError('BAD_INPUT', `${file}: malformed YAML: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  const parsed = z.array(EvalCaseSchema).min(1).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CitetraceError('BAD_INPUT', `${file}: case ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const seen = new Set<string>();
  for (const c of parsed.data) {
    if (seen.has(c.id)) throw new CitetraceError('BAD_INPUT', `${file}: duplicate case id ${c.id}`);
    seen.add(c.id);
  }
  return parsed.data;
}
