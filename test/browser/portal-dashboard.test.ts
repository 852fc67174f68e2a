import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, signUp, type SignedUpUser } from '../support/auth.js';
import { expectAccessible, launchBrowser, openPage, signInThroughForm } from '../support/browser.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin } from '../support/portal.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The dashboard in a real browser against the real service: its numbers are the API's, quotas show
 * limited and unlimited plans, the chart has its table, audit events are shown only to roles that may
 * read them, and the onboarding checklist follows what the user does.
 */
let server: TestServer;
let browser: Browser;
let owner: SignedUpUser;
let key: string;

beforeAll(async () => {
  // Writes limited, everything else unlimited: both kinds of quota bar on one page.
  [server, browser] = await Promise.all([
    startTestServer({
      PLAN_LIMITS: JSON.stringify({ free: { writes: 200, reads: null, searches: null, storage_bytes: null, memories: null } }),
    }),
    launchBrowser(),
  ]);
  owner = await signUp(server.url);
  key = await createApiKey(server.url, owner, ['memories:read', 'memories:write', 'usage:read']);
  const api = withKey(server.url, key);
  for (const content of ['the parcel left the depot', 'the invoice was paid', 'the meeting moved to friday']) {
    expect((await api('POST', '/memories', { body: { content } })).status).toBe(202);
  }
  await waitConsolidated(server.url, key);
  expect((await api('GET', '/memories/search?q=parcel')).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const valueOf = (page: Page, testId: string) => page.getByTestId(testId).getAttribute('data-value');

async function apiDashboard(user: SignedUpUser) {
  const portal = await portalLogin(server.url, user.email, user.password);
  const res = await portalCall(server.url, portal, 'GET', '/api/portal/dashboard', { tenantId: owner.tenantId });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('portal dashboard page', () => {
  it("shows the same totals as GET /usage and the dashboard route, with quota bars, the chart's table and recent events", async () => {
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, owner);
    await page.getByTestId('total-memories').waitFor();

    const usage = (await withKey(server.url, key)('GET', '/usage')).body;
    const d = await apiDashboard(owner);
    expect(d.total_memories).toBe(3);
    expect(await valueOf(page, 'total-memories')).toBe(String(usage.memory_count));
    expect(await valueOf(page, 'total-writes')).toBe(String(usage.writes_current_period));
    expect(await valueOf(page, 'total-writes')).toBe(String(d.writes_this_period));
    expect(await valueOf(page, 'total-reads')).toBe(String(d.reads_this_period));
    expect(await valueOf(page, 'total-searches')).toBe(String(d.searches_this_period));
    expect(await valueOf(page, 'total-searches')).toBe('1');
    expect(await valueOf(page, 'total-storage')).toBe(String(usage.storage_used_bytes));
    expect(await valueOf(page, 'total-plan')).toBe(usage.plan);

    // Writes are limited (a labelled progress bar with its numbers in words); the rest are unlimited.
    const writes = page.getByRole('progressbar', { name: 'Writes' });
    expect(await writes.getAttribute('aria-valuenow')).toBe('3');
    expect(await writes.getAttribute('aria-valuemax')).toBe('200');
    expect(await writes.getAttribute('aria-valuetext')).toBe('3 of 200 (1.5%)');
    expect(await page.getByRole('progressbar').count()).toBe(1);
    expect(await page.getByText('used · unlimited').count()).toBe(3);

    // The chart's text alternative: 30 rows, today's holding the period's counts.
    const table = page.getByRole('table', { name: /per day/ });
    expect(await table.locator('tbody tr').count()).toBe(30);
    const today = new Date().toISOString().slice(0, 10);
    const todayRow = table.getByRole('row', { name: new RegExp(`^${today}`) });
    expect((await todayRow.getByRole('cell').allTextContents()).map(Number)).toEqual([
      d.writes_this_period,
      d.reads_this_period,
      d.searches_this_period,
    ]);

    // Recent audit events, with the way to the full log.
    const events = page.getByRole('table', { name: 'Recent audit events, newest first' });
    await events.getByText('api_key.create').first().waitFor();
    expect(await page.getByRole('link', { name: 'See the full audit log' }).getAttribute('href')).toBe(`/portal/t/${owner.tenantId}/audit`);
    // Every step was done by the real calls above.
    await expect.poll(() => page.getByTestId('onboarding-summary').textContent()).toMatch(/^All steps done on/);
    await expectAccessible(page, 'dashboard at 1280px');
    await context.close();
  });

  it('ticks "create an API key" after a key is made in the UI, and a member can tick a step by hand', async () => {
    const fresh = await signUp(server.url);
    const { context, page } = await openPage(browser);
    page.setDefaultTimeout(10_000);
    await signInThroughForm(page, server, fresh);
    await expect.poll(() => page.getByTestId('onboarding-summary').textContent()).toBe('0 of 3 steps done.');
    expect(await page.getByTestId('step-created_api_key').textContent()).toContain('(to do)');
    // The snippets carry this page's origin and a placeholder for the key.
    const curl = await page.getByTestId('snippet-curl-create').textContent();
    expect(curl).toContain(`${server.url}/memories`);
    expect(curl).toContain('X-API-Key: <your key>');
    expect(await page.getByTestId('snippet-ts-client').textContent()).toContain('client.search.memories.query');
    await expectAccessible(page, 'dashboard (new tenant) at 1280px');

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name', { exact: true }).fill('onboarding key');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page
      .getByRole('dialog', { name: /created/ })
      .getByRole('button', { name: 'I have saved it' })
      .click();

    await page.getByRole('link', { name: 'Dashboard' }).click();
    await expect.poll(() => page.getByTestId('step-created_api_key').textContent()).toContain('(done)');
    await expect.poll(() => page.getByTestId('onboarding-summary').textContent()).toBe('1 of 3 steps done.');

    await page.getByRole('button', { name: /^Mark as done.*Run your first search/ }).click();
    await expect.poll(() => page.getByTestId('step-ran_first_search').textContent()).toContain('(done)');
    const checklist = (
      await portalCall(server.url, await portalLogin(server.url, fresh.email, fresh.password), 'GET', '/api/portal/onboarding')
    ).body;
    expect(checklist).toMatchObject({ created_api_key: true, sent_first_memory: false, ran_first_search: true, completed_at: null });
    await context.close();
  });

  it('a viewer sees the numbers but no audit events and no "mark as done", and the page works at phone width', async () => {
    const viewer = await signUp(server.url);
    await addToTenant(server.url, owner, viewer, 'viewer');
    const { context, page } = await openPage(browser, { width: 390, height: 844 });
    await signInThroughForm(page, server, viewer);
    await page.goto(`${server.url}/portal/t/${owner.tenantId}/dashboard`);
    await page.getByTestId('audit-hidden').waitFor();
    expect(await valueOf(page, 'total-memories')).toBe('3');
    expect(await page.getByRole('table', { name: 'Recent audit events, newest first' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Mark/ }).count()).toBe(0);
    expect((await apiDashboard(viewer)).recent_audit_events).toEqual([]);
    // Nothing in the page's area is wider than the phone's screen (tables scroll in regions of their own).
    const tooWide = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const width: number = doc.documentElement.clientWidth;
      return [...doc.querySelectorAll('#main *')]
        .filter((e: any) => !e.closest('.table-scroll, pre, .visually-hidden') && e.getBoundingClientRect().right > width + 1)
        .map((e: any) => `${e.tagName}.${e.className}`);
    });
    expect(tooWide).toEqual([]);
    await expectAccessible(page, 'dashboard (viewer) at 390px');
    await context.close();
  });
});
