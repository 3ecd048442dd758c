import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { createHealthServer } from '../../src/service/worker/health-server.ts';
import { openBrowser, type TestBrowser } from '../helpers/browser.ts';
import { RELEASE_BIN } from '../helpers/run-release.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { Cleanup } from '../verify/support.ts';

// The status page of the real `release watch` (a subprocess) opened in real Chromium. Three
// deployments on loopback: one in step, one whose worker is behind, one whose web client reports
// markup instead of a version (it must show as text, never run). One worker's version can be
// changed while the page is open, to see the page redraw without a reload.

const cleanup = new Cleanup();
let watch: StartedProcess;
let shotDir: string;
let browser: TestBrowser | undefined;
// One stand-in stays, for what the real server cannot do: a web client whose version is markup
// (the real build refuses to bake such a string). Every other server here is the reference one; a
// worker changes version as an upgrade changes it, restarted on its address at another version.
const HOSTILE = '<img src=x onerror="document.title=`pwned`">';

async function serve(server: Server): Promise<string> {
  const url = await listen(server, { host: '127.0.0.1', port: 0 });
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return url;
}

/** site-ok's worker: the reference health server, restarted on the same port to change its version. */
const siteOkWorker = { server: createHealthServer({ version: 'v1.4.0' }), port: 0 };
async function restartWorker(version: string): Promise<void> {
  siteOkWorker.server.closeAllConnections();
  await new Promise<void>((resolve) => siteOkWorker.server.close(() => resolve()));
  siteOkWorker.server = createHealthServer({ version });
  await listen(siteOkWorker.server, { host: '127.0.0.1', port: siteOkWorker.port });
}

const json = (body: () => unknown) =>
  createServer((_, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body()));
  });

beforeAll(async () => {
  const cwd = cleanup.tempDir('watch-page');
  shotDir = cleanup.tempDir('watch-shots');
  const api = await serve(createApiServer({ version: 'v1.4.0' }));
  const deployments = [
    {
      name: 'site-ok',
      url: api,
      workerUrl: await (async () => {
        const url = await listen(siteOkWorker.server, { host: '127.0.0.1', port: 0 });
        siteOkWorker.port = Number(new URL(url).port);
        cleanup.add(
          () =>
            new Promise<void>((resolve) => {
              siteOkWorker.server.closeAllConnections();
              siteOkWorker.server.close(() => resolve());
            }),
        );
        return `${url}/healthz`;
      })(),
    },
    {
      name: 'site-behind',
      url: api,
      workerUrl: `${await serve(createHealthServer({ version: 'v1.3.0' }))}/healthz`,
    },
    {
      name: 'site-hostile-web',
      url: api,
      workerUrl: `${await serve(createHealthServer({ version: 'v1.4.0' }))}/healthz`,
      webUrl: await serve(json(() => ({ version: HOSTILE }))),
    },
  ];
  writeFileSync(join(cwd, 'release.config.json'), JSON.stringify({ deployments }));
  watch = await cleanup.track(
    startProcess(RELEASE_BIN, {
      args: ['watch', '--all', '--listen', '127.0.0.1:0', '--interval', '1s'],
      cwd,
      readyPattern: /serving (http:\/\/\S+)/,
    }),
  );
}, 60_000);

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});
afterAll(() => cleanup.run());

const cellOf = (deployment: string, artifact: string) =>
  `tr[data-deployment="${deployment}"] td[data-artifact="${artifact}"]`;

describe('release watch status page in Chromium', () => {
  it('marks the drifted worker, shows the fix, and the screenshot shows it', async () => {
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(watch.url);
    const drifted = page.locator(cellOf('site-behind', 'worker'));
    await drifted.waitFor({ state: 'visible', timeout: 20_000 });
    await expect.poll(() => drifted.getAttribute('data-status'), { timeout: 20_000 }).toBe('drift');
    expect(await drifted.innerText()).toMatch(/v1\.3\.0\s*DRIFT/);
    expect(await page.locator(cellOf('site-ok', 'worker')).getAttribute('data-status')).toBe('ok');
    const details = page.locator('section.deployment[data-deployment="site-behind"]');
    expect(await details.innerText()).toContain('fix: upgrade the API and worker together');
    expect(await details.innerText()).toContain('rule: skew.worker');
    expect(await page.locator('#summary').innerText()).toBe(
      '3 deployments: 1 in step, 2 drift, 0 unreachable',
    );

    const shot = join(shotDir, 'status.png');
    await page.screenshot({ path: shot, fullPage: true });
    const png = readFileSync(shot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The drifted cell itself, as pixels: its red DRIFT badge is painted, not only in the DOM.
    const cell = await shotOf(page, drifted);
    expect(await redPixels(browser, cell)).toBeGreaterThan(50);
    expect(await redPixels(browser, await shotOf(page, page.locator(cellOf('site-ok', 'worker'))))).toBe(0);
  });

  it('shows a hostile version as text, never as markup', async () => {
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(watch.url);
    const web = page.locator(cellOf('site-hostile-web', 'web'));
    await expect.poll(() => web.getAttribute('data-status'), { timeout: 20_000 }).toBe('drift');
    expect(await web.innerText()).toContain('not a version');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).toBe('release watch');
  });

  it('redraws without a reload when a worker changes, and fits a phone screen', async () => {
    browser = await openBrowser({ viewport: { width: 390, height: 844 } });
    const { page } = browser;
    await page.goto(watch.url);
    const cell = page.locator(cellOf('site-ok', 'worker'));
    await expect.poll(() => cell.getAttribute('data-status'), { timeout: 20_000 }).toBe('ok');
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await restartWorker('v1.2.0');
    await expect.poll(() => cell.getAttribute('data-status'), { timeout: 20_000 }).toBe('drift');
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
    expect(await cell.isVisible()).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await page.screenshot({ path: join(shotDir, 'phone.png'), fullPage: true });
    await restartWorker('v1.4.0');
  });
});

/**
 * The pixels of the page where `cell` is. The page redraws its rows every round (each second), so
 * a cell can be replaced while Playwright captures it ("not attached to the DOM"): the page's own
 * region is captured instead, the cell looked up again if a redraw replaced it first.
 */
async function shotOf(
  page: TestBrowser['page'],
  cell: ReturnType<TestBrowser['page']['locator']>,
): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    const box = await cell.boundingBox();
    if (box) return page.screenshot({ clip: box });
    if (attempt >= 5) throw new Error('the cell never stayed on the page long enough to capture');
  }
}

/**
 * Pixels of the drift red (#cf222e) in a PNG, decoded by Chromium itself on a blank page (the
 * status page's CSP rightly refuses data: images).
 */
async function redPixels(browser: TestBrowser, png: Buffer): Promise<number> {
  const blank = await browser.context.newPage();
  try {
    return await blank.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const data = ctx.getImageData(0, 0, img.width, img.height).data;
      let red = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i]! > 170 && data[i + 1]! < 90 && data[i + 2]! < 100) red++;
      }
      return red;
    }, png.toString('base64'));
  } finally {
    await blank.close();
  }
}
