import { currentIo } from '../console/cli-io.ts';
import { outputFor } from '../console/output.ts';

/**
 * Everything the `release` command line prints goes through here (redacted in one place), to the
 * current run's stdout and stderr: the process's own, or those `main(argv, io)` was given.
 */
const output = outputFor({ prefix: '', bug: 'this is a bug in service-release', streams: currentIo });

export const printJson = output.json;
export const printLine = output.line;
export const printError = (error: unknown, json: boolean): void => void output.error(error, json);

export function warn(text: string): void {
  output.say('warning', text);
}
