import { shellWords } from '../init/shell-words.ts';

/**
 * The Action's inputs as the runner hands them over: `INPUT_<NAME>` in the environment, the name
 * upper-cased with its dashes kept (`INPUT_WORKING-DIRECTORY`). Pure.
 */
export interface ActionInputs {
  /** The `release` command to run (`stamp`, `build`, `promote`, `verify`...). */
  command: string;
  /** Its arguments, split as a shell splits them (quotes group). */
  args: string[];
  /** A service-release version to run instead of the project's own (`npm exec`). */
  version?: string;
  workingDirectory: string;
}

const COMMAND = /^[a-z][a-z-]{0,31}$/;
const VERSION = /^[0-9A-Za-z.+-]{1,64}$/;

export function readInputs(env: NodeJS.ProcessEnv): ActionInputs | { error: string } {
  const input = (name: string) => (env[`INPUT_${name.toUpperCase()}`] ?? '').trim();
  const command = input('command');
  if (!COMMAND.test(command))
    return {
      error: `input command ${JSON.stringify(command)} is not a release command (stamp, build, promote, verify...)`,
    };
  const version = input('version');
  if (version && !VERSION.test(version))
    return { error: `input version ${JSON.stringify(version)} is not a package version (1.2.3, latest)` };
  return {
    command,
    args: shellWords(input('args')),
    ...(version ? { version } : {}),
    workingDirectory: input('working-directory') || '.',
  };
}
