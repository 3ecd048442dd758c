import { isSchemeVersion } from '../../cli-version/version-scheme.ts';
import { LONGEST_VERSION, parseVersion } from '../../version/parse.ts';
import { DEFAULT_SKEW_POLICY, type SkewPolicy } from '../../version/skew.ts';
import { type FixContext, fixFor, fixForUnversioned, readingLabel, serverVariable } from '../fixes.ts';
import type { Finding, ProbeResult } from '../types.ts';

/**
 * `unknown`, a bare hash, a dirty build or garbage: none of these can be in step. How bad that is
 * the policy says (`skew.unknown`, `skew.dev`; drift by default); `ok` there says nothing.
 */
export function checkVersionQuality(
  r: ProbeResult,
  ctx: FixContext,
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
): Finding[] {
  const findings = versionQualityFindings(r, ctx);
  const unversioned = findings[0]?.code === 'VERSION_UNKNOWN' || findings[0]?.code === 'VERSION_INVALID';
  const grade = unversioned ? policy.unknown : policy.dev;
  if (grade === 'ok') return [];
  const id = unversioned ? 'skew.unknown' : 'skew.dev';
  const what = unversioned ? 'a version that is unknown or unreadable' : 'a development build';
  const rule = { id, reason: `${id} grades ${what} ${grade}` };
  return findings.map((f) => ({ ...f, severity: grade, rule }));
}

function versionQualityFindings(r: ProbeResult, ctx: FixContext): Finding[] {
  // A Python CLI on its own line speaks PEP 440 (1.24.0.post1, 2.0rc1): a version, not garbage.
  if (
    r.name === 'cli' &&
    ctx.naming?.cli?.scheme === 'pep440' &&
    r.versionLength === undefined &&
    isSchemeVersion('pep440', r.version!)
  )
    return [];
  const version = parseVersion(r.version!);
  const base = { severity: 'drift' as const, artifact: r.name, source: r.source };
  const where = `${readingLabel(r)} at ${r.source}`;
  if (version.kind === 'unknown') {
    return [
      {
        ...base,
        code: 'VERSION_UNKNOWN',
        message: unknownMessage(r, ctx),
        fix: fixForUnversioned(r.name, ctx, r.role),
      },
    ];
  }
  if (version.kind === 'invalid' || r.versionLength !== undefined) {
    // A value cut for display is judged by its real length, not by the shortened string.
    const reason =
      r.versionLength === undefined
        ? version.kind === 'invalid'
          ? version.reason
          : ''
        : `${r.versionLength} characters long (a version has at most ${LONGEST_VERSION})`;
    return [
      {
        ...base,
        code: 'VERSION_INVALID',
        message: `${where} reports "${r.version}", which is not a version (${reason})`,
        fix: fixForUnversioned(r.name, ctx, r.role),
      },
    ];
  }
  if (version.kind === 'hash') {
    return [
      {
        ...base,
        code: 'VERSION_BARE_HASH',
        message: `${where} reports the bare commit hash "${r.version}": it was built from a checkout with no tags (a shallow clone?)`,
        fix: `build from a checkout with tags (git fetch --tags), or ${fixForUnversioned(r.name, ctx, r.role)}`,
      },
    ];
  }
  if (version.dirty) {
    return [
      {
        ...base,
        code: 'VERSION_DIRTY',
        message: `${where} reports "${r.version}": it was built from a tree with uncommitted changes`,
        fix: `rebuild from a clean checkout: ${fixFor(r.name, ctx, r.role)}`,
      },
    ];
  }
  return [];
}

function unknownMessage(r: ProbeResult, ctx: FixContext): string {
  switch (r.name) {
    case 'api':
      return `the API reports version "unknown": ${serverVariable(ctx)} is unset in its container and no source checkout is present`;
    case 'worker':
      return `the worker at ${r.source} reports version "unknown"${r.detail ? ` (${r.detail})` : ''}`;
    case 'job':
      return `the last run of job ${r.role ?? ''} at ${r.source} reports version "unknown"${r.detail ? ` (${r.detail})` : ''}`;
    case 'web':
      return `the ${r.role ? `web client ${r.role}` : 'web client'} at ${r.source} reports "unknown": it was built without SERVICE_CLIENT_VERSION`;
    case 'cli':
      return `${r.source} reports "unknown": it was installed from a development checkout without version metadata`;
  }
}
