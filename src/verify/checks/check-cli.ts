import { sameTag } from '../../version/compare.ts';
import { satisfiesMinimum } from '../../version/minimum.ts';
import { parseCore } from '../../version/parse.ts';
import { cliInstall, cliProgram, cliUpdate, type FixContext } from '../fixes.ts';
import { isComparable } from '../reference.ts';
import type { Finding, ProbeResult } from '../types.ts';

/**
 * The operator's CLI: the first `svc` on PATH is the one that runs. It must satisfy the API's
 * minimum; when it does not, or is at another tag, while a later copy on PATH would be right,
 * the cause is the order of PATH (spec section 7) and the fix is removing the first.
 */
export function checkCli(live: ProbeResult[], ctx: FixContext): Finding[] {
  const clis = live.filter((r) => r.name === 'cli');
  const [first, ...later] = clis;
  if (!first) return [];
  const api = live.find((r) => r.name === 'api');
  const min = api?.minCliVersion && parseCore(api.minCliVersion) ? api.minCliVersion : undefined;
  const passes = (r: ProbeResult) =>
    min === undefined || satisfiesMinimum(r.version!, min).verdict !== 'fail';
  const good = (r: ProbeResult) =>
    passes(r) && isComparable(r.version!) && (ctx.tag === undefined || sameTag(r.version!, ctx.tag));
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
