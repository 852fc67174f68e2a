import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, isLoopbackHostname, loadConfig } from '../../server/config.js';
import { hashState, redirectUriFor } from '../../server/services/sso.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-sso-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const withProviders = (providers: unknown[], extra: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: dataDir, OIDC_PROVIDERS: JSON.stringify(providers), ...extra });

describe('OIDC provider configuration', () => {
  it('accepts https issuers and defaults the scopes', () => {
    const cfg = withProviders([{ id: 'acme', issuer: 'https://login.acme.example', client_id: 'tm' }]);
    expect(cfg.OIDC_PROVIDERS).toEqual([
      { id: 'acme', issuer: 'https://login.acme.example', client_id: 'tm', scopes: 'openid email profile' },
    ]);
    expect(cfg.OIDC_ALLOW_INSECURE_ISSUERS).toBe(false);
  });

  it('accepts http issuers on loopback only', () => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000', 'http://[::1]:4000', 'http://127.9.9.9']) {
      expect(() => withProviders([{ id: 'dev', issuer, client_id: 'tm' }])).not.toThrow();
    }
    for (const issuer of ['http://login.acme.example', 'http://10.0.0.5:8080', 'http://127.0.0.1.nip.io']) {
      expect(() => withProviders([{ id: 'dev', issuer, client_id: 'tm' }])).toThrow(/OIDC_PROVIDERS: issuer of 'dev' must be https/);
    }
  });

  it('accepts any http issuer with OIDC_ALLOW_INSECURE_ISSUERS=true', () => {
    expect(() =>
      withProviders([{ id: 'dev', issuer: 'http://login.acme.example', client_id: 'tm' }], { OIDC_ALLOW_INSECURE_ISSUERS: 'true' }),
    ).not.toThrow();
  });

  it('refuses duplicate ids, bad JSON, non-URL issuers and scopes without openid, naming the variable', () => {
    const dup = { id: 'acme', issuer: 'https://a.example', client_id: 'tm' };
    expect(() => withProviders([dup, dup])).toThrow(/OIDC_PROVIDERS: provider ids must be unique/);
    expect(() => loadConfig({ DATA_DIR: dataDir, OIDC_PROVIDERS: '[{' })).toThrow(ConfigError);
    expect(() => withProviders([{ id: 'x', issuer: 'not a url', client_id: 'tm' }])).toThrow(/OIDC_PROVIDERS/);
    expect(() => withProviders([{ id: 'x', issuer: 'https://a.example', client_id: 'tm', scopes: 'email profile' }])).toThrow(
      /scopes of 'x' must include openid/,
    );
  });

  it('knows loopback host names', () => {
    expect(isLoopbackHostname('127.0.0.1')).toBe(true);
    expect(isLoopbackHostname('[::1]')).toBe(true);
    expect(isLoopbackHostname('LOCALHOST')).toBe(true);
    expect(isLoopbackHostname('app.localhost')).toBe(true);
    expect(isLoopbackHostname('localhost.example')).toBe(false);
    expect(isLoopbackHostname('128.0.0.1')).toBe(false);
    expect(isLoopbackHostname('[::2]')).toBe(false);
  });
});

describe('SSO helpers', () => {
  it('builds the callback under PUBLIC_URL, path prefix included', () => {
    expect(redirectUriFor('https://tm.example')).toBe('https://tm.example/auth/callback');
    expect(redirectUriFor('https://tm.example/api/')).toBe('https://tm.example/api/auth/callback');
  });

  it('hashes states with SHA-256 (hex)', () => {
    expect(hashState('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
