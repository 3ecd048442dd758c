import { UsageError } from '../../errors.ts';

export interface ParsedArgs {
  url: string | undefined;
  json: boolean;
  dryRun: boolean;
  help: boolean;
  /** `svc update --insecure-skip-signature`: install without checking the archive's signature. */
  skipSignature: boolean;
  positionals: string[];
}

const BOOLEAN: Record<string, 'json' | 'dryRun' | 'help' | 'skipSignature'> = {
  '--insecure-skip-signature': 'skipSignature',
  '--json': 'json',
  '--dry-run': 'dryRun',
  '--help': 'help',
  '-h': 'help',
};

/**
 * svc's few flags, anywhere on the line: `--url <v>` / `--url=<v>`, `--json`, `--dry-run`,
 * `-h`/`--help`, and `--` to end the options. Hand-written rather than util.parseArgs: loading
 * that costs every gated command measurable start-up time, and four flags do not need it.
 */
export function parseSvcArgs(args: string[]): ParsedArgs {
  const parsed: ParsedArgs = {
    url: undefined,
    json: false,
    dryRun: false,
    help: false,
    skipSignature: false,
    positionals: [],
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      parsed.positionals.push(...args.slice(i + 1));
      break;
    }
    const flag = BOOLEAN[arg];
    if (flag) parsed[flag] = true;
    else if (arg === '--url' || arg.startsWith('--url=')) {
      const value = arg === '--url' ? args[++i] : arg.slice('--url='.length);
      if (value === undefined || value === '' || (arg === '--url' && value.startsWith('-'))) {
        throw new UsageError('USAGE', '--url needs a value: --url <base_url>', { hint: 'see svc --help' });
      }
      parsed.url = value;
    } else if (arg.startsWith('-') && arg !== '-') {
      throw new UsageError('USAGE', `unknown option ${JSON.stringify(arg)}`, { hint: 'see svc --help' });
    } else parsed.positionals.push(arg);
  }
  return parsed;
}
