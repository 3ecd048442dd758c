import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decideStampStep } from '../../src/commands/stamp/decide-stamp-step.ts';
import { resolveVersionStep } from '../../src/commands/stamp/resolve-version-step.ts';
import { stampPipeline } from '../../src/commands/stamp/stamp-pipeline.ts';
import { writeStampFilesStep } from '../../src/commands/stamp/write-stamp-files-step.ts';
import { isReleaseError } from '../../src/errors.ts';
import { DRY_RUN, runPipeline } from '../../src/pipeline/runner.ts';
import { imageRecord } from '../../src/record/release-record.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import {
  dryRun,
  removeTestContexts,
  stampTestContext,
  stepIO,
  withChannel,
  withConfig,
  withCwd,
  withEnv,
  withVersion,
} from '../helpers/test-context.ts';

/**
 * `release stamp`'s steps one at a time, and its pipeline through the runner, on contexts from
 * the test-context builder: no command line, no subprocess of our own.
 */
afterAll(removeTestContexts);

describe('decideStampStep', () => {
  it('puts a tagged version on the release channel with its references, and says so', () => {
    const ctx = stampTestContext(
      withVersion('v1.4.0'),
      withConfig({ registry: 'registry.example.test/acme', artifacts: { api: { image: 'api' } } }),
    );
    const io = stepIO();
    decideStampStep.run(ctx, io);
    expect(ctx.decision!.record).toMatchObject({ tag: 'v1.4.0', channel: 'release', source: 'git' });
    expect(imageRecord(ctx.decision!.record, 'api')?.references).toContain(
      'registry.example.test/acme/api:v1.4.0',
    );
    expect(io.lines).toEqual(['v1.4.0 -> release']);
  });

  it('refuses a describe version on the release channel, before anything is written', () => {
    const ctx = stampTestContext(withVersion('v1.4.0-3-gabcdef0'), withChannel('release'));
    let caught: unknown;
    try {
      decideStampStep.run(ctx, stepIO());
    } catch (error) {
      caught = error;
    }
    expect(isReleaseError(caught) && caught.code).toBe('CHANNEL_REFUSED');
    expect(ctx.decision).toBeUndefined();
  });

  it('marks a dirty tree and keeps it off the release channel', () => {
    const ctx = stampTestContext(withVersion('v1.4.0-dirty', 'git', { dirty: true }));
    decideStampStep.run(ctx, stepIO());
    expect(ctx.decision!.record.dirty).toBe(true);
    expect(ctx.decision!.record.channel).toBe('dev');
  });
});

describe('resolveVersionStep', () => {
  it('takes SERVICE_VERSION from the context, not the process, outside any repository', async () => {
    const ctx = stampTestContext(withEnv({ SERVICE_VERSION: 'v2.0.0-rc.1' }));
    await resolveVersionStep.run(ctx, stepIO());
    expect(ctx.resolved).toEqual({ version: 'v2.0.0-rc.1', source: 'env' });
    expect(ctx.repo!.commit).toBeNull();
  });

  it('describes a real tagged repository', async () => {
    const repo = GitRepo.create('testctx-');
    try {
      const head = repo.commit('initial');
      repo.annotatedTag('v3.1.0');
      const ctx = stampTestContext(withCwd(repo.dir));
      await resolveVersionStep.run(ctx, stepIO());
      expect(ctx.resolved).toEqual({ version: 'v3.1.0', source: 'git' });
      expect(ctx.repo).toMatchObject({ commit: head, dirty: false, describe: 'v3.1.0', shallow: false });
    } finally {
      repo.remove();
    }
  });

  it('is dirty for a changed tracked file, not for an untracked one (as describe --dirty)', async () => {
    const repo = GitRepo.create('testctx-');
    try {
      repo.write('a.txt', 'one');
      repo.commit('initial');
      repo.annotatedTag('v3.2.0');
      repo.write('untracked.txt', 'new');
      const clean = stampTestContext(withCwd(repo.dir));
      await resolveVersionStep.run(clean, stepIO());
      expect(clean.repo).toMatchObject({ dirty: false, describe: 'v3.2.0' });
      repo.write('a.txt', 'two');
      const dirty = stampTestContext(withCwd(repo.dir));
      await resolveVersionStep.run(dirty, stepIO());
      expect(dirty.resolved).toEqual({ version: 'v3.2.0-dirty', source: 'git' });
      expect(dirty.repo).toMatchObject({ dirty: true });
      // SERVICE_VERSION names the version; the tree is still known to be dirty.
      const fromEnv = stampTestContext(withCwd(repo.dir), withEnv({ SERVICE_VERSION: 'v3.2.0' }));
      await resolveVersionStep.run(fromEnv, stepIO());
      expect(fromEnv.resolved).toEqual({ version: 'v3.2.0', source: 'env' });
      expect(fromEnv.repo).toMatchObject({ dirty: true, commitTime: expect.any(Number) });
    } finally {
      repo.remove();
    }
  });
});

describe('the stamp pipeline through the runner', () => {
  it('skips the writing steps under a dry run, with the reason, and writes nothing', async () => {
    const ctx = stampTestContext(withVersion('v1.4.0'), dryRun);
    const reports = await runPipeline([decideStampStep, writeStampFilesStep], ctx, {
      json: true,
      env: ctx.env,
      dryRun: ctx.dryRun,
    });
    expect(reports.map((r) => [r.title, r.status, r.reason])).toEqual([
      [decideStampStep.title, 'done', undefined],
      [writeStampFilesStep.title, 'skipped', DRY_RUN],
    ]);
    expect(existsSync(ctx.paths.record)).toBe(false);
  });

  it('runs every step in order in a real repository; GITHUB_OUTPUT unset is a skip with its reason', async () => {
    const repo = GitRepo.create('testctx-');
    try {
      repo.commit('initial');
      repo.annotatedTag('v1.0.0');
      const ctx = stampTestContext(withCwd(repo.dir));
      expect(ctx.paths.record).toBe(join(repo.dir, 'dist/release.json'));
      const reports = await runPipeline(stampPipeline, ctx, { json: true, env: ctx.env });
      expect(reports.map((r) => r.status)).toEqual(['done', 'skipped', 'done', 'done', 'skipped']);
      expect(reports[1]!.reason).toBe('the tree is clean');
      expect(reports[4]!.reason).toBe('GITHUB_OUTPUT is not set');
      expect(JSON.parse(readFileSync(ctx.paths.record, 'utf8'))).toMatchObject({ tag: 'v1.0.0' });
    } finally {
      repo.remove();
    }
  });

  it('a dirty tree is said with its changed files (what release init just wrote)', async () => {
    const repo = GitRepo.create('testctx-');
    try {
      repo.write('release.config.json', '{}');
      repo.commit('initial');
      repo.annotatedTag('v1.0.0');
      repo.write('release.config.json', '{"registry": "ghcr.io/acme"}');
      const ctx = stampTestContext(withCwd(repo.dir));
      await runPipeline(stampPipeline, ctx, { json: true, env: ctx.env });
      expect(ctx.decision!.record.tag).toMatch(/-dirty$/);
      expect(ctx.warnings).toContain(
        'the tree is dirty: 1 changed file (release.config.json); commit it: an rc and a release need a clean tree, and a dev stamp says -dirty until then',
      );
    } finally {
      repo.remove();
    }
  });
});
