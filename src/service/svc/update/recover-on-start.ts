import { say } from '../output.ts';
import { recoverUpdate } from './recover-update.ts';
import { updatePaths } from './update-dir.ts';

/**
 * Run by main.ts when an update directory exists beside the package, before the command: an
 * update whose process is gone is finished (it had switched) or undone (it had not), and said
 * once on stderr. A running update (another terminal) is left alone. Never fails the command:
 * the svc running now is complete either way.
 */
export async function recoverOnStart(nodeModules: string): Promise<void> {
  try {
    const recovery = await recoverUpdate(updatePaths(nodeModules));
    if (recovery.outcome === 'finished')
      say(
        'notice',
        `finished an interrupted svc update: svc ${recovery.version ?? '(new)'} is now installed`,
      );
    else if (recovery.outcome === 'undone')
      say('notice', 'undid an interrupted svc update that had not switched yet: your svc is the one you had');
  } catch (error) {
    say(
      'warning',
      `could not finish an interrupted svc update: ${(error as Error).message}; the next svc command tries again`,
    );
  }
}
