import { describe, expect, it } from 'vitest';
import { aggregateScores, dedupeRanked, ndcgAtK, percentile, recallAtK, reciprocalRank, scoreQuery } from '../../bench/harness/metrics.js';
import { DEFAULT_THRESHOLDS, renderJson, renderText, scoreRun, type QueryOutcome } from '../../bench/harness/report.js';

// Discounts used in the hand computations below: 1/log2(2) = 1, 1/log2(3) ≈ 0.6309297536,
// 1/log2(4) = 0.5, 1/log2(5) ≈ 0.4306765581.
const D3 = 1 / Math.log2(3);

const set = (...ids: string[]): Set<string> => new Set(ids);

describe('dedupeRanked', () => {
  it('keeps the first occurrence of each id, in order', () => {
    expect(dedupeRanked(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
});

describe('recallAtK / reciprocalRank / ndcgAtK', () => {
  it('single relevant id at rank 1 scores 1 everywhere', () => {
    const ranked = ['a', 'x', 'y'];
    expect(recallAtK(ranked, set('a'), 10)).toBe(1); // 1 of 1 relevant in top 10
    expect(reciprocalRank(ranked, set('a'))).toBe(1); // first hit at rank 1 → 1/1
    expect(ndcgAtK(ranked, set('a'), 10)).toBe(1); // DCG = 1/log2(2) = 1, IDCG = 1
  });

  it('single relevant id at rank 3', () => {
    const ranked = ['x', 'y', 'a'];
    expect(recallAtK(ranked, set('a'), 10)).toBe(1); // 1/1
    expect(reciprocalRank(ranked, set('a'))).toBeCloseTo(1 / 3, 12); // 1/3
    expect(ndcgAtK(ranked, set('a'), 10)).toBeCloseTo(0.5, 12); // DCG = 1/log2(4) = 0.5, IDCG = 1 → 0.5
  });

  it('multiple evidence turns, some found', () => {
    const ranked = ['a', 'x', 'b', 'y'];
    const relevant = set('a', 'b', 'c');
    expect(recallAtK(ranked, relevant, 10)).toBeCloseTo(2 / 3, 12); // a, b of {a,b,c} → 2/3
    expect(reciprocalRank(ranked, relevant)).toBe(1); // a at rank 1
    // DCG = 1/log2(2) + 1/log2(4) = 1 + 0.5 = 1.5
    // IDCG (min(3,10) = 3 ideal hits) = 1 + 0.6309297536 + 0.5 = 2.1309297536
    // nDCG = 1.5 / 2.1309297536 ≈ 0.7039180890
    expect(ndcgAtK(ranked, relevant, 10)).toBeCloseTo(0.703918089, 8);
  });

  it('a duplicate hit counts once and never inflates a metric', () => {
    const ranked = ['a', 'a', 'a', 'b'];
    const relevant = set('a', 'c');
    // Deduped: [a, b]; top-2 = [a, b]; hits = {a} → recall = 1/2 (not 3/2, not 1)
    expect(recallAtK(ranked, relevant, 2)).toBe(0.5);
    expect(reciprocalRank(ranked, relevant)).toBe(1); // a at rank 1
    // DCG = 1 (a at rank 1; the copies of a are gone); IDCG = min(2,2) = 2 hits = 1 + 0.6309297536
    // nDCG = 1 / 1.6309297536 ≈ 0.6131471928
    expect(ndcgAtK(ranked, relevant, 2)).toBeCloseTo(0.6131471928, 8);
  });

  it('a duplicated irrelevant id does not push a hit down twice', () => {
    const ranked = ['x', 'x', 'x', 'a'];
    // Deduped: [x, a]; top-2 contains a at rank 2
    expect(recallAtK(ranked, set('a'), 2)).toBe(1); // 1/1
    expect(reciprocalRank(ranked, set('a'))).toBe(0.5); // rank 2 → 1/2
    expect(ndcgAtK(ranked, set('a'), 2)).toBeCloseTo(D3, 12); // DCG = 1/log2(3) ≈ 0.6309, IDCG = 1
  });

  it('fewer than k results is fine', () => {
    const ranked = ['x', 'a'];
    const relevant = set('a', 'b');
    expect(recallAtK(ranked, relevant, 10)).toBe(0.5); // 1 of 2
    expect(reciprocalRank(ranked, relevant)).toBe(0.5); // rank 2
    // DCG = 1/log2(3) ≈ 0.6309297536; IDCG = 1 + 0.6309297536 = 1.6309297536 → ≈ 0.3868528072
    expect(ndcgAtK(ranked, relevant, 10)).toBeCloseTo(0.3868528072, 8);
  });

  it('no relevant id in the list scores 0, and so does an empty list', () => {
    for (const ranked of [['x', 'y', 'z'], []]) {
      expect(recallAtK(ranked, set('a'), 10)).toBe(0); // 0/1
      expect(reciprocalRank(ranked, set('a'))).toBe(0); // no hit
      expect(ndcgAtK(ranked, set('a'), 10)).toBe(0); // DCG = 0
    }
  });

  it('a relevant id beyond k does not count', () => {
    const ranked = ['x', 'y', 'a'];
    expect(recallAtK(ranked, set('a'), 2)).toBe(0); // top-2 = [x, y]
    expect(ndcgAtK(ranked, set('a'), 2)).toBe(0);
    expect(reciprocalRank(ranked, set('a'))).toBeCloseTo(1 / 3, 12); // uncut: rank 3
    expect(reciprocalRank(ranked, set('a'), 2)).toBe(0); // cut at 2
    expect(scoreQuery(ranked, set('a'), 2)).toEqual({ recall: 0, rr: 0, ndcg: 0 });
  });

  it('ideal DCG uses min(|relevant|, k)', () => {
    // 4 relevant, k = 2, both top positions relevant: recall = 2/4, but nDCG is perfect
    // DCG = 1 + 0.6309 = IDCG (only 2 ideal slots) → 1
    expect(recallAtK(['a', 'b'], set('a', 'b', 'c', 'd'), 2)).toBe(0.5);
    expect(ndcgAtK(['a', 'b'], set('a', 'b', 'c', 'd'), 2)).toBeCloseTo(1, 12);
  });

  it('rejects an empty relevant set and a bad k', () => {
    expect(() => recallAtK(['a'], set(), 10)).toThrow(RangeError);
    expect(() => reciprocalRank(['a'], set())).toThrow(/relevant set is empty/);
    expect(() => ndcgAtK(['a'], set(), 10)).toThrow(RangeError);
    expect(() => recallAtK(['a'], set('a'), 0)).toThrow(/positive integer/);
    expect(() => ndcgAtK(['a'], set('a'), 1.5)).toThrow(/positive integer/);
  });
});

describe('aggregateScores', () => {
  it('produces overall and per-category means', () => {
    const agg = aggregateScores([
      { category: 4, recall: 1, rr: 1, ndcg: 1 },
      { category: 4, recall: 0, rr: 0, ndcg: 0 },
      { category: 2, recall: 0.5, rr: 0.5, ndcg: 0.25 },
    ]);
    // overall: recall (1 + 0 + 0.5)/3 = 0.5; mrr (1 + 0 + 0.5)/3 = 0.5; ndcg (1 + 0 + 0.25)/3 = 0.41666…
    expect(agg.overall.count).toBe(3);
    expect(agg.overall.recall).toBeCloseTo(0.5, 12);
    expect(agg.overall.mrr).toBeCloseTo(0.5, 12);
    expect(agg.overall.ndcg).toBeCloseTo(1.25 / 3, 12);
    // category 4: (1 + 0)/2 = 0.5 each; category 2: its single query
    expect(agg.perCategory[4]).toEqual({ count: 2, recall: 0.5, mrr: 0.5, ndcg: 0.5 });
    expect(agg.perCategory[2]).toEqual({ count: 1, recall: 0.5, mrr: 0.5, ndcg: 0.25 });
    expect(agg.perCategory[1]).toBeUndefined();
  });

  it('is all zeros for no queries', () => {
    expect(aggregateScores([]).overall).toEqual({ count: 0, recall: 0, mrr: 0, ndcg: 0 });
  });
});

describe('percentile (nearest rank)', () => {
  it('returns observed values', () => {
    expect(percentile([40, 10, 30, 20], 50)).toBe(20); // rank ceil(0.5·4) = 2 → 20
    expect(percentile([40, 10, 30, 20], 95)).toBe(40); // rank ceil(0.95·4) = 4 → 40
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('scoreRun / renderJson / renderText', () => {
  const outcomes: QueryOutcome[] = [
    { category: 4, relevant: ['D1:1'], ranked: ['D1:1', 'D1:2'], latencyMs: 10 }, // 1, 1, 1
    { category: 4, relevant: ['D1:3'], ranked: ['D1:2', 'D1:3'], latencyMs: 20 }, // 1, 0.5, 0.6309297536
    { category: 1, relevant: ['D1:1', 'D2:1'], ranked: ['D1:1', 'D1:1', 'D9:9'], latencyMs: 30 }, // 0.5, 1, 0.6131471928
    { category: 2, relevant: new Set(['D2:2']), ranked: ['D2:2'], latencyMs: 40, error: 'HTTP 503' }, // failed → 0, 0, 0
  ];

  it('has exactly the spec keys first, then non-colliding extras', () => {
    const r = scoreRun({ mode: 'hybrid', graph: false, k: 10, dataset: 'synthetic', outcomes });
    expect(Object.keys(r)).toEqual([
      'mode',
      'graph',
      'scores',
      'total_queries',
      'passed',
      'k',
      'dataset',
      'per_category',
      'latency_ms',
      'failed_queries',
      'excluded_queries',
      'thresholds',
    ]);
    expect(Object.keys(r.scores)).toEqual(['recall@10', 'mrr', 'ndcg@10']);
    // recall: (1 + 1 + 0.5 + 0)/4 = 0.625
    // mrr: (1 + 0.5 + 1 + 0)/4 = 0.625
    // ndcg: (1 + 0.6309297536 + 0.6131471928 + 0)/4 = 2.2440769464/4 = 0.5610192366 → 0.561
    expect(r.scores).toEqual({ 'recall@10': 0.625, mrr: 0.625, 'ndcg@10': 0.561 });
    expect(r.total_queries).toBe(4);
    expect(r.failed_queries).toBe(1);
    expect(r.passed).toBe(true); // 0.625 ≥ 0.5, 0.625 ≥ 0.3, 0.561 ≥ 0.35
    expect(r.per_category['4']).toEqual({ name: 'single-hop', count: 2, 'recall@10': 1, mrr: 0.75, 'ndcg@10': 0.8155 });
    expect(r.per_category['2']).toEqual({ name: 'temporal', count: 1, 'recall@10': 0, mrr: 0, 'ndcg@10': 0 });
    expect(r.per_category['3']).toBeUndefined();
    expect(r.latency_ms).toEqual({ p50: 20, p95: 40 });
    expect(JSON.parse(renderJson(r))).toEqual(r);
  });

  it('passes at exactly the thresholds, fails just below, never with no queries', () => {
    const one = (ranked: string[]): QueryOutcome[] => [{ category: 4, relevant: ['a'], ranked, latencyMs: 1 }];
    // [x, a] with relevant {a}: recall 1, mrr 1/2 = 0.5, ndcg 1/log2(3) ≈ 0.6309297536 → rounded 0.6309
    const run = (thresholds: { recall: number; mrr: number; ndcg: number }) =>
      scoreRun({ mode: 'hybrid', graph: false, k: 10, dataset: 's', outcomes: one(['x', 'a']), thresholds });
    expect(run({ recall: 1, mrr: 0.5, ndcg: 0.6309 }).passed).toBe(true); // every score equals its threshold
    expect(run({ recall: 1, mrr: 0.51, ndcg: 0.6309 }).passed).toBe(false); // mrr 0.5 < 0.51
    expect(run({ recall: 1, mrr: 0.5, ndcg: 0.631 }).passed).toBe(false); // ndcg 0.6309 < 0.631
    const empty = scoreRun({ mode: 'hybrid', graph: false, k: 10, dataset: 's', outcomes: [], thresholds: { recall: 0, mrr: 0, ndcg: 0 } });
    expect(empty.passed).toBe(false);
    expect(empty.total_queries).toBe(0);
  });

  it('keeps the spec key names when k is not 10, and reports k and the fallback reason', () => {
    const r = scoreRun({
      mode: 'vector-only',
      graph: true,
      k: 1,
      dataset: 'synthetic',
      fallbackReason: 'download failed: ECONNREFUSED',
      outcomes,
      excluded: { adversarial: 3, noEvidence: 1 },
    });
    expect(r.k).toBe(1);
    expect(Object.keys(r.scores)).toEqual(['recall@10', 'mrr', 'ndcg@10']);
    // at k = 1: recall (1 + 0 + 0.5 + 0)/4 = 0.375; rr cut at 1: (1 + 0 + 1 + 0)/4 = 0.5
    // ndcg@1: q1 1; q2 0; q3 DCG 1 / IDCG min(2,1)=1 → 1; q4 0 → 0.5
    expect(r.scores).toEqual({ 'recall@10': 0.375, mrr: 0.5, 'ndcg@10': 0.5 });
    expect(r.fallback_reason).toBe('download failed: ECONNREFUSED');
    expect(Object.keys(r).indexOf('fallback_reason')).toBe(Object.keys(r).indexOf('dataset') + 1);
    expect(r.excluded_queries).toEqual({ adversarial: 3, no_evidence: 1 });
    const text = renderText(r);
    expect(text).toContain('recall@1');
    expect(text).toContain('scores are at k=1');
    expect(text).toContain('fallback download failed: ECONNREFUSED');
  });

  it('renders an aligned text table', () => {
    const r = scoreRun({ mode: 'hybrid', graph: false, k: 10, dataset: 'synthetic', outcomes });
    const text = renderText(r);
    const rows = text.split('\n').filter((l) => /^\s+(\d \S+|overall|threshold|category)\s/.test(l));
    expect(rows.map((l) => l.trim().split(/\s{2,}/)[0])).toEqual([
      'category',
      '1 multi-hop',
      '2 temporal',
      '4 single-hop',
      'overall',
      'threshold',
    ]);
    // Aligned: every row with numbers ends its ndcg column at the same position.
    const ends = rows.filter((l) => /\d$/.test(l)).map((l) => l.length);
    expect(new Set(ends).size).toBe(1);
    expect(text).toContain('PASSED');
    expect(text).toContain(`${DEFAULT_THRESHOLDS.mrr.toFixed(4)}`);
  });

  it('refuses an outcome with no relevant ids', () => {
    expect(() =>
      scoreRun({
        mode: 'hybrid',
        graph: false,
        k: 10,
        dataset: 's',
        outcomes: [{ category: 4, relevant: [], ranked: ['a'], latencyMs: 1 }],
      }),
    ).toThrow(RangeError);
  });
});
