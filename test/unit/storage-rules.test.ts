import { describe, expect, it } from 'vitest';
import type { ApplyWriteOp, DerivedState, UpdateMemoryOp, VersionSnapshot } from '../../server/ports/memories.js';
import { appliedWriteProjection, memoryUpdateProjection } from '../../server/storage-rules/commit-projection.js';
import { deletionUsage } from '../../server/storage-rules/memory-deletion.js';
import { newMemory, provisionalSensitivity } from '../../server/storage-rules/new-memory.js';

const AT = '2030-01-01T00:00:00.000Z';
const DERIVED: DerivedState = {
  status: 'active',
  sensitivity: 'medium',
  sensitivityReasons: ['email'],
  injectionFlagged: false,
  injectionScore: 0,
  injectionPatterns: [],
  quality: 0.7,
  contradictionStatus: 'clear',
  contradictionPolicy: null,
  conflictsWith: [],
  supersededBy: null,
  mergedInto: null,
  fingerprint: 'fp',
  subjects: ['alice:home'],
};
const SNAPSHOT = {} as VersionSnapshot;
const apply = (derived: Partial<DerivedState>): ApplyWriteOp => ({
  kind: 'apply',
  writeId: 7,
  memoryId: 'm1',
  namespace: 'work',
  version: 3,
  snapshot: SNAPSHOT,
  derived: { ...DERIVED, ...derived },
});

describe('appliedWriteProjection', () => {
  const table: [string, Partial<DerivedState>, string[]][] = [
    ['an active memory keeps its subject keys', {}, ['alice:home']],
    ['an archived memory has none', { status: 'archived' }, []],
    ['a superseded memory has none', { status: 'superseded' }, []],
    ['a merged duplicate has none', { status: 'archived', mergedInto: 'm0' }, []],
    ['an active memory merged into another has none', { mergedInto: 'm0' }, []],
  ];
  it.each(table)('%s', (_name, derived, subjects) => {
    expect(appliedWriteProjection(apply(derived), AT).subjects).toEqual(subjects);
  });

  it('sets sensitivity only at the head, and the rest of the derived state always', () => {
    const p = appliedWriteProjection(apply({}), AT);
    expect(p.atHeadOnly).toEqual({ sensitivity: 'medium', sensitivityReasons: ['email'] });
    expect(p.set).not.toHaveProperty('sensitivity');
    expect(p.set).not.toHaveProperty('subjects');
    expect(p.set).toMatchObject({ status: 'active', quality: 0.7, fingerprint: 'fp', mergedInto: null });
    expect(p).toMatchObject({ committedVersion: 3, pendingDelta: -1, at: AT });
  });
});

describe('memoryUpdateProjection', () => {
  const set: UpdateMemoryOp['set'] = {
    status: 'superseded',
    contradictionStatus: 'resolved',
    contradictionPolicy: 'NEWER_WINS',
    conflictsWith: ['m2'],
    supersededBy: 'm2',
  };
  const table: [string, UpdateMemoryOp, { version: number; snapshotVersion: number | null; dropSubjects: boolean }][] = [
    [
      'a supersede appends the next version',
      { kind: 'update', memoryId: 'm1', expectCommittedVersion: 4, snapshot: SNAPSHOT, set },
      { version: 5, snapshotVersion: 5, dropSubjects: true },
    ],
    [
      'a flag changes the state in place',
      {
        kind: 'update',
        memoryId: 'm1',
        expectCommittedVersion: 4,
        snapshot: null,
        set: { ...set, status: 'active', contradictionStatus: 'flagged', supersededBy: null },
      },
      { version: 4, snapshotVersion: null, dropSubjects: false },
    ],
    [
      'an archived memory stops being a subject candidate',
      { kind: 'update', memoryId: 'm1', expectCommittedVersion: 1, snapshot: null, set: { ...set, status: 'archived' } },
      { version: 1, snapshotVersion: null, dropSubjects: true },
    ],
  ];
  it.each(table)('%s', (_name, op, expected) => {
    expect(memoryUpdateProjection(op, AT)).toEqual({ ...expected, set: op.set, at: AT });
  });
});

describe('deletionUsage', () => {
  const table: [string, { sizeBytes: number; mergedInto: string | null }, unknown][] = [
    ['a counted memory gives back one memory and its bytes', { sizeBytes: 40, mergedInto: null }, { memories: -1, bytes: -40 }],
    ['a merged duplicate stopped counting when merged', { sizeBytes: 40, mergedInto: 'm0' }, null],
  ];
  it.each(table)('%s', (_name, row, expected) => expect(deletionUsage(row)).toEqual(expected));
});

describe('newMemory', () => {
  it('is the head of version 1 with nothing consolidated', () => {
    const content = {
      title: 't',
      content: 'c',
      tags: ['x'],
      type: 'semantic' as const,
      agentId: 'a',
      metadata: { k: 1 },
      writerSensitivity: null,
    };
    expect(newMemory('t1', 'm1', 'work', content, 12, AT)).toEqual({
      id: 'm1',
      tenantId: 't1',
      namespace: 'work',
      ...content,
      sensitivity: 'high',
      sensitivityReasons: [],
      status: 'active',
      version: 1,
      committedVersion: 0,
      pendingCount: 1,
      contradictionStatus: 'clear',
      contradictionPolicy: null,
      conflictsWith: [],
      supersededBy: null,
      mergedInto: null,
      injectionFlagged: false,
      injectionScore: 0,
      injectionPatterns: [],
      quality: 0,
      fingerprint: null,
      subjects: [],
      sizeBytes: 12,
      createdAt: AT,
      updatedAt: AT,
      committedAt: null,
    });
  });

  it.each([
    [null, 'high'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
  ] as const)('a writer sensitivity of %s shows as %s until consolidated', (writer, shown) => {
    expect(provisionalSensitivity(writer)).toBe(shown);
  });
});
