import { z } from 'zod';

/** Branded ids, built only through their schemas, so a chunk id can never stand in for a revision. */
export const SourceIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'source_id must match [a-z0-9][a-z0-9._-]*')
  .brand<'SourceId'>();
export type SourceId = z.infer<typeof SourceIdSchema>;

export const RevisionIdSchema = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'revision must be sha256: followed by 64 hex digits')
  .brand<'RevisionId'>();
export type RevisionId = z.infer<typeof RevisionIdSchema>;

/** A chunk id names its revision and its character span in that revision's body. */
export const ChunkIdSchema = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}#\d+-\d+$/, 'chunk_id must be REVISION#START-END')
  .brand<'ChunkId'>();
export type ChunkId = z.infer<typeof ChunkIdSchema>;

export const TraceIdSchema = z.uuid().brand<'TraceId'>();
export type TraceId = z.infer<typeof TraceIdSchema>;

/** A calendar date, YYYY-MM-DD, that really exists. */
export const IsoDateSchema = z.iso.date();
export type IsoDate = string;

export function chunkIdOf(revision: RevisionId, start: number, end: number): ChunkId {
  return ChunkIdSchema.parse(`${revision}#${start}-${end}`);
}

export const RoleSchema = z.enum(['patient', 'staff']);
export type Role = z.infer<typeof RoleSchema>;

/** Who holds an API key: patients and staff ask as themselves; operators also read traces, sources and metrics. */
export const KeyRoleSchema = z.enum(['patient', 'staff', 'operator']);
export type KeyRole = z.infer<typeof KeyRoleSchema>;
