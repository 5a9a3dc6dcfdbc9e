export { askRoleOf, createSqliteKeyStore, KeyRoleSchema, type ApiKey, type KeyRole, type KeyStore } from './keys.js';
