import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { clientAddress, compileTrust, requestOrigin } from '../../server/http/client-address.js';

/** A request as node:http hands it over: socket address and headers are all these functions read. */
const req = (remoteAddress: string, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress }, connection: { remoteAddress }, headers }) as unknown as IncomingMessage;

describe('TRUST_PROXY (express semantics on proxy-addr)', () => {
  it('ignores X-Forwarded-* unless the peer is trusted', () => {
    const r = req('203.0.113.9', {
      'x-forwarded-for': '198.51.100.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
      host: 'internal:8080',
    });
    const none = compileTrust('false');
    expect(clientAddress(r, none)).toBe('203.0.113.9');
    expect(requestOrigin(r, none)).toBe('http://internal:8080');
    const all = compileTrust('true');
    expect(clientAddress(r, all)).toBe('198.51.100.1');
    expect(requestOrigin(r, all)).toBe('https://api.example.com');
  });

  it('takes a hop count and a list of addresses, CIDRs and names', () => {
    const chain = req('10.0.0.2', { 'x-forwarded-for': '198.51.100.1, 192.0.2.7' });
    expect(clientAddress(chain, compileTrust('1'))).toBe('192.0.2.7');
    expect(clientAddress(chain, compileTrust('2'))).toBe('198.51.100.1');
    expect(clientAddress(chain, compileTrust('10.0.0.0/8'))).toBe('192.0.2.7');
    expect(clientAddress(chain, compileTrust('10.0.0.0/8, 192.0.2.7'))).toBe('198.51.100.1');
    expect(clientAddress(req('127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), compileTrust('loopback'))).toBe('198.51.100.1');
  });

  it('refuses a value proxy-addr cannot use at start-up, naming the variable', () => {
    const DATA_DIR = mkdtempSync(path.join(tmpdir(), 'tm-config-'));
    expect(() => loadConfig({ DATA_DIR, TRUST_PROXY: '10.0.0.0/99' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR, TRUST_PROXY: 'not-an-address' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ DATA_DIR, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
  });
});
