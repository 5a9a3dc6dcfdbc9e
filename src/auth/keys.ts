import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KeyRoleSchema, wrapError, type KeyRole } from '../domain/index.js';

export { KeyRoleSchema, type KeyRole };

export interface ApiKey {
  readonly id: string;
  readonly role: KeyRole;
  readonly label: string;
}

export interface KeyStore {
  /** Returns the secret once; only its sha256 is stored. */
  create(request: { readonly role: KeyRole; readonly label: string }): { readonly key: string; readonly record: ApiKey };
  lookup(secret: string): ApiKey | null;
  /**
   * Opens a console session for a key until `expires`: returns its token once, and only the token's
   * sha256 is stored, so the browser never holds the key itself and signing out ends the session.
   */
  openSession(keyId: string, expires: Date): string;
  /** The key behind a session that is open at `now`, or null (unknown, expired or closed). */
  session(token: string, now: Date): ApiKey | null;
  closeSession(token: string): void;
  /** Every key, oldest first, with when it was made (never its secret, which is not stored). */
  list(): readonly (ApiKey & { readonly createdAt: string })[];
  /** Removes a key and ends its console sessions: it opens nothing from then on. False when there is no such key. */
  revoke(id: string): boolean;
  close(): void;
}

interface KeyRow {
  readonly id: string;
  readonly role: string;
  readonly label: string;
}

const hash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** API keys in SQLite, stored hashed: a leaked database does not leak usable keys. */
export function createSqliteKeyStore(options: { readonly file: string }): KeyStore {
  mkdirSync(path.dirname(options.file), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(options.file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 10000');
    db.exec(`CREATE TABLE IF NOT EXISTS api_keys (
      id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, label TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS console_sessions (
      token_hash TEXT PRIMARY KEY, key_id TEXT NOT NULL REFERENCES api_keys(id), expires_at TEXT NOT NULL)`);
  } catch (error) {
    throw wrapError('STORE_FAILURE', `cannot open key store ${options.file}`, error);
  }
  const insert = db.prepare('INSERT INTO api_keys (id, key_hash, role, label, created_at) VALUES (?, ?, ?, ?, ?)');
  const find = db.prepare<[string], KeyRow>('SELECT id, role, label FROM api_keys WHERE key_hash = ?');
  const expire = db.prepare<[string]>('DELETE FROM console_sessions WHERE expires_at <= ?');
  const open = db.prepare<[string, string, string]>('INSERT INTO console_sessions (token_hash, key_id, expires_at) VALUES (?, ?, ?)');
  const live = db.prepare<[string, string], KeyRow>(
    'SELECT k.id, k.role, k.label FROM console_sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.token_hash = ? AND s.expires_at > ?',
  );
  const end = db.prepare<[string]>('DELETE FROM console_sessions WHERE token_hash = ?');
  const all = db.prepare<[], KeyRow & { created_at: string }>('SELECT id, role, label, created_at FROM api_keys ORDER BY created_at, id');
  const endAll = db.prepare<[string]>('DELETE FROM console_sessions WHERE key_id = ?');
  const drop = db.prepare<[string]>('DELETE FROM api_keys WHERE id = ?');
  const remove = db.transaction((id: string): boolean => {
    endAll.run(id);
    return drop.run(id).changes > 0;
  });
  const keyOf = (row: KeyRow | undefined): ApiKey | null => (row === undefined ? null : { id: row.id, role: KeyRoleSchema.parse(row.role), label: row.label });
  return {
    create({ role, label }) {
      const id = randomBytes(6).toString('hex');
      const key = `ct_${role}_${id}_${randomBytes(24).toString('base64url')}`;
      insert.run(id, hash(key), role, label, new Date().toISOString());
      return { key, record: { id, role, label } };
    },
    lookup(secret) {
      return keyOf(find.get(hash(secret)));
    },
    openSession(keyId, expires) {
      const token = `cts_${randomBytes(32).toString('base64url')}`;
      expire.run(new Date().toISOString());
      open.run(hash(token), keyId, expires.toISOString());
      return token;
    },
    session(token, now) {
      return keyOf(live.get(hash(token), now.toISOString()));
    },
    closeSession(token) {
      end.run(hash(token));
    },
    list() {
      return all.all().map((row) => ({ ...(keyOf(row) as ApiKey), createdAt: row.created_at }));
    },
    revoke(id) {
      return remove(id);
    },
    close() {
      db.close();
    },
  };
}

/** The role a key asks as: operators ask as staff. */
export function askRoleOf(role: KeyRole): 'patient' | 'staff' {
  return role === 'patient' ? 'patient' : 'staff';
}
