/**
 * The load generator's thread (run by piscina from `load-generator.ts`): `concurrency` loops, each with its own keep-alive agent (one socket),
 * sending the search paths of a pass in order. A thread of its own so the client's work is not queued
 * behind the in-process server's on one event loop.
 */
import http from 'node:http';
import type { PassRequest, PassResult } from './load-protocol.js';

interface Answer {
  code: number;
  body: string;
}

function get(agent: http.Agent, port: number, path: string, key: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'GET', agent, headers: { 'x-api-key': key, accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function pass(agents: http.Agent[], port: number, key: string, paths: string[], record: boolean): Promise<PassResult> {
  let next = 0;
  const lat = new Array<number>(paths.length);
  const status = new Array<number>(paths.length);
  const ids = new Array<string[] | string>(paths.length);
  const t0 = performance.now();
  await Promise.all(
    agents.map(async (agent) => {
      for (;;) {
        const i = next++;
        if (i >= paths.length) return;
        const s = performance.now();
        let r: Answer;
        try {
          r = await get(agent, port, paths[i]!, key);
        } catch (err) {
          r = { code: 0, body: String((err as Error | undefined)?.message ?? err) };
        }
        lat[i] = performance.now() - s;
        status[i] = r.code;
        if (record) {
          if (r.code === 200) ids[i] = (JSON.parse(r.body) as { results: { memory_id: string }[] }).results.map((x) => x.memory_id);
          else ids[i] = r.body.slice(0, 300);
        }
      }
    }),
  );
  return { lat, status, ids, wallMs: performance.now() - t0 };
}

/** One pass (a piscina task): the warm-up paths untimed, then the timed ones with their result lists. */
export default async function runPass(m: PassRequest): Promise<PassResult> {
  const agents = Array.from({ length: m.concurrency }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  try {
    if (m.warmup.length) await pass(agents, m.port, m.key, m.warmup, false);
    return await pass(agents, m.port, m.key, m.paths, true);
  } finally {
    for (const a of agents) a.destroy();
  }
}
