import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/config.json` (XDG base directories). */
export function configFilePath(env: Env): string {
  return join(xdgDir(env, 'XDG_CONFIG_HOME', '.config'), 'svc', 'config.json');
}

/** `$XDG_STATE_HOME/svc`, else `~/.local/state/svc`: what svc remembers between runs. */
export function stateDir(env: Env): string {
  return join(xdgDir(env, 'XDG_STATE_HOME', join('.local', 'state')), 'svc');
}

function xdgDir(env: Env, variable: string, fallback: string): string {
  const value = env[variable];
  // The XDG spec says relative values are invalid and must be ignored.
  if (value && isAbsolute(value)) return value;
  return join(env['HOME'] || homedir(), fallback);
}
