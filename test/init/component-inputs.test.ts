import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';
import { gitlabSchemaErrors, interpolatedJobs } from '../helpers/gitlab-ci-schema.ts';

// The GitLab CI/CD component (templates/release.yml) run as a runner runs a job: its inputs
// interpolated as GitLab interpolates them (after parsing), the job's variables in the
// environment, its before_script and script lines given to bash. `npx` and `npm` are stand-ins on
// PATH that record their arguments, so what a hostile input can do is what reaches the shell.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const component = readFileSync(join(TOOLKIT_ROOT, 'templates/release.yml'), 'utf8');

/** Run the verify job with `inputs`; returns the arguments `npx` got and the job's folder. */
function runVerifyJob(inputs: Record<string, string>): {
  argv: string[];
  dir: string;
  status: number | null;
} {
  const dir = mkdtempSync(join(tmpdir(), 'sr-component-'));
  dirs.push(dir);
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  // Each argument on a line of its own, NUL-free: printf '%s\0' keeps them apart exactly.
  for (const name of ['npx', 'npm']) {
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\0' "$@" >> "$ARGS_FILE.${name}"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const jobs = interpolatedJobs(component, inputs);
  const job = jobs['service-release-verify']!;
  const base = jobs[String(job['extends'])]!;
  const variables = { ...(base['variables'] as object), ...(job['variables'] as object) } as Record<
    string,
    string
  >;
  const lines = [...(base['before_script'] as string[]), ...(job['script'] as string[])];
  const result = spawnSync('bash', ['-e', '-c', lines.join('\n')], {
    cwd: dir,
    env: {
      PATH: `${bin}:${process.env['PATH']}`,
      HOME: dir,
      ARGS_FILE: join(dir, 'args'),
      CI_COMMIT_TAG: 'v1.4.0',
      REGISTRY_USERNAME: 'u',
      REGISTRY_PASSWORD: 'p',
      ...variables,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const recorded = existsSync(join(dir, 'args.npx')) ? readFileSync(join(dir, 'args.npx'), 'utf8') : '';
  return { argv: recorded.split('\0').slice(0, -1), dir, status: result.status };
}

const FIXED = ['--expect', 'v1.4.0', '--registry', '--require-signature', '--no-cli', '--json'];

describe('the GitLab component passes inputs as data', () => {
  it.each([
    ['--web-url x; touch PWNED #', ['--web-url', 'x;', 'touch', 'PWNED', '#']],
    ['$(touch PWNED)', ['$(touch', 'PWNED)']],
    ['`touch PWNED`', ['`touch', 'PWNED`']],
    ['x\ntouch PWNED', ['x', 'touch', 'PWNED']],
    ['--web-url https://web.example.com', ['--web-url', 'https://web.example.com']],
    ['*', ['*']],
    ['', []],
  ])('verify-args %j: the flags are words, and nothing runs', (value, words) => {
    const run = runVerifyJob({ 'service-url': 'https://svc.example.com', 'verify-args': value });
    expect(run.status).toBe(0);
    expect(existsSync(join(run.dir, 'PWNED'))).toBe(false);
    expect(run.argv).toEqual(['release', 'verify', '--url', 'https://svc.example.com', ...words, ...FIXED]);
  });

  it('a service-url with shell in it is one argument (fast-check over metacharacters, 60 seeded runs)', () => {
    const piece = fc.constantFrom(
      ';',
      '&&',
      '|',
      '$(',
      ')',
      '`',
      '"',
      "'",
      '\n',
      ' ',
      '#',
      '*',
      'touch PWNED',
      'x',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.array(piece, { maxLength: 8 }), (url, args) => {
        const value = { 'service-url': `https://a${url.join('')}`, 'verify-args': args.join('') };
        const run = runVerifyJob(value);
        expect(existsSync(join(run.dir, 'PWNED'))).toBe(false);
        expect(run.argv.slice(0, 4)).toEqual(['release', 'verify', '--url', value['service-url']]);
        expect(run.argv.slice(4, -FIXED.length)).toEqual(
          value['verify-args'].split(/[ \t\n]+/).filter(Boolean),
        );
      }),
      { numRuns: 60, seed: 53 },
    );
  }, 120_000);

  it('the component with a hostile input still passes GitLab schema; a registry host is held to a host name', () => {
    expect(gitlabSchemaErrors(component, { 'verify-args': '--web-url x; touch PWNED #' })).toEqual([]);
    const spec = interpolatedJobs(component);
    expect(spec['.service-release-node']!['variables']).toMatchObject({
      REGISTRY_HOST: 'registry.gitlab.com',
    });
    const header = parse(component.split('\n---\n')[0]!) as {
      spec: { inputs: Record<string, { regex: string }> };
    };
    const regex = header.spec.inputs['registry-host']!.regex;
    expect(new RegExp(regex).test('ghcr.io')).toBe(true);
    expect(new RegExp(regex).test('registry.example.com:5000')).toBe(true);
    expect(new RegExp(regex).test('x"}; touch PWNED')).toBe(false);
  });
});
