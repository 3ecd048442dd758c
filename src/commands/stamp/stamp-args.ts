import { parseArgs } from 'node:util';
import { CHANNELS, type Channel } from '../../channels/channel-of.ts';
import type { GlobalOptions } from '../command-context.ts';

export type StampRunOptions = GlobalOptions & { channel?: Channel; envFile?: string };

/**
 * `release stamp`'s flags and the global ones, as `parseArgs` reads them. stamp-command.ts
 * declares the same flags to commander (a test holds the two to one list); this table lets the
 * stamp run without loading commander, which costs a CI job's first command more than the stamp.
 */
export const STAMP_FLAGS = {
  cwd: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  channel: { type: 'string' },
  'env-out': { type: 'string' },
  'env-file': { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

/**
 * The stamp's options when its arguments are plain: known flags, each value where it belongs, a
 * channel that exists. Anything else (`--help`, an unknown or repeated flag, a stray argument, a
 * value that looks like a flag) is undefined: commander then parses it and gives its own help or
 * refusal, so there is one wording of every usage error.
 */
export function parseStampArgs(args: string[]): StampRunOptions | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch {
    return undefined;
  }
  const names = parsed.tokens.flatMap((t) => (t.kind === 'option' ? [t.name] : []));
  if (new Set(names).size !== names.length) return undefined;
  const { values } = parsed;
  const channel = values.channel;
  if (channel !== undefined && !CHANNELS.includes(channel as Channel)) return undefined;
  // As the commander action reads them: --env-out first, and an empty path is no path.
  const envFile = values['env-out'] ?? values['env-file'];
  return {
    ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
    ...(values.config !== undefined ? { config: values.config } : {}),
    ...(values.json ? { json: true } : {}),
    ...(values['dry-run'] ? { dryRun: true } : {}),
    ...(channel !== undefined ? { channel: channel as Channel } : {}),
    ...(envFile ? { envFile } : {}),
  };
}

function parse(args: string[]) {
  return parseArgs({ args, options: STAMP_FLAGS, strict: true, allowPositionals: false, tokens: true });
}
