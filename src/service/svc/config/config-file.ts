import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../../../errors.ts';
import type { GateMode } from '../gate/decide.ts';

/** The user's svc settings, written by `svc config ...`. */
export interface SvcConfig {
  url?: string;
  gate?: GateMode;
}

const KEYS = new Set(['url', 'gate']);

/** Read the config file; a missing file is an empty config, a broken one a `ConfigError`. */
export async function readSvcConfig(path: string): Promise<SvcConfig> {
  // The usual case is no file at all: ask without an exception (their stack traces cost time).
  if (!statSync(path, { throwIfNoEntry: false })) return {};
  let text: string;
  try {
    // Synchronous on purpose: node:fs is loaded already, fs/promises would cost every command
    // a few milliseconds of start-up for one small read.
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not JSON: ${(error as Error).message}`, [], {
      hint: 'fix the file or run `svc config set-url <base_url>` to write a new one',
    });
  }
  const problems = validate(value);
  if (problems.length)
    throw new ConfigError(`${path} is invalid`, problems, { hint: 'fix or delete the file' });
  return value as SvcConfig;
}

function validate(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return ['(root): must be a JSON object'];
  const problems: string[] = [];
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!KEYS.has(key)) problems.push(`${key}: unknown key`);
  if (record['url'] !== undefined && typeof record['url'] !== 'string')
    problems.push('url: must be a string');
  if (record['gate'] !== undefined && record['gate'] !== 'hard' && record['gate'] !== 'warn') {
    problems.push('gate: must be "hard" or "warn"');
  }
  return problems;
}

/** Change some settings, keeping the others; written atomically so a crash leaves the old file. */
export async function updateSvcConfig(path: string, change: SvcConfig): Promise<SvcConfig> {
  const next = { ...(await readSvcConfig(path)), ...change };
  const { writeFileAtomically } = await import('../../../files/atomic-write.ts');
  await writeFileAtomically(path, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}
