/**
 * Part `writes` of `bench:knowledge`: POST /v1/knowledge/person (201) and PATCH
 * /v1/knowledge/person/{id} (200) from keep-alive connections against a server child process (workers
 * off: the request path alone). Creates carry two to five fields; PATCHes change one field of 1,000
 * objects in turn. Checked afterwards: the list's total counts every create answered.
 */
import { rng } from '../memory-data.js';
import { driveLoad, type LoadOptions, type LoadRun } from './http-load.js';
import { call, pool, signUp, startServer } from './setup.js';

const FIRST = ['Ada', 'Bruno', 'Celia', 'Dmitri', 'Esme', 'Femi', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Luis'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Novak', 'Reyes', 'Hartmann', 'Costa', 'Brennan', 'Iyer'];
const ORGS = ['Northwind', 'Bluefield Labs', 'Quarry & Sons', 'Helix Freight', 'Lumen Works'];
const TITLES = ['engineer', 'designer', 'analyst', 'product manager', 'recruiter', 'accountant', 'data scientist'];

/** `n` person bodies: the name always, then email, employer, job title and location each about half the time. */
export function personBodies(n: number, seed: number): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const first = pick(FIRST);
    const last = pick(LAST);
    const fields: Record<string, string> = { name: `${first} ${last} ${i}` };
    if (r() < 0.5) fields.email = `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com`;
    if (r() < 0.6) fields.employer = pick(ORGS);
    if (r() < 0.5) fields.job_title = pick(TITLES);
    if (r() < 0.4) fields.location = pick(['Leeds', 'Porto', 'Graz', 'Turku', 'Ghent']);
    return JSON.stringify({ fields });
  });
}

export interface WritesResult {
  create: LoadRun;
  patch: LoadRun;
}

export async function runWrites(options: LoadOptions & { processes: number; logLevel: string }): Promise<WritesResult> {
  const bench = await startServer('writes', { processes: options.processes, logLevel: options.logLevel, workerMode: 'external' });
  try {
    const { url } = bench.server;
    const { key } = await signUp(url);
    const headers = { 'content-type': 'application/json', 'x-api-key': key };
    const bodies = personBodies(5000, 23);
    const creates = { method: 'POST' as const, paths: ['/v1/knowledge/person'], headers, bodies };
    const warm = await driveLoad(bench.server, creates, 201, { ...options, seconds: 1, requests: Math.ceil(options.requests / 10) });
    const create = await driveLoad(bench.server, creates, 201, options);
    const total = (await call(url, key, 'GET', '/v1/knowledge/person?limit=1', undefined, 200)).total as number;
    const answered = warm.requests + create.requests;
    if (total < answered || total > answered + 2 * options.connections)
      throw new Error(`${answered} creates answered 201 but the list counts ${total} objects`);

    // The PATCH targets: the first 1,000 objects, read back page by page.
    const ids: string[] = [];
    let cursor: string | null = null;
    while (ids.length < 1000) {
      const page: { objects: { id: string }[]; next_cursor: string | null } = await call(
        url,
        key,
        'GET',
        `/v1/knowledge/person?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        undefined,
        200,
      );
      ids.push(...page.objects.map((o) => o.id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    // Seven bodies against 1,000 paths: consecutive PATCHes of an object set different values.
    const patchBodies = TITLES.map((t) => JSON.stringify({ fields: { job_title: `senior ${t}` } }));
    const patches = { method: 'PATCH' as const, paths: ids.map((id) => `/v1/knowledge/person/${id}`), headers, bodies: patchBodies };
    await driveLoad(bench.server, patches, 200, { ...options, seconds: 1, requests: Math.ceil(options.requests / 10) });
    const patch = await driveLoad(bench.server, patches, 200, options);
    // Every target now holds one of the PATCHed titles.
    const sample = await pool(ids.slice(0, 50), 4, (id) => call(url, key, 'GET', `/v1/knowledge/person/${id}`, undefined, 200));
    if (sample.some((o) => !String(o.fields.job_title?.value ?? '').startsWith('senior ')))
      throw new Error('a PATCHed object does not hold a PATCHed value');
    return { create, patch };
  } finally {
    await bench.close();
  }
}
