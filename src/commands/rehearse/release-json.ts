import { join } from 'node:path';
import { execa } from 'execa';
import { RuleError } from '../../errors.ts';
import { packageRoot } from '../../files/package-root.ts';

const RELEASE_BIN = join(packageRoot(), 'bin/release.js');

export interface ReleaseRun<T> {
  exitCode: number;
  json: T;
  stderr: string;
}

/**
 * Run one `release` command as a CI job would: a separate process, `--json`, its exit code
 * checked. The rehearsal exercises the real command line, not the functions behind it.
 */
export async function releaseJson<T = Record<string, unknown>>(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; allowExits?: number[] },
): Promise<ReleaseRun<T>> {
  const result = await execa(process.execPath, ['--', RELEASE_BIN, ...args, '--json', '--cwd', options.cwd], {
    cwd: options.cwd,
    env: { ...options.env, CI: 'true' },
    extendEnv: false,
    reject: false,
    timeout: 5 * 60_000,
  });
  const allowed = options.allowExits ?? [0];
  let json: T | undefined;
  try {
    json = JSON.parse(result.stdout) as T;
  } catch {
    json = undefined;
  }
  if (!allowed.includes(result.exitCode ?? -1) || json === undefined) {
    throw new RuleError(
      'REHEARSAL_STEP_FAILED',
      `\`release ${args.join(' ')}\` exited ${result.exitCode ?? result.signal}\n${tail(result.stderr)}`,
      { hint: 'run `release rehearse --keep` to keep the workspace and repeat the command there' },
    );
  }
  return { exitCode: result.exitCode ?? 0, json, stderr: result.stderr };
}

/** The last lines of a command's stderr, enough to see why it failed. */
export function tail(text: string, lines = 12): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
