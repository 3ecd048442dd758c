import { execFile } from 'node:child_process';
import { ExternalError } from '../../../errors.ts';

/**
 * `npm install -g --prefix <prefix> <archive>`: the same command the gate tells people to run, into
 * the prefix the running svc came from. npm replaces the package in one step and rolls back if the
 * install fails, so a failure leaves the old CLI where it was. Scripts are off: the package has
 * none, and a tampered one must not get to run any.
 */
export function npmInstallGlobal(prefix: string, archive: string, env: NodeJS.ProcessEnv): Promise<void> {
  const args = ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', archive];
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      args,
      { env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const tail = String(stderr).trim().split('\n').slice(-6).join('\n');
        reject(
          new ExternalError('NPM_INSTALL_FAILED', `npm ${args.join(' ')} failed: ${tail || error.message}`, {
            hint: 'the installed svc was left as it was; fix the npm problem above and run svc update again',
          }),
        );
      },
    );
  });
}
