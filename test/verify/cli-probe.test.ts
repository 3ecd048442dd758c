import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeCli } from '../../src/verify/probes/cli.ts';
import { Cleanup } from './support.ts';

// Broken `svc` executables an operator may have on PATH: the probe must stay bounded and say why.
// (Installed, working svc builds are in cli-path.test.ts.)

const cleanup = new Cleanup();
let root: string;

function svcIn(name: string, script: string, mode = 0o755): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'svc'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'svc'), mode);
  return dir;
}

beforeAll(() => {
  root = cleanup.tempDir('svc-scripts');
});
afterAll(() => cleanup.run());

const probe = (dirs: string[], timeoutMs = 2_000) =>
  probeCli({ program: 'svc', env: { PATH: [...dirs, '/usr/bin', '/bin'].join(':') }, cwd: root, timeoutMs });

describe('the svc probe', () => {
  it('lists every svc in PATH order, once per directory, skipping files that are not executable', async () => {
    const a = svcIn('a', 'echo "svc v1.0.0"');
    const b = svcIn('b', 'echo "svc 2.0.0"');
    const notExecutable = svcIn('c', 'echo "svc 3.0.0"', 0o644);
    const results = await probe([b, notExecutable, a, b]);
    expect(results.map((r) => [r.source, r.version])).toEqual([
      [join(b, 'svc'), '2.0.0'],
      [join(a, 'svc'), 'v1.0.0'],
    ]);
  });

  it('gives up on an svc that hangs, even when it left a child holding its output', async () => {
    const hangs = svcIn('hangs', 'sleep 30 &\nsleep 30');
    const started = performance.now();
    const [r] = await probe([hangs], 1_000);
    expect(r!.error).toBe('`svc --version` gave no answer within 1000 ms');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('says what an svc printed when it is not "svc <version>", escaped', async () => {
    const odd = svcIn('odd', 'printf "hello\\033[2J\\n"');
    const [r] = await probe([odd]);
    expect(r!.version).toBeUndefined();
    expect(r!.error).toBe('`svc --version` printed "hello\\u001b[2J", not "svc <version>"');
  });

  it('reports an svc that fails with what it said on stderr', async () => {
    const fails = svcIn('fails', 'echo boom >&2; exit 4');
    const [r] = await probe([fails]);
    expect(r!.error).toBe('`svc --version` failed (exit 4): boom');
    const silent = svcIn('silent', 'exit 5');
    expect((await probe([silent]))[0]!.error).toBe('`svc --version` failed (exit 5)');
  });
});
