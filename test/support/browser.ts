import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { signUp, type SignedUpUser } from './auth.js';
import { startTestServer, type TestServer } from './server.js';

/** Debian's Chromium: the tests never download a browser (`.ci/run` installs the package when missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium without the background traffic a fresh profile starts (updates, sync, QUIC
 * probes). Playwright gives every launch a fresh temporary user-data-dir and deletes it on close.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PortalHarness {
  server: TestServer;
  browser: Browser;
  close(): Promise<void>;
}

/** The real service on port 0 and one browser, for one test file. */
export async function startPortalHarness(env: Record<string, string | undefined> = {}): Promise<PortalHarness> {
  const [server, browser] = await Promise.all([startTestServer(env), launchBrowser()]);
  return {
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** A new browser profile (its own cookies) with a laptop-sized window, and a page in it. */
export async function openPage(
  browser: Browser,
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  // A page error (an exception, a CSP refusal) is a bug the test should show.
  page.on('pageerror', (err) => console.error(`[page error] ${err.message}`));
  return { context, page };
}

/** A fresh account (sign-up over the API), ready to sign in through the portal. */
export const newUser = (server: TestServer, name = 'Portal Tester'): Promise<SignedUpUser> => signUp(server.url, { name });

/** Signs in through the portal's form and waits for the dashboard of the user's tenant. */
export async function signInThroughForm(page: Page, server: TestServer, user: SignedUpUser): Promise<void> {
  await page.goto(`${server.url}/portal/`);
  await page.getByLabel('Email', { exact: true }).fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/portal/t/${user.tenantId}/dashboard`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Dashboard');
}

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * Runs axe-core on the page as it is and fails on serious or critical violations (WCAG A/AA rules).
 * Injected through the DevTools protocol, so the page's CSP stays as strict as users get it.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run((globalThis as any).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => n.target.join(' ')),
    }));
  })) as { id: string; impact: string; help: string; nodes: string[] }[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${label}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}
