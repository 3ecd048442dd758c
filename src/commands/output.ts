import { outputFor } from '../shared/output.ts';

/** Everything the `release` command line prints goes through here (redacted in one place). */
const output = outputFor({ prefix: '', bug: 'this is a bug in service-release' });

export const printJson = output.json;
export const printLine = output.line;
export const printError = (error: unknown, json: boolean): void => void output.error(error, json);

export function warn(text: string): void {
  output.say('warning', text);
}
