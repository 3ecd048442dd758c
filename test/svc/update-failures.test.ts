import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveOf, baseEnv, npmInstall, packageFileIn, run, Scratch, sha256Of, svcIn } from './support.ts';

// `svc update` against servers that hand out bad archives. Every case must fail with a reason
// and leave the installed svc (v0.1.0) byte for byte as it was, and working.
const scratch = new Scratch();
const prefix = scratch.path('prefix');
let server: Server;
let base: string;
let installedHash: string;

interface Served {
  body: Buffer;
  /** Sent as X-Checksum-SHA256 unless null. */
  checksum: string | null;
  /** Sent as Content-Length (default: the body's length). */
  length?: number;
  /** Stop after this many bytes and reset the connection. */
  cutAt?: number;
  status?: number;
}
const cases: Record<string, Served> = {};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A real npm tarball of whatever package directory `files` describes. */
async function packed(name: string, files: Record<string, string>): Promise<Buffer> {
  const dir = scratch.path('pack', name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  const result = await run('npm', ['pack', '--json', '--pack-destination', scratch.path('pack')], {
    cwd: dir,
    env: baseEnv(),
  });
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(
    join(scratch.path('pack'), (JSON.parse(result.stdout) as { filename: string }[])[0]!.filename),
  );
}

beforeAll(async () => {
  const [oldArchive, goodArchive] = await Promise.all([
    archiveOf('v0.1.0', scratch.dir),
    archiveOf('v1.0.0', scratch.dir),
  ]);
  expect((await npmInstall(prefix, oldArchive)).code).toBe(0);
  installedHash = sha256Of(packageFileIn(prefix));

  const good = readFileSync(goodArchive);
  const corrupt = Buffer.from(good);
  for (let i = 100; i < corrupt.length; i += 97) corrupt[i] = corrupt[i]! ^ 0xff;
  const junk = Buffer.from('this is not a gzip archive at all');
  const other = await packed('other', {
    'package.json': JSON.stringify({ name: 'left-pad-ish', version: '1.0.0', bin: { svc: 'svc.js' } }),
    'svc.js': '#!/usr/bin/env node\nconsole.log("svc v9.9.9")\n',
  });
  const crashing = await packed('crashing', {
    'package.json': JSON.stringify({ name: 'service-cli', version: '9.9.9', bin: { svc: 'svc.js' } }),
    'svc.js': '#!/usr/bin/env node\nthrow new Error("broken build")\n',
  });
  Object.assign(cases, {
    corrupt: { body: corrupt, checksum: sha(good) },
    truncated: { body: good, checksum: sha(good), cutAt: Math.floor(good.length / 2) },
    'wrong-checksum': { body: good, checksum: sha(Buffer.from('something else')) },
    'no-checksum': { body: good, checksum: null },
    'length-mismatch': { body: good, checksum: sha(good), length: good.length + 10, cutAt: good.length },
    'not-gzip': { body: junk, checksum: sha(junk) },
    'other-package': { body: other, checksum: sha(other) },
    'crashing-svc': { body: crashing, checksum: sha(crashing) },
    missing: { body: Buffer.from('{"error":"no archive"}'), checksum: null, status: 404 },
  } satisfies Record<string, Served>);

  server = createServer((req, res) => {
    const served = cases[req.url!.split('/')[1] ?? ''];
    if (!served) return res.writeHead(404).end();
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/gzip',
      'Content-Length': served.length ?? served.body.length,
    };
    if (served.checksum) headers['X-Checksum-SHA256'] = served.checksum;
    res.writeHead(served.status ?? 200, headers);
    if (served.cutAt === undefined) return res.end(served.body);
    res.write(served.body.subarray(0, served.cutAt), () => setTimeout(() => req.socket.destroy(), 20));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  scratch.cleanup();
});

describe('svc update refuses a bad archive and leaves the installed svc working', () => {
  it.each([
    ['corrupt', /has SHA-256 [0-9a-f]{64}, but the server announced/],
    ['truncated', /the connection ended after \d+ of \d+ bytes|is \d+ bytes but the server announced/],
    ['wrong-checksum', /but the server announced/],
    ['no-checksum', /no valid X-Checksum-SHA256/],
    ['length-mismatch', /after \d+ of \d+ bytes|announced/],
    ['not-gzip', /not a gzip archive/],
    ['other-package', /"left-pad-ish", not service-cli/],
    ['crashing-svc', /its svc does not run/],
    ['missing', /answered 404/],
  ])('%s', async (name, reason) => {
    const env = baseEnv({ home: scratch.path('home'), binDirs: [join(prefix, 'bin')] });
    const result = await run(svcIn(prefix), ['update', '--url', `${base}/${name}`], {
      env,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toMatch(/nothing was installed/);
    expect(sha256Of(packageFileIn(prefix))).toBe(installedHash);
    expect((await run(svcIn(prefix), ['--version'], { env })).stdout).toBe('svc v0.1.0\n');
    const version = await run(svcIn(prefix), ['version', '--json', '--url', 'http://127.0.0.1:1'], { env });
    expect(JSON.parse(version.stdout)).toMatchObject({ cli: 'v0.1.0' });
  });

  it('--dry-run of a bad archive fails the same way', async () => {
    const env = baseEnv({ home: scratch.path('home') });
    const result = await run(svcIn(prefix), ['update', '--dry-run', '--url', `${base}/corrupt`], { env });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
  });

  it('a svc that npm did not install refuses to update (there is no prefix to install into)', async () => {
    const loose = scratch.path('loose');
    mkdirSync(loose);
    writeFileSync(join(loose, 'svc.js'), readFileSync(packageFileIn(prefix)));
    const result = await run(process.execPath, [join(loose, 'svc.js'), 'update', '--url', base], {
      env: baseEnv(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/was not installed with npm install -g/);
    expect(result.stderr).toContain(`npm install -g ${base}/api/cli/download/service-cli.tar.gz`);
  });
});
