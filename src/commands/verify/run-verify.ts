import { hasWebClient, imageArtifacts, imageOfRole } from '../../config/artifacts.ts';
import { jobImages, roleCommands } from '../../config/role-of-command.ts';
import { SERVER_VERSION_VARIABLE, serverVersionVariables } from '../../config/version-variables.ts';
import { currentIo } from '../../console/cli-io.ts';
import { table } from '../../console/table.ts';
import { checkedExpect } from '../../deployment-targets/checked-expect.ts';
import { given } from '../../deployment-targets/deployment-engine-entry.ts';
import {
  type DeploymentFlags,
  deploymentTargets,
  engineFlags,
  type TargetWording,
  targetReaders,
} from '../../deployment-targets/deployment-targets.ts';
import { ExternalError, RuleError, UsageError } from '../../errors.ts';
import type { VsaCheck } from '../../evidence/vsa-checks.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { ImageStore } from '../../registry/store.ts';
import { type FleetReport, verifyFleet } from '../../verify/fleet.ts';
import type { VerifyTarget } from '../../verify/probe-deployment.ts';
import { exitCodeOf, type FailOn, renderFindings, renderReport, reportJson } from '../../verify/report.ts';
import { serviceNaming } from '../../verify/service-naming.ts';
import type { DeploymentReport } from '../../verify/types.ts';
import type { VerifyOptions } from '../../verify/verify-deployment.ts';
import type { GlobalOptions } from '../command-context.ts';
import { baseContext } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { VerifyContext } from './verify-context.ts';
import { verifyPipeline } from './verify-pipeline.ts';

/** How `release verify` words a refusal of the flags naming its deployments. */
const VERIFY_TARGETS: TargetWording = {
  command: 'verify',
  noUrl: {
    message: 'which deployment? --url <api base URL> is required',
    hint: 'release verify --url https://svc.example.com, or --all for the deployments in the config',
  },
  allHint: 'drop --web-url/--worker-url/--docker/--compose with --all, or check one deployment with --url',
};

export interface VerifyFlags extends GlobalOptions, DeploymentFlags {
  expect?: string;
  registry?: string | true;
  /** An image whose digest is not validly signed by signing.publicKey is drift. */
  requireSignature?: boolean;
  /** An image without a signed SBOM and provenance, or outside the release set, is drift. */
  requireAttestations?: boolean;
  /** `--manifests [dir]`: check deployment files offline instead of a live deployment. */
  manifests?: string | true;
  cli?: boolean;
  timeout: number;
  targetTimeout: number;
  concurrency: number;
  /** `warn`: a warning the skew policy allows also exits 1. */
  failOn?: FailOn;
  /** Sign SLSA verification summaries with the verifier's key (implies both `--require-*`). */
  attest?: boolean;
  /** `--attest`: also write the summaries here (JSON Lines of Sigstore bundles). */
  out?: string;
  verifierKey?: string;
  /** Check summaries (a file or a store) instead of a live deployment. */
  vsa?: string;
  verifierPub?: string;
  requireCheck?: VsaCheck[];
}

/**
 * `release verify`: deployment files offline (`--manifests`), verification summaries (`--vsa`),
 * every configured deployment (`--all`), or one live deployment through the verify pipeline.
 */
export async function runVerify(flags: VerifyFlags): Promise<void> {
  if (flags.manifests !== undefined) return verifyManifestFiles(flags, flags.manifests);
  const base = await baseContext(flags);
  const expect = flags.expect === undefined ? undefined : checkedExpect(flags.expect);
  if (flags.vsa !== undefined) return verifySummaries(flags, flags.vsa, expect, base);
  if (flags.attest) {
    // A summary may only say what this run required: signatures and every attestation.
    flags.requireSignature = true;
    flags.requireAttestations = true;
  } else if (flags.out || flags.verifierKey) {
    throw new UsageError('VERIFY_OUT_WITHOUT_ATTEST', '--out and --verifier-key go with --attest', {
      hint: 'release verify --url <api> --registry --attest --out vsa.jsonl',
    });
  }
  const { options, images } = await verifyOptions(flags, base, expect);
  if (flags.all) return verifyAll(flags, base, options);
  return verifyOne(flags, base, options, images);
}

/** `--manifests [dir]`: the deployment files carry the release, checked offline. */
async function verifyManifestFiles(flags: VerifyFlags, dir: string | true): Promise<void> {
  const live = [flags.url, flags.all, ...engineFlags().map((f) => flags[f])].some(given);
  if (live || flags.registry !== undefined)
    throw new UsageError('VERIFY_MANIFESTS_WITH_TARGET', '--manifests checks files, not a live deployment', {
      hint: 'run release verify --manifests <dir> on its own (add --expect <tag> to check another tag)',
    });
  if (flags.expect !== undefined) checkedExpect(flags.expect);
  const { verifyManifests } = await import('./verify-manifests.ts');
  const manifests = dir === true ? '' : dir;
  finish(await verifyManifests({ ...flags, manifests }), 'the manifests are not in step');
}

/** `--vsa <file|store>`: verification summaries of `--expect`'s release, not a deployment. */
async function verifySummaries(
  flags: VerifyFlags,
  vsa: string,
  expect: string | undefined,
  base: BaseContext,
): Promise<void> {
  if (flags.url || flags.all || flags.attest)
    throw new UsageError('VERIFY_VSA_WITH_TARGET', '--vsa checks summaries, not a live deployment', {
      hint: 'release verify --vsa <file|store> --expect <tag> (drop --url, --all and --attest)',
    });
  if (expect === undefined)
    throw new UsageError('VERIFY_VSA_NO_EXPECT', '--vsa needs the release the summaries must be about', {
      hint: 'release verify --vsa vsa.jsonl --expect v1.4.0',
    });
  const { runVsaCheck } = await import('./run-vsa-check.ts');
  await runVsaCheck(
    {
      vsa,
      expect,
      ...(flags.registry !== undefined ? { registry: flags.registry } : {}),
      ...(flags.verifierPub ? { verifierPub: flags.verifierPub } : {}),
      ...(flags.requireCheck ? { requireCheck: flags.requireCheck } : {}),
    },
    base,
  );
}

/** The images of the three roles, as the config names them. */
interface RoleImages {
  api: { image: string };
  worker: { image: string };
  web: { image: string };
}

/** What every deployment is checked with: the config's images, roles, names and skew policy. */
async function verifyOptions(
  flags: VerifyFlags,
  base: BaseContext,
  expect: string | undefined,
): Promise<{ options: VerifyOptions; images: RoleImages }> {
  const [api, worker, web] = (['api', 'worker', 'web'] as const).map((role) => ({
    image: imageOfRole(base.config, role),
  })) as [{ image: string }, { image: string }, { image: string }];
  const naming = await serviceNaming(base.config, base.configDir);
  const options: VerifyOptions = {
    env: base.env,
    cwd: base.cwd,
    timeoutMs: flags.timeout,
    cli: flags.cli !== false,
    ...(naming.cli ? { cliProgram: naming.cli.program } : {}),
    web: hasWebClient(base.config),
    naming,
    workerRoles: roleCommands(base.config, worker.image),
    jobImages: jobImages(base.config, worker.image),
    envNames: [...serverVersionVariables(base.config).slice(1), SERVER_VERSION_VARIABLE],
    images: { api: api.image, worker: worker.image, web: web.image },
    skew: base.config.skew,
    ...(expect !== undefined ? { expect } : {}),
  };

  return { options, images: { api, worker, web } };
}

/** `--all`: every deployment of the config, side by side, one table. */
async function verifyAll(flags: VerifyFlags, base: BaseContext, options: VerifyOptions): Promise<void> {
  if (flags.requireAttestations) {
    throw new UsageError(
      flags.attest ? 'VERIFY_ALL_ATTEST' : 'VERIFY_ALL_ATTESTATIONS',
      `${flags.attest ? '--attest' : '--require-attestations'} checks one deployment at a time`,
      {
        hint: 'check the evidence with --url <api> --require-attestations, deployment by deployment',
      },
    );
  }
  if (flags.requireSignature) {
    throw new UsageError('VERIFY_ALL_SIGNATURES', '--require-signature checks one deployment at a time', {
      hint: 'check signatures with --url <api> --require-signature, deployment by deployment',
    });
  }
  const fleetTargets = await deploymentTargets(flags, base, VERIFY_TARGETS);
  const fleet = await verifyFleet(fleetTargets, {
    ...options,
    ...(await targetReaders(fleetTargets)),
    concurrency: flags.concurrency,
    targetTimeoutMs: flags.targetTimeout,
  });
  if (base.json) printJson(fleetJson(fleet));
  else for (const line of renderFleet(fleet)) printLine(line);
  finish(
    worstCode(fleet.deployments.map((d) => exitCodeOf(d.findings, flags.failOn))),
    `${fleet.summary.total - fleet.summary.inStep} of ${fleet.summary.total} not in step`,
  );
}

/** One live deployment, through the verify pipeline (probes, registry, signatures, evidence). */
async function verifyOne(
  flags: VerifyFlags,
  base: BaseContext,
  options: VerifyOptions,
  { api, worker, web }: RoleImages,
): Promise<void> {
  const [target] = (await deploymentTargets(flags, base, VERIFY_TARGETS)) as [VerifyTarget];
  Object.assign(options, await targetReaders([target]));
  // Without --docker, --registry still checks each release image against its rc; the
  // running digests are compared only when an engine was read.
  // Signatures live in the store: --require-signature reads the config's registry.
  const registryFlag =
    flags.registry ?? (flags.requireSignature || flags.requireAttestations ? true : undefined);
  const store =
    registryFlag === undefined ? undefined : await openRegistry(registryFlag, base, flags.timeout);
  const trustedKey = store
    ? await (await import('../../signing/key-files.ts')).readPublicKey(base)
    : undefined;
  if (flags.requireSignature && !trustedKey) {
    throw new UsageError(
      'VERIFY_NO_PUBLIC_KEY',
      '--require-signature needs signing.publicKey in the config',
      {
        hint: 'set signing.publicKey to the .pub file of the key that signs release candidates',
      },
    );
  }
  if (flags.requireAttestations && !trustedKey) {
    throw new UsageError(
      'VERIFY_NO_PUBLIC_KEY',
      '--require-attestations needs signing.publicKey in the config',
      { hint: 'set signing.publicKey to the .pub file of the release key' },
    );
  }
  // A role of the worker's image (one image, several roles) is read by the worker's probe, by
  // its command; a second read of the image would name every container of it `api`.
  if (store)
    options.digestImages = {
      ...(api.image !== worker.image ? { api: api.image } : {}),
      ...(web.image !== worker.image ? { web: web.image } : {}),
    };
  const attest = flags.attest
    ? await (await import('./attest-setup.ts')).attestSetup(flags, base, trustedKey!.keyId)
    : undefined;
  const ctx: VerifyContext = {
    ...base,
    target,
    options,
    ...(store ? { store } : {}),
    ...(trustedKey
      ? {
          trustedKey,
          requireSignature: Boolean(flags.requireSignature),
          requireAttestations: Boolean(flags.requireAttestations),
          // --registry or --require-attestations: not the store --require-signature alone opens.
          checkAttestations: flags.registry !== undefined || Boolean(flags.requireAttestations),
        }
      : {}),
    ...(attest ? { attest } : {}),
    extraImages: Object.fromEntries(
      imageArtifacts(base.config)
        .filter((artifact) => !artifact.role)
        .map((artifact) => [artifact.name, artifact.image]),
    ),
    startedAt: performance.now(),
  };
  // Progress only where someone watches it: in CI and pipes the table says everything, and the
  // plain renderer's lines would land on stdout ahead of it.
  await runPipeline(verifyPipeline, ctx, {
    json: ctx.json || !currentIo().stderr.isTTY,
    env: ctx.env,
    dryRun: ctx.dryRun,
  });
  const report = printReport(ctx, flags.out);
  finish(
    exitCodeOf(report.findings, flags.failOn),
    report.exitCode === 3 ? 'could not read everything asked for' : 'not in step',
  );
}

/** The report, its summaries and warnings, as `--json` or lines: what one deployment's run prints. */
function printReport(ctx: VerifyContext, out: string | undefined): DeploymentReport {
  const report = ctx.report!;
  if (ctx.json)
    printJson({
      ...reportJson(report),
      ...(ctx.summaries ? { summaries: ctx.summaries } : {}),
      ...(ctx.warnings.length ? { warnings: ctx.warnings } : {}),
    });
  else {
    for (const line of renderReport(report)) printLine(line);
    for (const s of ctx.summaries ?? [])
      printLine(
        `verification summary ${s.result} for ${s.about}: ${s.attached.length ? `attached to ${s.attached.length} digest(s)` : 'not attached'}${out ? `, in ${out}` : ''}`,
      );
  }
  for (const text of ctx.warnings) warn(text);
  return report;
}

/** A fleet's code: the worst of its deployments' (3 over 1 over 0). */
function worstCode(codes: (0 | 1 | 3)[]): 0 | 1 | 3 {
  return codes.includes(3) ? 3 : codes.includes(1) ? 1 : 0;
}

/** The report is already printed: leave only the exit code to the command line. */
function finish(exitCode: 0 | 1 | 3, message: string): void {
  if (exitCode === 0) return;
  const error =
    exitCode === 3
      ? new ExternalError('VERIFY_UNREACHABLE', message)
      : new RuleError('VERIFY_DRIFT', message);
  throw Object.assign(error, { reported: true });
}

/** The store `--registry` names (or the config's), loaded only when asked for. */
async function openRegistry(
  flag: string | true,
  base: {
    configDir: string;
    env: Record<string, string | undefined>;
    config: { registry: string; insecureRegistries: string[] };
  },
  timeoutMs: number,
): Promise<ImageStore> {
  const registry = flag === true ? base.config.registry : flag;
  const [{ openStore }, { isRegistryReference }] = await Promise.all([
    import('../../registry/open-store.ts'),
    import('../../config/schema.ts'),
  ]);
  if (!isRegistryReference(registry)) {
    throw new UsageError('VERIFY_BAD_REGISTRY', `--registry "${registry}" is not a registry reference`, {
      hint: 'give host[:port][/namespace] (127.0.0.1:5000/acme) or oci-layout:<dir>',
    });
  }
  return openStore(registry, {
    cwd: base.configDir,
    env: base.env,
    insecure: base.config.insecureRegistries,
    timeoutMs,
  });
}

function fleetJson(fleet: FleetReport) {
  return {
    inStep: fleet.inStep,
    exitCode: fleet.exitCode,
    summary: fleet.summary,
    elapsedMs: fleet.elapsedMs,
    deployments: fleet.deployments.map(reportJson),
  };
}

function renderFleet(fleet: FleetReport): string[] {
  const status = (d: DeploymentReport) =>
    d.exitCode === 0 ? 'in step' : d.exitCode === 3 ? 'UNREACHABLE' : 'DRIFT';
  const lines = table(
    ['DEPLOYMENT', 'API', 'VERSION', 'STATUS', 'FINDINGS'],
    fleet.deployments.map((d) => [
      d.name ?? d.url,
      d.url,
      d.artifacts.find((a) => a.name === 'api')?.version ?? '-',
      status(d),
      [...new Set(d.findings.filter((f) => f.severity !== 'notice').map((f) => f.code))].join(', '),
    ]),
  );
  for (const d of fleet.deployments.filter((d) => d.findings.length > 0)) {
    lines.push('', `${d.name ?? d.url} (${d.url}):`, ...renderFindings(d.findings, '  '));
  }
  const { total, inStep, drift, unreachable } = fleet.summary;
  lines.push(
    '',
    `${total} deployments checked in ${(fleet.elapsedMs / 1000).toFixed(2)} s: ${inStep} in step, ${drift} drift, ${unreachable} unreachable`,
  );
  return lines;
}
