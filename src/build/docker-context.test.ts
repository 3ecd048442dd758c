import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { extract } from 'tar-stream';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerContext } from './docker-context.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sr-context-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

async function entries(tar: Buffer): Promise<Record<string, { mode: number; body: string; mtime: number }>> {
  const out: Record<string, { mode: number; body: string; mtime: number }> = {};
  const reader = extract();
  reader.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      if (header.type === 'file')
        out[header.name] = {
          mode: header.mode ?? 0,
          body: Buffer.concat(chunks).toString(),
          mtime: (header.mtime?.getTime() ?? 0) / 1000,
        };
      next();
    });
  });
  const done = new Promise<void>((resolve) => reader.on('finish', () => resolve()));
  reader.end(tar);
  await done;
  return out;
}

describe('dockerContext', () => {
  it("applies .dockerignore with Docker's rules, always sends the Dockerfile, adds the build's files", async () => {
    const dir = project({
      'app/.dockerignore': '*.log\nnode_modules\n!node_modules/keep.js\nsecret/\nDockerfile\n',
      'app/Dockerfile': 'FROM scratch\n',
      'app/a.log': 'root log: ignored',
      'app/sub/b.log': 'nested log: kept (unlike .gitignore, *.log matches the root only)',
      'app/node_modules/x.js': 'ignored',
      'app/node_modules/keep.js': 're-included',
      'app/secret/key': 'ignored',
      'app/run.sh': '#!/bin/sh\n',
      'app/service-cli.tar.gz': 'stale archive in the folder',
      'cli.tgz': 'the archive the build made',
    });
    chmodSync(join(dir, 'app/run.sh'), 0o700);
    const context = await dockerContext({
      contextDir: join(dir, 'app'),
      dockerfile: join(dir, 'app/Dockerfile'),
      extra: [{ path: 'service-cli.tar.gz', source: join(dir, 'cli.tgz') }],
      epoch: 0,
    });
    const files = await entries(context.tar);
    expect(Object.keys(files).sort()).toEqual([
      '.dockerignore',
      'Dockerfile',
      'node_modules/keep.js',
      'run.sh',
      'service-cli.tar.gz',
      'sub/b.log',
    ]);
    expect(context.dockerfile).toBe('Dockerfile');
    expect(files['service-cli.tar.gz']!.body).toBe('the archive the build made');
    expect(files['run.sh']!.mode).toBe(0o755);
    expect(files['sub/b.log']!.mode).toBe(0o644);
  });

  it('sends a Dockerfile from outside the context under a name of its own', async () => {
    const dir = project({ 'docker/api.Dockerfile': 'FROM scratch\n', 'api/main.js': 'x' });
    const context = await dockerContext({
      contextDir: join(dir, 'api'),
      dockerfile: join(dir, 'docker/api.Dockerfile'),
      extra: [],
      epoch: 0,
    });
    const files = await entries(context.tar);
    expect(context.dockerfile).toBe('.release.Dockerfile');
    expect(files['.release.Dockerfile']!.body).toBe('FROM scratch\n');
    expect(Object.keys(files).sort()).toEqual(['.release.Dockerfile', 'main.js']);
  });

  it('gives an added file its own time when it names one (a copy Docker must see as changed)', async () => {
    const dir = project({ 'c/Dockerfile': 'FROM scratch\n', 'c/app/web/version.json': '{}' });
    const context = await dockerContext({
      contextDir: join(dir, 'c'),
      dockerfile: join(dir, 'c/Dockerfile'),
      extra: [
        { path: 'version-layer/app/web/version.json', source: join(dir, 'c/app/web/version.json'), mtime: 6 },
      ],
      epoch: 5,
    });
    const files = await entries(context.tar);
    expect(files['app/web/version.json']!.mtime).toBe(5);
    expect(files['version-layer/app/web/version.json']).toMatchObject({ body: '{}', mtime: 6 });
  });

  it('gives equal bytes for equal inputs', async () => {
    const dir = project({ 'c/Dockerfile': 'FROM scratch\n', 'c/z.txt': 'z', 'c/a/b.txt': 'b' });
    const make = () =>
      dockerContext({
        contextDir: join(dir, 'c'),
        dockerfile: join(dir, 'c/Dockerfile'),
        extra: [],
        epoch: 5,
      });
    expect((await make()).tar.equals((await make()).tar)).toBe(true);
  });
});
