import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StampContext } from '../../src/commands/stamp/stamp-context.ts';
import type { ReleaseConfigInput } from '../../src/config/schema.ts';
import { validateConfig } from '../../src/config/validate.ts';
import type { RepoInfo } from '../../src/git/repo-info.ts';
import type { BaseContext } from '../../src/pipeline/context.ts';
import type { StepIO } from '../../src/pipeline/step.ts';
import { stampPaths } from '../../src/stamp/stamp-files.ts';
import type { ResolvedVersion } from '../../src/version-source/resolve-version.ts';

/**
 * Contexts for step and runner unit tests, built in process without a command line or a
 * subprocess (goreleaser's internal/testctx: `testctx.New(testctx.WithVersion(...))`). Each
 * `with...` option changes one thing; everything else has a default a test can rely on: a fresh
 * empty temp directory as cwd and config dir, the default config, an empty environment, not a
 * dry run, JSON output (no renderer).
 */
export type ContextOption<C> = (ctx: C) => void;

const dirs: string[] = [];

/** A context every command's steps accept. */
export function testContext(...options: ContextOption<BaseContext>[]): BaseContext {
  const cwd = mkdtempSync(join(tmpdir(), 'sr-testctx-'));
  dirs.push(cwd);
  const ctx: BaseContext = {
    cwd,
    config: validateConfig({}, 'defaults'),
    configDir: cwd,
    env: {},
    dryRun: false,
    json: true,
    warnings: [],
  };
  for (const option of options) option(ctx);
  return ctx;
}

/** `release stamp`'s context, its paths from the (possibly changed) cwd and config. */
export function stampTestContext(
  ...options: ContextOption<BaseContext & Partial<StampContext>>[]
): StampContext {
  const base = testContext();
  const partial: BaseContext & Partial<StampContext> = base;
  for (const option of options) option(partial);
  return {
    ...partial,
    paths:
      partial.paths ??
      stampPaths({ configDir: partial.configDir, cwd: partial.cwd, record: partial.config.record }),
  };
}

export const withCwd =
  (dir: string): ContextOption<BaseContext> =>
  (ctx) => {
    ctx.cwd = dir;
    ctx.configDir = dir;
  };

export const withConfig =
  (input: ReleaseConfigInput): ContextOption<BaseContext> =>
  (ctx) => {
    ctx.config = validateConfig(input, 'test config');
  };

export const withEnv =
  (env: Record<string, string | undefined>): ContextOption<BaseContext> =>
  (ctx) => {
    ctx.env = { ...ctx.env, ...env };
  };

export const dryRun: ContextOption<BaseContext> = (ctx) => {
  ctx.dryRun = true;
};

/** A version as `resolveVersion` would have given it, and a clean repository at one commit. */
export const withVersion =
  (version: string, source: ResolvedVersion['source'] = 'git', repo: Partial<RepoInfo> = {}) =>
  (ctx: Partial<StampContext>) => {
    ctx.resolved = { version, source };
    ctx.repo = {
      commit: 'a'.repeat(40),
      commitTime: 1_700_000_000,
      dirty: false,
      shallow: false,
      describe: source === 'git' ? version : null,
      ...repo,
    };
  };

export const withChannel =
  (channel: NonNullable<StampContext['requestedChannel']>) => (ctx: Partial<StampContext>) => {
    ctx.requestedChannel = channel;
  };

/** The StepIO a runner hands a step, collecting its progress lines. */
export function stepIO(): StepIO & { lines: string[] } {
  const lines: string[] = [];
  return { lines, progress: (message) => void lines.push(message) };
}

/** Remove every temp directory the builders made (call in afterAll). */
export function removeTestContexts(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
