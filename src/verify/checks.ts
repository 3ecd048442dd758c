import { namesVersion } from '../channels/tags.ts';
import { sameTag } from '../version/compare.ts';
import { satisfiesMinimum } from '../version/minimum.ts';
import { parseCore, parseVersion } from '../version/parse.ts';
import { DEFAULT_SKEW_POLICY, gradeSkew, type SkewPolicy, type SkewVerdict } from '../version/skew.ts';
import { checkRegistry } from './check-registry.ts';
import { checkSignatures } from './check-signatures.ts';
import { gradeDeployment, ruleOf } from './check-skew.ts';
import {
  cliInstall,
  cliProgram,
  cliUpdate,
  displayTag,
  type FixContext,
  fixFor,
  fixForUnreachable,
  fixForUnversioned,
  type Naming,
} from './fixes.ts';
import type { ArtifactName, Finding, ProbeResult, RegistryReading, SignatureReading } from './types.ts';

/** Everything the checks look at. Pure data: the probes have already done the IO. */
export interface CheckInput {
  apiUrl: string;
  results: ProbeResult[];
  /** Artifacts whose probe was asked for (a missing one is then a finding, not a skip). */
  probed: ArtifactName[];
  expect?: string;
  images: FixContext['images'];
  /** `--registry`: the expected tag's digest per image against the digests running. */
  registry?: RegistryReading[];
  /** Signatures of the images' digests; `requireSignature` makes a missing one drift. */
  signatures?: SignatureReading[];
  requireSignature?: boolean;
  /** How far each artifact may be from the API (config `skew:`); the default is "equal". */
  skew?: SkewPolicy;
  /** The service's own version variables and CLI, for the fixes (fixes.ts). */
  naming?: Naming;
}

export interface Reference {
  tag: string;
  /** `--expect`, or the artifact the tag was read from. */
  from: string;
}

export interface CheckOutcome {
  reference: Reference | undefined;
  findings: Finding[];
  /** Each artifact against the API, graded by the skew policy. */
  skew: SkewVerdict[];
}

/** The spec's consequence of API/worker drift (section 7), named in the finding. */
export const API_WORKER_CONSEQUENCE =
  'workflows compile but fail at run time when the worker cannot find a method the API serialized';

/**
 * All checks of one deployment. The order of findings is the order an operator should fix them:
 * what could not be read, then what cannot say its version, then what is at the wrong one.
 */
export function checkDeployment(input: CheckInput): CheckOutcome {
  const live = input.results.filter((r) => r.version !== undefined && r.running !== false);
  const reference = referenceOf(live, input.expect);
  const ctx: FixContext = {
    apiUrl: input.apiUrl,
    images: input.images,
    tag: reference?.tag,
    ...(input.naming ? { naming: input.naming } : {}),
  };
  const policy = input.skew ?? DEFAULT_SKEW_POLICY;
  const findings = [
    ...checkReadable(input.results, input.probed, ctx),
    ...input.results.flatMap((r) => checkWorkerEvidence(r)),
    ...live.flatMap((r) => checkVersionQuality(r, ctx, policy)),
    ...checkMinCliVersion(input.results),
    ...checkApiWorker(live, policy, ctx.naming?.serverVariable),
    ...checkCli(live, ctx),
    ...checkSharedTag(live, reference, ctx, policy),
    ...checkRegistry(input.registry ?? []),
    ...checkSignatures(input.signatures ?? [], Boolean(input.requireSignature)),
  ];
  return { reference, findings, skew: gradeDeployment(live, policy) };
}

/** A version that can be "in step": it has an order and was not built from a dirty tree. */
export function isComparable(version: string): boolean {
  const parsed = parseVersion(version);
  return 'core' in parsed && !parsed.dirty;
}

/**
 * The tag everything must share: `--expect` when given; else the API's (the operator pointed at
 * it); else, when the API cannot say, the tag most readings agree on.
 */
export function referenceOf(live: ProbeResult[], expect?: string): Reference | undefined {
  if (expect !== undefined) return { tag: expect, from: '--expect' };
  const api = live.find((r) => r.name === 'api');
  if (api?.version && isComparable(api.version)) return { tag: api.version, from: 'api' };
  const votes = new Map<string, { tag: string; count: number; from: string }>();
  for (const r of live) {
    if (!r.version || !isComparable(r.version)) continue;
    const key = displayTag(r.version);
    const vote = votes.get(key) ?? { tag: r.version, count: 0, from: r.name };
    vote.count += 1;
    votes.set(key, vote);
  }
  const best = [...votes.values()].sort((a, b) => b.count - a.count)[0];
  return best ? { tag: best.tag, from: best.from } : undefined;
}

/** Probes that could not read their artifact, and asked-for artifacts nothing was found of. */
export function checkReadable(results: ProbeResult[], probed: ArtifactName[], ctx: FixContext): Finding[] {
  const findings: Finding[] = results
    .filter((r) => r.error !== undefined)
    .map((r) => ({
      code: r.name === 'cli' ? 'CLI_BROKEN' : `${r.name.toUpperCase()}_UNREACHABLE`,
      message: `${r.name}: could not read the version at ${r.source}: ${r.error}`,
      fix: fixForUnreachable(r.name, ctx, r.source),
      // A broken local svc is drift the operator can fix, not an outside system failing.
      severity: r.name === 'cli' ? 'drift' : 'unreachable',
      artifact: r.name,
      source: r.source,
    }));
  if (probed.includes('cli') && !results.some((r) => r.name === 'cli')) {
    findings.push({
      code: 'CLI_NOT_FOUND',
      message: `no \`${cliProgram(ctx)}\` on PATH: the operator CLI is not installed`,
      fix: `${cliInstall(ctx)} (or pass --no-cli to leave the CLI out)`,
      severity: 'drift',
      artifact: 'cli',
    });
  }
  const workers = results.filter((r) => r.name === 'worker' && r.version !== undefined);
  if (workers.length > 0 && workers.every((r) => r.running === false)) {
    findings.push({
      code: 'WORKER_NOT_RUNNING',
      message: `every worker container found is stopped (${workers.map((w) => w.source).join(', ')})`,
      fix: `start the worker at ${displayTag(ctx.tag)} (${ctx.images.worker}:${displayTag(ctx.tag)})`,
      severity: 'unreachable',
      artifact: 'worker',
    });
  }
  const anyRunning = workers.some((w) => w.running !== false);
  for (const stopped of workers.filter((r) => r.running === false && !r.finished && anyRunning)) {
    const [kind, id] = stopped.source.split(' ');
    findings.push({
      code: 'WORKER_STOPPED',
      message: `${stopped.source} (${stopped.version}) is not running; it serves no work but may mislead whoever reads the engine`,
      fix: kind === 'service' ? `docker service rm ${id}` : `docker rm ${id}`,
      severity: 'notice',
      artifact: 'worker',
      source: stopped.source,
    });
  }
  return findings;
}

/**
 * A worker container that claims one version in `SERVICE_VERSION` but runs an image labelled or
 * tagged with another: the code that runs is the image's, whatever the variable says.
 */
export function checkWorkerEvidence(r: ProbeResult): Finding[] {
  const { env, label, tag } = r.evidence ?? {};
  const built = label ?? (tag && namesVersion(tag) ? tag : undefined);
  if (!env || !built || sameTag(env, built) || r.running === false) return [];
  return [
    {
      code: 'WORKER_ENV_OVERRIDES_IMAGE',
      message: `${r.source} sets SERVICE_VERSION=${env} but runs ${r.image ?? 'an image'} built as ${built}: the code that runs is ${built}`,
      fix: `run the image built for ${displayTag(env)} instead of overriding SERVICE_VERSION on an older image`,
      severity: 'drift',
      artifact: 'worker',
      source: r.source,
    },
  ];
}

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
  const version = parseVersion(r.version!);
  const base = { severity: 'drift' as const, artifact: r.name, source: r.source };
  const where = `${r.name} at ${r.source}`;
  if (version.kind === 'unknown') {
    return [
      {
        ...base,
        code: 'VERSION_UNKNOWN',
        message: unknownMessage(r, ctx),
        fix: fixForUnversioned(r.name, ctx),
      },
    ];
  }
  if (version.kind === 'invalid') {
    return [
      {
        ...base,
        code: 'VERSION_INVALID',
        message: `${where} reports "${r.version}", which is not a version (${version.reason})`,
        fix: fixForUnversioned(r.name, ctx),
      },
    ];
  }
  if (version.kind === 'hash') {
    return [
      {
        ...base,
        code: 'VERSION_BARE_HASH',
        message: `${where} reports the bare commit hash "${r.version}": it was built from a checkout with no tags (a shallow clone?)`,
        fix: `build from a checkout with tags (git fetch --tags), or ${fixForUnversioned(r.name, ctx)}`,
      },
    ];
  }
  if (version.dirty) {
    return [
      {
        ...base,
        code: 'VERSION_DIRTY',
        message: `${where} reports "${r.version}": it was built from a tree with uncommitted changes`,
        fix: `rebuild from a clean checkout: ${fixFor(r.name, ctx)}`,
      },
    ];
  }
  return [];
}

function unknownMessage(r: ProbeResult, ctx: FixContext): string {
  switch (r.name) {
    case 'api':
      return `the API reports version "unknown": ${ctx.naming?.serverVariable ?? 'SERVICE_VERSION'} is unset in its container and no source checkout is present`;
    case 'worker':
      return `the worker at ${r.source} reports version "unknown"${r.detail ? ` (${r.detail})` : ''}`;
    case 'web':
      return `the web client at ${r.source} reports "unknown": it was built without SERVICE_CLIENT_VERSION`;
    case 'cli':
      return `${r.source} reports "unknown": it was installed from a development checkout without version metadata`;
  }
}

/** `min_cli_version` must be strict X.Y.Z (spec section 2); otherwise no CLI can be judged. */
export function checkMinCliVersion(results: ProbeResult[]): Finding[] {
  const api = results.find((r) => r.name === 'api' && r.version !== undefined);
  if (!api || (api.minCliVersion !== undefined && parseCore(api.minCliVersion))) return [];
  return [
    {
      code: 'MIN_CLI_VERSION_INVALID',
      message:
        api.minCliVersion === undefined
          ? `the API's version document has no min_cli_version, so no CLI can be checked against it`
          : `the API's min_cli_version "${api.minCliVersion}" is not X.Y.Z, so no CLI can be checked against it`,
      fix: 'fix MIN_CLI_VERSION in the API source (src/service/api/min-cli-version.ts) and ship a new API build',
      severity: 'drift',
      artifact: 'api',
      source: api.source,
    },
  ];
}

/**
 * API and worker must be the same tag (spec section 9, rule 5), whatever the reference is; only
 * two development builds may be graded otherwise (`skew.dev`).
 */
export function checkApiWorker(
  live: ProbeResult[],
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
  /** The variable the service reads its version from (`versionVariables.server`). */
  variable = 'SERVICE_VERSION',
): Finding[] {
  const api = live.find((r) => r.name === 'api');
  if (!api?.version || !isComparable(api.version)) return [];
  return live
    .filter((r) => r.name === 'worker' && isComparable(r.version!) && !sameTag(r.version!, api.version!))
    .map((worker) => ({ worker, verdict: gradeSkew('worker-api', api.version!, worker.version!, policy) }))
    .filter(({ verdict }) => verdict.grade !== 'ok')
    .map(({ worker, verdict }) => ({
      code: 'API_WORKER_MISMATCH',
      message: `API is ${api.version} but the worker at ${worker.source} is ${worker.version}: ${API_WORKER_CONSEQUENCE}`,
      fix: `upgrade the API and worker together: run ${displayTag(api.version)} for both (${variable}=${displayTag(api.version)}), never one without the other`,
      severity: verdict.grade as 'drift' | 'warn',
      artifact: 'worker' as const,
      source: worker.source,
      rule: ruleOf(verdict),
    }));
}

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

/**
 * Every readable, well-formed version must be the reference tag (a leading `v` ignored), except
 * what the skew policy tolerates of web and CLI against the API (a warning, or nothing).
 */
export function checkSharedTag(
  live: ProbeResult[],
  reference: Reference | undefined,
  ctx: FixContext,
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
): Finding[] {
  if (!reference) return [];
  const api = live.find((r) => r.name === 'api');
  const firstCli = live.find((r) => r.name === 'cli');
  const findings: Finding[] = [];
  for (const r of live) {
    if (!isComparable(r.version!) || sameTag(r.version!, reference.tag)) continue;
    // Only the first svc on PATH runs; later copies are judged by checkCli.
    if (r.name === 'cli' && r !== firstCli) continue;
    const expecting = reference.from === '--expect';
    // Already said, with a better fix, by the API/worker and CLI checks.
    if (!expecting && r.name === 'worker' && api?.version && isComparable(api.version)) continue;
    if (r.name === 'cli' && checkCli(live, ctx).length > 0) continue;
    const verdict =
      reference.from === 'api' && (r.name === 'web' || r.name === 'cli')
        ? gradeSkew(`${r.name}-api`, reference.tag, r.version!, policy, api?.minCliVersion)
        : undefined;
    if (verdict?.grade === 'ok') continue;
    findings.push({
      code: expecting ? 'NOT_EXPECTED_TAG' : 'TAG_MISMATCH',
      message: expecting
        ? `${r.name} at ${r.source} is ${r.version}, expected ${reference.tag}`
        : `${r.name} at ${r.source} is ${r.version}, but the ${reference.from} is ${reference.tag}`,
      fix: fixFor(r.name, ctx),
      severity: verdict?.grade ?? 'drift',
      artifact: r.name,
      source: r.source,
      ...(verdict ? { rule: ruleOf(verdict) } : {}),
    });
  }
  return findings;
}
