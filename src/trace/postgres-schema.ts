import type pg from 'pg';
import { wrapError } from '../domain/index.js';
import { GENESIS_HASH } from './canonical.js';

/**
 * Versioned migrations, applied in order inside one transaction each; `schema_migrations`
 * records what ran. Append-only is enforced by the database: triggers refuse UPDATE and DELETE,
 * and PUBLIC holds no UPDATE/DELETE grant.
 */
export const PG_MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE traces (
        seq         BIGINT PRIMARY KEY,
        trace_id    UUID NOT NULL UNIQUE,
        created_at  TIMESTAMPTZ NOT NULL,
        outcome     TEXT NOT NULL,
        reason      TEXT,
        role        TEXT NOT NULL,
        as_of       DATE NOT NULL,
        body        TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        prev_hash   TEXT NOT NULL,
        hash        TEXT NOT NULL UNIQUE
      );
      CREATE INDEX traces_outcome ON traces (outcome, reason);
      CREATE INDEX traces_created ON traces (created_at);
      CREATE FUNCTION traces_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'traces are append-only: % refused', TG_OP; END $$;
      CREATE TRIGGER traces_no_update BEFORE UPDATE ON traces FOR EACH ROW EXECUTE FUNCTION traces_refuse_change();
      CREATE TRIGGER traces_no_delete BEFORE DELETE ON traces FOR EACH ROW EXECUTE FUNCTION traces_refuse_change();
      CREATE TRIGGER traces_no_truncate BEFORE TRUNCATE ON traces FOR EACH STATEMENT EXECUTE FUNCTION traces_refuse_change();
      REVOKE UPDATE, DELETE, TRUNCATE ON traces FROM PUBLIC;`,
  },
  {
    // Retention: the only UPDATE allowed replaces a payload by its tombstone and leaves every hash and column as it was.
    version: 2,
    sql: `
      CREATE TABLE purges (id BIGSERIAL PRIMARY KEY, purged_at TIMESTAMPTZ NOT NULL, before TIMESTAMPTZ NOT NULL, traces INTEGER NOT NULL);
      CREATE FUNCTION purges_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'purges are append-only: % refused', TG_OP; END $$;
      CREATE TRIGGER purges_no_change BEFORE UPDATE OR DELETE ON purges FOR EACH ROW EXECUTE FUNCTION purges_refuse_change();
      CREATE OR REPLACE FUNCTION traces_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'UPDATE' AND (NEW.body::jsonb ->> 'purged') = 'true' AND (OLD.body::jsonb ->> 'purged') IS NULL
             AND NEW.seq = OLD.seq AND NEW.trace_id = OLD.trace_id AND NEW.created_at = OLD.created_at
             AND NEW.outcome = OLD.outcome AND NEW.reason IS NOT DISTINCT FROM OLD.reason AND NEW.role = OLD.role
             AND NEW.as_of = OLD.as_of AND NEW.body_sha256 = OLD.body_sha256 AND NEW.prev_hash = OLD.prev_hash
             AND NEW.hash = OLD.hash THEN
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'traces are append-only: % refused', TG_OP;
        END $$;
      REVOKE UPDATE, DELETE, TRUNCATE ON purges FROM PUBLIC;`,
  },
  {
    /*
     * Two roles (docs/operations.md): migrations run as the owner; the service runs as a role
     * granted INSERT and SELECT only (grantServiceRole) and purges through traces_purge, which
     * runs with the owner's rights (SECURITY DEFINER, search_path fixed at migration). The one
     * UPDATE the trigger admits turns a live trace created before the latest recorded purge's
     * cutoff into exactly that purge's tombstone (byte for byte what tombstoneOf writes).
     */
    version: 3,
    sql: `
      CREATE FUNCTION traces_tombstone(t traces, purged_at TIMESTAMPTZ) RETURNS TEXT LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
        SELECT '{"as_of":' || to_json(t.as_of::text)::text
          || ',"created_at":' || to_json(to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
          || ',"outcome":' || to_json(t.outcome)::text
          || ',"purged":true,"purged_at":' || to_json(to_char(purged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
          || ',"reason":' || coalesce(to_json(t.reason)::text, 'null')
          || ',"role":' || to_json(t.role)::text
          || ',"trace_id":' || to_json(t.trace_id::text)::text || '}' $$;
      CREATE OR REPLACE FUNCTION traces_refuse_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE latest purges%ROWTYPE;
        BEGIN
          IF TG_OP = 'UPDATE' THEN
            SELECT * INTO latest FROM purges ORDER BY id DESC LIMIT 1;
            IF latest.id IS NOT NULL AND (OLD.body::jsonb ->> 'purged') IS NULL AND OLD.created_at < latest.before
               AND NEW.body = traces_tombstone(OLD, latest.purged_at)
               AND NEW.seq = OLD.seq AND NEW.trace_id = OLD.trace_id AND NEW.created_at = OLD.created_at
               AND NEW.outcome = OLD.outcome AND NEW.reason IS NOT DISTINCT FROM OLD.reason AND NEW.role = OLD.role
               AND NEW.as_of = OLD.as_of AND NEW.body_sha256 = OLD.body_sha256 AND NEW.prev_hash = OLD.prev_hash
               AND NEW.hash = OLD.hash THEN
              RETURN NEW;
            END IF;
          END IF;
          RAISE EXCEPTION 'traces are append-only: % refused', TG_OP;
        END $$;
      CREATE FUNCTION traces_purge(p_before TIMESTAMPTZ, p_purged_at TIMESTAMPTZ) RETURNS INTEGER LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
        DECLARE n INTEGER;
        BEGIN
          SELECT count(*) INTO n FROM traces WHERE created_at < p_before AND (body::jsonb ->> 'purged') IS NULL;
          INSERT INTO purges (purged_at, before, traces) VALUES (p_purged_at, p_before, n);
          UPDATE traces SET body = traces_tombstone(traces, p_purged_at) WHERE created_at < p_before AND (body::jsonb ->> 'purged') IS NULL;
          RETURN n;
        END $$;
      REVOKE ALL ON FUNCTION traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) FROM PUBLIC;
      REVOKE ALL ON traces, purges FROM PUBLIC;`,
  },
  {
    /*
     * Audit of issue 17. A trace takes the next positive sequence number and extends the chain
     * head (a CHECK, NOT VALID so a store holding such a row still migrates and verify names the
     * row, and a trigger). Each purge records the digest of the tombstones it writes
     * (tombstonesDigest). Every function runs with search_path = the store's schema, then
     * pg_temp: pg_temp left implicit is searched first, so a caller's temporary table could
     * stand in for a table of the store inside the SECURITY DEFINER purge.
     */
    version: 4,
    sql: `
      ALTER TABLE traces ADD CONSTRAINT traces_seq_positive CHECK (seq > 0) NOT VALID;
      ALTER TABLE purges ADD COLUMN tombstones TEXT;
      CREATE FUNCTION traces_check_append() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE head RECORD;
        BEGIN
          SELECT seq, hash INTO head FROM traces ORDER BY seq DESC LIMIT 1;
          IF NEW.seq = coalesce(head.seq, 0) + 1 AND NEW.prev_hash = coalesce(head.hash, '${GENESIS_HASH}') THEN
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'traces are append-only: a trace must take the next positive sequence number and extend the chain head';
        END $$;
      CREATE TRIGGER traces_append BEFORE INSERT ON traces FOR EACH ROW EXECUTE FUNCTION traces_check_append();
      CREATE OR REPLACE FUNCTION traces_purge(p_before TIMESTAMPTZ, p_purged_at TIMESTAMPTZ) RETURNS INTEGER LANGUAGE plpgsql SECURITY DEFINER AS $$
        DECLARE n INTEGER; digest TEXT;
        BEGIN
          SELECT count(*), 'sha256:' || encode(sha256(convert_to(coalesce(string_agg(traces_tombstone(t, p_purged_at), chr(10) ORDER BY t.seq), ''), 'UTF8')), 'hex')
            INTO n, digest FROM traces t WHERE t.created_at < p_before AND (t.body::jsonb ->> 'purged') IS NULL;
          INSERT INTO purges (purged_at, before, traces, tombstones) VALUES (p_purged_at, p_before, n, digest);
          UPDATE traces SET body = traces_tombstone(traces, p_purged_at) WHERE created_at < p_before AND (body::jsonb ->> 'purged') IS NULL;
          RETURN n;
        END $$;
      REVOKE ALL ON FUNCTION traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) FROM PUBLIC;
      DO $$ DECLARE f regprocedure;
        BEGIN
          FOR f IN SELECT oid FROM pg_proc WHERE pronamespace = to_regnamespace(current_schema())::oid LOOP
            EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
          END LOOP;
        END $$;`,
  },
];

/** How to connect: the URL, and a schema to work in (tests; otherwise the URL's own search_path). */
export interface Connection {
  readonly url: string;
  readonly schema?: string;
}

export const connectionConfig = (c: Connection): pg.ClientConfig => ({
  connectionString: c.url,
  ...(c.schema === undefined ? {} : { options: `-c search_path=${c.schema}` }),
});

/**
 * Let the service's role use a migrated store and nothing more: read and append traces, read
 * purge records and migrations, purge only through traces_purge. Run as the owner (the role that
 * ran the migrations); the service role owns nothing, so it cannot alter or drop the tables,
 * disable their triggers, replace their functions or grant rights.
 */
export async function grantServiceRole(options: Connection & { readonly role: string }): Promise<void> {
  const { default: postgres } = await import('pg');
  const client = new postgres.Client(connectionConfig(options));
  try {
    await client.connect();
    const name = client.escapeIdentifier(options.role);
    const schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? 'public';
    await client.query(`GRANT USAGE ON SCHEMA ${client.escapeIdentifier(schema)} TO ${name}`);
    await client.query(`GRANT SELECT, INSERT ON traces TO ${name}`);
    await client.query(`GRANT SELECT ON purges, schema_migrations TO ${name}`);
    await client.query(`GRANT EXECUTE ON FUNCTION traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) TO ${name}`);
  } catch (error) {
    throw wrapError('BAD_INPUT', `cannot grant the service role ${options.role}`, error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Serializes migrations across every instance sharing the database ("citf"; appends lock "cite"). */
const MIGRATION_LOCK = 0x63697466;

/**
 * The triggers that make both tables append-only, with the function each runs and its pg_trigger
 * tgtype bits (1 row, 2 before, 8 delete, 16 update, 32 truncate): each must exist as created,
 * unconditional and enabled.
 */
const GUARD_TRIGGERS = [
  { table: 'traces', name: 'traces_no_update', fn: 'traces_refuse_change', type: 1 + 2 + 16 },
  { table: 'traces', name: 'traces_no_delete', fn: 'traces_refuse_change', type: 1 + 2 + 8 },
  { table: 'traces', name: 'traces_no_truncate', fn: 'traces_refuse_change', type: 2 + 32 },
  { table: 'purges', name: 'purges_no_change', fn: 'purges_refuse_change', type: 1 + 2 + 8 + 16 },
  { table: 'traces', name: 'traces_append', fn: 'traces_check_append', type: 1 + 2 + 4 },
] as const;

/** The body PostgreSQL keeps (prosrc) of each function, as the last migration defining it writes it. */
const FUNCTIONS: ReadonlyMap<string, string> = new Map(
  PG_MIGRATIONS.flatMap((m) => [...m.sql.matchAll(/CREATE (?:OR REPLACE )?FUNCTION (\w+)\([^)]*\)[^$]*AS \$\$([\s\S]*?)\$\$/gu)].map((x) => [x[1] ?? '', x[2] ?? ''] as const)),
);

/** The schema against what the migrations create: version, guard triggers, function bodies. Changes nothing. */
export async function schemaFindings(pool: pg.Pool): Promise<string[]> {
  const version = (await pool.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0;
  const triggers = (
    await pool.query<{ table: string; name: string; enabled: string; type: number; fn: string; conditional: boolean }>(
      `SELECT c.relname AS table, t.tgname AS name, t.tgenabled AS enabled, t.tgtype AS type, p.proname AS fn, t.tgqual IS NOT NULL AS conditional
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE c.relnamespace = to_regnamespace(current_schema())::oid AND NOT t.tgisinternal`,
    )
  ).rows;
  const functions = new Map(
    (
      await pool.query<{ name: string; src: string; definer: boolean; config: string | null; pinned: string }>(
        `SELECT proname AS name, prosrc AS src, prosecdef AS definer, array_to_string(proconfig, ';') AS config,
                'search_path=' || quote_ident(current_schema()) || ', pg_temp' AS pinned
         FROM pg_proc WHERE pronamespace = to_regnamespace(current_schema())::oid`,
      )
    ).rows.map((r) => [r.name, r]),
  );
  const seqCheck = (
    await pool.query<{ def: string }>("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = to_regclass('traces') AND conname = 'traces_seq_positive'")
  ).rows[0]?.def;
  const latest = PG_MIGRATIONS.at(-1)?.version ?? 0;
  return [
    ...(version === latest ? [] : [`schema: version ${version}, expected ${latest} (pending migrations: run citetrace db migrate as the owner role)`]),
    ...GUARD_TRIGGERS.flatMap(({ table, name, fn, type }) => {
      const found = triggers.find((t) => t.table === table && t.name === name);
      if (found === undefined) return [`schema: trigger ${name} on ${table} is missing`];
      if (found.enabled === 'D') return [`schema: trigger ${name} on ${table} is disabled`];
      return found.fn === fn && found.type === type && !found.conditional ? [] : [`schema: trigger ${name} on ${table} differs from the one the migrations create`];
    }),
    ...triggers.filter((t) => !GUARD_TRIGGERS.some((g) => g.table === t.table && g.name === t.name)).map((t) => `schema: unexpected trigger ${t.name} on ${t.table}`),
    ...[...FUNCTIONS].flatMap(([name, src]) => {
      const found = functions.get(name);
      if (found === undefined) return [`schema: function ${name} is missing`];
      // Only traces_purge runs with its owner's rights (SECURITY DEFINER); ALTER FUNCTION can change that without touching the body.
      if (found.src !== src || found.definer !== (name === 'traces_purge')) return [`schema: function ${name} differs from the one the migrations create`];
      return version < 4 || found.config === found.pinned ? [] : [`schema: function ${name} runs with ${found.config ?? 'the caller\'s search_path'}, not ${found.pinned} (a temporary table could stand in for a table of the store)`];
    }),
    ...(version < 4 || seqCheck?.startsWith('CHECK ((seq > 0))') === true ? [] : ['schema: the check that a trace\'s seq is positive (traces_seq_positive) is missing or changed']),
    ...[...functions.keys()].filter((name) => !FUNCTIONS.has(name)).map((name) => `schema: unexpected function ${name}`),
  ];
}

/** Every migration already applied: nothing to do, and nothing a service role without DDL rights could not read. */
async function upToDate(client: pg.PoolClient): Promise<boolean> {
  if ((await client.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")).rows[0]?.present !== true) return false;
  const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
  return PG_MIGRATIONS.every((m) => done.has(m.version));
}

export async function migratePostgres(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  let locked = false;
  try {
    if (await upToDate(client)) return applied;
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    locked = true;
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of PG_MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
        await client.query('COMMIT');
        applied.push(m.version);
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    if (locked) await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}

