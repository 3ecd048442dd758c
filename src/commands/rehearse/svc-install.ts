import { join } from 'node:path';
import { execa } from 'execa';
import { RuleError } from '../../errors.ts';
import { tail } from './release-json.ts';

export interface SvcRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `npm install -g --prefix <prefix> <archive or URL>`: the way a user installs the CLI. */
export async function npmInstallCli(
  prefix: string,
  spec: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  const result = await execa('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', spec], {
    env,
    extendEnv: false,
    reject: false,
    timeout: 3 * 60_000,
  });
  if (result.exitCode !== 0) {
    throw new RuleError(
      'REHEARSAL_INSTALL_FAILED',
      `npm install -g ${spec} failed (exit ${result.exitCode})\n${tail(result.stderr)}`,
    );
  }
}

/** Run the `svc` found first on the given PATH, as the user would type it. */
export async function runSvc(args: string[], env: Record<string, string | undefined>): Promise<SvcRun> {
  const result = await execa('svc', args, { env, extendEnv: false, reject: false, timeout: 2 * 60_000 });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export const svcBin = (prefix: string) => join(prefix, 'bin');
