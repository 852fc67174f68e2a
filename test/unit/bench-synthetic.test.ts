import { afterEach, describe, expect, it, vi } from 'vitest';
import { datasetCounts, parseSessionDate, type Conversation } from '../../bench/harness/dataset.js';
import { scoreRun, type QueryOutcome } from '../../bench/harness/report.js';
import {
  generateSyntheticDataset,
  generateSyntheticLocomo,
  syntheticLocomoJson,
  SYNTHETIC_SOURCE,
  type RawLocomoTurn,
} from '../../bench/harness/synthetic.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('synthetic dataset: determinism', () => {
  it('same seed → byte-identical output; different seed → different output', () => {
    const a = syntheticLocomoJson({ seed: 123 });
    const b = syntheticLocomoJson({ seed: 123 });
    expect(a).toBe(b);
    expect(syntheticLocomoJson({ seed: 124 })).not.toBe(a);
    expect(syntheticLocomoJson()).toBe(syntheticLocomoJson());
  });

  it('never uses Math.random', () => {
    const spy = vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    expect(() => syntheticLocomoJson({ seed: 5, conversations: 8, sessions: 10 })).not.toThrow();
    expect(spy).not.toHaveBeenCalled();
  });

  it('does not depend on the local time zone', () => {
    const before = syntheticLocomoJson({ seed: 9 });
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      expect(syntheticLocomoJson({ seed: 9 })).toBe(before);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('validates its options', () => {
    expect(() => generateSyntheticLocomo({ conversations: 0 })).toThrow(/conversations must be an integer from 1 to 8/);
    expect(() => generateSyntheticLocomo({ conversations: 9 })).toThrow(RangeError);
    expect(() => generateSyntheticLocomo({ sessions: 1 })).toThrow(/sessions must be an integer from 2 to 10/);
    expect(() => generateSyntheticLocomo({ seed: 1.5 })).toThrow(/seed must be an integer/);
  });
});

describe('synthetic dataset: shape and self-consistency', () => {
  for (const options of [{}, { seed: 1, conversations: 8, sessions: 2 }, { seed: 99, conversations: 2, sessions: 10 }]) {
    it(`every evidence id names a turn of its own conversation (${JSON.stringify(options)})`, () => {
      const raw = generateSyntheticLocomo(options);
      for (const entry of raw) {
        const turnIds = new Set(
          Object.entries(entry.conversation)
            .filter(([key]) => /^session_\d+$/.test(key))
            .flatMap(([, turns]) => (turns as RawLocomoTurn[]).map((t) => t.dia_id)),
        );
        for (const qa of entry.qa) {
          for (const ev of qa.evidence) for (const id of ev.split(/[;\s]+/).filter(Boolean)) expect(turnIds).toContain(id);
        }
      }
      // Through the real loader: nothing repaired, dropped or excluded for lack of evidence.
      const ds = generateSyntheticDataset(options);
      expect(ds.warnings).toEqual([]);
      expect(datasetCounts(ds).excludedNoEvidence).toBe(0);
    });
  }

  it('has the LoCoMo shape the loader expects', () => {
    const raw = generateSyntheticLocomo({ seed: 3, conversations: 2, sessions: 3 });
    expect(raw).toHaveLength(2);
    const conv = raw[0]!.conversation;
    expect(Object.keys(conv)).toEqual([
      'speaker_a',
      'speaker_b',
      'session_1_date_time',
      'session_1',
      'session_2_date_time',
      'session_2',
      'session_3_date_time',
      'session_3',
    ]);
    for (let s = 1; s <= 3; s++) {
      expect(parseSessionDate(conv[`session_${s}_date_time`] as string)).not.toBeNull();
      (conv[`session_${s}`] as RawLocomoTurn[]).forEach((t, i) => {
        expect(t.dia_id).toBe(`D${s}:${i + 1}`);
        expect([conv.speaker_a, conv.speaker_b]).toContain(t.speaker);
      });
    }
  });

  it('covers categories 1–4, includes an excluded category 5, and dates move forward', () => {
    const ds = generateSyntheticDataset();
    expect(ds.source).toBe(SYNTHETIC_SOURCE);
    const counts = datasetCounts(ds);
    expect(counts).toMatchObject({ conversations: 3, questions: 36, excludedAdversarial: 3 });
    const categories = new Set(ds.conversations.flatMap((c) => c.questions.map((q) => q.category)));
    expect([...categories].sort()).toEqual([1, 2, 3, 4]);
    // Multi-hop questions have two evidence turns.
    for (const q of ds.conversations.flatMap((c) => c.questions).filter((q) => q.category === 1)) {
      expect(q.evidence).toHaveLength(2);
    }
    for (const c of ds.conversations) {
      const stamps = [...new Set(c.turns.map((t) => t.sessionTimestamp))];
      expect(stamps.every((s) => s !== null)).toBe(true);
      expect([...stamps].sort()).toEqual(stamps);
    }
  });

  it('temporal answers are the day before the session of the evidence turn', () => {
    const ds = generateSyntheticDataset({ seed: 11 });
    for (const c of ds.conversations) {
      for (const q of c.questions.filter((x) => x.category === 2)) {
        const turn = c.turns.find((t) => t.turnId === q.evidence[0])!;
        expect(turn.text).toMatch(/yesterday/i);
        const day = new Date(Date.parse(turn.sessionTimestamp!) - 86_400_000);
        const expected = `${day.getUTCDate()} ${day.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' })} ${day.getUTCFullYear()}`;
        expect(q.answer).toBe(expected);
      }
    }
  });

  it('speakers in one dataset have distinct names and evidence turns have distinct texts', () => {
    const ds = generateSyntheticDataset({ seed: 2, conversations: 8 });
    const names = ds.conversations.flatMap((c) => [c.speakerA, c.speakerB]);
    expect(new Set(names).size).toBe(names.length);
    for (const c of ds.conversations) {
      const evidence = new Set(c.questions.flatMap((q) => q.evidence));
      const evidenceTexts = c.turns.filter((t) => evidence.has(t.turnId)).map((t) => t.text);
      expect(new Set(evidenceTexts).size).toBe(evidenceTexts.length);
    }
  });
});

// A deliberately plain keyword retriever: score = number of shared content words. If this finds the
// evidence, any decent keyword or semantic search will.
const STOP = new Set(
  'a an and at did do does for from has have i in is it its of on the to what when where which who would with my me new'.split(' '),
);
function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .match(/[a-z0-9]+/g)
      ?.filter((w) => !STOP.has(w)) ?? [],
  );
}
function keywordSearch(conv: Conversation, question: string, k: number): string[] {
  const q = words(question);
  return conv.turns
    .map((t, i) => ({ id: t.turnId, i, score: [...words(`${t.speaker} ${t.text}`)].filter((w) => q.has(w)).length }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map((x) => x.id);
}

describe('synthetic dataset: findable by a plain keyword search', () => {
  it('a keyword baseline passes the default thresholds with a wide margin', () => {
    for (const seed of [1, 2, 3, 20240601]) {
      const ds = generateSyntheticDataset({ seed, conversations: 4 });
      const outcomes: QueryOutcome[] = ds.conversations.flatMap((c) =>
        c.questions.map((q) => ({ category: q.category, relevant: q.evidence, ranked: keywordSearch(c, q.question, 10), latencyMs: 1 })),
      );
      const result = scoreRun({ mode: 'hybrid', graph: false, k: 10, dataset: ds.source, outcomes });
      expect(result.passed).toBe(true);
      expect(result.scores['recall@10']).toBeGreaterThanOrEqual(0.9);
      expect(result.scores.mrr).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('a search that returns the wrong turns fails', () => {
    const ds = generateSyntheticDataset();
    const outcomes: QueryOutcome[] = ds.conversations.flatMap((c) =>
      c.questions.map((q) => ({
        category: q.category,
        relevant: q.evidence,
        ranked: c.turns
          .filter((t) => !q.evidence.includes(t.turnId))
          .slice(0, 10)
          .map((t) => t.turnId),
        latencyMs: 1,
      })),
    );
    const result = scoreRun({ mode: 'hybrid', graph: false, k: 10, dataset: ds.source, outcomes });
    expect(result.scores).toEqual({ 'recall@10': 0, mrr: 0, 'ndcg@10': 0 });
    expect(result.passed).toBe(false);
  });
});
