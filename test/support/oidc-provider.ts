import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type { Configuration, default as Provider } from 'oidc-provider';

/** A person who can sign in at the test identity provider. */
export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestClient {
  client_id: string;
  /** Absent: a public client (token_endpoint_auth_method none, PKCE only). */
  client_secret?: string;
}

export interface TestIdentityProvider {
  /** The issuer URL (http on loopback). */
  issuer: string;
  provider: Provider;
  accounts: Map<string, TestAccount>;
  /**
   * Registers the clients with our callback URL and starts answering. Until then the server
   * answers 503, so the issuer URL can be known before the relying party (and its URL) exists.
   */
  configure(clients: TestClient[], redirectUri: string | string[]): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (panva's oidc-provider) on a loopback port, for end-to-end SSO tests.
 * Interactions are answered without HTML: GET /interaction/:uid?account=<sub> signs that account in
 * (and consents to every requested scope and claim); `?deny=1` ends the interaction with
 * access_denied. PKCE is required of every client.
 */
export async function startTestIdentityProvider(): Promise<TestIdentityProvider> {
  // Loaded here, with its notices silenced: on import it warns that Node 20 is not its preferred runtime.
  const restoreConsole = silenceProviderNotices();
  const { default: ProviderClass } = await import('oidc-provider');
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server: Server = createServer((req, res) => {
    if (!handler) {
      res.statusCode = 503;
      res.end('not configured');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, TestAccount>();

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

  let provider: Provider | undefined;
  return {
    issuer,
    accounts,
    get provider(): Provider {
      if (!provider) throw new Error('identity provider not configured yet');
      return provider;
    },
    configure(clients, redirectUri) {
      const configuration: Configuration = {
        clients: clients.map((c) => ({
          client_id: c.client_id,
          ...(c.client_secret
            ? { client_secret: c.client_secret, token_endpoint_auth_method: 'client_secret_basic' as const }
            : { token_endpoint_auth_method: 'none' as const }),
          redirect_uris: Array.isArray(redirectUri) ? redirectUri : [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        })),
        jwks: { keys: [signingKey] },
        cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        features: { devInteractions: { enabled: false } },
        pkce: { required: () => true },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        async findAccount(_ctx, sub) {
          const account = accounts.get(sub);
          if (!account) return undefined;
          return { accountId: sub, claims: () => ({ ...account }) };
        },
      };
      const p = new ProviderClass(issuer, configuration);
      provider = p;
      const callback = p.callback();
      handler = (req, res) => {
        if (req.url?.startsWith('/interaction/')) {
          interact(p, req, res).catch((err: unknown) => {
            res.statusCode = 500;
            res.end(err instanceof Error ? err.message : String(err));
          });
          return;
        }
        void callback(req, res);
      };
    },
    async close() {
      restoreConsole();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  const details = await provider.interactionDetails(req, res);
  if (query.get('deny') === '1') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'the user declined' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (details.prompt.name === 'login') {
    const accountId = query.get('account');
    if (!accountId) throw new Error('interaction needs ?account=<sub>');
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  if (details.prompt.name === 'consent') {
    const accountId = details.session?.accountId;
    const clientId = String(details.params.client_id);
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
    if (!grant) throw new Error('grant vanished');
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  throw new Error(`unexpected prompt ${details.prompt.name}`);
}

/**
 * oidc-provider prints development notices through console (default TTLs, in-memory adapter); keep
 * test output clean while it runs. Returns the function that restores the console.
 */
function silenceProviderNotices(): () => void {
  const { warn, info } = console;
  const fromProvider = (args: unknown[]) => typeof args[0] === 'string' && args[0].startsWith('oidc-provider');
  console.warn = (...args: unknown[]) => {
    if (!fromProvider(args)) warn(...args);
  };
  console.info = (...args: unknown[]) => {
    if (!fromProvider(args)) info(...args);
  };
  return () => {
    console.warn = warn;
    console.info = info;
  };
}

/**
 * Follows the browser side of an authorization request: every redirect, with a cookie jar per
 * flow, answering each interaction for `account`, until the provider sends the user agent to a URL
 * starting with `stopAt` (our callback). Returns that URL without requesting it.
 */
export async function followToCallback(
  authorizationUrl: string,
  stopAt: string,
  interaction: { account?: string; deny?: boolean },
): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 20; hop++) {
    if (url.href.startsWith(stopAt)) return url;
    if (url.pathname.startsWith('/interaction/')) {
      if (interaction.deny) url.searchParams.set('deny', '1');
      if (interaction.account) url.searchParams.set('account', interaction.account);
    }
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(set) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.arrayBuffer();
      url = new URL(location, url);
      continue;
    }
    throw new Error(`identity provider answered ${res.status} at ${url.pathname}: ${(await res.text()).slice(0, 500)}`);
  }
  throw new Error('too many redirects');
}
