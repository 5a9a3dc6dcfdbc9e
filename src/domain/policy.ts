import { z } from 'zod';
import {
  IsoDateSchema,
  RoleSchema,
  SourceIdSchema,
  type ChunkId,
  type IsoDate,
  type RevisionId,
  type Role,
  type SourceId,
} from './ids.js';

export const StatusSchema = z.enum(['approved', 'draft', 'retired']);
export type Status = z.infer<typeof StatusSchema>;

/** The front matter fields the contract fixes; any other key must be a declared entity type. */
export const FrontMatterSchema = z
  .object({
    source_id: SourceIdSchema,
    title: z.string().trim().min(1, 'title must not be empty'),
    status: StatusSchema,
    effective_date: IsoDateSchema,
    version: z.union([z.string().trim().min(1), z.number()]).transform(String).optional(),
    review_by: IsoDateSchema.optional(),
    owner: z.string().trim().min(1).optional(),
    audience: z.array(RoleSchema).min(1).default(['patient', 'staff']),
  })
  .catchall(z.unknown());
export type FrontMatter = z.output<typeof FrontMatterSchema>;

export const FIXED_FRONT_MATTER_KEYS: ReadonlySet<string> = new Set(Object.keys(FrontMatterSchema.shape));

/** `assistant.yaml` at the root of a policy repository. */
export const AssistantConfigSchema = z.object({
  organization: z.string().min(1),
  appointment_channel: z.string().min(1),
  entities: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_]*$/, 'entity type must be a lower-case identifier'),
      z.record(z.string().regex(/^[a-z0-9][a-z0-9._-]*$/), z.array(z.string().min(1))),
    )
    .default({}),
  /**
   * The deployment's own safety-floor phrases, added to the built-in ones (words matched on their
   * stems, `{a|b}` for alternatives): a message containing one is routed whatever the classifier says.
   */
  scope: z.object({ emergency: z.array(z.string().min(1)), crisis: z.array(z.string().min(1)) }).partial().optional(),
  /**
   * What a routed message is told; each defaults to the contract's text (911, the emergency
   * department, 988). `language`: the English text for a message in a language the assistant
   * cannot read (shown after the same text in the patient's language, when citetrace has it).
   * `translations`: that text in other languages, by ISO 639-1 code (`{channel}` stands for the
   * appointment channel), replacing or adding to the built-in ones.
   */
  routing_messages: z
    .object({
      emergency: z.string().min(1),
      crisis: z.string().min(1),
      clinical: z.string().min(1),
      language: z.string().min(1),
      /** What a message that asks nothing (a greeting, thanks) is told: outcome `clarify`, reason `NO_REQUEST`. */
      no_request: z.string().min(1),
      translations: z.record(z.string().regex(/^[a-z]{2}$/u, 'a translation is keyed by its ISO 639-1 code'), z.string().min(1)),
    })
    .partial()
    .optional(),
});
export type AssistantConfig = z.output<typeof AssistantConfigSchema>;

/** entity type -> canonical value, e.g. { clinic: "harbor" }. */
export type EntityTags = Readonly<Record<string, string>>;

/** entity type -> values a question names, e.g. { clinic: ["harbor"] }. */
export type EntityMentions = Readonly<Record<string, readonly string[]>>;

/** A revision may answer when, for every entity type the question names, it is tagged with a named value or not tagged (system-wide). */
export function matchesMentioned(tags: EntityTags, mentioned: EntityMentions): boolean {
  return Object.entries(mentioned).every(([type, values]) => {
    const tag = tags[type];
    return tag === undefined || values.includes(tag);
  });
}

/** One immutable revision of one source: what a policy file said, byte for byte. */
export interface Revision {
  readonly revision: RevisionId;
  readonly sourceId: SourceId;
  readonly title: string;
  readonly status: Status;
  readonly effectiveDate: IsoDate;
  readonly version: string | null;
  readonly reviewBy: IsoDate | null;
  readonly owner: string | null;
  readonly audience: readonly Role[];
  readonly entities: EntityTags;
  /** Repository-relative path the revision was first read from. */
  readonly path: string;
  /** Markdown after the front matter; passage offsets index into this string. */
  readonly body: string;
  /** The file's text before the body (the --- block): `frontMatter + body` is what `revision` hashes. */
  readonly frontMatter: string;
}

/** Revision metadata kept in memory for in-force selection (everything but the text). */
export type RevisionMeta = Omit<Revision, 'body' | 'frontMatter'> & { readonly ingestSeq: number };

/** A passage: a contiguous span [start, end) of a revision body. */
export interface Passage {
  readonly chunkId: ChunkId;
  readonly revision: RevisionId;
  readonly sourceId: SourceId;
  readonly start: number;
  readonly end: number;
  /** Exactly body.slice(start, end). */
  readonly text: string;
  /** Headings above the passage, outermost first. */
  readonly headings: readonly string[];
}
