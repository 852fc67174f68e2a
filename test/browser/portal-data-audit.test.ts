import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant } from '../support/auth.js';
import { expectAccessible, launchBrowser, newUser, openPage, signInThroughForm } from '../support/browser.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The Data page (export, retention) and the Audit log page in a real browser, against the real service. */
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const dataUrl = (tenantId: string) => `${server.url}/portal/t/${tenantId}/data`;
const auditUrl = (tenantId: string) => `${server.url}/portal/t/${tenantId}/audit`;

/** Counts the export requests and downloads a page starts, so a test can show that none happened. */
function watchExports(page: Page) {
  const seen = { requests: 0, downloads: 0 };
  page.on('request', (r) => {
    if (r.url().endsWith('/api/portal/export')) seen.requests++;
  });
  page.on('download', () => seen.downloads++);
  return seen;
}

describe('portal data and audit pages in a browser', () => {
  it('exports after step-up: the downloaded file is JSON holding a memory written over REST; cancelling downloads nothing', async () => {
    const user = await newUser(server);
    const key = await createApiKey(server.url, user);
    const content = `export marker ${user.userId}`;
    const written = await withKey(server.url, key)('POST', '/memories', { body: { title: 'Export me', content } });
    expect(written.status, written.text).toBe(202);
    await waitConsolidated(server.url, key);

    const { context, page } = await openPage(browser);
    const seen = watchExports(page);
    await signInThroughForm(page, server, user);
    await page.goto(dataUrl(user.tenantId));
    await page.getByRole('heading', { name: 'Export', level: 2 }).waitFor();
    await expectAccessible(page, 'data page');

    // Cancelling the confirmation sends nothing and saves nothing.
    await page.getByRole('button', { name: 'Export data' }).click();
    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    await dialog.waitFor();
    await expectAccessible(page, 'data page with the step-up dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('export-status').textContent()).toBe('Export cancelled: nothing was downloaded.');
    expect(seen).toEqual({ requests: 0, downloads: 0 });

    await page.getByRole('button', { name: 'Export data' }).click();
    await dialog.getByLabel('Password').fill(user.password);
    const download = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(new RegExp(`^tenant-${user.tenantId}-export-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    const doc = JSON.parse(await readFile((await file.path())!, 'utf8'));
    expect(doc).toMatchObject({ format: 'tenant-memory-export', tenant_id: user.tenantId, counts: { memories: 1 } });
    expect(doc.memories.map((m: { content: string }) => m.content)).toEqual([content]);
    await expect.poll(() => page.getByTestId('export-status').textContent()).toMatch(/^Export saved as tenant-.*\.json \(\d/);
    expect(seen).toEqual({ requests: 1, downloads: 1 });
    await context.close();
  });

  it("an export the server refuses shows the API's message and code, and saves nothing", async () => {
    const user = await newUser(server);
    const { context, page } = await openPage(browser);
    const seen = watchExports(page);
    await signInThroughForm(page, server, user);
    // The request reaches the real server without its step-up token, which it refuses (403 STEP_UP_REQUIRED).
    await page.route('**/api/portal/export', (route) => {
      const headers = { ...route.request().headers() };
      delete headers['x-step-up-token'];
      return route.continue({ headers });
    });
    await page.goto(dataUrl(user.tenantId));
    await page.getByRole('button', { name: 'Export data' }).click();
    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    await dialog.getByLabel('Password').fill(user.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The export failed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('STEP_UP_REQUIRED');
    expect(await page.getByTestId('export-status').textContent()).toBe('');
    expect(seen).toEqual({ requests: 1, downloads: 0 });
    await context.close();
  });

  it('saves retention after step-up and shows it after a reload', async () => {
    const user = await newUser(server);
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, user);
    await page.goto(dataUrl(user.tenantId));
    const current = page.getByTestId('retention-current');
    await expect.poll(() => current.textContent()).toContain('Never: everything is kept');

    const versions = page.getByRole('group', { name: 'Replaced memory versions' });
    await versions.getByLabel('Keep forever').uncheck();
    await versions.getByLabel('Replaced memory versions: days to keep').fill('0');
    await page.getByRole('button', { name: 'Save retention' }).click();
    // Out of range: shown next to the field, nothing asked or sent.
    await versions.getByText('Between 1 and 3650 days.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);

    await versions.getByLabel('Replaced memory versions: days to keep').fill('30');
    await page.getByRole('button', { name: 'Save retention' }).click();
    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    await dialog.getByLabel('Password').fill(user.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('retention-status').textContent()).toBe('Retention settings saved.');
    await expect.poll(() => current.textContent()).toContain('30 days');

    await page.reload();
    await expect.poll(() => current.textContent()).toMatch(/Replaced memory versions30 daysDeleted itemsKept forever.*by you/);
    expect(await versions.getByLabel('Replaced memory versions: days to keep').inputValue()).toBe('30');
    await context.close();
  });

  it('filters the audit log by area (kept in the URL across a reload) and shows the chain verified', async () => {
    const user = await newUser(server);
    // 25 api_key.create events (which the auth. filter must leave out): more than one page of 25.
    for (let i = 0; i < 25; i++) await createApiKey(server.url, user);
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, user);
    await page.goto(auditUrl(user.tenantId));
    await expect.poll(() => page.getByTestId('audit-verification').textContent()).toMatch(/^Verified\. All \d+ events match/);
    await page.getByRole('cell', { name: 'api_key.create' }).first().waitFor();
    await expectAccessible(page, 'audit page');

    // Paging: the total is shown, Next goes to page 2 and the URL keeps it.
    const pager = page.getByRole('navigation', { name: 'Audit events, newest first pages' });
    await expect.poll(() => pager.textContent()).toContain('Page 1 of 2');
    await pager.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await expect.poll(() => pager.textContent()).toContain('Page 2 of 2');
    const total = Number(/^(\d+) events/.exec((await page.getByTestId('audit-total').textContent())!)![1]);
    expect(total).toBeGreaterThan(25);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(total - 25);

    await page.getByLabel('Event type').fill('auth.');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // Applying a filter goes back to page 1.
    await page.waitForURL((url) => url.searchParams.get('type') === 'auth.' && !url.searchParams.has('page'));
    await expect.poll(() => page.getByTestId('audit-total').textContent()).toMatch(/match the filters$/);
    const types = () => page.locator('tbody tr td:nth-child(2)').allTextContents();
    await expect.poll(async () => (await types()).length).toBeGreaterThan(0);
    expect((await types()).every((t) => t.startsWith('auth.'))).toBe(true);
    expect(await types()).toContain('auth.login');

    await page.reload();
    await expect.poll(() => page.getByLabel('Event type').inputValue()).toBe('auth.');
    await expect.poll(async () => (await types()).length).toBeGreaterThan(0);
    expect((await types()).every((t) => t.startsWith('auth.'))).toBe(true);

    // Details unfold with the keyboard; the verification can be run again.
    await page.locator('summary').first().focus();
    await page.keyboard.press('Enter');
    await page.locator('details[open]').getByText('Hash').waitFor();
    await expectAccessible(page, 'audit page, filtered, details open');
    const reverified = page.waitForResponse((r) => r.url().includes('portal.auditVerify') && r.status() === 200);
    await page.getByRole('button', { name: 'Verify again' }).click();
    await reverified;
    await expect.poll(() => page.getByTestId('audit-verification').textContent()).toMatch(/^Verified\./);
    await context.close();
  });

  it('at phone width, a viewer sees retention read-only and the audit log explained; both pages pass axe', async () => {
    const owner = await newUser(server);
    const viewer = await newUser(server, 'Viewer');
    await addToTenant(server.url, owner, viewer, 'viewer');
    const { context, page } = await openPage(browser, { width: 390, height: 844 });
    await signInThroughForm(page, server, viewer);
    await page.goto(dataUrl(owner.tenantId));
    await page.getByText('Only owners and admins can change retention.').waitFor();
    expect(await page.getByRole('button', { name: 'Export data' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save retention' }).count()).toBe(0);
    await expectAccessible(page, 'data page (viewer) at 390px');

    await page.goto(auditUrl(owner.tenantId));
    await page.getByRole('heading', { name: 'The audit log is for owners and admins' }).waitFor();
    await expectAccessible(page, 'audit page (viewer) at 390px');

    // The owner's own views at phone width.
    await context.clearCookies();
    await signInThroughForm(page, server, owner);
    await page.goto(auditUrl(owner.tenantId));
    await expect.poll(() => page.getByTestId('audit-verification').textContent()).toMatch(/^Verified\./);
    await page.locator('tbody tr').first().waitFor();
    await expectAccessible(page, 'audit page at 390px');
    await page.goto(dataUrl(owner.tenantId));
    await page.getByRole('button', { name: 'Save retention' }).waitFor();
    await expectAccessible(page, 'data page at 390px');
    await context.close();
  });
});
