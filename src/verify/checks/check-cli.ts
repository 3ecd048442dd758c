import { isSchemeVersion, satisfiesMinimumIn, type VersionScheme } from '../../cli-version/version-scheme.ts';
import { sameTag } from '../../version/compare.ts';
import { parseCore } from '../../version/parse.ts';
import { cliInstall, cliProgram, cliUpdate, type FixContext } from '../fixes.ts';
import { isComparable } from '../reference.ts';
import type { Finding, ProbeResult } from '../types.ts';

/**
 * The operator's CLI (the config's bin, `svc` for the reference service): the first on PATH runs. It must satisfy the API's
 * minimum; when it does not, or is at another tag, while a later copy on PATH would be right,
 * the cause is the order of PATH (spec section 7) and the fix is removing the first.
 */
export function checkCli(live: ProbeResult[], ctx: FixContext): Finding[] {
  const clis = live.filter((r) => r.name === 'cli');
  const [first, ...later] = clis;
  if (!first) return [];
  const api = live.find((r) => r.name === 'api');
  const min = api?.minCliVersion && parseCore(api.minCliVersion) ? api.minCliVersion : undefined;
  const ownLine = Boolean(ctx.naming?.cli?.ownLine);
  const scheme = ctx.naming?.cli?.scheme ?? 'semver';
  const passes = (r: ProbeResult) =>
    min === undefined || satisfiesMinimumIn(scheme, r.version!, min).verdict !== 'fail';
  const good = (r: ProbeResult) =>
    passes(r) &&
    (scheme === 'pep440' ? isSchemeVersion('pep440', r.version!) : isComparable(r.version!)) &&
    (ownLine || ctx.tag === undefined || sameTag(r.version!, ctx.tag));
  if (!good(first)) {
    const better = later.find(good) ?? later.find((r) => passes(r) && !passes(first));
    if (better) {
      return [
        {
          code: 'CLI_SHADOWED',
          message: `two ${cliProgram(ctx)} on PATH: ${first.source} (${first.version}) is found before ${better.source} (${better.version}), so the ${passes(first) ? 'other' : 'older'} one runs`,
          fix: `remove ${first.source} (or put ${better.source.slice(0, better.source.lastIndexOf('/'))} before it in PATH)`,
          severity: 'drift',
          artifact: 'cli',
          source: first.source,
          why: `found first on PATH, another ${cliProgram(ctx)} is right`,
        },
      ];
    }
  }
  if (min !== undefined && !passes(first)) {
    return [
      {
        code: 'CLI_BELOW_MINIMUM',
        message: `${first.source} is ${first.version}, below the API's min_cli_version ${min}: every ${cliProgram(ctx)} command is blocked`,
        fix: cliProgram(ctx) === 'svc' ? `${cliUpdate(ctx)} (or ${cliInstall(ctx)})` : cliInstall(ctx),
        severity: 'drift',
        artifact: 'cli',
        source: first.source,
        rule: {
          id: 'min_cli_version',
          reason: `a CLI below the API's min_cli_version ${min} is blocked (spec section 7)`,
        },
      },
    ];
  }
  return [];
}

/**
 * What the CLI row says of a CLI on its own version line: its verdict against the API's
 * min_cli_version (`own version line, satisfies min_cli_version 0.30.0`).
 */
export function ownLineVerdict(
  cli: ProbeResult,
  api: ProbeResult | undefined,
  scheme: VersionScheme = 'semver',
): string {
  const min = api?.minCliVersion && parseCore(api.minCliVersion) ? api.minCliVersion : undefined;
  if (min === undefined) return 'own version line, no min_cli_version to hold it to';
  const verdict = satisfiesMinimumIn(scheme, cli.version!, min).verdict;
  return verdict === 'pass'
    ? `own version line, satisfies min_cli_version ${min}`
    : verdict === 'fail'
      ? `own version line, below min_cli_version ${min}`
      : `own version line, not comparable with min_cli_version ${min}`;
}
