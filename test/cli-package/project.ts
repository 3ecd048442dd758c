import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCliArchive } from '../../src/service/svc/build/build-cli-archive.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

/**
 * A project to promote with `artifacts.cli.publish` on: a real git repository at `tag` (plus
 * `commitsAfter` commits, for a dev build), stamped by the real `release stamp`, its record holding
 * the image digests given and a CLI archive built the way `release build` builds it, and an
 * `.npmrc` beside the config.
 */
export async function publishingProject(options: {
  tag: string;
  commitsAfter?: number;
  registry: string;
  npmrc: string;
  digests: Record<string, string>;
  archive?: (version: string, outFile: string) => Promise<void>;
  /** artifacts.cli.package (service-cli by default). */
  packageName?: string;
  /** More keys of artifacts.cli (`version: 'own'`, `bin`), and of the config (`api`). */
  cli?: Record<string, unknown>;
  config?: Record<string, unknown>;
}): Promise<{ repo: GitRepo; version: string }> {
  const repo = GitRepo.create('publish-');
  repo.write(
    'release.config.json',
    JSON.stringify({
      registry: options.registry,
      ...options.config,
      artifacts: {
        cli: {
          publish: true,
          ...(options.packageName ? { package: options.packageName } : {}),
          ...options.cli,
        },
      },
    }),
  );
  repo.write('.gitignore', 'dist/\n.release/\n.npmrc\nkeys/\n');
  repo.commit('initial');
  repo.annotatedTag(options.tag);
  for (let i = 0; i < (options.commitsAfter ?? 0); i++) {
    repo.write(`change-${i}.txt`, String(i));
    repo.commit(`change ${i}`);
  }
  writeFileSync(join(repo.dir, '.npmrc'), options.npmrc);
  const stamped = await runRelease(['stamp', '--json'], { cwd: repo.dir });
  if (stamped.code !== 0) throw new Error(`stamp failed: ${stamped.stderr}`);
  jsonOf(stamped);
  const path = join(repo.dir, 'dist', 'release.json');
  const record = JSON.parse(readFileSync(path, 'utf8'));
  for (const [artifact, digest] of Object.entries(options.digests))
    record.artifacts[artifact].digest = digest;
  const outFile = join(repo.dir, 'dist', 'service-cli.tar.gz');
  if (options.archive) await options.archive(record.tag, outFile);
  else await buildCliArchive({ version: record.tag, outFile });
  record.artifacts.cli.archive = 'dist/service-cli.tar.gz';
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return { repo, version: record.tag };
}

/** An archive of `service-cli` at `version` whose svc.js is not the build's: other bytes. */
export async function foreignArchive(version: string, outFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'foreign-cli-'));
  const pkg = join(dir, 'package');
  execFileSync('mkdir', ['-p', pkg]);
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: 'service-cli',
      version: version.replace(/^v/, ''),
      serviceVersion: version,
      bin: { svc: 'svc.js' },
      files: ['svc.js'],
    }),
  );
  writeFileSync(join(pkg, 'svc.js'), '#!/usr/bin/env node\nconsole.log("svc other");\n');
  const name = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: pkg, encoding: 'utf8' }),
  )[0].filename as string;
  writeFileSync(outFile, readFileSync(join(dir, name)));
  execFileSync('rm', ['-rf', dir]);
}

/** The package as the registry has it, read with npm itself (no token needed to read). */
export function distTags(registryUrl: string, cache: string, name = 'service-cli'): Record<string, string> {
  try {
    return JSON.parse(
      execFileSync(
        'npm',
        ['view', name, 'dist-tags', '--json', '--registry', registryUrl, '--prefer-online'],
        {
          encoding: 'utf8',
          env: { PATH: process.env['PATH']!, HOME: cache, npm_config_cache: join(cache, '.npm') },
        },
      ),
    );
  } catch {
    return {};
  }
}
