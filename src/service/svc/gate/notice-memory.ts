import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

const KEEP = 200;

/**
 * Whether a person could see the soft notice at all: not in CI, not with `SVC_NO_NOTICE=1`, and
 * only when stderr is a terminal (a script piping stderr does not want a nag).
 */
export function noticeWanted(env: Env, stderrIsTty: boolean): boolean {
  const ci = env['CI']?.trim().toLowerCase();
  if (ci && ci !== 'false' && ci !== '0') return false;
  if (env['SVC_NO_NOTICE'] === '1') return false;
  return stderrIsTty;
}

/**
 * Remember that a notice was shown, once per key (url + server version), in the user's state
 * directory. Returns true when it had not been shown before. The notice is soft, so a state file
 * that cannot be read or written never stops the command; at worst the notice shows again.
 */
export async function firstTimeFor(dir: string, key: string): Promise<boolean> {
  const file = join(dir, 'notices.json');
  let shown: string[] = [];
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { shown?: unknown };
    if (Array.isArray(value.shown))
      shown = value.shown.filter((entry): entry is string => typeof entry === 'string');
  } catch {
    // missing or unreadable: nothing remembered yet
  }
  if (shown.includes(key)) return false;
  try {
    // Loaded only when a notice is shown (it brings fs/promises and crypto along).
    const { writeFileAtomically } = await import('../../../files/atomic-write.ts');
    await writeFileAtomically(file, `${JSON.stringify({ shown: [...shown, key].slice(-KEEP) }, null, 2)}\n`);
  } catch {
    // best effort
  }
  return true;
}
