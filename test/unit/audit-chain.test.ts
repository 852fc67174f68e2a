import { describe, expect, it } from 'vitest';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createLogger } from '../../server/logger.js';
import { canonicalJson, createAuditService, GENESIS_HASH, hashAuditEvent } from '../../server/services/audit.js';
import { Writable } from 'node:stream';

function setup() {
  const db = openInMemoryDatabase();
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
  let t = Date.parse('2030-01-01T00:00:00Z');
  const service = createAuditService({ audit: createEmbeddedAuditStore(db), logger, clock: () => (t += 1000) });
  return { db, service, lines };
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });
});

describe('audit service', () => {
  it('chains events per tenant: seq 1.., prev_hash links, hashes recomputable', async () => {
    const { service } = setup();
    const a1 = await service.record({ tenantId: 't-a', type: 'auth.login', actor: { userId: 'u1' }, details: { method: 'password' } });
    const b1 = await service.record({ tenantId: 't-b', type: 'auth.login', actor: { userId: 'u2' } });
    const a2 = await service.record({
      tenantId: 't-a',
      type: 'api_key.create',
      actor: { keyId: 'k1' },
      target: { type: 'api_key', id: 'k1' },
    });
    expect([a1.seq, b1.seq, a2.seq]).toEqual([1, 1, 2]);
    expect(a1.prevHash).toBe(GENESIS_HASH);
    expect(a2.prevHash).toBe(a1.hash);
    const { hash, ...rest } = a2;
    expect(hashAuditEvent(rest)).toBe(hash);
    expect(await service.verify('t-a')).toEqual({ ok: true, checked: 2 });
    expect(await service.verify('t-empty')).toEqual({ ok: true, checked: 0 });
  });

  it('never forks under concurrent appends', async () => {
    const { service } = setup();
    await Promise.all(Array.from({ length: 50 }, (_, i) => service.record({ tenantId: 't', type: 'auth.login', details: { i } })));
    const { events, total } = await service.list('t', { limit: 100, offset: 0 });
    expect(total).toBe(50);
    expect(events.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await service.verify('t')).toEqual({ ok: true, checked: 50 });
  });

  it('verifies chains longer than one verification page', async () => {
    const { service } = setup();
    for (let i = 0; i < 1205; i++) await service.record({ tenantId: 't', type: 'auth.login' });
    expect(await service.verify('t')).toEqual({ ok: true, checked: 1205 });
  });

  it('detects a changed field anywhere: type, actor, time, target', async () => {
    for (const [column, value] of [
      ['type', 'auth.logout'],
      ['actor_user_id', 'someone-else'],
      ['created_at', '2000-01-01T00:00:00.000Z'],
      ['target_id', 'other'],
      ['ip', '10.0.0.1'],
    ] as const) {
      const { db, service } = setup();
      for (let i = 0; i < 3; i++)
        await service.record({
          tenantId: 't',
          type: 'auth.login',
          actor: { userId: 'u' },
          ip: '127.0.0.1',
          target: { type: 'session', id: `s${i}` },
        });
      db.prepare(`UPDATE audit_events SET ${column} = ? WHERE tenant_id = 't' AND seq = 2`).run([value]);
      expect((await service.verify('t')).brokenAt, column).toBe(2);
    }
  });

  it('detects events appended behind the head and a head that was rewound', async () => {
    const { db, service } = setup();
    for (let i = 0; i < 3; i++) await service.record({ tenantId: 't', type: 'auth.login' });
    db.prepare("UPDATE audit_heads SET seq = 2 WHERE tenant_id = 't'").run([]);
    expect(await service.verify('t')).toMatchObject({ ok: false, brokenAt: 3 });
    db.prepare("DELETE FROM audit_heads WHERE tenant_id = 't'").run([]);
    expect(await service.verify('t')).toMatchObject({ ok: false });
  });

  it('logs tenant-less events without storing them', async () => {
    const { service, lines } = setup();
    service.recordUnscoped('auth.login_failed', { ip: '10.1.1.1', details: { email: 'x@example.com' } });
    expect(lines.join('')).toContain('auth.login_failed');
  });
});
