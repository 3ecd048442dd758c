import { UsageError } from '../errors.ts';

/**
 * Where a deployment's web clients are read: `webUrl` when there is one web client (or the config
 * declares none and the operator names one to read), `webUrls` by artifact name when the config
 * declares several (an app and an admin dashboard, each its own image at its own URL).
 */
export interface WebTargetPart {
  webUrl?: string;
  webUrls?: Record<string, string>;
}

// `admin=https://…`: an artifact's name, then its URL. A bare URL starts with its scheme, and a
// name never holds `:` or `/`, so the two cannot be confused (a URL's query may hold `=`).
const NAMED = /^([a-z][a-z0-9-]{0,62})=(.*)$/s;

/**
 * `--web-url` as given (repeatable: `app=URL`, `admin=URL`, or one bare URL) against the config's
 * web artifacts -> the URLs to read. A bare URL means the only web client, and is refused, naming
 * the choices, when there are several; a name that is no web artifact, or one given twice, is
 * refused. `checkUrl` checks and trims each URL (the command's own rule for a URL flag).
 */
export function webUrlsOfFlags(
  values: readonly string[],
  webs: readonly string[],
  checkUrl: (value: string, flag: string) => string,
  command: 'verify' | 'watch' | 'upgrade',
): WebTargetPart {
  const code = command.toUpperCase();
  const named = new Map<string, string>();
  const bare: string[] = [];
  for (const value of values) {
    const match = NAMED.exec(value);
    if (!match) {
      bare.push(value);
      continue;
    }
    const [, name, url] = match as unknown as [string, string, string];
    if (!webs.includes(name)) {
      throw new UsageError(
        `${code}_UNKNOWN_WEB`,
        `--web-url ${name}=…: the config has no web client called "${name}"`,
        { hint: choices(webs) },
      );
    }
    if (named.has(name)) {
      throw new UsageError(`${code}_WEB_URL_TWICE`, `--web-url ${name}=… is given twice`, {
        hint: 'give each web client one URL',
      });
    }
    named.set(name, checkUrl(url, `--web-url ${name}=`));
  }
  if (bare.length > 0 && webs.length > 1) {
    throw new UsageError(
      `${code}_WEB_URL_AMBIGUOUS`,
      `--web-url ${bare[0]}: the config has ${webs.length} web clients (${webs.join(', ')}); say which one this is`,
      { hint: choices(webs) },
    );
  }
  if (bare.length + named.size > Math.max(webs.length, 1)) {
    throw new UsageError(`${code}_WEB_URL_TWICE`, '--web-url is given twice for the one web client', {
      hint: 'give the web client one URL',
    });
  }
  if (bare.length > 0) return { webUrl: checkUrl(bare[0]!, '--web-url') };
  if (named.size === 0) return {};
  // One web client: its URL is the deployment's web URL, named or not (the row stays `web`).
  if (webs.length === 1) return { webUrl: named.get(webs[0]!)! };
  return { webUrls: Object.fromEntries(named) };
}

/**
 * A deployment of the config: `webUrl`, or `webUrls` by artifact name (validate.ts holds the
 * names to web artifacts); with one web client, its URL is the deployment's `webUrl`.
 */
export function webUrlsOfDeployment(
  deployment: { webUrl?: string | undefined; webUrls?: Record<string, string> | undefined },
  webs: readonly string[],
): WebTargetPart {
  const trim = (url: string) => url.replace(/\/+$/, '');
  if (deployment.webUrl) return { webUrl: trim(deployment.webUrl) };
  const entries = Object.entries(deployment.webUrls ?? {});
  if (entries.length === 0) return {};
  if (webs.length <= 1) return { webUrl: trim(entries[0]![1]) };
  return { webUrls: Object.fromEntries(entries.map(([name, url]) => [name, trim(url)])) };
}

function choices(webs: readonly string[]): string {
  if (webs.length === 0) return 'the config declares no web artifact: pass a bare --web-url <url>';
  return `name one of ${webs.join(', ')}: ${webs.map((w) => `--web-url ${w}=<url>`).join(' ')}`;
}
