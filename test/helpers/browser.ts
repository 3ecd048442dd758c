import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); playwright-core never downloads a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The flags every test browser runs with: headless, no sandbox (root), nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Close the browser and remove its profile; safe to call twice. */
  close(): Promise<void>;
}

export interface OpenBrowserOptions {
  /** Permissions to grant, for `origin` only (e.g. `clipboard-read`, `clipboard-write`). */
  permissions?: string[];
  origin?: string;
  /** Script run in every page before its own scripts (e.g. to take an API away). */
  initScript?: string;
  viewport?: { width: number; height: number };
}

/**
 * Launch real Chromium through playwright-core with a fresh user-data dir (so no state leaks
 * between tests) and one page. Call `close()` in afterEach/afterAll, also on failure.
 */
export async function openBrowser(options: OpenBrowserOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'sr-chromium-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1024, height: 640 },
      timeout: 30_000,
    });
    if (options.permissions?.length) {
      await context.grantPermissions(options.permissions, options.origin ? { origin: options.origin } : {});
    }
    if (options.initScript) await context.addInitScript({ content: options.initScript });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    const opened = context;
    let closed = false;
    return {
      context: opened,
      page,
      async close() {
        if (closed) return;
        closed = true;
        await opened.close().catch(() => {});
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await context?.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
