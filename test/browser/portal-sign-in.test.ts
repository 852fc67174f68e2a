import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, newUser, openPage, signInThroughForm } from '../support/browser.js';
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/oidc-provider.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** The portal's doors in a real browser: the password form, SSO through a real OpenID Provider, sign-out. */
let idp: TestIdentityProvider;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  idp.accounts.set('sso-sub', { sub: 'sso-sub', email: 'sso-browser@example.test', email_verified: true, name: 'Sso Browser' });
  [server, browser] = await Promise.all([
    startTestServer({
      OIDC_PROVIDERS: JSON.stringify([
        { id: 'loop', issuer: idp.issuer, client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' },
      ]),
    }),
    launchBrowser(),
  ]);
  idp.configure(
    [{ client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' }],
    [`${server.url}/auth/callback`, `${server.url}/api/portal/sso/callback`],
  );
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await idp?.close();
});

describe('portal sign-in in a browser', () => {
  it('a wrong password shows the server’s message; the right one lands on the tenant’s dashboard', async () => {
    const user = await newUser(server);
    const { context, page } = await openPage(browser);
    await page.goto(`${server.url}/portal`);
    await expect.poll(() => page.url()).toBe(`${server.url}/portal/`);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Could not sign in.*(invalid|incorrect|wrong)/i);

    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/portal/t/${user.tenantId}/dashboard`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Dashboard');
    await context.close();
  });

  it('an SSO button signs in through the provider and lands in the portal; a failed SSO shows its reason', async () => {
    const { context, page } = await openPage(browser);
    // The test provider has no login page: its interaction URL signs in the account named in the
    // query. Playwright routes only the first request of a redirect chain, so the authorization
    // request's redirect to the interaction gets the account added.
    await page.route(
      (url) => url.origin === idp.issuer && url.pathname === '/auth',
      async (route) => {
        const response = await route.fetch({ maxRedirects: 0 });
        const location = new URL(response.headers().location!, idp.issuer);
        location.searchParams.set('account', 'sso-sub');
        await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
      },
    );
    await page.goto(`${server.url}/portal/`);
    await page.getByRole('button', { name: 'Continue with loop' }).click();
    await page.waitForURL(/\/portal\/t\/[0-9a-f-]{36}\/dashboard$/);
    await page.getByRole('button', { name: /Account: sso-browser@example\.test/ }).waitFor();
    await context.close();

    const failed = await openPage(browser);
    // The callback sends a code only; the page words it, and free text in the URL is never shown.
    await failed.page.goto(`${server.url}/portal/?sso_error=UNAUTHENTICATED`);
    expect(await failed.page.getByRole('alert').textContent()).toContain('started in another browser');
    await failed.page.goto(`${server.url}/portal/?sso_error=${encodeURIComponent('Call +1 555 0100 to unlock your account')}`);
    const alert = await failed.page.getByRole('alert').textContent();
    expect(alert).toContain('could not be completed');
    expect(alert).not.toContain('555');
    await failed.context.close();
  });

  it('signing out returns to the sign-in page and the session is gone on the server', async () => {
    const user = await newUser(server);
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, user);
    const cookie = (await context.cookies()).find((c) => c.name === 'tm_portal')!;
    expect(cookie.httpOnly).toBe(true);

    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/portal/sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).some((c) => c.name === 'tm_portal')).toBe(false);
    const replay = await http(server.url, 'GET', '/api/portal/session', { headers: { cookie: `tm_portal=${cookie.value}` } });
    expect(replay.status).toBe(401);

    // The app's pages now send the browser back to sign-in, remembering where it was going.
    await page.goto(`${server.url}/portal/t/${user.tenantId}/settings`);
    await page.waitForURL(/\/portal\/sign-in\?next=/);
    await context.close();
  });

  it('the sign-in page has no serious accessibility violations (laptop and phone widths)', async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const { context, page } = await openPage(browser, viewport);
      await page.goto(`${server.url}/portal/`);
      await page.getByRole('button', { name: 'Continue with loop' }).waitFor();
      await expectAccessible(page, `sign-in at ${viewport.width}px`);
      await context.close();
    }
  });
});
