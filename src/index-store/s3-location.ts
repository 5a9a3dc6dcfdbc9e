import * as lancedb from '@lancedb/lancedb';
import { AwsClient } from 'aws4fetch';
import { CitetraceError } from '../domain/index.js';
import { LANCE_DIR } from './manifest.js';
import type { IndexLocation } from './location.js';

/** How to reach an S3-compatible object store (AWS S3, MinIO, Ceph, …). */
export interface S3Settings {
  /** `s3://bucket/prefix`: the index root. */
  readonly uri: string;
  /** An S3-compatible endpoint (path-style requests); absent: AWS S3 in `region`. */
  readonly endpoint?: string | undefined;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

/** The one writer's hold on an index (writer-lease.ts): checked before every write that commits. */
export interface WriterLease {
  /** Who holds it, for messages. */
  readonly holder: string;
  /** Throws INDEX_LEASED when the lease was lost (its connection dropped); nothing may be committed then. */
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

/** Writing an index on object storage without the writer lease, which lives in PostgreSQL. */
export const leaseNeeded = (where: string): CitetraceError =>
  new CitetraceError('BAD_INPUT', `writing the index ${where} takes the writer lease in PostgreSQL: set CITETRACE_TRACES to a postgres:// URL`);

/** An object request that hangs (a black-holed endpoint) fails after this long instead of stalling a reload. */
const REQUEST_TIMEOUT_MS = 10_000;

const decodeXml = (text: string): string =>
  text.replace(/&(lt|gt|quot|apos|amp);/gu, (_m, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name] ?? '');

/**
 * An index under a prefix of an S3-compatible bucket. LanceDB writes and reads its tables there
 * itself (`s3://` with storage options); the manifest, the commit log and the file digests go
 * through signed requests (aws4fetch). A PUT replaces an object whole, so the manifest is
 * replaced atomically like the rename of a local folder. Writing needs the writer lease; a write
 * that never committed stays invisible (readers check out the table versions the manifest names)
 * and the next commit rolls the tables back to the committed versions, so there is nothing to
 * recover.
 */
export function createS3Location(settings: S3Settings, lease?: WriterLease): IndexLocation {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*?))?\/*$/u.exec(settings.uri);
  if (match === null) throw new CitetraceError('BAD_INPUT', `index location ${settings.uri} is not s3://bucket/prefix`);
  const bucket = match[1] ?? '';
  const prefix = match[2] === undefined || match[2] === '' ? '' : `${match[2]}/`;
  const endpoint = settings.endpoint?.replace(/\/+$/u, '');
  const base = endpoint === undefined ? `https://${bucket}.s3.${settings.region}.amazonaws.com` : `${endpoint}/${bucket}`;
  const where = `s3://${bucket}/${prefix.replace(/\/$/u, '')}`;
  const client = new AwsClient({
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    ...(settings.sessionToken === undefined ? {} : { sessionToken: settings.sessionToken }),
    service: 's3',
    region: settings.region,
    retries: 2,
  });
  // A missing bucket is a configuration mistake, not an empty index.
  const noBucket = (): CitetraceError => new CitetraceError('STORAGE_UNAVAILABLE', `bucket ${bucket} does not exist (index ${where})`);
  const keyUrl = (rel: string): string => `${base}/${`${prefix}${rel}`.split('/').map(encodeURIComponent).join('/')}`;

  const request = async (url: string, init: RequestInit, what: string): Promise<Response> => {
    let response: Response;
    try {
      response = await client.fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
      throw new CitetraceError('STORAGE_UNAVAILABLE', `object storage ${endpoint ?? base} is unreachable (${cause}) while ${what} ${where}`, { cause: error });
    }
    if (response.ok || response.status === 404) return response;
    const body = await response.text();
    const code = /<Code>([^<]*)<\/Code>/u.exec(body)?.[1] ?? `HTTP ${response.status}`;
    const hint = response.status === 403 ? ': check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY' : '';
    throw new CitetraceError('STORAGE_UNAVAILABLE', `object storage refused ${what} ${where} (${code})${hint}`);
  };

  return {
    where,
    connect: () =>
      lancedb.connect(`${where}/${LANCE_DIR}`, {
        storageOptions: {
          aws_access_key_id: settings.accessKeyId,
          aws_secret_access_key: settings.secretAccessKey,
          ...(settings.sessionToken === undefined ? {} : { aws_session_token: settings.sessionToken }),
          aws_region: settings.region,
          ...(endpoint === undefined ? {} : { aws_endpoint: endpoint, aws_virtual_hosted_style_request: 'false', allow_http: String(endpoint.startsWith('http:')) }),
        },
      }),
    async read(rel) {
      const response = await request(keyUrl(rel), { method: 'GET' }, `reading ${rel} of`);
      if (response.status === 404) {
        if (/<Code>NoSuchBucket<\/Code>/u.test(await response.text())) throw noBucket();
        return null;
      }
      return new Uint8Array(await response.arrayBuffer());
    },
    async write(rel, bytes) {
      await lease?.assertHeld();
      const response = await request(keyUrl(rel), { method: 'PUT', body: bytes }, `writing ${rel} of`);
      if (response.status === 404) throw noBucket();
    },
    async list(dir) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const query = new URLSearchParams({ 'list-type': '2', prefix: `${prefix}${dir}/`, ...(token === undefined ? {} : { 'continuation-token': token }) });
        const response = await request(`${base}?${query.toString()}`, { method: 'GET' }, 'listing');
        const xml = await response.text();
        if (response.status === 404) throw noBucket();
        for (const m of xml.matchAll(/<Key>([^<]*)<\/Key>/gu)) keys.push(decodeXml(m[1] ?? '').slice(prefix.length));
        token = /<IsTruncated>true<\/IsTruncated>/u.test(xml) ? decodeXml(/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/u.exec(xml)?.[1] ?? '') : undefined;
      } while (token !== undefined && token !== '');
      return keys.sort();
    },
    async writing(work) {
      if (lease === undefined) throw leaseNeeded(where);
      await lease.assertHeld();
      return work();
    },
    recover: () => Promise.resolve(false),
  };
}
