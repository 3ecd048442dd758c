import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type TestBrowser } from '../helpers/browser.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { runBuildWeb } from './run-build-web.ts';

// The real thing end to end: the client built by the build:web entry with SERVICE_CLIENT_VERSION,
// served by the service-web process, /api proxied to real service-api processes, driven in
// Debian's Chromium.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCREENSHOT = join(ROOT, 'test-artifacts', 'web-menu-open.png');
const RC = 'v1.2.3-rc.1';

const work = mkdtempSync(join(tmpdir(), 'sr-web-e2e-'));
const processes: StartedProcess[] = [];
let browser: TestBrowser | undefined;
/** service-web for the rc build, its API at the same version written without the `v`. */
let rcSame: string;
/** service-web for the rc build, its API already at v1.2.4. */
let rcBehind: string;
/** service-web for a build without SERVICE_CLIENT_VERSION, its API at v1.2.4. */
let unknownBuild: string;

async function start(bin: string, env: Record<string, string>): Promise<string> {
  const started = await startProcess(join(ROOT, 'bin', bin), {
    env: { HOST: '127.0.0.1', PORT: '0', ...env },
  });
  processes.push(started);
  return started.url;
}

beforeAll(async () => {
  const [rc, unknown] = await Promise.all([
    runBuildWeb({ outDir: join(work, 'rc'), cwd: work, env: { SERVICE_CLIENT_VERSION: RC } }),
    runBuildWeb({ outDir: join(work, 'unknown'), cwd: work }),
  ]);
  expect(rc.code, rc.stderr).toBe(0);
  expect(unknown.code, unknown.stderr).toBe(0);
  const [apiSame, apiNewer] = await Promise.all([
    start('service-api.js', { SERVICE_VERSION: '1.2.3-rc.1' }),
    start('service-api.js', { SERVICE_VERSION: 'v1.2.4' }),
  ]);
  [rcSame, rcBehind, unknownBuild] = await Promise.all([
    start('service-web.js', { WEB_ROOT: join(work, 'rc'), API_URL: apiSame }),
    start('service-web.js', { WEB_ROOT: join(work, 'rc'), API_URL: apiNewer }),
    start('service-web.js', { WEB_ROOT: join(work, 'unknown'), API_URL: apiNewer }),
  ]);
});

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  rmSync(work, { recursive: true, force: true });
});

async function open(origin: string, initScript?: string): Promise<Page> {
  browser = await openBrowser({
    permissions: ['clipboard-read', 'clipboard-write'],
    origin,
    ...(initScript ? { initScript } : {}),
  });
  await browser.page.goto(`${origin}/`);
  return browser.page;
}

/** Wait until the page has finished its /api/version check; returns what it found. */
async function versionCheck(page: Page): Promise<string> {
  await page.waitForFunction(() => {
    const state = document.getElementById('update-notice')?.dataset['state'];
    return state !== undefined && state !== 'checking';
  });
  return page.locator('#update-notice').evaluate((el) => (el as HTMLElement).dataset['state'] ?? '');
}

const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
const readClipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

describe('reference web client in Chromium', () => {
  it('shows the build version in the user menu and copies exactly it on click', async () => {
    const page = await open(rcSame);
    expect(await page.locator('meta[name="service-client-version"]').getAttribute('content')).toBe(RC);
    const served = await page.evaluate(() => fetch('/version.json').then((r) => r.json()));
    expect(served).toEqual({ version: RC });

    const button = page.locator('#user-menu-button');
    await expect.poll(() => button.textContent()).toContain('AL');
    expect(await page.locator('#user-menu').isVisible()).toBe(false);
    await button.click();
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    const item = page.getByRole('menuitem', { name: /Version/ });
    expect(await item.isVisible()).toBe(true);
    expect(await page.locator('#client-version').textContent()).toBe(RC);

    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(5_000);

    // Something else on the clipboard first, so the assertion cannot pass by accident.
    await page.evaluate(() => navigator.clipboard.writeText('not the version'));
    await item.click();
    await expect.poll(() => page.locator('#copy-state').textContent()).toBe('Copied');
    expect(await readClipboard(page)).toBe(RC);
    await expect.poll(() => page.locator('#announcer').textContent()).toBe(`Copied ${RC} to the clipboard`);

    // A click outside closes the menu.
    await page.locator('main h1').click();
    expect(await page.locator('#user-menu').isVisible()).toBe(false);
    expect(await button.getAttribute('aria-expanded')).toBe('false');
  });

  it('shows unknown when built without SERVICE_CLIENT_VERSION, and no reload notice', async () => {
    const page = await open(unknownBuild);
    await page.locator('#user-menu-button').click();
    expect(await page.locator('#client-version').textContent()).toBe('unknown');
    expect(await page.locator('meta[name="service-client-version"]').getAttribute('content')).toBe('unknown');
    await page.getByRole('menuitem', { name: /Version/ }).click();
    await expect.poll(() => readClipboard(page)).toBe('unknown');
    // The API is at v1.2.4, but an unknown client proves nothing.
    expect(await versionCheck(page)).toBe('current');
    expect(await page.locator('#update-notice').isVisible()).toBe(false);
  });

  it('works with the keyboard only: Tab, Enter and Space open, Space copies, Escape closes', async () => {
    const page = await open(rcSame);
    const button = page.locator('#user-menu-button');
    expect(await button.getAttribute('aria-haspopup')).toBe('menu');
    expect(await button.getAttribute('aria-controls')).toBe('user-menu');
    expect(await page.locator('#user-menu').getAttribute('role')).toBe('menu');
    expect(await page.locator('#version-item').evaluate((el) => el.tagName)).toBe('BUTTON');

    for (let i = 0; i < 5 && (await activeId(page)) !== 'user-menu-button'; i++)
      await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe('user-menu-button');

    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect(await activeId(page)).toBe('version-item');
    await page.keyboard.press('Escape');
    expect(await page.locator('#user-menu').isVisible()).toBe(false);
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await activeId(page)).toBe('user-menu-button');

    await page.keyboard.press('Space');
    expect(await activeId(page)).toBe('version-item');
    await page.evaluate(() => navigator.clipboard.writeText('not the version'));
    await page.keyboard.press('Space');
    await expect.poll(() => page.locator('#copy-state').textContent()).toBe('Copied');
    expect(await readClipboard(page)).toBe(RC);
    // Enter on the item copies too.
    await page.evaluate(() => navigator.clipboard.writeText('not the version'));
    await page.keyboard.press('Enter');
    await expect.poll(() => readClipboard(page)).toBe(RC);

    await page.keyboard.press('Escape');
    expect(await page.locator('#user-menu').isVisible()).toBe(false);
    expect(await activeId(page)).toBe('user-menu-button');

    // ArrowDown opens too; Tab closes the menu and moves on.
    await page.keyboard.press('ArrowDown');
    expect(await activeId(page)).toBe('version-item');
    await page.keyboard.press('Tab');
    expect(await page.locator('#user-menu').isVisible()).toBe(false);
    expect(await activeId(page)).not.toBe('version-item');
  });

  it('shows the reload notice when the API runs another version, and reloads on request', async () => {
    const page = await open(rcBehind);
    expect(await versionCheck(page)).toBe('new-version');
    const notice = page.locator('#update-notice');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toContain('A new version is available.');
    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Reload' }).click();
    await reloaded;
    expect(await versionCheck(page)).toBe('new-version');
  });

  it('shows no reload notice when the API runs the same version (a leading v is no difference)', async () => {
    const page = await open(rcSame);
    expect(await versionCheck(page)).toBe('current');
    expect(await page.locator('#update-notice').isVisible()).toBe(false);
  });

  it('copies through the fallback when the Clipboard API is unavailable', async () => {
    const page = await open(rcSame);
    // As on plain http from another host: no navigator.clipboard at all. The page also records
    // what a copy event put on the clipboard, with a listener that runs after the app's.
    await page.addInitScript(`
      delete Navigator.prototype.clipboard;
      document.addEventListener('copy', (event) => {
        window.__copied = event.clipboardData.getData('text/plain');
      });`);
    await page.reload();
    expect(await page.evaluate(() => 'clipboard' in navigator)).toBe(false);
    await page.locator('#user-menu-button').click();
    await page.getByRole('menuitem', { name: /Version/ }).click();
    await expect.poll(() => page.locator('#copy-state').textContent()).toBe('Copied');
    expect(await page.evaluate(() => (window as { __copied?: string }).__copied)).toBe(RC);

    // And it reached the system clipboard: read it back from a page that has the API.
    const other = await browser!.context.newPage();
    await other.goto(`${rcSame}/`);
    await other.bringToFront();
    expect(await readClipboard(other)).toBe(RC);
  });
});
