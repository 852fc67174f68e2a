import { describe, expect, it } from 'vitest';
import {
  continueIsolating,
  entryAction,
  failureKind,
  failureOutcome,
  onBatchFailure,
  type DrainMode,
  type EntryAction,
  type EntryFacts,
  type MemoryIndexState,
} from '../../adapters/mongo/outbox-rules.js';
import { AppError } from '../../server/errors.js';
import { SearchIndexConfigurationError } from '../../server/ports/search-index.js';

const upsert = (version: number, attempts = 0): EntryFacts => ({ op: 'upsert', version, hasDoc: true, attempts });
const remove = (attempts = 0): EntryFacts => ({ op: 'remove', version: 0, hasDoc: false, attempts });
const at = (committedVersion: number, merged = false): MemoryIndexState => ({ committedVersion, merged });

describe('what flushing an outbox entry does, from the memory now', () => {
  const cases: [string, EntryFacts, MemoryIndexState | null, DrainMode, EntryAction][] = [
    ['an upsert of the committed version is applied', upsert(2), at(2), 'all', 'upsert'],
    ['… by a commit flush too', upsert(2), at(2), 'fresh', 'upsert'],
    ['an upsert of an older version is dropped: the later commit wrote its own entry', upsert(1), at(2), 'all', 'drop'],
    ['an upsert without its document is dropped', { ...upsert(2), hasDoc: false }, at(2), 'all', 'drop'],
    ['the memory is gone: its rows go, whatever the entry says', upsert(2), null, 'all', 'remove'],
    ['the memory was merged into another: its rows go', upsert(2), at(2, true), 'all', 'remove'],
    ['a removal of a deleted memory is applied', remove(), null, 'all', 'remove'],
    ['a removal of a merged memory is applied', remove(), at(3, true), 'fresh', 'remove'],
    ['a removal of a memory that is live is dropped (its upsert entry stands)', remove(), at(3), 'all', 'drop'],
    ['a commit flush leaves an entry that already failed to the drain job', upsert(2, 1), at(2), 'fresh', 'leave'],
    ['… also a removal', remove(3), null, 'fresh', 'leave'],
    ['the drain job retries an entry that failed before', upsert(2, 4), at(2), 'all', 'upsert'],
    ['the drain job drops a failed entry a later commit superseded', upsert(2, 4), at(3), 'all', 'drop'],
  ];
  it.each(cases)('%s', (_what, entry, state, mode, action) => {
    expect(entryAction(entry, state, mode)).toBe(action);
  });
});

describe('what a failed index request means', () => {
  it('reads an unavailable index (503 from the adapters) as such, and anything else as the entry refused', () => {
    expect(failureKind(new AppError('DEPENDENCY_UNAVAILABLE', 'the search index is unavailable (upsert)'))).toBe('unavailable');
    expect(failureKind(new Error('Bad Request: wrong vector dimension'))).toBe('rejected');
    expect(failureKind(new AppError('VALIDATION_FAILED', 'x'))).toBe('rejected');
    expect(failureKind('a string')).toBe('rejected');
  });

  it('reads a fault of the deployment (a refused key, no API at the address, a size limit) as the index misconfigured', () => {
    expect(failureKind(new SearchIndexConfigurationError('Qdrant refused the API key (upsert)'))).toBe('misconfigured');
  });

  it.each([
    ['unavailable', 'fresh', 'stop'],
    ['unavailable', 'all', 'isolate'],
    ['rejected', 'fresh', 'isolate'],
    ['rejected', 'all', 'isolate'],
    ['misconfigured', 'fresh', 'stop'],
    ['misconfigured', 'all', 'isolate'],
  ] as const)('a batch that failed %s in a %s drain: %s', (kind, mode, next) => {
    expect(onBatchFailure(kind, mode)).toBe(next);
  });

  it.each([
    ['rejected', 5, true],
    ['unavailable', 1, true],
    ['unavailable', 2, false],
    ['misconfigured', 0, false],
  ] as const)('isolating after a %s failure, %i unavailable in a row: go on = %s', (kind, unavailableInARow, goOn) => {
    expect(continueIsolating({ kind, unavailableInARow })).toBe(goOn);
  });
});

describe('an entry after a failed attempt', () => {
  const cases: [string, Parameters<typeof failureOutcome>[0], ReturnType<typeof failureOutcome>][] = [
    [
      'an outage counts nothing, however often',
      { attempts: 4, kind: 'unavailable', indexAnswered: false, maxAttempts: 5 },
      { attempts: 4, counted: false, poisoned: false },
    ],
    [
      'a refusal counts when the index accepted another entry in the run',
      { attempts: 0, kind: 'rejected', indexAnswered: true, maxAttempts: 5 },
      { attempts: 1, counted: true, poisoned: false },
    ],
    [
      'a refusal with nothing accepted in the run counts nothing (the index may refuse everything)',
      { attempts: 4, kind: 'rejected', indexAnswered: false, maxAttempts: 5 },
      { attempts: 4, counted: false, poisoned: false },
    ],
    [
      'a misconfigured index counts nothing, even beside accepted entries',
      { attempts: 4, kind: 'misconfigured', indexAnswered: true, maxAttempts: 5 },
      { attempts: 4, counted: false, poisoned: false },
    ],
    [
      '… nor alone',
      { attempts: 0, kind: 'misconfigured', indexAnswered: false, maxAttempts: 1 },
      { attempts: 0, counted: false, poisoned: false },
    ],
    [
      'an unavailable answer counts while the index serves the batch’s other entries',
      { attempts: 2, kind: 'unavailable', indexAnswered: true, maxAttempts: 5 },
      { attempts: 3, counted: true, poisoned: false },
    ],
    [
      'the attempt that reaches the limit sets the entry aside',
      { attempts: 4, kind: 'rejected', indexAnswered: true, maxAttempts: 5 },
      { attempts: 5, counted: true, poisoned: true },
    ],
    [
      'an entry over a lowered limit is set aside at its next counted failure',
      { attempts: 7, kind: 'rejected', indexAnswered: true, maxAttempts: 3 },
      { attempts: 8, counted: true, poisoned: true },
    ],
    [
      'a limit of 1 sets aside at the first counted failure',
      { attempts: 0, kind: 'rejected', indexAnswered: true, maxAttempts: 1 },
      { attempts: 1, counted: true, poisoned: true },
    ],
  ];
  it.each(cases)('%s', (_what, input, outcome) => {
    expect(failureOutcome(input)).toEqual(outcome);
  });
});
