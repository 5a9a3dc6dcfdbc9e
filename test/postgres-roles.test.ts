import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { createPostgresTraceStore, grantServiceRole, tombstoneOf, tombstonesDigest, type TraceStore } from '../src/trace/index.js';
import { runBin } from './helpers.js';
import { testPostgresUrl, testPostgresUrlAs } from './postgres.js';

/**
 * Issue 17, PostgreSQL: migrations run as an owner role; the service runs as a role that can only
 * append, read and purge through traces_purge. Both roles are created in this run's test server.
 */
describe('PostgreSQL owner and service roles', () => {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const owner = `own_${id}`;
  const app = `app_${id}`;
  const schema = `roles_${id}`;
  let admin: pg.Client | undefined;
  let appClient: pg.Client;
  let store: TraceStore;
  const urlAs = (user: string): string => {
    const url = new URL(testPostgresUrl());
    url.username = user;
    url.password = `pw-${user}`;
    return url.toString();
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    for (const role of [owner, app]) await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw-${role}'`);
    await admin.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${owner}`);
    // Migrations and the grant run as the owner; the service connects as the app role.
    await (await createPostgresTraceStore({ url: urlAs(owner), schema })).close();
    await grantServiceRole({ url: urlAs(owner), schema, role: app });
    store = await createPostgresTraceStore({ url: urlAs(app), schema });
    appClient = new pg.Client({ connectionString: urlAs(app), options: `-c search_path=${schema}` });
    await appClient.connect();
  });
  afterAll(async () => {
    if (admin === undefined) return;
    await store.close();
    await appClient.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    for (const role of [app, owner]) await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    await admin.end();
  });

  it('lets the service role append, read, check and purge, leaving tombstones verify accepts', async () => {
    await store.append(sampleTrace({ created_at: '2026-01-01T00:00:00.000Z' }));
    await store.append(sampleTrace({ created_at: '2026-12-01T00:00:00.000Z', reason: null, outcome: 'answer' }));
    expect(await store.purge({ before: '2026-06-01T00:00:00.000Z', now: new Date('2026-12-02T00:00:00.123Z') })).toEqual({ purged: 1 });
    const [purged, live] = await store.scan({ afterSeq: 0, limit: 10 });
    expect([purged?.purged, live?.purged]).toEqual([true, false]);
    // The tombstone the database wrote is byte for byte the one verify expects for the recorded purge.
    expect(await store.purges()).toEqual([{ id: 1, purgedAt: '2026-12-02T00:00:00.123Z', before: '2026-06-01T00:00:00.000Z', traces: 1, tombstones: tombstonesDigest([purged!.body]) }]);
    expect(purged?.body).toBe(tombstoneOf(purged!.columns, '2026-12-02T00:00:00.123Z'));
    expect(await store.selfCheck()).toEqual([]);
  });

  it.each([
    ["UPDATE traces SET outcome = 'answer'", /permission denied/u],
    ['DELETE FROM traces', /permission denied/u],
    ['TRUNCATE traces', /permission denied/u],
    ['DROP TABLE traces', /must be owner/u],
    ['ALTER TABLE traces DISABLE TRIGGER ALL', /must be owner/u],
    ['DROP TRIGGER traces_no_update ON traces', /must be owner/u],
    ["CREATE OR REPLACE FUNCTION traces_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$", /must be owner|permission denied/u],
    ['DROP FUNCTION traces_purge(TIMESTAMPTZ, TIMESTAMPTZ)', /must be owner/u],
    ["INSERT INTO purges (purged_at, before, traces) VALUES (now(), '2099-01-01', 0)", /permission denied/u],
    ["UPDATE purges SET before = '2099-01-01'", /permission denied/u],
    ['CREATE TABLE spy (x INT)', /permission denied/u],
    // Audit finding 2: INSERT is the service role's right, but only as the next link of the chain.
    ["INSERT INTO traces SELECT 0, gen_random_uuid(), created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, 'sha256:fab' FROM traces WHERE seq = 1", /append-only|traces_seq_positive/u],
  ])('refuses the service role: %s', async (statement, error) => {
    await expect(appClient.query(statement)).rejects.toThrow(error);
  });

  it('lets a GRANT by the service role grant nothing', async () => {
    // Without grant option PostgreSQL answers with a warning, not an error: what counts is that nothing was granted.
    await appClient.query(`GRANT UPDATE, DELETE ON traces TO PUBLIC, ${app}`);
    const granted = await appClient.query<{ u: boolean; d: boolean }>(`SELECT has_table_privilege('${app}', 'traces', 'UPDATE') AS u, has_table_privilege('${app}', 'traces', 'DELETE') AS d`);
    expect(granted.rows[0]).toEqual({ u: false, d: false });
  });

  it('names what the owner could still change: a function replaced, a trigger made conditional', async () => {
    const ownerClient = new pg.Client({ connectionString: urlAs(owner), options: `-c search_path=${schema}` });
    await ownerClient.connect();
    try {
      await ownerClient.query('CREATE OR REPLACE FUNCTION purges_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$');
      await ownerClient.query('DROP TRIGGER traces_no_delete ON traces');
      await ownerClient.query('CREATE TRIGGER traces_no_delete BEFORE DELETE ON traces FOR EACH ROW WHEN (false) EXECUTE FUNCTION traces_refuse_change()');
      expect(await store.selfCheck()).toEqual([
        'schema: trigger traces_no_delete on traces differs from the one the migrations create',
        'schema: function purges_refuse_change differs from the one the migrations create',
      ]);
    } finally {
      await ownerClient.query(`CREATE OR REPLACE FUNCTION purges_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'purges are append-only: % refused', TG_OP; END $$`);
      await ownerClient.query(`ALTER FUNCTION purges_refuse_change() SET search_path = ${schema}, pg_temp`);
      await ownerClient.query('DROP TRIGGER traces_no_delete ON traces');
      await ownerClient.query('CREATE TRIGGER traces_no_delete BEFORE DELETE ON traces FOR EACH ROW EXECUTE FUNCTION traces_refuse_change()');
      expect(await store.selfCheck()).toEqual([]);
      await ownerClient.end();
    }
  });

  describe('grant drift: verify names any right beyond the two roles', () => {
    const auditor = `aud_${id}`;
    const as = (text: string): string => text.replaceAll('{app}', app).replaceAll('{owner}', owner).replaceAll('{auditor}', auditor).replaceAll('{schema}', schema);
    beforeAll(async () => {
      await admin!.query(`CREATE ROLE ${auditor} LOGIN PASSWORD 'pw-${auditor}'`);
      await admin!.query(`GRANT USAGE ON SCHEMA ${schema} TO ${auditor}; GRANT SELECT ON ${schema}.traces, ${schema}.purges TO ${auditor}`);
    });
    afterAll(async () => {
      await admin?.query(`DROP OWNED BY ${auditor}; DROP ROLE ${auditor}`);
    });

    it('raises nothing for the owner, a service role and a read-only auditor role', async () => {
      expect(await store.selfCheck()).toEqual([]);
    });

    const drift: [string, string, string, string][] = [
      ['UPDATE granted to the service role', 'GRANT UPDATE ON {schema}.traces TO {app}', 'REVOKE UPDATE ON {schema}.traces FROM {app}', String.raw`^roles: {app} may UPDATE on traces \(grant drift: a service role may only INSERT and SELECT traces`],
      ['UPDATE of one column', 'GRANT UPDATE (body) ON {schema}.traces TO {app}', 'REVOKE UPDATE (body) ON {schema}.traces FROM {app}', String.raw`^roles: {app} may UPDATE on traces`],
      ['DELETE and TRUNCATE of purge records', 'GRANT DELETE, TRUNCATE ON {schema}.purges TO {app}', 'REVOKE DELETE, TRUNCATE ON {schema}.purges FROM {app}', String.raw`^roles: {app} may DELETE, TRUNCATE on purges`],
      ['INSERT of purge records', 'GRANT INSERT ON {schema}.purges TO {app}', 'REVOKE INSERT ON {schema}.purges FROM {app}', String.raw`^roles: {app} may INSERT on purges`],
      ['a trigger right', 'GRANT TRIGGER ON {schema}.traces TO {app}', 'REVOKE TRIGGER ON {schema}.traces FROM {app}', String.raw`^roles: {app} may TRIGGER on traces`],
      ['the purge counter', 'GRANT USAGE, UPDATE ON SEQUENCE {schema}.purges_id_seq TO {app}', 'REVOKE USAGE, UPDATE ON SEQUENCE {schema}.purges_id_seq FROM {app}', String.raw`^roles: {app} may UPDATE, USAGE on purges_id_seq`],
      ['CREATE in the schema', 'GRANT CREATE ON SCHEMA {schema} TO {app}', 'REVOKE CREATE ON SCHEMA {schema} FROM {app}', String.raw`^roles: {app} may CREATE on schema {schema}`],
      ['membership in the owner role', 'GRANT {owner} TO {app}', 'REVOKE {owner} FROM {app}', String.raw`^roles: {app} is a member of the owner role {owner}`],
      ['a predefined role that writes everything', 'GRANT pg_write_all_data TO {app}', 'REVOKE pg_write_all_data FROM {app}', String.raw`^roles: {app} may DELETE, INSERT, UPDATE on purges; .*DELETE, UPDATE on traces`],
      ['a right granted to PUBLIC', 'GRANT SELECT, UPDATE ON {schema}.traces TO PUBLIC', 'REVOKE SELECT, UPDATE ON {schema}.traces FROM PUBLIC', String.raw`^roles: PUBLIC \(every role\) may (SELECT, UPDATE|UPDATE, SELECT) on traces$`],
      ['the purge function granted to a read-only role', 'GRANT EXECUTE ON FUNCTION {schema}.traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) TO {auditor}', 'REVOKE EXECUTE ON FUNCTION {schema}.traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) FROM {auditor}', String.raw`^roles: {auditor} may EXECUTE on function traces_purge \(grant drift: a role other than the service may only read\)`],
      ['the traces table given to the service role', 'ALTER TABLE {schema}.traces OWNER TO {app}', 'ALTER TABLE {schema}.traces OWNER TO {owner}; GRANT SELECT, INSERT ON {schema}.traces TO {app}', String.raw`roles: table purges is owned by {owner}, traces by {app}`],
      ['the schema given to the service role', 'ALTER SCHEMA {schema} OWNER TO {app}', 'ALTER SCHEMA {schema} OWNER TO {owner}; GRANT USAGE ON SCHEMA {schema} TO {app}, {auditor}', String.raw`^roles: schema {schema} is owned by {app}, not by the store's owner {owner}`],
      ['the purge function made to run with the caller\'s rights', 'ALTER FUNCTION {schema}.traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) SECURITY INVOKER', 'ALTER FUNCTION {schema}.traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) SECURITY DEFINER', String.raw`^schema: function traces_purge differs`],
      // Audit finding 8: pg_temp must come last, or a caller's temporary table stands in for one of the store.
      ['the purge function left with the caller\'s search_path', 'ALTER FUNCTION {schema}.traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) RESET search_path', 'ALTER FUNCTION {schema}.traces_purge(TIMESTAMPTZ, TIMESTAMPTZ) SET search_path = {schema}, pg_temp', String.raw`^schema: function traces_purge runs with the caller's search_path, not search_path={schema}, pg_temp`],
      ['a function added by the owner', 'CREATE FUNCTION {schema}.helper() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$', 'DROP FUNCTION {schema}.helper()', String.raw`^schema: unexpected function helper$`],
    ];
    // An owner change folds the new owner's grants into ownership: each revert grants them again.
    it.each(drift)('%s', async (_name, grant, revoke, finding) => {
      await admin!.query(as(grant));
      try {
        const findings = await store.selfCheck();
        expect(findings.some((f) => new RegExp(as(finding), 'u').test(f)), findings.join('\n')).toBe(true);
      } finally {
        await admin!.query(as(revoke));
      }
      expect(await store.selfCheck()).toEqual([]);
    });

    it('names a store whose only writer is its owner: the service connects as the owner', async () => {
      await admin!.query(as('REVOKE INSERT ON {schema}.traces FROM {app}'));
      try {
        // The service role, no longer appending, is a reader that may still purge: both are named.
        expect(await store.selfCheck()).toEqual([
          `roles: ${app} may EXECUTE on function traces_purge (grant drift: a role other than the service may only read)`,
          expect.stringMatching(new RegExp(`^roles: no role but the owner ${owner} \\(or a superuser\\) may append traces`, 'u')),
        ]);
      } finally {
        await admin!.query(as('GRANT INSERT ON {schema}.traces TO {app}'));
      }
    });
  });

  it('refuses the owner too any UPDATE that is not the latest purge\'s exact tombstone', async () => {
    const ownerClient = new pg.Client({ connectionString: urlAs(owner), options: `-c search_path=${schema}` });
    await ownerClient.connect();
    try {
      await expect(ownerClient.query("UPDATE traces SET outcome = 'clarify' WHERE seq = 2")).rejects.toThrow(/append-only/u);
      await expect(ownerClient.query(`UPDATE traces SET body = '{"purged":true}' WHERE seq = 2`)).rejects.toThrow(/append-only/u);
      await expect(ownerClient.query('DELETE FROM traces')).rejects.toThrow(/append-only/u);
    } finally {
      await ownerClient.end();
    }
  });
});

/**
 * Audit finding 9: the role setup of docs/operations.md, run as written against this run's
 * server: its psql statements as the superuser, then its commands as the owner and the service,
 * with URLs that carry no options. Only the names differ (fresh roles and schema per run) and
 * the host and database, which are the test server's.
 */
describe('the role setup of docs/operations.md, as written', () => {
  const id = randomUUID().replaceAll('-', '').slice(0, 10);
  const names: Readonly<Record<string, string>> = { citetrace_owner: `dow_${id}`, citetrace: `dsv_${id}` };
  const rename = (text: string): string => text.replace(/\bcitetrace(?:_owner)?\b/gu, (name) => names[name] ?? name);
  let admin: pg.Client | undefined;

  afterAll(async () => {
    if (admin === undefined) return;
    await admin.query(`DROP SCHEMA IF EXISTS ${names.citetrace} CASCADE`);
    for (const role of [names.citetrace, names.citetrace_owner]) await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    await admin.end();
  });

  it('creates the roles, migrates and grants as the owner, and lets the service append and verify', async () => {
    const doc = await readFile(new URL('../docs/operations.md', import.meta.url), 'utf8');
    const block = /```sh\n(# once, as a superuser[\s\S]*?)```/u.exec(doc)?.[1] ?? '';
    const statements = [...block.matchAll(/-c "([^"]+)"/gu)].map((m) => rename(m[1] ?? '').replace(/ROLE (\w+) LOGIN PASSWORD '\.\.\.'/u, (_all, role: string) => `ROLE ${role} LOGIN PASSWORD 'pw-${role}'`));
    const commands = [...block.matchAll(/^CITETRACE_TRACES=postgres:\/\/(\w+):\.\.\.@db\/citetrace npx citetrace (.+)$/gmu)].map((m) => ({ role: rename(m[1] ?? ''), args: rename(m[2] ?? '').split(' ') }));
    expect(statements).toHaveLength(5);
    expect(commands.map((c) => c.args[0])).toEqual(['db', 'db', 'serve']);
    admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    for (const statement of statements) await admin.query(statement);
    for (const { role, args } of commands.filter((c) => c.args[0] === 'db')) {
      const run = await runBin(args, { CITETRACE_TRACES: testPostgresUrlAs(role) });
      expect(run, `${role}: citetrace ${args.join(' ')}`).toMatchObject({ code: 0 });
    }
    // `serve` opens the store as the service role, exactly so: it finds every migration applied, appends and checks.
    const service = commands.find((c) => c.args[0] === 'serve')?.role ?? '';
    const store = await createPostgresTraceStore({ url: testPostgresUrlAs(service) });
    try {
      expect((await store.append(sampleTrace())).seq).toBe(1);
      expect(await store.selfCheck()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
