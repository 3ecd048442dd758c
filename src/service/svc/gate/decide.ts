import { compareVersions, stripV } from '../../../version/compare.ts';
import { isOrdered } from '../../../version/kinds.ts';
import { satisfiesMinimum } from '../../../version/minimum.ts';
import { parseVersion } from '../../../version/parse.ts';
import { sanitize } from '../sanitize.ts';
import { SVC_INSTALL_COMMAND } from '../version.ts';
import type { VersionProbe } from './version-document.ts';

/** `hard` blocks a CLI below the minimum (the default); `warn` is the legacy line of spec rule 7.5. */
export type GateMode = 'hard' | 'warn';

export type GateOutcome =
  | 'pass' // at or above the minimum
  | 'newer-server' // at or above the minimum, and the server is newer than the CLI
  | 'blocked' // below the minimum: exit 3, the command does not run
  | 'below-minimum-warned' // below the minimum in warn mode: warning, the command runs
  | 'not-checked' // server unreachable or its answer unreadable: warning, the command runs
  | 'dev-build'; // the CLI's own version cannot be compared: warning, the command runs

export interface GateMessage {
  level: 'error' | 'warning';
  text: string;
}

export interface GateDecision {
  outcome: GateOutcome;
  /** Whether the requested command may run. Only `blocked` is false. */
  run: boolean;
  /** One sentence saying why, for `--json` and logs. */
  reason: string;
  /** What to print on stderr, in order. */
  messages: GateMessage[];
  /** The soft "server is newer" notice; the caller shows it once per `key` and only to a person. */
  notice?: { key: string; text: string };
  cliVersion: string;
  server?: { version: string | undefined; minCliVersion: string };
}

export interface DecideInput {
  /** The API base URL as the user selected it, without a trailing slash. */
  baseUrl: string;
  cliVersion: string;
  /** Undefined when the check was not attempted (a development build). */
  probe: VersionProbe | undefined;
  mode: GateMode;
}

/**
 * The command that installs the server's CLI archive: the project's `cli.installCommand`
 * (baked in at build time), else the npm form DESIGN.md settles; `{url}` is the archive's URL.
 */
export function upgradeCommand(baseUrl: string, template = SVC_INSTALL_COMMAND): string {
  return template.split('{url}').join(`${baseUrl}/api/cli/download/service-cli.tar.gz`);
}

/**
 * `npm install -g service-cli@1.4.0`: the pinned form, when the server says its CLI is published
 * (a package name) and reports a release version; undefined otherwise.
 */
export function pinnedInstallCommand(
  cliPackage: string | undefined,
  serverVersion: string | undefined,
): string | undefined {
  if (!cliPackage || serverVersion === undefined) return undefined;
  const version = parseVersion(serverVersion);
  if (version.kind !== 'release' || version.dirty) return undefined;
  return `npm install -g ${cliPackage}@${stripV(serverVersion)}`;
}

/**
 * The gate's decision (spec section 7, DESIGN.md "svc"). Pure: the probe is done by the caller.
 * The minimum is checked with `satisfiesMinimum` (X.Y.Z cores, so an rc or a describe build of the
 * minimum passes) — never string comparison and never equality with the server's version.
 */
export function decideCompatibility(input: DecideInput): GateDecision {
  const { baseUrl, mode, probe } = input;
  const cli = sanitize(input.cliVersion);
  const base = { cliVersion: cli };

  const own = parseVersion(input.cliVersion);
  if (!isOrdered(own)) {
    const what =
      own.kind === 'unknown'
        ? 'has no baked-in version'
        : own.kind === 'hash'
          ? 'is a bare commit hash'
          : 'is not a version';
    // `svc update` can only replace an svc npm installed; from a checkout it refuses
    // (NOT_NPM_INSTALLED), so the advice is the command that works from anywhere.
    const text = `svc ${cli} ${what}: a development build is not checked against the server's minimum CLI version (install a release with \`${upgradeCommand(baseUrl)}\`)`;
    return {
      ...base,
      outcome: 'dev-build',
      run: true,
      reason: `development build ${cli} is not checked`,
      messages: [{ level: 'warning', text }],
    };
  }

  if (!probe || probe.kind === 'failed') {
    const why = probe?.reason ?? 'no check was made';
    // Rule 7.5: the legacy line skipped the check silently when the server could not be read.
    const messages: GateMessage[] =
      mode === 'warn'
        ? []
        : [
            {
              level: 'warning',
              text: `could not establish that svc ${cli} is compatible with ${baseUrl}: ${why}; running the command anyway`,
            },
          ];
    return { ...base, outcome: 'not-checked', run: true, reason: why, messages };
  }

  // Every server string the gate prints is capped (a 60,000-digit minimum is valid X.Y.Z).
  const server = { version: probe.version, minCliVersion: sanitize(probe.minCliVersion, 40) };
  const messages: GateMessage[] = probe.problems.map((problem) => ({
    level: 'warning' as const,
    text: `the version document of ${baseUrl} is partly invalid: ${problem}`,
  }));
  const verdict = satisfiesMinimum(input.cliVersion, probe.minCliVersion);

  if (verdict.verdict === 'fail') {
    if (mode === 'warn') {
      messages.push({
        level: 'warning',
        text: `svc ${cli} is older than the minimum CLI version ${server.minCliVersion} of ${baseUrl}; upgrade with \`${upgradeCommand(baseUrl)}\`. Running the command anyway (legacy warn-only gate): commands that need newer endpoints may fail.`,
      });
      return {
        ...base,
        server,
        outcome: 'below-minimum-warned',
        run: true,
        reason: sanitize(verdict.reason, 200),
        messages,
      };
    }
    messages.push({
      level: 'error',
      text: [
        `svc ${cli} is too old for ${baseUrl}: the server's minimum CLI version is ${server.minCliVersion}.`,
        'An upgrade is required; the command was not run. Upgrade with:',
        `  ${upgradeCommand(baseUrl)}`,
        'or:',
        `  svc update --url ${baseUrl}`,
        ...pinnedLines(probe.cliPackage, server.version),
      ].join('\n'),
    });
    return {
      ...base,
      server,
      outcome: 'blocked',
      run: false,
      reason: sanitize(verdict.reason, 200),
      messages,
    };
  }

  const decision: GateDecision = {
    ...base,
    server,
    outcome: 'pass',
    run: true,
    reason: sanitize(verdict.reason, 200),
    messages,
  };
  const theirs = server.version === undefined ? undefined : parseVersion(server.version);
  if (theirs && isOrdered(theirs) && compareVersions(theirs, own) > 0) {
    decision.outcome = 'newer-server';
    decision.notice = {
      key: `${baseUrl} ${server.version}`,
      text: `the API at ${baseUrl} runs ${server.version}, newer than svc ${cli}; update when convenient: svc update --url ${baseUrl}`,
    };
  }
  return decision;
}

function pinnedLines(cliPackage: string | undefined, serverVersion: string | undefined): string[] {
  const pinned = pinnedInstallCommand(cliPackage, serverVersion);
  return pinned ? ["or, pinned to the server's version from the npm registry:", `  ${sanitize(pinned)}`] : [];
}
