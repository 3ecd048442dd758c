import { hasWebClient, imageOfRole, webClients } from '../../config/artifacts.ts';
import { jobImages, roleCommands } from '../../config/role-of-command.ts';
import { SERVER_VERSION_VARIABLE, serverVersionVariables } from '../../config/version-variables.ts';
import { checkedExpect } from '../../deployment-targets/checked-expect.ts';
import { UsageError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { ImageStore } from '../../registry/store.ts';
import { serviceNaming } from '../../verify/service-naming.ts';
import type { VerifyOptions } from '../../verify/verify-deployment.ts';
import { baseContext } from '../command-context.ts';
import type { VerifyFlags } from './verify-flags.ts';

/** What every mode but `--manifests` starts from: the flags, the config, and `--expect` checked. */
export interface VerifyRun {
  flags: VerifyFlags;
  base: BaseContext;
  expect: string | undefined;
}

/** The images of the three roles, as the config names them. */
export interface RoleImages {
  api: { image: string };
  worker: { image: string };
  web: { image: string };
}

/** The shared setup: the config loaded, then `--expect` refused unless it is a version. */
export async function verifyRun(flags: VerifyFlags): Promise<VerifyRun> {
  const base = await baseContext(flags);
  const expect = flags.expect === undefined ? undefined : checkedExpect(flags.expect);
  return { flags, base, expect };
}

/**
 * A live check's requirements: `--attest` turns on both `--require-*` (a summary may only say
 * what this run required), and `--out`/`--verifier-key` are refused without it.
 */
export function liveRequirements(flags: VerifyFlags): void {
  if (flags.attest) {
    flags.requireSignature = true;
    flags.requireAttestations = true;
  } else if (flags.out || flags.verifierKey) {
    throw new UsageError('VERIFY_OUT_WITHOUT_ATTEST', '--out and --verifier-key go with --attest', {
      hint: 'release verify --url <api> --registry --attest --out vsa.jsonl',
    });
  }
}

/** What every deployment is checked with: the config's images, roles, names and skew policy. */
export async function verifyOptions({
  flags,
  base,
  expect,
}: VerifyRun): Promise<{ options: VerifyOptions; images: RoleImages }> {
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
    webs: webClients(base.config).map((a) => a.name),
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

/** The store `--registry` names (or the config's), loaded only when asked for. */
export async function openRegistry(
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
