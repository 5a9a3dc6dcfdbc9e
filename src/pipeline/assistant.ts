import {
  assertNever,
  CitetraceError,
  IsoDateSchema,
  isStale,
  labelOf,
  TraceIdSchema,
  type AssistantConfig,
  type EntityMentions,
  type IsoDate,
  type LabeledPassage,
  type Outcome,
  type Reason,
  type RevisionMeta,
  type ScopeDecision,
  type Role,
  type SourceId,
  type Trace,
} from '../domain/index.js';
import { answers, findConflict, judgeSupport, namesNone, type JudgedUnit, type NeutralReading, type SupportDecision } from '../cite/index.js';
import { generateValidated } from './generate-stage.js';
import type { Generator } from '../generate/index.js';
import type { SupportJudge } from '../judge/index.js';
import { abstentionMessage, actedForAge, actingFor, askedPeriods, asksPlaceHours, datedDays, channelOfHours, clarifyQuestion, dayExclusion, eachValueAnswer, everyValueRow, habitualDays, isPlaceType, quoteLead, mentionedEntities, namesAnotherPerson, namesAskedDay, namesAskedDayAlone, noRequestMessage, normalizeQuestion, periodExclusion, placeNeutral, quantifiedTypes, routingMessage, shippedInjectionDetector, speaksOnlyOfMinors, type AskedPeriod, type InjectionDetector } from '../policy/index.js';
import type { ScopeRouter } from '../scope/index.js';
import { offeredPassages } from './offer.js';
import type { Hit, Retriever } from '../retrieve/index.js';
import {
  ioContent,
  NOOP_TELEMETRY,
  retrievalAttributes,
  retrievalContent,
  traceAttributes,
  type Telemetry,
} from '../telemetry/index.js';
import type { TraceStore } from '../trace/index.js';

export interface AssistantDeps {
  readonly assistant: AssistantConfig;
  readonly retriever: Retriever;
  /** The revision of each source in force for a role on a date (the question may ask about another day than today). */
  readonly inForce: (query: { readonly role: Role; readonly asOf: IsoDate }) => ReadonlyMap<SourceId, Pick<RevisionMeta, 'revision' | 'effectiveDate'>>;
  readonly router: ScopeRouter;
  /** Whether a unit of text answers the question: the support decision. */
  readonly judge: SupportJudge;
  readonly generator: Generator;
  /** Answers when a model-backed generator's drafts fail validation or the model errs (the extractive generator). */
  readonly fallback?: Generator;
  readonly store: TraceStore;
  readonly embedderId: string;
  readonly indexSnapshot: string;
  /**
   * Passages retrieved, offered to the generator at most, and units the judge reads at most per question; the judge
   * score a unit of a passage ranked below the k best must reach for its passage to be offered.
   */
  readonly settings: { readonly candidates: number; readonly k: number; readonly judgeUnits: number; readonly beyondKThreshold: number };
  readonly clock: () => Date;
  readonly newId: () => string;
  /** Replaces identifiers with typed placeholders in what is persisted; answering uses the original. */
  readonly redact: (text: string) => string;
  /** A span per ask and per stage; default: none. */
  readonly telemetry?: Telemetry;
  /**
   * Settles when the models behind router, retriever and judge are loaded, for a one-shot command that starts on its
   * question while they load: no trace is committed before it, and one that failed to load fails the question.
   */
  readonly ready?: Promise<void>;
}

/** Typed placeholders left by redaction, e.g. [NAME], in any case. */
const PLACEHOLDER = /\[([a-z_]+)\]/giu;
/** What redaction puts in place of a person's name. */
const PERSON_PLACEHOLDER = '[NAME]';
/**
 * A name that introduces the asker ("I'm [NAME]", "its [NAME] here", "my name is [NAME]") or someone the asker acts
 * for ("my son [NAME]", "my wife [NAME]"): the question is not about that person's own schedule.
 */
const INTRODUCED_NAME = /\b(?:i'?m|i am|it'?s|this is|my name is|name's|my \p{L}+)\s+\[NAME\]/giu;
const NAMES_NO_PERSON = 'names no person, and the question asks about a named one';
const ONLY_MINORS = 'speaks only of minors and their parents or guardians, and the question is about an adult';
/** A unit stating a phone line's (or portal's) hours, for a question about when a place is open. */
const channelHoursExclusion = (text: string): string | null => {
  const channel = channelOfHours(text);
  return channel === null ? null : `states the ${channel}'s hours, and the question asks when a place is open`;
};
const ACTS_FOR_NO_PERSON = (who: string): string => `names no one but the patient, and the question asks what ${who.startsWith('my ') ? who.replace(/^my /u, "the patient's ") : `a ${who}`} may do`;
/** A placeholder with the words that introduced it ("my dob is [DOB]"): noise to retrieval and support. */
const IDENTIFIER_CLAUSE =
  /(?:\b(?:(?:my|the|his|her|our) )?(?:dob|d\.o\.b\.?|date of birth|birth ?date|birthday|born(?: on)?|mrn|medical record(?: number)?|chart(?: number)?|patient (?:id|number)|member(?: id| number)?|insurance(?: id| number)?|policy(?: number)?|subscriber(?: id)?|group(?: number)?|ssn|social security(?: number)?|social|e-?mail(?: address)?|(?:cell |home |mobile )?phone(?: number)?|cell|number|name|address|(?:i )?live at)\b(?:\s*(?:is|:|#|=))?\s*)?\[[a-z_]+\]/giu;

export interface AskRequest {
  readonly question: string;
  readonly role: Role;
  /** Policies in force on this date; default: today by the injected clock. */
  readonly asOf?: IsoDate | undefined;
  readonly signal?: AbortSignal;
}

export interface Assistant {
  ask(request: AskRequest): Promise<Trace>;
}

/** The end of every path: what the user is shown and why. */
interface Decision {
  readonly outcome: Outcome;
  readonly reason: Reason | null;
  readonly answer: string;
  readonly sentences: Trace['sentences'];
  readonly citations: Trace['citations'];
  readonly detail: string | null;
  readonly rejected: Trace['rejected'];
  readonly generation: Trace['generation'];
}

const ROUTE_REASON = { emergency: 'EMERGENCY', crisis: 'CRISIS', clinical: 'CLINICAL', language: 'UNSUPPORTED_LANGUAGE' } as const satisfies Record<Exclude<ScopeDecision['route'], 'in_scope' | 'no_request'>, Reason>;

/** Why a message was routed away, in one line for operators. */
function routingDetail(routing: ScopeDecision): string {
  switch (routing.decided_by) {
    case 'floor':
      return `safety floor phrase: ${routing.floor_phrase ?? ''}`;
    case 'language': {
      const language = routing.language;
      const read = language?.clause == null ? 'the message' : `the clause "${language.clause}"`;
      return `language identifier ${language?.model ?? ''}: ${read} reads as ${language?.code ?? 'not English'}`;
    }
    case 'phatic':
      return 'the message asks nothing: greetings, thanks or acknowledgements only';
    case 'model':
    case 'none':
      return `scope classifier ${routing.model}: ${routing.route} (urgent ${routing.urgent.toFixed(3)}, clinical ${routing.scores.clinical.toFixed(3)})`;
    case 'second_model':
      return `second scope classifier ${routing.second?.model ?? ''}: ${routing.route} (urgent ${routing.second?.urgent.toFixed(3) ?? ''} >= ${routing.second?.threshold ?? ''}; first classifier urgent ${routing.urgent.toFixed(3)})`;
    default:
      return assertNever(routing.decided_by);
  }
}

/**
 * The judge's part of the trace: its identity and threshold, the injection detector's (which kept
 * text addressed to a machine reader out of the units), every unit it scored, and every unit a
 * hard check excluded.
 */
function supportRecord(support: SupportDecision, injection: InjectionDetector, beyondK: number): NonNullable<Trace['support_decision']> {
  return {
    judge: { ...support.judge, threshold_beyond_k: beyondK },
    injection: { model: injection.modelId, sha256: injection.sha256, threshold: injection.threshold, answer_threshold: injection.answerThreshold },
    units_total: support.units.length,
    ...(support.neutralQuestion === null ? {} : { neutral_question: support.neutralQuestion }),
    units: support.units.flatMap((u) =>
      u.score === null && u.excluded === null
        ? []
        : [
            {
              label: u.label,
              kind: u.kind,
              start: u.start,
              end: u.end,
              text: u.text,
              score: u.score,
              ...(u.neutralScore === null ? {} : { neutral_score: u.neutralScore }),
              ...(u.excluded === null ? {} : { excluded: u.excluded }),
            },
          ],
    ),
  };
}

/**
 * SN″'s second reading (docs/support-judge.md, session 40): for a question naming a place and asking about single days that
 * no answering unit states, the units about no place that state those days (a closure for every clinic) are read again
 * with the place said neutrally ("the clinic"): the judge reads a unit that does not name the clinic asked as one about
 * another, and which clinics a unit is about is the typed checks' to say. Undefined: no such question.
 */
function neutralReading(analysis: string, mentioned: EntityMentions, periods: readonly AskedPeriod[], asOf: IsoDate, assistant: AssistantConfig): NeutralReading | undefined {
  const types = Object.keys(mentioned).filter((t) => isPlaceType(t) && (mentioned[t] ?? []).length > 0);
  if (types.length === 0 || datedDays(periods).length === 0) return undefined;
  const question = placeNeutral(analysis, assistant, types);
  if (question === analysis) return undefined;
  const statesDays = (u: JudgedUnit): boolean => namesAskedDay(u, periods, asOf);
  return { question, types, select: (units, answering) => (units.some((u) => answering(u) && statesDays(u)) ? null : statesDays) };
}

/** A citation with its revision's review_by date and whether the revision was stale on as_of (reported, still usable). */
function reviewed(citation: Trace['citations'][number], labeled: readonly LabeledPassage[], asOf: IsoDate): Trace['citations'][number] {
  const revision = labeled.find((p) => p.label === citation.label)?.revision;
  return revision === undefined || revision.reviewBy === null ? citation : { ...citation, review_by: revision.reviewBy, stale: isStale(revision, asOf) };
}

/**
 * Every candidate in rank order, with the judge's best score per passage and whether it was offered once those are known. Each
 * is built whole rather than copied with a field more: on Node 20 `{ ...r, offered: true }` costs about a microsecond per
 * field added (`npx tsx bench/object-spread.ts`).
 */
function retrievedOf(labeled: readonly LabeledPassage[], hits: readonly Hit[], judged: ReadonlyMap<string, number> = new Map(), offered: ReadonlySet<string> = new Set()): Trace['retrieved'] {
  return labeled.map((p, i) => {
    const hit = hits[i];
    const best = judged.get(p.label);
    const candidate = {
      label: p.label,
      source_id: p.passage.sourceId,
      revision: p.passage.revision,
      version: p.revision.version,
      chunk_id: p.passage.chunkId,
      start: p.passage.start,
      end: p.passage.end,
      text: p.passage.text,
      score: hit?.score ?? 0,
      rank: i + 1,
      components: { ...(hit?.components ?? {}) },
      offered: offered.has(p.label),
    };
    return best === undefined ? candidate : Object.assign(candidate, { judged: best });
  });
}

/**
 * The pipeline, the only place that knows the stage order:
 * normalize -> route scope (safety floor, classifier) -> retrieve in force for role and date -> label -> clarify ->
 * generate from labeled passages -> validate -> redact -> persist the trace -> answer or abstain.
 */
export function createAssistant(deps: AssistantDeps): Assistant {
  // Loaded (and its pinned files checked) at start-up, not at the first question.
  const injection = shippedInjectionDetector();
  // The deployment's entity types that name places: a day's rule about none of them holds at every site (SN″).
  const placeTypes = Object.keys(deps.assistant.entities).filter(isPlaceType);
  const abstain = (reason: Reason, detail: string, rejected: Trace['rejected'] = [], generation: Trace['generation'] = null): Decision => ({
    outcome: 'abstain',
    reason,
    answer: abstentionMessage(deps.assistant),
    sentences: [],
    citations: [],
    detail,
    rejected,
    generation,
  });

  const telemetry = deps.telemetry ?? NOOP_TELEMETRY;

  return {
    ask: (request: AskRequest): Promise<Trace> => telemetry.root('ask', 'CHAIN', async (root) => {
      const { question, stored, storedNormalized, analysis } = await root.child('normalize', 'CHAIN', () => {
        const question = normalizeQuestion(request.question);
        // Store the minimum: identifiers never reach the trace. Routing, retrieval and the support
        // decision read the redacted form without placeholders (names and numbers are noise to
        // them, and a replay of the stored question then sees what the live run saw); only the
        // generator gets the original, in memory.
        const stored = deps.redact(question.original);
        const storedNormalized = normalizeQuestion(stored).normalized.replace(PLACEHOLDER, (_m, t: string) => `[${t.toUpperCase()}]`);
        const analysis = storedNormalized.replace(IDENTIFIER_CLAUSE, ' ').replace(/\s+/gu, ' ').trim();
        return { question, stored, storedNormalized, analysis };
      });
      const asOf = request.asOf ?? deps.clock().toISOString().slice(0, 10);
      if (!IsoDateSchema.safeParse(asOf).success) throw new CitetraceError('BAD_INPUT', `as_of ${asOf} is not a date (YYYY-MM-DD, a day that exists)`);

      let labeled: LabeledPassage[] = [];
      let retrieved: Trace['retrieved'] = [];
      let supportDecision: Trace['support_decision'] = null;
      let questionAnalysis: Trace['question_analysis'] = null;
      let scopeDecision: Trace['scope_decision'];
      const decide = async (): Promise<Decision> => {
        const routed = root.child('route', 'CHAIN', async (span) => {
          // The floor also reads the unredacted question, in memory: redaction must never hide a crisis line.
          const routed = await deps.router.route({ text: analysis, unredacted: question.normalized });
          span.set({ 'citetrace.in_scope': routed.route === 'in_scope', 'citetrace.route': routed.route, 'citetrace.route_decided_by': routed.decided_by });
          return routed;
        });
        // What the question asks about is read while the router's model runs, and used only for a question kept in
        // scope: nothing in it can delay or stop a routing.
        const read = Promise.resolve().then(() => ({
          mentioned: mentionedEntities(analysis, deps.assistant, { typos: true }),
          every: quantifiedTypes(analysis, deps.assistant),
          periods: askedPeriods(analysis, asOf),
          // Weekdays asked about as habits ("open on sundays?"): the rule of every such day, not one date's.
          habitual: habitualDays(analysis),
          // Whether the question asks about a named person (a provider, say), not one it introduces.
          namesPerson: stored.replace(INTRODUCED_NAME, ' ').includes(PERSON_PLACEHOLDER),
          // Someone acting for the patient ("can my wife cancel my appointment"), or the patient for someone.
          actsFor: actingFor(analysis),
          // Whether the one acted for is an adult by the words ("my 80 year old mom's proxy"): a child's rule does not answer.
          actedFor: actedForAge(analysis),
          // Whether it asks when a place is open ("what time do you close tonight"): a phone line's hours do not answer.
          placeHours: asksPlaceHours(analysis),
        }));
        read.catch(() => undefined);
        const routing = await routed;
        scopeDecision = routing;
        if (routing.route === 'no_request') {
          return { outcome: 'clarify', reason: 'NO_REQUEST', answer: noRequestMessage(deps.assistant), sentences: [], citations: [], detail: routingDetail(routing), rejected: [], generation: null };
        }
        if (routing.route !== 'in_scope') {
          return {
            outcome: 'out_of_scope',
            reason: ROUTE_REASON[routing.route],
            answer: routingMessage(routing.route, deps.assistant, routing.language?.english === false && routing.language.reliable ? routing.language.code : null),
            sentences: [],
            citations: [],
            detail: routingDetail(routing),
            rejected: [],
            generation: null,
          };
        }
        const { mentioned, every, periods, habitual, namesPerson, actsFor, actedFor, placeHours } = await read;
        questionAnalysis = { periods, ...(habitual.length > 0 ? { habitual_days: habitual } : {}), entities: Object.fromEntries(Object.entries(mentioned).map(([t, v]) => [t, [...v]])), every, names_person: namesPerson, acts_for: actsFor, acted_for_age: actedFor, asks_place_hours: placeHours };
        let hits: readonly Hit[] = [];
        await root.child('retrieve', 'RETRIEVER', async (span) => {
          span.setContent(() => ioContent(analysis, null));
          hits = await deps.retriever.retrieve({
            query: analysis,
            role: request.role,
            asOf,
            entities: mentioned,
            limit: deps.settings.candidates,
            days: datedDays(periods),
            ...(request.signal ? { signal: request.signal } : {}),
          });
          labeled = hits.map((h, i) => ({ label: labelOf(i), passage: h.passage, revision: h.revision }));
          retrieved = retrievedOf(labeled, hits);
          span.set(() => retrievalAttributes(retrieved));
          span.setContent(() => retrievalContent(retrieved));
        });
        if (labeled.length === 0) return abstain('NO_SUPPORT', 'nothing in force for this role and date matched');

        // Support gate: which units of the candidates answer what was asked (a retrieval score is relevance, never proof).
        // Every candidate is judged, and the judge, not the retrieval rank, decides what the generator is offered: a rule
        // ranked seventh that answers is the answer, and a Harbor rule ranked sixth still means an Eastside-only answer
        // would be a guess (clarification below).
        const support = await root.child('judge', 'RERANKER', async (span) => {
          const judged = await judgeSupport({
            judge: deps.judge,
            injection,
            question: analysis,
            passages: labeled,
            maxUnits: deps.settings.judgeUnits,
            assistant: deps.assistant,
            mentioned,
            passageExclusion: (p) => periodExclusion(p, periods, asOf, (day) => deps.inForce({ role: request.role, asOf: day })),
            neutral: neutralReading(analysis, mentioned, periods, asOf, deps.assistant),
            // A table row about other days than asked does not answer (New Year's Eve's hours for Christmas Eve). A question
            // about a named person (redaction found one) is answered only by a unit that names a person: a generic rule
            // does not say whether that provider still sees patients, takes new ones, or works on Fridays.
            // A question about what someone may do for the patient (or the patient for someone) is answered only by a unit that
            // speaks of a person other than the patient: "you can cancel in the portal" does not say whether a wife may.
            unitExclusion: (unit, text) =>
              dayExclusion(unit, periods, habitual, asOf) ??
              (namesPerson && !deps.redact(unit.text).includes(PERSON_PLACEHOLDER) ? NAMES_NO_PERSON : null) ??
              (actsFor !== null && !namesAnotherPerson(text) ? ACTS_FOR_NO_PERSON(actsFor) : null) ??
              (actedFor !== null && actedFor !== 'minor' && speaksOnlyOfMinors(text, actedFor) ? ONLY_MINORS : null) ??
              (placeHours ? channelHoursExclusion(unit.text) : null),
          });
          span.set({
            'citetrace.judge.model': judged.judge.model,
            'citetrace.judge.threshold': judged.judge.threshold,
            'citetrace.judge.units': judged.units.filter((u) => u.score !== null).length,
            'citetrace.judge.answering': judged.addressing.size,
          });
          return judged;
        });
        supportDecision = supportRecord(support, injection, deps.settings.beyondKThreshold);
        const best = new Map<string, number>();
        for (const u of support.units) if (u.score !== null) best.set(u.label, Math.max(best.get(u.label) ?? 0, u.score));
        retrieved = retrievedOf(labeled, hits, best);
        const { k, beyondKThreshold } = deps.settings;
        // Passages every unit of which was set aside before judging take none of the k places offered.
        const kept = new Set(support.units.filter((u) => u.excluded === null).map((u) => u.label));
        const setAside = new Set(support.units.filter((u) => !kept.has(u.label)).map((u) => u.label));
        const answering = {
          candidates: support.units.filter((u) => answers(support, u)).map((u) => ({ label: u.label, start: u.start, end: u.end, named: u.named, row: u.cells ?? null, score: u.score ?? 0 })),
          mentioned,
          every,
          assistant: deps.assistant,
        };
        // A question about every site best answered by a row with a column per site is not asked which site (below), so
        // the row is what the answer quotes, wherever its passage ranked.
        const row = everyValueRow(answering);
        // A question about a day (Christmas Eve) is answered by the unit that states that day (the holiday table's row for
        // December 24), wherever its passage ranked: the site's regular pages outrank it by words and meaning alike.
        const dated = row === null ? (support.units.find((u) => answers(support, u) && namesAskedDay(u, periods, asOf)) ?? null) : null;
        const must = row ?? dated;
        let offered = offeredPassages({ labeled, answering: support.addressing, best, k, beyondKThreshold, setAside, mustOffer: must === null ? [] : [must.label] });
        if (offered.length === 0) {
          const top = (from: number, to: number): string => Math.max(0, ...labeled.slice(from, to).map((p) => best.get(p.label) ?? 0)).toFixed(2);
          const below = labeled.length > k ? `; below the ${k} best-retrieved ${top(k, labeled.length)} < ${beyondKThreshold}` : '';
          return abstain('NO_SUPPORT', `no offered unit answers the question (best judge score ${top(0, k)} < ${support.judge.threshold}${below})`);
        }
        // A day's rule for every site (SN″): when the answering units that state the single days asked, each as a day of its
        // own, are all about no site, that day's rule holds at every site, and the question is not asked which one.
        const dayUnits = datedDays(periods).length > 0 ? support.units.filter((u) => answers(support, u) && namesAskedDayAlone(u, periods, asOf)) : [];
        const clarification = dayUnits.length > 0 && dayUnits.every((u) => namesNone(u.named, placeTypes)) ? null : clarifyQuestion(answering);
        // Nor is a question about every site whose answer is on several sites' pages: it is answered site by site.
        const each = clarification === null ? null : eachValueAnswer(answering, clarification);
        if (clarification !== null && each === null) {
          return {
            outcome: 'clarify',
            reason: 'UNDERSPECIFIED',
            answer: clarification.question,
            sentences: [],
            citations: [],
            detail: `leading passages differ by ${clarification.entityType} (${clarification.ground}: ${clarification.evidence.join(', ')}): ${clarification.options.join(', ')}`,
            rejected: [],
            generation: null,
          };
        }

        if (each !== null) offered = offeredPassages({ labeled, answering: support.addressing, best, k, beyondKThreshold, setAside, mustOffer: each.quoted.map((q) => q.candidate.label) });
        // Two sources in force for the same scope that state the asked detail differently: citing either would hide it.
        const conflict = findConflict(support, offered);
        if (conflict !== null) return abstain('CONFLICTING_REVISIONS', `offered passages disagree on what was asked: ${conflict.detail}`);

        // What the answer must quote, and why: each site's unit for a question about every site, else the asked day's unit.
        const quoting =
          each !== null
            ? {
                quote: each.quoted.flatMap(({ candidate, value }) => {
                  const p = offered.find((o) => o.label === candidate.label);
                  return p === undefined ? [] : [{ label: candidate.label, start: candidate.start, end: candidate.end, lead: quoteLead({ title: p.revision.title, headings: p.passage.headings }, each.entityType, value, deps.assistant) }];
                }),
                detail: `a question about every ${each.entityType}, answered ${each.entityType} by ${each.entityType}: ${each.quoted.map((q) => `${q.candidate.label} ${q.value ?? 'system-wide'}`).join(', ')}`,
              }
            : dated !== null
              ? { quote: [{ label: dated.label, start: dated.start, end: dated.end }], detail: `a question about ${periods.map((p) => `"${p.text}"`).join(', ')}, answered from the unit of ${dated.label} that states that day` }
              : null;

        // The generator phrases, the judge decides.
        const offeredLabels = new Set(offered.map((p) => p.label));
        retrieved = retrievedOf(labeled, hits, best, offeredLabels);
        const generated = await generateValidated(
          deps.generator,
          {
            question: question.original,
            analysis,
            passages: offered,
            support,
            ...(quoting === null ? {} : { quote: quoting.quote }),
            ...(request.signal ? { signal: request.signal } : {}),
          },
          root,
          { judge: deps.judge, ...(deps.fallback === undefined ? {} : { fallback: deps.fallback }) },
        );
        if (!generated.ok) return abstain(generated.reason, generated.detail, generated.rejected, generated.generation);
        return {
          outcome: 'answer',
          reason: null,
          answer: generated.sentences.map((s) => s.text).join(' '),
          sentences: generated.sentences,
          citations: generated.citations.map((c) => reviewed(c, labeled, asOf)),
          detail: quoting?.detail ?? null,
          rejected: generated.rejected,
          generation: generated.generation,
        };
      };

      const decision = await decide();
      const trace: Trace = {
        trace_id: TraceIdSchema.parse(deps.newId()),
        created_at: deps.clock().toISOString(),
        query: stored,
        normalized_query: storedNormalized,
        role: request.role,
        as_of: asOf,
        ...decision,
        retrieved,
        question_analysis: questionAnalysis,
        support_decision: supportDecision,
        ...(scopeDecision === undefined ? {} : { scope_decision: scopeDecision }),
        config: {
          retriever: deps.retriever.id,
          embedder: deps.embedderId,
          generator: deps.generator.id,
          prompt_version: deps.generator.promptVersion,
          index_snapshot: deps.indexSnapshot,
          k: deps.settings.k,
          candidates: deps.settings.candidates,
        },
        otel_trace_id: root.traceId,
      };
      root.set(() => traceAttributes(trace));
      root.setContent(() => ioContent(trace.query, trace.answer));
      if (trace.reason === 'GENERATOR_ERROR') root.fail(trace.detail ?? 'generator error');
      // No answer leaves before its trace is committed, nor a trace before every model is known good.
      await deps.ready;
      await root.child('persist', 'CHAIN', () => deps.store.append(trace));
      return trace;
    }),
  };
}
