/**
 * Why Fastify: the same POST route (zod-validated JSON body, JSON response) on Fastify with
 * fastify-type-provider-zod and on Hono with @hono/zod-validator, each server in its own process,
 * loaded by 32 concurrent keep-alive clients for 5 s. Prints requests per second and p95 latency,
 * writes bench/results/http-frameworks.json.   Run: npx tsx bench/http-frameworks.ts
 */
import { fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from '../src/eval/index.js';

const SECONDS = 5;
const CLIENTS = 32;
const Body = async () => {
  const { z } = await import('zod');
  return z.object({ question: z.string().min(1).max(2000), as_of: z.iso.date().optional() });
};

async function serveFastify(): Promise<number> {
  const { default: Fastify } = await import('fastify');
  const { serializerCompiler, validatorCompiler } = await import('fastify-type-provider-zod');
  const { z } = await import('zod');
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const body = await Body();
  app.post('/v1/ask', { schema: { body, response: { 200: z.object({ outcome: z.string(), answer: z.string() }) } } }, (request) => ({ outcome: 'answer', answer: (request.body as { question: string }).question }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function serveHono(): Promise<number> {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const { zValidator } = await import('@hono/zod-validator');
  const app = new Hono();
  const body = await Body();
  app.post('/v1/ask', zValidator('json', body), (c) => c.json({ outcome: 'answer', answer: c.req.valid('json').question }));
  return new Promise((resolve) => {
    serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve(info.port);
    });
  });
}

if (process.argv[2] === 'server') {
  const port = process.argv[3] === 'fastify' ? await serveFastify() : await serveHono();
  process.send?.(port);
} else {
  const results: { framework: string; requests_per_second: number; p95_ms: number }[] = [];
  for (const framework of ['fastify', 'hono']) {
    const child = fork(fileURLToPath(import.meta.url), ['server', framework], { execArgv: ['--import', 'tsx'] });
    const port = await new Promise<number>((resolve) => child.once('message', (m) => {
      resolve(Number(m));
    }));
    const url = `http://127.0.0.1:${port}/v1/ask`;
    const payload = JSON.stringify({ question: 'Until what time can I get blood drawn at the Harbor lab?' });
    const latencies: number[] = [];
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          const start = performance.now();
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
          await res.arrayBuffer();
          latencies.push(performance.now() - start);
        }
      }),
    );
    child.kill();
    results.push({ framework, requests_per_second: Math.round(latencies.length / SECONDS), p95_ms: Number(percentile(latencies, 95).toFixed(2)) });
  }
  console.log(`zod-validated POST, ${CLIENTS} clients, ${SECONDS} s, server in its own process`);
  for (const r of results) console.log(`  ${r.framework.padEnd(8)} ${String(r.requests_per_second).padStart(6)} req/s   p95 ${r.p95_ms} ms`);
  const out = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'http-frameworks.json'), `${JSON.stringify(results, null, 2)}\n`);
}
