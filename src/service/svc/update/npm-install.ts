import { execFile } from 'node:child_process';
import { ExternalError } from '../../../errors.ts';

/**
 * `npm install -g --prefix <prefix> <archive>`: the same command the gate tells people to run, into
 * a prefix: svc update gives it a staging prefix beside the live install (install-checked.ts), so
 * npm never writes over the svc in use. Scripts are off: the package has
 * none, and a tampered one must not get to run any.
 */
export function npmInstallGlobal(
  prefix: string,
  archive: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<void> {
  const args = ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', archive];
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      args,
      { env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024, ...(signal ? { signal } : {}) },
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
