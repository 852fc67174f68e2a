import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmContradictionDetector } from '../../adapters/llm/contradiction-detector.js';
import {
  OfflineContradictionDetector,
  canonicalSubject,
  detectContradiction,
  extractFacts,
  type ContradictionDetector,
} from '../../server/services/consolidation/contradiction.js';
import { chatAnswer, startOpenAiStandIn, type OpenAiStandIn, type RecordedRequest, type Responder } from '../support/openai-stand-in.js';

const check = (newer: string, older: string) => detectContradiction({ content: newer }, { content: older });

describe('offline detectContradiction — contradictions', () => {
  it.each([
    ['Alice moved to Berlin', 'Alice lives in Paris', 'alice', 'residence'],
    ['Alice relocated to Berlin last spring.', 'Alice is based in Paris.', 'alice', 'residence'],
    ['Bob works at Globex', 'Bob works at Acme', 'bob', 'employer'],
    ['Bob joined Globex in May', 'Bob works for Acme', 'bob', 'employer'],
    ['Bob was hired by Globex', 'Bob works at Acme Corp', 'bob', 'employer'],
    ["Carol's favourite colour is green", "Carol's favourite colour is blue", 'carol', 'favorite-color'],
    ['My favorite color is green', 'My favourite colour is blue', 'user', 'favorite-color'],
    ['Dan is not vegetarian', 'Dan is vegetarian', 'dan', 'diet'],
    ["Dan isn't vegetarian anymore", 'Dan is vegetarian', 'dan', 'diet'],
    ['Dan is pescatarian', 'Dan is vegetarian', 'dan', 'diet'],
    ['Erin is 35 years old', 'Erin is 34', 'erin', 'age'],
    ['Erin turned 35', 'Erin is a 34-year-old nurse', 'erin', 'age'],
    ['Frank is married to Helen', 'Frank is married to Grace', 'frank', 'spouse'],
    ['Frank married Helen', 'Frank is married to Grace', 'frank', 'spouse'],
    ['Frank is not married', 'Frank is married to Grace', 'frank', 'marital-status'],
    ["Alice is Bob's wife", 'Alice is married to Carl', 'alice', 'spouse'],
    ['Alice works as a designer', 'Alice works as an engineer', 'alice', 'role'],
    ['Alice is a teacher', 'Alice is a doctor', 'alice', 'role'],
    ['Alice used to live in Paris', 'Alice lives in Paris', 'alice', 'residence'],
    ['Bob no longer works at Acme', 'Bob works at Acme', 'bob', 'employer'],
    ['Bob left Acme last week', 'Bob works at Acme', 'bob', 'employer'],
    ['I moved to Berlin', 'I live in London', 'user', 'residence'],
    ['The user moved to Berlin', 'I live in London', 'user', 'residence'],
    ['My sister Jane lives in Oslo', 'Jane lives in Bergen', 'jane', 'residence'],
    ['Alice likes cats', 'Alice does not like cats', 'alice', 'like'],
    ['Alice lives in Paris and works at Globex', 'Alice works at Acme', 'alice', 'employer'],
    ['Alice moved to Berlin. She works at Acme.', 'Alice lives in Paris. She loves croissants.', 'alice', 'residence'],
    // Transcript lines: "I" is the speaker.
    ['[2:17 pm on 9 May, 2023] Peter: I moved to Berlin', '[11:05 am on 2 May, 2023] Peter: I live in London', 'peter', 'residence'],
    ['Peter: My favorite color is green', 'Peter: My favourite colour is blue', 'peter', 'favorite-color'],
    ['Peter: I moved to Berlin', 'Peter lives in London', 'peter', 'residence'],
    ["I'm not happy anymore", "I'm happy", 'user', 'state'],
    ['Alice is not retired', 'Alice is retired', 'alice', 'state'],
    // A label that is not a name leaves "I" as the user.
    ['Note: I moved to Berlin', 'I live in London', 'user', 'residence'],
  ])('%j contradicts %j', (newer, older, subject, attribute) => {
    const r = check(newer, older);
    expect(r.contradicts).toBe(true);
    expect(r.subject).toBe(subject);
    expect(r.attribute).toBe(attribute);
    expect(r.detector).toBe('offline');
    expect(typeof r.reason).toBe('string');
  });

  it('explains the conflict', () => {
    expect(check('Alice moved to Berlin', 'Alice lives in Paris').reason).toBe(
      'residence of alice: newer says "berlin", older says "paris"',
    );
    expect(check('Dan is not vegetarian', 'Dan is vegetarian').reason).toBe(
      'diet of dan: newer says not "vegetarian", older says "vegetarian"',
    );
  });
});

describe('offline detectContradiction — no contradiction', () => {
  it.each([
    ['Alice likes Paris', 'Alice lives in Paris'],
    ['Bob lives in Berlin', 'Alice lives in Paris'],
    ['Alice visited Paris', 'Alice visited Rome'],
    ['Alice likes dogs', 'Alice likes cats'],
    ['Alice lives in Paris, France', 'Alice lives in Paris'],
    ['Alice lives in France', 'Alice lives in Paris'],
    ['Alice lived in Paris', 'Alice lives in Berlin'],
    ['Bob works for Acme', 'Bob works at Acme Corp'],
    ['Alice is a mother', 'Alice is a doctor'],
    ['Alice works as a senior engineer at Acme', 'Alice works as an engineer'],
    ['Alice lives in a flat', 'Alice lives in Paris'],
    ['Alice wants to move to Berlin', 'Alice lives in Paris'],
    ['If Alice moves to Berlin she will tell us', 'Alice lives in Paris'],
    ['Does Alice live in Berlin?', 'Alice lives in Paris'],
    ['Alice is happy', 'Alice is tired'],
    ['Dan is vegan', 'Dan is vegetarian'],
    ['Alice is from Lyon', 'Alice lives in Paris'],
    ['The user prefers dark mode', 'The user prefers light mode'],
    ["Carol's favourite colour is not green", "Carol's favourite colour is blue"],
    ["Carol's favourite food is sushi", "Carol's favourite colour is blue"],
    ['Alice lives in Paris', 'Alice lives in Paris'],
    ['', 'Alice lives in Paris'],
    ['Meeting notes: ship v2 on Friday', 'Alice lives in Paris'],
    // A verb phrase or an idiom after "I'm" is no state.
    ["I'm not gonna give up on my dreams", "I'm up for the challenge!"],
    ["I'm not about to quit", "I'm about to leave"],
    // Two speakers of one conversation are two subjects, and neither is the user.
    [
      "[7:40 am on 3 March, 2023] Peter: Thanks, Susan! Your advice helped a lot. I'm not gonna give up on the bakery - it needs every early morning I can give it.",
      "[10:15 pm on 27 February, 2023] Susan: Cheers, that was kind of you. I'm sure the repair shop will find its regulars if I keep at it. It's tough but I'm up for the challenge!",
    ],
    ['Susan: I moved to Berlin', 'Peter: I live in London'],
    ['Susan: My favorite color is green', 'Peter: My favourite colour is blue'],
    ['Susan: I moved to Berlin', 'I live in London'],
  ])('%j vs %j', (newer, older) => {
    expect(check(newer, older)).toEqual({ contradicts: false, detector: 'offline' });
  });
});

describe('fact extraction', () => {
  it('extracts (subject, attribute, value, negated, tense)', () => {
    expect(extractFacts('Alice moved to Berlin.')).toEqual([
      { subject: 'alice', attribute: 'residence', value: 'berlin', negated: false, tense: 'present', single: true, kind: 'place' },
    ]);
    expect(extractFacts('Dan is not vegetarian')).toEqual([
      { subject: 'dan', attribute: 'diet', value: 'vegetarian', negated: true, tense: 'present', single: true, kind: 'text' },
    ]);
    expect(extractFacts('Alice lived in Paris')[0]).toMatchObject({ attribute: 'residence', value: 'paris', tense: 'past' });
    expect(extractFacts('Alice visited Rome')[0]).toMatchObject({
      subject: 'alice',
      attribute: 'visit',
      value: 'rome',
      single: false,
      tense: 'past',
    });
  });

  it('spouse facts also state the marital status', () => {
    expect(extractFacts('Frank is married to Grace').map((f) => [f.attribute, f.value])).toEqual([
      ['spouse', 'grace'],
      ['marital-status', 'married'],
    ]);
  });

  it('resolves subjects with compromise', () => {
    expect(canonicalSubject('Alice')).toBe('alice');
    expect(canonicalSubject('my sister Jane')).toBe('jane');
    expect(canonicalSubject('In 2020, Alice')).toBe('alice');
    expect(canonicalSubject('I')).toBe('user');
    expect(canonicalSubject('the user')).toBe('user');
    expect(canonicalSubject("Alice's brother")).toBe("alice's brother");
    expect(canonicalSubject('the company')).toBe('company');
    expect(canonicalSubject('She')).toBeNull();
    expect(canonicalSubject('She', { lastNamed: 'alice' })).toBe('alice');
  });
});

describe('OfflineContradictionDetector', () => {
  it('implements the async interface', async () => {
    const d: ContradictionDetector = new OfflineContradictionDetector();
    await expect(d.detect({ content: 'Bob works at Globex' }, { content: 'Bob works at Acme' })).resolves.toMatchObject({
      contradicts: true,
      attribute: 'employer',
      detector: 'offline',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// LLM detector against a real HTTP server on 127.0.0.1, port 0.

describe('LlmContradictionDetector', () => {
  let standIn: OpenAiStandIn;
  let baseUrl: string;
  let requests: RecordedRequest[];
  const answer = chatAnswer;
  let responder: Responder;

  beforeAll(async () => {
    standIn = await startOpenAiStandIn((req, res, body) => responder(req, res, body));
    baseUrl = standIn.url;
    requests = standIn.requests;
  });

  afterAll(async () => {
    await standIn.close();
  });

  beforeEach(() => {
    requests.length = 0;
    responder = answer('{"contradicts": false}');
  });

  const newer = { content: 'Alice moved to Berlin' };
  const older = { content: 'Alice lives in Paris' };

  it('posts an OpenAI-style chat completion and returns the model verdict', async () => {
    responder = answer(JSON.stringify({ contradicts: true, subject: 'Alice', attribute: 'city', reason: 'moved away' }));
    const d = new LlmContradictionDetector({ url: baseUrl, model: 'tiny-model', apiKey: 'sk-test-123' });
    await expect(d.detect(newer, older)).resolves.toEqual({
      contradicts: true,
      subject: 'Alice',
      attribute: 'city',
      reason: 'moved away',
      detector: 'llm',
    });
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-test-123');
    expect(req?.headers['content-type']).toBe('application/json');
    const body = req?.body as {
      model: string;
      temperature: number;
      response_format: unknown;
      messages: Array<{ role: string; content: string }>;
    };
    expect(body.model).toBe('tiny-model');
    expect(body.temperature).toBe(0);
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.parse(body.messages[1]!.content)).toEqual({ older: 'Alice lives in Paris', newer: 'Alice moved to Berlin' });
  });

  it('trusts a "no contradiction" verdict over the offline heuristic', async () => {
    const d = new LlmContradictionDetector({ url: `${baseUrl}/v1`, model: 'm' });
    await expect(d.detect(newer, older)).resolves.toEqual({ contradicts: false, detector: 'llm' });
    expect(requests[0]?.url).toBe('/v1/chat/completions');
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts a fenced JSON answer and a full endpoint URL', async () => {
    responder = answer('Sure:\n```json\n{"contradicts": true, "subject": "alice", "attribute": "residence", "reason": null}\n```');
    const d = new LlmContradictionDetector({ url: `${baseUrl}/v1/chat/completions`, model: 'm' });
    await expect(d.detect(newer, older)).resolves.toEqual({ contradicts: true, subject: 'alice', attribute: 'residence', detector: 'llm' });
  });

  it.each([
    [
      'HTTP 500',
      ((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error": "boom"}');
      }) as Responder,
    ],
    [
      'non-JSON body',
      ((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('not json');
      }) as Responder,
    ],
    ['answer without JSON', answer('I think they contradict.')],
    ['answer with the wrong shape', answer('{"contradicts": "yes"}')],
    [
      'no choices',
      ((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"choices": []}');
      }) as Responder,
    ],
  ])('falls back to the offline detector on %s', async (_label, r) => {
    responder = r;
    const d = new LlmContradictionDetector({ url: baseUrl, model: 'm' });
    await expect(d.detect(newer, older)).resolves.toMatchObject({ contradicts: true, attribute: 'residence', detector: 'offline' });
    expect(requests).toHaveLength(1);
  });

  it('falls back on timeout', async () => {
    let answered = false;
    responder = (_req, res) => {
      const timer = setTimeout(() => {
        answered = true;
        answer('{"contradicts": false}')(_req, res, undefined);
      }, 2_000);
      res.on('close', () => clearTimeout(timer));
    };
    const d = new LlmContradictionDetector({ url: baseUrl, model: 'm', timeoutMs: 100 });
    await expect(d.detect(newer, older)).resolves.toMatchObject({ contradicts: true, detector: 'offline' });
    // The fallback came from the timeout: the slow answer was never sent (state, not a wall clock).
    expect(answered).toBe(false);
  });

  it('falls back when nothing listens (connection refused)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const d = new LlmContradictionDetector({ url: `http://127.0.0.1:${port}`, model: 'm', timeoutMs: 2_000 });
    await expect(d.detect(newer, older)).resolves.toMatchObject({ contradicts: true, detector: 'offline' });
  });

  it('uses a supplied fallback detector', async () => {
    responder = (_req, res) => {
      res.writeHead(503);
      res.end();
    };
    const fallback: ContradictionDetector = { detect: () => Promise.resolve({ contradicts: false, reason: 'custom' }) };
    const d = new LlmContradictionDetector({ url: baseUrl, model: 'm', fallback });
    await expect(d.detect(newer, older)).resolves.toEqual({ contradicts: false, reason: 'custom' });
  });
});
