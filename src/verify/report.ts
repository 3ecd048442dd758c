import { table } from '../console/table.ts';
import type { CheckOutcome } from './checks.ts';
import type { ProbedDeployment, VerifyTarget } from './probe-deployment.ts';
import type {
  ArtifactRow,
  ArtifactStatus,
  DeploymentReport,
  Finding,
  ImageProvenance,
  ProvenanceReading,
  RegistryReading,
  SignatureReading,
} from './types.ts';

// The table's "why" column: the finding in a few words (its message, with the fix, follows below).
// Every code a check-*.ts file can give has one (report.test.ts reads them from the checks).
export const WHY: Record<string, string> = {
  API_UNREACHABLE: 'unreachable',
  WEB_UNREACHABLE: 'unreachable',
  WORKER_UNREACHABLE: 'unreachable',
  CLI_BROKEN: 'its --version failed',
  CLI_NOT_FOUND: 'not on PATH',
  WORKER_NOT_RUNNING: 'not running',
  WORKER_STOPPED: 'stopped leftover',
  WORKER_ENV_OVERRIDES_IMAGE: 'SERVICE_VERSION contradicts the image',
  JOB_NOT_RUN: 'no run found',
  JOB_RUNNING: 'still running',
  JOB_FAILED: 'last run failed',
  JOB_NOT_ON_RELEASE: 'last run was another release',
  VERSION_UNKNOWN: 'version unknown',
  VERSION_INVALID: 'not a version',
  VERSION_BARE_HASH: 'bare hash, built without tags',
  VERSION_DIRTY: 'dirty build',
  MIN_CLI_VERSION_INVALID: 'min_cli_version is not X.Y.Z',
  API_WORKER_MISMATCH: 'differs from the API',
  CLI_SHADOWED: 'found first on PATH, a later copy is right',
  CLI_BELOW_MINIMUM: 'below min_cli_version',
  TAG_MISMATCH: 'differs from the others',
  NOT_EXPECTED_TAG: 'not the expected tag',
  REGISTRY_DIGEST_MISMATCH: 'runs other bytes than the tag',
  SIGNATURE_MISSING: 'image not signed',
  SIGNATURE_INVALID: 'image wrongly signed',
  SIGNATURE_UNCHECKED: 'signature not checked',
  RELEASE_CODE_DIFFERS: "code differs from its rc's",
  RELEASE_NOT_RC_RESTAMP: 'not its rc re-stamped',
  RELEASE_RC_MISSING: 'its rc is missing',
  RELEASE_RC_UNSIGNED: 'its rc is not signed',
  RELEASE_NOT_BOUND: 'release not signed for its rc',
  RELEASE_PLATFORM_MISSING: "lacks a platform of its rc's",
  RELEASE_PLATFORM_NOT_IN_RC: 'a platform is not from its rc',
  RELEASE_ARCHIVE_UNSIGNED: 'CLI archive signature missing or invalid',
  PROVENANCE_UNREADABLE: 'could not be traced to its rc',
  REGISTRY_UNREACHABLE: 'registry unreachable',
  REGISTRY_TAG_MISSING: 'tag not in the registry',
  REGISTRY_DIGEST_UNKNOWN: 'no registry digest (built locally?)',
  IMAGE_VERSION_MISMATCH: 'states another version than its tag',
  IMAGE_VERSION_UNKNOWN: 'states no version',
  EVIDENCE_MISSING: 'no signed SBOM or provenance',
  EVIDENCE_INVALID: 'SBOM or provenance does not verify',
  EVIDENCE_UNCHECKED: 'evidence could not be read',
  RELEASE_SET_MISSING: 'no signed release set',
  RELEASE_SET_MISMATCH: 'not the image its release set names',
  RELEASE_SET_INCOMPLETE: 'release set leaves out an artifact',
  RELEASE_SET_NO_ARCHIVE: 'release set names no CLI archive',
  CLI_PACKAGE_UNREADABLE: 'npm registry unreadable',
  CLI_PACKAGE_MISSING: 'package of this version not published',
  CLI_PACKAGE_LATEST_NEWER: 'latest is a newer release',
  CLI_PACKAGE_LATEST_BEHIND: 'latest is not this release',
};

const RANK: Record<ArtifactStatus, number> = {
  unreachable: 5,
  drift: 4,
  warn: 3,
  notice: 2,
  ok: 1,
  skipped: 0,
};

/** Put probe results and findings together into the verdict on one deployment. */
export function buildReport(
  target: VerifyTarget,
  probed: ProbedDeployment,
  outcome: CheckOutcome,
  elapsedMs: number,
  registry?: RegistryReading[],
  signatures?: SignatureReading[],
): DeploymentReport {
  // A finding about a reading that has no row of its own (an API container seen only for its
  // digest) belongs to every row of its artifact.
  const hasRow = (f: Finding) => probed.results.some((r) => r.name === f.artifact && r.source === f.source);
  const rows: ArtifactRow[] = probed.results.map((r) => {
    const about = outcome.findings.filter(
      (f) => f.artifact === r.name && (f.source === undefined || f.source === r.source || !hasRow(f)),
    );
    return {
      name: r.name,
      ...(r.role && r.role !== r.name ? { role: r.role } : {}),
      source: r.source,
      version: r.version,
      ...statusOf(about),
      ...(r.detail ? { detail: r.detail } : {}),
    };
  });
  // Findings about something no probe returned (no svc on PATH at all, an extra image read only
  // in the store) still get a row: one per artifact and place, with the worst of its findings.
  const unprobed = outcome.findings.filter(
    (f) => f.artifact && !probed.results.some((r) => r.name === f.artifact),
  );
  const places = new Map<string, Finding[]>();
  for (const f of unprobed) {
    const key = `${f.artifact}\0${f.source ?? '-'}`;
    places.set(key, [...(places.get(key) ?? []), f]);
  }
  for (const about of places.values()) {
    rows.push({
      name: about[0]!.artifact!,
      source: about[0]!.source ?? '-',
      version: undefined,
      ...statusOf(about),
    });
  }
  for (const skipped of probed.notChecked) {
    rows.push({
      name: skipped.name,
      ...(skipped.role ? { role: skipped.role } : {}),
      source: '-',
      version: undefined,
      status: 'skipped',
      why: skipped.reason,
    });
  }
  const order = ['api', 'worker', 'job', 'web', 'cli'];
  // The artifacts in their order, then any extra image a finding named.
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  rows.sort((a, b) => rank(a.name) - rank(b.name));
  const exitCode = exitCodeOf(outcome.findings);
  return {
    ...(target.name ? { name: target.name } : {}),
    url: target.url,
    inStep: exitCode === 0,
    reference: outcome.reference,
    artifacts: rows,
    findings: outcome.findings,
    ...(outcome.skew.length ? { skew: outcome.skew } : {}),
    ...(registry ? { registry } : {}),
    ...(signatures ? { signatures } : {}),
    exitCode,
    elapsedMs,
  };
}

/**
 * 3 when something asked for could not be read (nothing is proved), else 1 on drift (and, with
 * `--fail-on warn`, on a warning), else 0.
 */
export function exitCodeOf(findings: Finding[], failOn: FailOn = 'drift'): 0 | 1 | 3 {
  if (findings.some((f) => f.severity === 'unreachable')) return 3;
  if (findings.some((f) => f.severity === 'drift' || (failOn === 'warn' && f.severity === 'warn'))) return 1;
  return 0;
}

/** `--fail-on`: the lowest grade that makes verify (and `watch --once`) exit 1. */
export type FailOn = 'drift' | 'warn';

/** A row's status and "why" from the findings about it: the worst of them, in words. */
export function statusOf(findings: Finding[]): { status: ArtifactStatus; why: string } {
  const worst = [...findings].sort((a, b) => RANK[b.severity] - RANK[a.severity])[0];
  if (!worst) return { status: 'ok', why: '' };
  const words = worst.why ?? WHY[worst.code] ?? worst.code.toLowerCase().replace(/_/g, ' ');
  const error = worst.severity === 'unreachable' ? / at [^ ]+: (.*)$/.exec(worst.message)?.[1] : undefined;
  return { status: worst.severity, why: error ? `${words}: ${error}` : words };
}

/** The `--json` document of one deployment. `version` is null when it could not be read. */
export function reportJson(report: DeploymentReport) {
  return {
    ...(report.name ? { name: report.name } : {}),
    url: report.url,
    inStep: report.inStep,
    exitCode: report.exitCode,
    reference: report.reference ?? null,
    artifacts: report.artifacts.map((a) => ({
      name: a.name,
      ...(a.role ? { role: a.role } : {}),
      version: a.version ?? null,
      source: a.source,
      status: a.status,
      why: a.why,
      ...(a.detail ? { detail: a.detail } : {}),
    })),
    findings: report.findings.map((f) => ({
      code: f.code,
      message: f.message,
      fix: f.fix,
      severity: f.severity,
      ...(f.artifact ? { artifact: f.artifact } : {}),
      ...(f.source ? { source: f.source } : {}),
      ...(f.rule ? { rule: f.rule } : {}),
    })),
    ...(report.skew ? { skew: report.skew } : {}),
    ...(report.registry ? { registry: report.registry } : {}),
    ...(report.signatures ? { signatures: report.signatures } : {}),
    ...(report.provenance ? { provenance: report.provenance } : {}),
    ...(report.evidence ? { evidence: report.evidence } : {}),
    ...(report.cliPackage ? { cliPackage: report.cliPackage } : {}),
    elapsedMs: report.elapsedMs,
  };
}

/** The terminal report of one deployment: the table, then each finding with its fix. */
export function renderReport(report: DeploymentReport): string[] {
  const lines = table(
    ['ARTIFACT', 'READ FROM', 'VERSION', 'STATUS', 'WHY'],
    report.artifacts.map((a) => [
      // One image, several roles: `worker scheduler`, the role's kind and its artifact.
      a.role ? `${a.name} ${a.role}` : a.name,
      a.source,
      a.version ?? '-',
      a.status === 'ok' || a.status === 'skipped'
        ? a.status.replace('skipped', 'not checked')
        : a.status.toUpperCase(),
      a.why,
    ]),
  );
  for (const r of report.registry ?? []) {
    const expected = r.expected ? short(r.expected) : r.error ? 'unreadable' : 'missing';
    const running = r.running.map(
      (x) => `${x.source} runs ${x.digest ? short(x.digest) : 'an unknown digest'}`,
    );
    lines.push(
      `registry ${r.store}: ${r.role ? `${r.artifact} ${r.role}` : r.artifact} ${r.repository}:${r.tag} = ${expected}${running.length ? `; ${running.join('; ')}` : ''}`,
    );
  }
  for (const s of report.signatures ?? []) {
    const what =
      s.status === 'valid' ? `valid, key ${s.keyId.slice(0, 16)}` : `${s.status.toUpperCase()}: ${s.reason}`;
    // A running platform image names its index; an index checked by tag lists its platforms.
    const child = s.platform && s.index ? `, ${s.platform} of index ${short(s.index)}` : '';
    const platforms = s.platforms?.length
      ? `; ${s.platforms.map((p) => `${p.platform} ${p.status === 'valid' ? 'valid' : p.status.toUpperCase()}`).join(', ')}`
      : '';
    lines.push(
      `signature ${s.repository}${s.digest ? `@${short(s.digest)}` : ''} (${s.of}${child}): ${what}${platforms}`,
    );
  }
  for (const p of report.provenance ?? []) lines.push(...provenanceLines(p));
  for (const e of report.evidence ?? []) {
    const set = e.releaseSet ? `in release set ${e.releaseSet.version}` : 'no release set';
    lines.push(
      `evidence ${e.repository}${e.digest ? `@${short(e.digest)}` : ''} (${e.of}): SBOM ${e.sbom.status}, provenance ${e.provenance.status}, ${set}`,
    );
  }
  if (report.cliPackage) {
    const p = report.cliPackage;
    const state = p.exists === undefined ? 'unreadable' : p.exists ? 'published' : 'MISSING';
    lines.push(
      `package ${p.registry || 'npm'}: ${p.package}@${p.version} ${state}; latest = ${p.distTags['latest'] ?? '(none)'}`,
    );
  }
  lines.push('');
  lines.push(verdictLine(report));
  lines.push(...renderFindings(report.findings, ''));
  return lines;
}

/**
 * `image service-api:v1.0.0 reports v1.0.0, made from sha256:… (v1.0.0-rc.1): 2 code layers equal …`;
 * an index, then one indented line per platform and per platform its rc has and it lacks.
 */
function provenanceLines(p: ProvenanceReading): string[] {
  const head = `image ${p.repository}:${p.tag}${p.digest ? `@${short(p.digest)}` : ''}`;
  if (p.error !== undefined) return [`${head}: unreadable: ${p.error}`];
  if (p.missing) return [`${head}: not in the store`];
  if (!p.platforms) return [`${head} ${imageSummary(p)}`];
  const names = p.platforms.map((c) => c.platform).join(', ');
  return [
    `${head} (index: ${names}) ${imageSummary(p)}`,
    ...p.platforms.map(
      (c) =>
        `  ${c.platform}@${short(c.digest)} ${imageSummary(c)}${c.notInRc ? ", NOT its rc index's image" : ''}`,
    ),
    ...(p.missingPlatforms ?? []).map((platform) => `  ${platform}: MISSING (the rc has it)`),
    ...(p.extraPlatforms ?? []).map((platform) => `  ${platform}: NOT IN THE RC`),
  ];
}

function imageSummary(p: ImageProvenance): string {
  const reports = `reports ${p.imageVersion ?? 'no version'}`;
  if (!p.madeFrom) return `${reports}, not made from an rc`;
  const parts = [`made from ${short(p.madeFrom)}${p.rcVersion ? ` (${p.rcVersion})` : ''}`];
  if (p.rcMissing) parts.push('which is MISSING');
  if (p.codeLayers)
    parts.push(
      `${p.codeLayers.count} code layer(s) ${p.codeLayers.equal ? "equal to the rc's" : 'DIFFERENT from the rc'}`,
    );
  if (p.restampMatches !== undefined)
    parts.push(p.restampMatches ? 'exactly the rc re-stamped' : 'NOT the rc re-stamped');
  if (p.rcSignature) parts.push(`rc signature ${p.rcSignature}`);
  if (p.releaseSignature) parts.push(`release signature ${p.releaseSignature}`);
  if (p.cliArchiveSignature) parts.push(`CLI archive signature ${p.cliArchiveSignature}`);
  return `${reports}, ${parts.join(', ')}`;
}

export function verdictLine(report: DeploymentReport): string {
  const ref = report.reference ? ` at ${report.reference.tag} (from ${report.reference.from})` : '';
  const warnings = report.findings.filter((f) => f.severity === 'warn').length;
  const warned = warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'} the skew policy allows` : '';
  if (report.exitCode === 0) return `in step${ref}${warned}`;
  const n = report.findings.filter((f) => f.severity !== 'notice').length;
  const what = report.exitCode === 3 ? 'NOT VERIFIED: something asked for could not be read' : 'DRIFT';
  return `${what}${ref}: ${n} finding${n === 1 ? '' : 's'}`;
}

export function renderFindings(findings: Finding[], indent: string): string[] {
  const mark = { notice: 'notice', warn: 'warn', drift: 'x', unreachable: 'x' } as const;
  return findings.flatMap((f) => [
    `${indent}${mark[f.severity]} ${f.code}: ${f.message}`,
    `${indent}    fix: ${f.fix}`,
    ...(f.rule ? [`${indent}    rule: ${f.rule.id}: ${f.rule.reason}`] : []),
  ]);
}

function short(digest: string): string {
  return digest.replace(/^(sha256:[0-9a-f]{12})[0-9a-f]*$/, '$1…');
}
