import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelease } from '../helpers/run-release.ts';

// `release verify` picks one mode from its flags (run-verify.ts), and each mode refuses what it
// does not take before it reads anything: every case here ends at a usage error (exit 2) with a
// hint, and no case reaches a network (the one URL is a closed port no case dials).

const API = 'http://127.0.0.1:9';
let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'verify-modes-'));
  writeFileSync(join(cwd, 'release.config.json'), '{}');
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const cases: [mode: string, args: string[], message: string][] = [
  ['manifests', ['--manifests', '--url', API], '--manifests checks files, not a live deployment'],
  ['manifests', ['--manifests', '--registry'], '--manifests checks files, not a live deployment'],
  ['manifests', ['--manifests', '--all'], '--manifests checks files, not a live deployment'],
  ['manifests', ['--manifests', '--compose', 'acme'], '--manifests checks files, not a live deployment'],
  ['manifests', ['--manifests', '--expect', 'not a version'], 'not a version'],
  ['summaries', ['--vsa', 'vsa.jsonl', '--url', API], '--vsa checks summaries, not a live deployment'],
  ['summaries', ['--vsa', 'vsa.jsonl', '--attest'], '--vsa checks summaries, not a live deployment'],
  ['summaries', ['--vsa', 'vsa.jsonl'], '--vsa needs the release the summaries must be about'],
  // The mode is reached: it asks for what it judges summaries with.
  [
    'summaries',
    ['--vsa', 'vsa.jsonl', '--expect', 'v1.0.0'],
    "--vsa checks summaries with the verifier's public key",
  ],
  ['all', ['--all', '--out', 'vsa.jsonl'], '--out and --verifier-key go with --attest'],
  ['all', ['--all', '--attest'], '--attest checks one deployment at a time'],
  ['all', ['--all', '--require-attestations'], '--require-attestations checks one deployment at a time'],
  ['all', ['--all', '--require-signature'], '--require-signature checks one deployment at a time'],
  ['all', ['--all'], 'no deployments are configured for --all'],
  ['one', ['--url', API, '--verifier-key', 'k.pem'], '--out and --verifier-key go with --attest'],
  ['one', ['--url', API, '--registry', 'not a ref!'], '--registry "not a ref!" is not a registry reference'],
  ['release', ['--registry'], 'which release? --registry without a deployment needs --expect <tag>'],
  [
    'release',
    ['--registry', '--expect', 'v1.0.0', '--out', 'vsa.jsonl'],
    '--out and --verifier-key go with --attest',
  ],
  [
    'release',
    ['--registry', 'not a ref!', '--expect', 'v1.0.0'],
    '--registry "not a ref!" is not a registry reference',
  ],
  ['one', [], 'which deployment? --url <api base URL> is required'],
  ['one', ['--expect', 'v1.0.0'], 'or --registry --expect <tag> for a release in the registry alone'],
];

describe('release verify: one mode per flag set, each refusing what it does not take', () => {
  it.each(cases)('%s mode: verify %j', async (_mode, args, message) => {
    const run = await runRelease(['verify', ...args], { cwd });
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(message)]);
    expect(run.stderr).toContain('hint: ');
    expect(run.stdout).toBe('');
  });
});
