// Fixtures here are written by hand for these tests; they only imitate the LoCoMo *shape*.
// The real LoCoMo data is CC BY-NC and must never be copied into the repository.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DatasetError,
  datasetCounts,
  limitConversations,
  loadDataset,
  normaliseEvidence,
  parseDataset,
  parseSessionDate,
  resolveEvidence,
  turnKey,
} from '../../bench/harness/dataset.js';
import { cachedDatasetPath, obtainLocomo } from '../../bench/harness/download.js';
import { resolveDataset } from '../../bench/harness/resolve.js';
import { syntheticLocomoJson } from '../../bench/harness/synthetic.js';

type Json = Record<string, unknown>;

/** A small valid conversation in LoCoMo shape, with the extra keys the public file carries. */
function conversationEntry(sampleId = 'conv-a'): Json {
  return {
    sample_id: sampleId,
    conversation: {
      speaker_a: 'Ada',
      speaker_b: 'Bo',
      // Key order deliberately not numeric: session_10 comes before session_2 lexically.
      session_10_date_time: '9:05 am on 1 March, 2024',
      session_10: [{ speaker: 'Bo', dia_id: 'D10:1', text: 'I sold my bike.' }],
      session_1_date_time: '2:17 pm on 9 May, 2023',
      session_1: [
        { speaker: 'Ada', dia_id: 'D1:1', text: 'I moved to Oslo.' },
        {
          speaker: 'Bo',
          dia_id: 'D1:2',
          text: 'Nice photo!',
          img_url: ['http://example.invalid/x.jpg'],
          blip_caption: 'a fjord',
          query: 'fjord',
        },
      ],
      session_2_date_time: '12:30 pm on 20 May, 2023',
      session_2: [
        { speaker: 'Ada', dia_id: 'D2:1', text: 'I adopted a cat.' },
        { speaker: 'Bo', dia_id: 'D2:2', text: 'What is its name?' },
      ],
      session_3_date_time: '8:00 pm on 1 June, 2023', // date with no turns: ignored
    },
    qa: [
      { question: 'Where did Ada move?', answer: 'Oslo', evidence: ['D1:1'], category: 4 },
      { question: 'What did Ada do in May?', answer: 2023, evidence: ['D1:1; D2:1'], category: 1 },
      { question: 'When?', answer: 'May', evidence: ['D1:1 D2:1', 'D2:1'], category: 2 },
      { question: 'Typo evidence', answer: 'x', evidence: ['D:2:2', 'D9:9', 'D'], category: 3 },
      { question: 'Adversarial', adversarial_answer: 'no', evidence: [], category: 5 },
      { question: 'No evidence', answer: 'y', evidence: [], category: 3 },
    ],
    observation: { session_1_observation: {} },
    session_summary: { session_1_summary: 'x' },
    event_summary: { events_session_1: {} },
  };
}

/** Deep-copy a fixture and apply a change, to build one malformed case at a time. */
function mutate(change: (e: Json & { conversation: Json; qa: Json[] }) => void, sampleId = 'conv-a'): Json {
  const e = structuredClone(conversationEntry(sampleId)) as Json & { conversation: Json; qa: Json[] };
  change(e);
  return e;
}

describe('evidence normalisation', () => {
  it('splits on ";", "," and whitespace, drops empties, dedupes keeping order', () => {
    expect(normaliseEvidence(['D8:6; D9:17', 'D1:2 D1:3', ' D1:3 ', 'D2:1,D2:2', ''])).toEqual([
      'D8:6',
      'D9:17',
      'D1:2',
      'D1:3',
      'D2:1',
      'D2:2',
    ]);
    expect(normaliseEvidence([])).toEqual([]);
  });

  it('keeps known ids, repairs the D:N:M typo, drops the rest', () => {
    const turns = new Set(['D1:1', 'D11:26']);
    expect(resolveEvidence(['D1:1', 'D:11:26', 'D', 'D10:19'], turns)).toEqual({
      evidence: ['D1:1', 'D11:26'],
      repaired: ['D:11:26 → D11:26'],
      dropped: ['D', 'D10:19'],
    });
  });
});

describe('parseSessionDate', () => {
  it('parses the LoCoMo style as UTC', () => {
    expect(parseSessionDate('2:17 pm on 9 May, 2023')).toBe('2023-05-09T14:17:00.000Z');
    expect(parseSessionDate('12:30 am on 1 January, 2024')).toBe('2024-01-01T00:30:00.000Z');
    expect(parseSessionDate('12:30 pm on 1 January 2024')).toBe('2024-01-01T12:30:00.000Z');
  });
  it('returns null for anything else', () => {
    expect(parseSessionDate('yesterday')).toBeNull();
    expect(parseSessionDate('1:00 pm on 31 June, 2023')).toBeNull();
    expect(parseSessionDate('13:00 pm on 1 June, 2023')).toBeNull();
  });
});

describe('parseDataset (valid)', () => {
  const ds = parseDataset([conversationEntry('conv-a'), conversationEntry('conv-b')], 'fixture.json');
  const conv = ds.conversations[0]!;

  it('normalises turns in numeric session order with their session date', () => {
    expect(conv.sampleId).toBe('conv-a');
    expect(conv.speakerA).toBe('Ada');
    expect(conv.speakerB).toBe('Bo');
    expect(conv.turns.map((t) => t.turnId)).toEqual(['D1:1', 'D1:2', 'D2:1', 'D2:2', 'D10:1']);
    expect(conv.turns[0]).toEqual({
      turnId: 'D1:1',
      speaker: 'Ada',
      text: 'I moved to Oslo.',
      sessionDate: '2:17 pm on 9 May, 2023',
      sessionTimestamp: '2023-05-09T14:17:00.000Z',
      session: 1,
    });
    expect(conv.turns[1]?.imageCaption).toBe('a fjord');
    expect(conv.turns[4]?.session).toBe(10);
  });

  it('keeps categories 1–4 with normalised evidence and drops category 5 and evidence-less questions', () => {
    expect(conv.questions).toEqual([
      { question: 'Where did Ada move?', category: 4, evidence: ['D1:1'], answer: 'Oslo' },
      { question: 'What did Ada do in May?', category: 1, evidence: ['D1:1', 'D2:1'], answer: '2023' },
      { question: 'When?', category: 2, evidence: ['D1:1', 'D2:1'], answer: 'May' },
      { question: 'Typo evidence', category: 3, evidence: ['D2:2'], answer: 'x' },
    ]);
    expect(conv.excluded).toEqual({ adversarial: 1, noEvidence: 1 });
    expect(ds.warnings).toContain('fixture.json: entry 0 (sample_id conv-a): qa[3]: repaired evidence D:2:2 → D2:2');
    expect(ds.warnings).toContain('fixture.json: entry 0 (sample_id conv-a): qa[3]: dropped evidence not naming a turn: D9:9, D');
    expect(ds.warnings).toContain('fixture.json: entry 0 (sample_id conv-a): qa[5]: no usable evidence, question excluded');
  });

  it('counts, limits and keys', () => {
    expect(datasetCounts(ds)).toEqual({ conversations: 2, turns: 10, questions: 8, excludedAdversarial: 2, excludedNoEvidence: 2 });
    expect(datasetCounts(limitConversations(ds, 1)).conversations).toBe(1);
    expect(limitConversations(ds, undefined)).toBe(ds);
    expect(turnKey('conv-a', 'D1:1')).not.toBe(turnKey('conv-b', 'D1:1'));
  });

  it('allows category 5 without evidence', () => {
    const e = mutate((x) => {
      x.qa[4] = { question: 'Adversarial', adversarial_answer: 'no', category: 5 };
    });
    expect(parseDataset([e], 'f.json').conversations[0]?.excluded.adversarial).toBe(1);
  });
});

describe('parseDataset (malformed)', () => {
  const cases: [string, unknown, string][] = [
    ['top level not an array', { sample_id: 'x' }, 'bad.json: top level must be a JSON array of conversations (got an object)'],
    ['empty array', [], 'bad.json: contains no conversations'],
    ['entry not an object', [conversationEntry(), 'oops'], 'bad.json: entry 1: must be an object (got a string)'],
    ['missing sample_id', [mutate((e) => delete e.sample_id)], 'bad.json: entry 0: sample_id is missing'],
    ['empty sample_id', [mutate((e) => (e.sample_id = ''))], 'bad.json: entry 0: sample_id must not be empty'],
    [
      'missing conversation',
      [mutate((e) => delete (e as Json).conversation)],
      'bad.json: entry 0 (sample_id conv-a): conversation is missing',
    ],
    [
      'speaker_a not a string',
      [mutate((e) => (e.conversation.speaker_a = 7))],
      'bad.json: entry 0 (sample_id conv-a): conversation.speaker_a must be a string (got a number)',
    ],
    [
      'session not an array',
      [mutate((e) => (e.conversation.session_2 = 'hello'))],
      'bad.json: entry 0 (sample_id conv-a): conversation.session_2 must be an array (got a string)',
    ],
    [
      'turn without dia_id',
      [mutate((e) => delete (e.conversation.session_1 as Json[])[1]!.dia_id)],
      'bad.json: entry 0 (sample_id conv-a): conversation.session_1[1].dia_id is missing',
    ],
    [
      'turn text not a string',
      [mutate((e) => ((e.conversation.session_2 as Json[])[0]!.text = null))],
      'bad.json: entry 0 (sample_id conv-a): conversation.session_2[0].text must be a string (got null)',
    ],
    [
      'session without a date',
      [mutate((e) => delete e.conversation.session_2_date_time)],
      'bad.json: entry 0 (sample_id conv-a): conversation.session_2_date_time is missing',
    ],
    [
      'duplicate dia_id',
      [mutate((e) => ((e.conversation.session_2 as Json[])[1]!.dia_id = 'D2:1'))],
      'bad.json: entry 0 (sample_id conv-a): conversation.session_2[1].dia_id D2:1 is a duplicate',
    ],
    [
      'no turns at all',
      [
        mutate((e) => {
          for (const key of Object.keys(e.conversation)) if (/^session_\d+$/.test(key)) e.conversation[key] = [];
        }),
      ],
      'bad.json: entry 0 (sample_id conv-a): conversation has no turns (no non-empty session_N arrays)',
    ],
    [
      'qa not an array',
      [mutate((e) => ((e as Json).qa = {}))],
      'bad.json: entry 0 (sample_id conv-a): qa must be an array (got an object)',
    ],
    ['question missing', [mutate((e) => delete e.qa[1]!.question)], 'bad.json: entry 0 (sample_id conv-a): qa[1].question is missing'],
    [
      'evidence element not a string',
      [mutate((e) => (e.qa[0]!.evidence = ['D1:1', 5]))],
      'bad.json: entry 0 (sample_id conv-a): qa[0].evidence[1] must be a string (got a number)',
    ],
    [
      'evidence missing on a scored question',
      [mutate((e) => delete e.qa[0]!.evidence)],
      'bad.json: entry 0 (sample_id conv-a): qa[0].evidence is missing',
    ],
    [
      'category out of range',
      [mutate((e) => (e.qa[2]!.category = 7))],
      'bad.json: entry 0 (sample_id conv-a): qa[2].category must be an integer from 1 to 5 (got 7)',
    ],
    [
      'category as a string',
      [mutate((e) => (e.qa[2]!.category = '2'))],
      'bad.json: entry 0 (sample_id conv-a): qa[2].category must be an integer from 1 to 5 (got "2")',
    ],
    ['category missing', [mutate((e) => delete e.qa[2]!.category)], 'bad.json: entry 0 (sample_id conv-a): qa[2].category is missing'],
    [
      'answer of an unsupported type',
      [mutate((e) => (e.qa[0]!.answer = { text: 'Oslo' }))],
      'bad.json: entry 0 (sample_id conv-a): qa[0].answer has an unsupported type (an object)',
    ],
    [
      'repeated sample_id',
      [conversationEntry('c1'), conversationEntry('c2'), conversationEntry('c1')],
      'bad.json: entry 2 (sample_id c1): sample_id repeats entry 0',
    ],
  ];

  it.each(cases)('%s', (_name, raw, message) => {
    let caught: unknown;
    try {
      parseDataset(raw, 'bad.json');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DatasetError);
    expect((caught as Error).message).toBe(message);
  });

  it('names the file, the entry and the field (qa[12].evidence not an array)', () => {
    const entries = [0, 1, 2, 3].map((i) => conversationEntry(`conv-${i + 4}`));
    const broken = entries[3] as Json & { qa: Json[] };
    broken.sample_id = 'conv-7';
    while (broken.qa.length < 13) broken.qa.push({ question: 'Q?', answer: 'A', evidence: ['D1:1'], category: 4 });
    broken.qa[12]!.evidence = 'D1:1';
    expect(() => parseDataset(entries, 'locomo.json')).toThrow(
      'locomo.json: entry 3 (sample_id conv-7): qa[12].evidence must be an array (got a string)',
    );
  });
});

describe('loadDataset', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-dataset-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a valid file', async () => {
    const path = join(dir, 'ok.json');
    await writeFile(path, JSON.stringify([conversationEntry()]));
    const ds = await loadDataset(path);
    expect(ds.source).toBe(path);
    expect(ds.conversations[0]?.questions).toHaveLength(4);
  });

  it('reports a missing file and bad JSON with the path', async () => {
    const missing = join(dir, 'nope.json');
    await expect(loadDataset(missing)).rejects.toThrow(`${missing}: cannot read file:`);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '[{"sample_id": ');
    await expect(loadDataset(bad)).rejects.toThrow(`${bad}: not valid JSON:`);
    await expect(loadDataset(bad)).rejects.toBeInstanceOf(DatasetError);
  });
});

// ---------------------------------------------------------------------------------------------------
// Download, cache, checksum and fallback.

/** A port nothing listens on: bind to an ephemeral port, then close it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('obtainLocomo / resolveDataset', () => {
  const body = syntheticLocomoJson({ seed: 7, conversations: 1 });
  const bodySha = createHash('sha256').update(body).digest('hex');
  let server: Server;
  let base: string;
  let hits = 0;
  let dir: string;
  const env = {}; // isolate from LOCOMO_URL / LOCOMO_SHA256 in the developer's environment

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/locomo10.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      } else if (req.url === '/hang') {
        // Never answers: the client's timeout must fire.
      } else {
        res.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(async () => {
    hits = 0;
    dir = await mkdtemp(join(tmpdir(), 'bench-harness-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('falls back quickly when the URL is unreachable', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/locomo10.json`;
    const result = await obtainLocomo({ harnessDir: dir, url, env, timeoutMs: 5_000 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain(url);
    expect(result.reason).toContain('ECONNREFUSED');
    // Quickly: on the refusal itself, not after waiting out the timeout (read from the outcome, not a clock).
    expect(result.reason).not.toContain('timed out');

    const resolved = await resolveDataset({ harnessDir: dir, url, env, timeoutMs: 5_000 });
    expect(resolved.kind).toBe('synthetic');
    expect(resolved.dataset.source).toBe('synthetic');
    expect(resolved.fallbackReason).toContain('ECONNREFUSED');
    expect(resolved.dataset.conversations.length).toBeGreaterThan(0);
  });

  it('times out a server that never answers', async () => {
    const result = await obtainLocomo({ harnessDir: dir, url: `${base}/hang`, env, timeoutMs: 200 });
    expect(result).toEqual({ ok: false, reason: `download of ${base}/hang failed: timed out after 200 ms` });
  });

  it('reports an HTTP error', async () => {
    const result = await obtainLocomo({ harnessDir: dir, url: `${base}/missing`, env, expectedSha256: bodySha });
    expect(result).toEqual({ ok: false, reason: `download of ${base}/missing failed: HTTP 404` });
  });

  it('downloads, verifies, caches, and reuses the cache', async () => {
    const url = `${base}/locomo10.json`;
    const first = await obtainLocomo({ harnessDir: dir, url, env, expectedSha256: bodySha.toUpperCase() });
    expect(first).toEqual({ ok: true, path: cachedDatasetPath(dir), sha256: bodySha, fromCache: false });
    expect(cachedDatasetPath(dir)).toBe(join(dir, 'datasets', 'locomo10.json'));
    expect(await readFile(cachedDatasetPath(dir), 'utf8')).toBe(body);

    const second = await obtainLocomo({ harnessDir: dir, url, env, expectedSha256: bodySha });
    expect(second).toMatchObject({ ok: true, fromCache: true });
    expect(hits).toBe(1);

    const resolved = await resolveDataset({ harnessDir: dir, url, env, expectedSha256: bodySha });
    expect(resolved.kind).toBe('locomo');
    expect(resolved.fallbackReason).toBeUndefined();
    expect(resolved.dataset.source).toBe(cachedDatasetPath(dir));
  });

  it('re-downloads a corrupted cache', async () => {
    const url = `${base}/locomo10.json`;
    await obtainLocomo({ harnessDir: dir, url, env, expectedSha256: bodySha });
    await writeFile(cachedDatasetPath(dir), '[]');
    const again = await obtainLocomo({ harnessDir: dir, url, env, expectedSha256: bodySha });
    expect(again).toMatchObject({ ok: true, fromCache: false });
    expect(await readFile(cachedDatasetPath(dir), 'utf8')).toBe(body);
  });

  it('rejects a checksum mismatch without writing the cache', async () => {
    const url = `${base}/locomo10.json`;
    const wrong = 'a'.repeat(64);
    const result = await obtainLocomo({ harnessDir: dir, url, env, expectedSha256: wrong });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(`got sha256 ${bodySha}, expected ${wrong}`);
    await expect(stat(cachedDatasetPath(dir))).rejects.toThrow();

    const resolved = await resolveDataset({ harnessDir: dir, url, env, expectedSha256: wrong });
    expect(resolved.kind).toBe('synthetic');
    expect(resolved.fallbackReason).toContain('checksum mismatch');
  });

  it('reads LOCOMO_SHA256 / LOCOMO_URL from the environment and rejects a malformed hash', async () => {
    const ok = await obtainLocomo({ harnessDir: dir, env: { LOCOMO_URL: `${base}/locomo10.json`, LOCOMO_SHA256: bodySha } });
    expect(ok).toMatchObject({ ok: true });
    const bad = await obtainLocomo({ harnessDir: dir, env: { LOCOMO_URL: `${base}/locomo10.json`, LOCOMO_SHA256: 'xyz' } });
    expect(bad).toEqual({ ok: false, reason: 'expected checksum "xyz" is not a SHA-256 (64 hex digits); check LOCOMO_SHA256' });
  });

  it('uses an injected fetch', async () => {
    const fetchImpl = (async () => {
      throw Object.assign(new Error('fetch failed'), { cause: { code: 'ENOTFOUND' } });
    }) as unknown as typeof fetch;
    const result = await obtainLocomo({ harnessDir: dir, url: 'https://example.invalid/x.json', env, fetchImpl });
    expect(result).toEqual({ ok: false, reason: 'download of https://example.invalid/x.json failed: fetch failed (ENOTFOUND)' });
  });

  it('does not fall back for an explicit --dataset-path', async () => {
    const path = join(dir, 'mine.json');
    await writeFile(path, '{"not": "an array"}');
    await expect(resolveDataset({ datasetPath: path, harnessDir: dir, env })).rejects.toThrow(
      `${path}: top level must be a JSON array of conversations (got an object)`,
    );
    await writeFile(path, JSON.stringify([conversationEntry()]));
    const resolved = await resolveDataset({ datasetPath: path, harnessDir: dir, env });
    expect(resolved.kind).toBe('file');
    expect(hits).toBe(0);
  });
});
