/**
 * Screenshots of the web portal for the docs: starts the real service over a throwaway embedded
 * store, seeds an account with two tenants, signs in with Debian's Chromium and writes PNGs of the
 * main pages to docs/images/ (portal-*.png). Re-run as pages fill in:
 *
 *   npm run build:portal && npx tsx scripts/portal-screenshots.ts [--out docs/images]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/main.js';
import { launchBrowser } from '../test/support/browser.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs/images' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log("Usage: npx tsx scripts/portal-screenshots.ts [--out docs/images]\n\nWrites PNGs of the web portal's main pages.");
  process.exit(0);
}
const out = path.resolve(values.out!);
mkdirSync(out, { recursive: true });

const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-shots-'));
const config = loadConfig({
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  EMBEDDINGS_PROVIDER: 'hash',
});
const server = await startServer(config, createLogger('warn'));
const browser = await launchBrowser();
try {
  const base = server.url;
  const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ access_token: string }>;
  };
  const email = 'ada@example.com';
  const password = 'correct horse battery staple';
  const user = await post('/auth/signup', { email, password, name: 'Ada Lovelace' });
  await post('/auth/tenants', { name: 'Analytical Engines Ltd' }, { authorization: `Bearer ${user.access_token}` });
  await seed(base, post, user.access_token);

  const shoot = async (viewport: { width: number; height: number }, name: string, steps: (page: Page) => Promise<void>) => {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await steps(page);
    await page.screenshot({ path: path.join(out, `portal-${name}.png`) });
    console.log(`wrote ${path.join(values.out!, `portal-${name}.png`)}`);
    await context.close();
  };
  const signIn = async (page: Page, pagePath = 'dashboard') => {
    await page.goto(`${base}/portal/`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/portal\/t\/.*\/dashboard$/);
    if (pagePath !== 'dashboard') await page.goto(page.url().replace(/dashboard$/, pagePath));
    await page.getByRole('heading', { level: 1 }).waitFor();
  };
  const laptop = { width: 1280, height: 760 };
  await shoot(laptop, 'sign-in', async (page) => {
    await page.goto(`${base}/portal/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });
  await shoot(laptop, 'shell', async (page) => {
    await signIn(page);
    await page.getByRole('button', { name: /switch tenant/ }).click();
    await page.getByRole('menuitem', { name: 'Create tenant…' }).waitFor();
  });
  for (const name of ['dashboard', 'credentials', 'memories', 'knowledge', 'audit', 'members', 'data', 'settings']) {
    await shoot(laptop, name, async (page) => {
      await signIn(page, name);
      await page.waitForLoadState('networkidle');
    });
  }
  await shoot({ width: 390, height: 844 }, 'phone', async (page) => {
    await signIn(page, 'settings');
    await page.getByRole('button', { name: 'Menu' }).click();
  });
} finally {
  await browser.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** A tenant with something to show: an API key, memories written and searched with it, knowledge objects. */
async function seed(base: string, post: (url: string, body: unknown, headers?: Record<string, string>) => Promise<unknown>, token: string) {
  const scopes = ['memories:read', 'memories:write', 'knowledge:read', 'knowledge:write', 'usage:read'];
  const key = (await post('/api-keys', { name: 'notebook agent', scopes }, { authorization: `Bearer ${token}` })) as { secret: string };
  const withKey = { 'x-api-key': key.secret };
  const facts = [
    'Ada prefers tea to coffee in the afternoon.',
    'The Analytical Engine design uses punched cards for programs.',
    'Charles Babbage is working on the Difference Engine No. 2.',
    'Ada is writing notes on the Bernoulli numbers algorithm.',
    'The team meets every Tuesday at the Royal Society.',
    'Ada lives in London with her family.',
  ];
  for (const content of facts) await post('/memories', { content, tags: ['notes'] }, withKey);
  await post('/v1/knowledge/person', { fields: { name: 'Charles Babbage', job_title: 'Mathematician', employer: 'Cambridge' } }, withKey);
  await post('/v1/knowledge/organization', { fields: { name: 'Royal Society', website: 'https://royalsociety.org' } }, withKey);
  for (let i = 0; i < 100; i++) {
    const usage = (await (await fetch(`${base}/usage`, { headers: withKey })).json()) as { pending_writes?: number };
    if (usage.pending_writes === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await fetch(`${base}/memories/search?q=${encodeURIComponent('what does Ada drink')}`, { headers: withKey });
}
