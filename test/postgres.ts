import { inject } from 'vitest';

/** What test/global-setup.ts provides to every worker: the PostgreSQL server of this run, or why there is none. */
export type TestPostgres =
  | { readonly url: string; readonly source: 'embedded'; readonly startMs: number }
  | { readonly url: string; readonly source: 'CITETRACE_TEST_PG' }
  | { readonly error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestPostgres;
  }
}

/** The URL of this run's PostgreSQL; throws (the test fails, never skips) when the global setup could not get one. */
export function testPostgresUrl(): string {
  const postgres = inject('postgres');
  if ('error' in postgres) throw new Error(`no PostgreSQL for this suite: ${postgres.error}`);
  return postgres.url;
}

/** This run's PostgreSQL as another role (tests create roles with the password `pw-<role>`). */
export function testPostgresUrlAs(role: string): string {
  const url = new URL(testPostgresUrl());
  url.username = role;
  url.password = `pw-${role}`;
  return url.toString();
}
