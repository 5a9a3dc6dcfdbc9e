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
  close(): void;
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
      id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, label TEXT NOT NULL, created_at TEXT NOT NULL)`);
  } catch (error) {
    throw wrapError('STORE_FAILURE', `cannot open key store ${options.file}`, error);
  }
  const insert = db.prepare('INSERT INTO api_keys (id, key_hash, role, label, created_at) VALUES (?, ?, ?, ?, ?)');
  const find = db.prepare<[string], { id: string; role: string; label: string }>('SELECT id, role, label FROM api_keys WHERE key_hash = ?');
  return {
    create({ role, label }) {
      const id = randomBytes(6).toString('hex');
      const key = `ct_${role}_${id}_${randomBytes(24).toString('base64url')}`;
      insert.run(id, hash(key), role, label, new Date().toISOString());
      return { key, record: { id, role, label } };
    },
    lookup(secret) {
      const row = find.get(hash(secret));
      return row === undefined ? null : { id: row.id, role: KeyRoleSchema.parse(row.role), label: row.label };
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
