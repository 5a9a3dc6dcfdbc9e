import type pg from 'pg';

/**
 * Grant drift (issue 17): what each role may do to the store, as PostgreSQL would decide it now
 * (memberships, predefined roles such as pg_write_all_data, column grants and PUBLIC included),
 * against the two roles docs/operations.md sets up. The owner ran the migrations and owns every
 * object; a service role (any other role that may append traces) may only INSERT and SELECT
 * traces, SELECT purges and schema_migrations, and run traces_purge; any other role may only
 * read. Superusers are outside what grants can limit and are not listed. Changes nothing.
 */

/** What a service role may hold (USAGE on the schema besides); any other role may only read the tables. */
const SERVICE: ReadonlySet<string> = new Set(['traces SELECT', 'traces INSERT', 'purges SELECT', 'schema_migrations SELECT', 'function traces_purge EXECUTE']);
const READER: ReadonlySet<string> = new Set(['traces SELECT', 'purges SELECT', 'schema_migrations SELECT']);
/** Privileges a role may hold on a table or on some of its columns, and on a sequence. */
const COLUMN_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'REFERENCES'];
const TABLE_PRIVILEGES = ['DELETE', 'TRUNCATE', 'TRIGGER'];
const SEQUENCE_PRIVILEGES = ['USAGE', 'UPDATE'];

interface Held {
  readonly role: string;
  readonly object: string;
  readonly privilege: string;
}

const describe = (held: readonly Held[]): string => {
  const byObject = new Map<string, string[]>();
  for (const h of held) byObject.set(h.object, [...(byObject.get(h.object) ?? []), h.privilege]);
  return [...byObject].map(([object, privileges]) => `${privileges.join(', ')} on ${object}`).join('; ');
};

export async function roleFindings(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    return await findings(client);
  } finally {
    client.release();
  }
}

async function findings(client: pg.PoolClient): Promise<string[]> {
  const store = (
    await client.query<{ schema: string; owner: string | null; owner_oid: number | null; schema_owner: string; schema_owner_super: boolean; version: number }>(
      `SELECT n.nspname AS schema, pg_get_userbyid(c.relowner) AS owner, c.relowner::int AS owner_oid,
              pg_get_userbyid(n.nspowner) AS schema_owner, (SELECT rolsuper FROM pg_roles WHERE oid = n.nspowner) AS schema_owner_super,
              current_setting('server_version_num')::int AS version
       FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = 'traces' AND c.relkind IN ('r', 'p')
       WHERE n.oid = to_regnamespace(current_schema())::oid`,
    )
  ).rows[0];
  // No traces table: the schema check names that already.
  if (store?.owner == null || store.owner_oid === null) return [];
  const { schema, owner } = store;
  const tablePrivileges = [...TABLE_PRIVILEGES, ...(store.version >= 170000 ? ['MAINTAIN'] : [])];
  const result: string[] = [];

  const owners = (
    await client.query<{ kind: string; name: string; owner: string }>(
      `SELECT CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'v' THEN 'view' ELSE 'table' END AS kind, c.relname AS name, pg_get_userbyid(c.relowner) AS owner
       FROM pg_class c WHERE c.relnamespace = to_regnamespace(current_schema())::oid AND c.relkind IN ('r', 'p', 'S', 'v', 'm') AND c.relowner <> $1
       UNION ALL
       SELECT 'function', p.proname, pg_get_userbyid(p.proowner) FROM pg_proc p WHERE p.pronamespace = to_regnamespace(current_schema())::oid AND p.proowner <> $1
       ORDER BY 1, 2`,
      [store.owner_oid],
    )
  ).rows;
  for (const o of owners) result.push(`roles: ${o.kind} ${o.name} is owned by ${o.owner}, traces by ${owner} (the owner that ran the migrations must own every object of the store)`);
  if (store.schema_owner !== owner && !store.schema_owner_super) result.push(`roles: schema ${schema} is owned by ${store.schema_owner}, not by the store's owner ${owner} (a schema's owner can drop the tables in it)`);

  // PUBLIC's grants, once: every role holds them.
  const publicHeld = (
    await client.query<Held>(
      `SELECT 'PUBLIC' AS role, c.relname AS object, a.privilege_type AS privilege
       FROM pg_class c, aclexplode(c.relacl) a WHERE c.relnamespace = to_regnamespace(current_schema())::oid AND a.grantee = 0
       UNION ALL
       SELECT 'PUBLIC', c.relname, a.privilege_type
       FROM pg_class c JOIN pg_attribute att ON att.attrelid = c.oid, aclexplode(att.attacl) a
       WHERE c.relnamespace = to_regnamespace(current_schema())::oid AND a.grantee = 0
       UNION ALL
       SELECT 'PUBLIC', 'schema ' || n.nspname, a.privilege_type FROM pg_namespace n, aclexplode(n.nspacl) a
       WHERE n.oid = to_regnamespace(current_schema())::oid AND a.grantee = 0 AND a.privilege_type = 'CREATE'
       UNION ALL
       SELECT 'PUBLIC', 'function ' || p.proname, a.privilege_type FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
       WHERE p.pronamespace = to_regnamespace(current_schema())::oid AND p.prosecdef AND a.grantee = 0`,
    )
  ).rows;
  const fromPublic = new Set(publicHeld.map((h) => `${h.object} ${h.privilege}`));
  if (publicHeld.length > 0) result.push(`roles: PUBLIC (every role) may ${describe(publicHeld.filter((h, i) => publicHeld.findIndex((o) => o.object === h.object && o.privilege === h.privilege) === i))}`);

  // Every other role that is not a superuser, nor one of PostgreSQL's predefined roles (their members are listed).
  const held = (
    await client.query<Held & { member: boolean }>(
      `WITH roles AS (SELECT oid, rolname FROM pg_roles WHERE NOT rolsuper AND oid >= 16384 AND oid <> $1),
            tables AS (SELECT oid, relname FROM pg_class WHERE relnamespace = to_regnamespace(current_schema())::oid AND relkind IN ('r', 'p', 'v', 'm')),
            sequences AS (SELECT oid, relname FROM pg_class WHERE relnamespace = to_regnamespace(current_schema())::oid AND relkind = 'S')
       SELECT r.rolname AS role, t.relname AS object, p AS privilege, false AS member FROM roles r, tables t, unnest($2::text[]) p WHERE has_any_column_privilege(r.oid, t.oid, p)
       UNION ALL
       SELECT r.rolname, t.relname, p, false FROM roles r, tables t, unnest($3::text[]) p WHERE has_table_privilege(r.oid, t.oid, p)
       UNION ALL
       SELECT r.rolname, s.relname, p, false FROM roles r, sequences s, unnest($4::text[]) p WHERE has_sequence_privilege(r.oid, s.oid, p)
       UNION ALL
       SELECT r.rolname, 'schema ' || current_schema(), 'CREATE', false FROM roles r WHERE has_schema_privilege(r.oid, to_regnamespace(current_schema())::oid, 'CREATE')
       UNION ALL
       SELECT r.rolname, 'function ' || f.proname, 'EXECUTE', false FROM roles r, pg_proc f
       WHERE f.pronamespace = to_regnamespace(current_schema())::oid AND f.prosecdef AND has_function_privilege(r.oid, f.oid, 'EXECUTE')
       UNION ALL
       SELECT r.rolname, $5, 'MEMBER', true FROM roles r WHERE pg_has_role(r.oid, $1, 'MEMBER')
       ORDER BY 1, 2, 3`,
      [store.owner_oid, COLUMN_PRIVILEGES, tablePrivileges, SEQUENCE_PRIVILEGES, owner],
    )
  ).rows;
  const byRole = new Map<string, (Held & { member: boolean })[]>();
  for (const h of held) byRole.set(h.role, [...(byRole.get(h.role) ?? []), h]);
  let services = 0;
  for (const [role, rights] of byRole) {
    if (rights.some((h) => h.member)) {
      result.push(`roles: ${role} is a member of the owner role ${owner}, so it can alter, disable the triggers of and drop what the owner can`);
      continue;
    }
    const appends = rights.some((h) => h.object === 'traces' && h.privilege === 'INSERT');
    if (appends) services += 1;
    // A role that may append is a service role; any other role may read, and nothing else. What PUBLIC holds is listed once, above.
    const allowed = appends ? SERVICE : READER;
    const extra = rights.filter((h) => !allowed.has(`${h.object} ${h.privilege}`) && !fromPublic.has(`${h.object} ${h.privilege}`));
    if (extra.length > 0) {
      result.push(
        `roles: ${role} may ${describe(extra)} (grant drift: ${appends ? 'a service role may only INSERT and SELECT traces, SELECT purges and schema_migrations, and run traces_purge' : 'a role other than the service may only read'})`,
      );
    }
  }
  if (services === 0) {
    result.push(
      `roles: no role but the owner ${owner} (or a superuser) may append traces, so the service connects as a role that can disable the triggers, replace the functions and drop the tables (create a service role and run citetrace db grant ROLE as the owner)`,
    );
  }
  return result;
}
