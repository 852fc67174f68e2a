import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, newUser, openPage, signInThroughForm } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The signed-in portal in a real browser: tenants in the URL, the switcher, the forbidden page, step-up. */
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('portal shell in a browser', () => {
  it('creates a tenant from the switcher, lands in it, and switches back keeping the page', async () => {
    const user = await newUser(server);
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, user);

    await page.getByRole('button', { name: /switch tenant/ }).click();
    await page.getByRole('menuitem', { name: 'Create tenant…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a tenant' });
    await dialog.getByLabel('Tenant name').fill('Second Space');
    await dialog.getByRole('button', { name: 'Create tenant' }).click();
    await page.waitForURL((url) => /^\/portal\/t\/[0-9a-f-]{36}\/dashboard$/.test(url.pathname) && !url.pathname.includes(user.tenantId));
    const created = /\/t\/([0-9a-f-]{36})\//.exec(page.url())![1]!;
    expect(created).not.toBe(user.tenantId);
    await expect.poll(() => page.getByRole('button', { name: /switch tenant/ }).textContent()).toContain('Second Space');

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`${server.url}/portal/t/${created}/settings`);
    await expect.poll(() => page.getByText(created).count()).toBeGreaterThan(0);

    await page.getByRole('button', { name: /switch tenant/ }).click();
    const items = page.getByRole('menuitemradio');
    expect(await items.count()).toBe(2);
    await items.filter({ hasNotText: 'Second Space' }).click();
    await page.waitForURL(`${server.url}/portal/t/${user.tenantId}/settings`);
    await expect.poll(() => page.getByText(user.tenantId).count()).toBeGreaterThan(0);
    await context.close();
  });

  it("a tenant id in the URL that is not the user's shows the forbidden page, with a way home", async () => {
    const user = await newUser(server);
    const other = await newUser(server);
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, user);
    for (const forged of [other.tenantId, randomUUID()]) {
      await page.goto(`${server.url}/portal/t/${forged}/dashboard`);
      await page.getByRole('heading', { name: 'No access to this tenant' }).waitFor();
      expect(await page.getByText(forged).count()).toBe(1);
    }
    await page.getByRole('link', { name: 'Go to your tenant' }).click();
    await page.waitForURL(`${server.url}/portal/t/${user.tenantId}/dashboard`);
    await context.close();
  });

  it('the step-up dialog refuses a wrong password and earns a token with the right one', async () => {
    const user = await newUser(server);
    const { context, page } = await openPage(browser);
    await signInThroughForm(page, server, user);
    await page.goto(`${server.url}/portal/t/${user.tenantId}/settings`);
    await page.getByRole('button', { name: 'Check now' }).click();
    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    await dialog.getByLabel('Password').fill('wrong-password');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').textContent()).toContain('Could not confirm');

    await dialog.getByLabel('Password').fill(user.password);
    const earned = page.waitForResponse((r) => r.url().includes('/trpc/portal.stepUp'));
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const response = await earned;
    expect(response.status()).toBe(200);
    const body = (await response.json()) as any[];
    expect(body[0].result.data.json).toMatchObject({ action: 'data.export', step_up_token: expect.any(String) });
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Confirmed: you can perform privileged actions.').waitFor();
    await context.close();
  });

  it('the shell and the settings page have no serious accessibility violations (laptop and phone widths)', async () => {
    const user = await newUser(server);
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const { context, page } = await openPage(browser, viewport);
      await signInThroughForm(page, server, user);
      await expectAccessible(page, `shell (dashboard) at ${viewport.width}px`);
      await page.goto(`${server.url}/portal/t/${user.tenantId}/settings`);
      await page.getByTestId('session-expiry').waitFor();
      await expectAccessible(page, `settings at ${viewport.width}px`);
      if (viewport.width < 700) {
        // On a phone the navigation folds behind the Menu button.
        expect(await page.getByRole('link', { name: 'Members' }).isVisible()).toBe(false);
        await page.getByRole('button', { name: 'Menu' }).click();
        expect(await page.getByRole('link', { name: 'Members' }).isVisible()).toBe(true);
        // A long email in the top bar shrinks with an ellipsis: the page never scrolls sideways.
        const overflow = await page
          .locator('html')
          .evaluate((html: { scrollWidth: number; clientWidth: number }) => html.scrollWidth - html.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);
      }
      await context.close();
    }
  });
});
