import { execFile } from 'node:child_process';
import { ExternalError } from '../errors.ts';

/** `npm pack` of `dir` into `destination` (npm fixes every entry's time and mode); the file name it wrote. */
export function npmPack(dir: string, destination: string): Promise<string> {
  const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', destination];
  return new Promise((done, fail) => {
    execFile('npm', args, { cwd: dir, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) {
        fail(
          new ExternalError('NPM_PACK_FAILED', `npm pack failed: ${String(stderr).trim() || error.message}`, {
            hint: 'is npm installed and on PATH?',
          }),
        );
        return;
      }
      try {
        done((JSON.parse(String(stdout)) as { filename: string }[])[0]!.filename);
      } catch {
        fail(
          new ExternalError(
            'NPM_PACK_FAILED',
            `npm pack printed no file name: ${String(stdout).slice(0, 200)}`,
          ),
        );
      }
    });
  });
}
