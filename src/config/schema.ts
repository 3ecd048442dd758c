import * as z from 'zod';

import { artifactsSchema, type CliArtifactInput, type ImageArtifactInput } from './artifacts-schema.ts';
import { OCI_LAYOUT_PREFIX } from './constants.ts';
import { skewSchema } from './skew-schema.ts';
import { versionVariablesSchema } from './version-variables-schema.ts';

// A registry host (with a dot, a port, or `localhost`, as docker requires) and an optional namespace.
export const REGISTRY =
  /^(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*:\d{1,5}|\[[0-9a-fA-F:]+\](?::\d{1,5})?)(?::\d{1,5})?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

export { DEFAULT_BASE_IMAGE, OCI_LAYOUT_PREFIX } from './constants.ts';

const registryRef = z.string().refine((value) => isRegistryReference(value), {
  message: 'expected a registry like "127.0.0.1:5000/acme" or "oci-layout:<dir>"',
});

export const configSchema = z.strictObject({
  /** Where images live: a registry reference, or `oci-layout:<dir>` for the embedded default. */
  registry: registryRef.default(`${OCI_LAYOUT_PREFIX}.release/oci`),
  /** Registry hosts (`host[:port]`) reached over plain http although not loopback (test rigs only). */
  insecureRegistries: z.array(z.string().min(1)).default([]),
  /** The release record that stamp writes and build, promote and verify read. */
  record: z.string().min(1).default('dist/release.json'),
  /** Live deployments `release verify --all` checks (docs/reference/commands/verify.md). */
  deployments: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        url: z.url({ protocol: /^https?$/, error: 'expected the API base URL (http:// or https://)' }),
        webUrl: z.url({ protocol: /^https?$/, error: 'expected the web client URL' }).optional(),
        /** Several web clients (an app, an admin dashboard): each web artifact's URL, by its name. */
        webUrls: z
          .record(z.string(), z.url({ protocol: /^https?$/, error: 'expected the web client URL' }))
          .optional(),
        workerUrl: z.url({ protocol: /^https?$/, error: "expected the worker's /healthz URL" }).optional(),
        /** `release upgrade --deployment <name>`: the service of each role, as its engine names it (docs/guides/upgrading-a-deployment.md). */
        services: z
          .object({
            api: z.string().min(1),
            worker: z.string().min(1),
            web: z.string().min(1).optional(),
          })
          // Any other key is an artifact that runs as a role (a `scheduler`): its service's name.
          .catchall(z.string().min(1))
          .optional(),
        /** `release upgrade/verify --deployment <name>` on a Compose project: its files (guide "Upgrading a Compose deployment"). */
        compose: z
          .strictObject({
            files: z.array(z.string().min(1)).min(1),
            projectName: z.string().min(1).optional(),
          })
          .optional(),
      }),
    )
    .refine((list) => new Set(list.map((d) => d.name)).size === list.length, {
      message: 'deployment names must be unique',
    })
    .default([]),
  /** What is released and how each artifact is built (docs/guides/your-own-service.md). */
  artifacts: artifactsSchema,
  /**
   * The project's own API: `minCliVersion` is the `min_cli_version` it serves, so build
   * and promote refuse a CLI below it. Unset: the reference API's constant.
   */
  api: z
    .strictObject({
      minCliVersion: z
        .string()
        .regex(/^\d+\.\d+\.\d+$/, 'expected the X.Y.Z the API serves as min_cli_version (no "v")')
        .optional(),
    })
    .optional(),
  /**
   * The names the service reads its version from, beside `SERVICE_VERSION` and
   * `SERVICE_CLIENT_VERSION` (always set): `{ server: ['ACME_VERSION'], client: ['VITE_ACME_VERSION'] }`.
   */
  versionVariables: versionVariablesSchema,
  /**
   * GitOps: the deployment files `release bump` writes the release into and `release verify
   * --manifests` checks (docs/guides/gitops.md). Each entry is a file or a folder (searched for
   * charts, kustomizations, manifests and Compose files), relative to the config; `keys` declares
   * where a file keeps a tag no search finds (`global.acmeVersion: version`, `web.tag: web`).
   */
  deploy: z
    .strictObject({
      manifests: z
        .array(
          z.union([
            z.string().min(1),
            z.strictObject({
              path: z.string().min(1),
              keys: z.record(
                z
                  .string()
                  .regex(/^[^.\s]+(?:\.[^.\s]+)*$/, 'expected a dotted key like "global.acmeVersion"'),
                z
                  .string()
                  .regex(/^(?:version|[a-z][a-z0-9-]{0,62})$/, 'expected an artifact name, or "version"'),
              ),
            }),
          ]),
        )
        .min(1),
    })
    .optional(),
  /** How far web and CLI may be from the API (`release verify`, `release watch`); default: equal. */
  skew: skewSchema,
  /**
   * Signed release candidates (docs/guides/signing.md): `publicKey` is the SPKI PEM
   * every signature is checked against; `privateKey` the encrypted PKCS#8 PEM `release sign` uses
   * when neither `--key` nor `RELEASE_SIGNING_KEY` names one. Paths are relative to the config.
   */
  signing: z
    .strictObject({
      publicKey: z.string().min(1).optional(),
      privateKey: z.string().min(1).optional(),
      /**
       * The formats every signature and attestation is written in: `bundle` (Sigstore bundles
       * attached as OCI referrers: what `release verify` reads, always written) and `legacy`
       * (cosign's `sha256-<hex>.sig` and `.att` tags, for Kyverno's Cosign verifier,
       * policy-controller and Ratify). Both unless set.
       */
      formats: z
        .array(z.enum(['bundle', 'legacy']))
        .min(1)
        .refine((f) => f.includes('bundle'), {
          message:
            "must include 'bundle' (what release verify reads); add 'legacy' for cosign's .sig/.att tags",
        })
        .refine((f) => new Set(f).size === f.length, { message: 'names a format twice' })
        .optional(),
    })
    .optional(),
  /**
   * The verifier's own key pair (docs/guides/verification-summaries.md), separate from the release
   * key: `release verify --attest` signs its verification summaries with `privateKey` (unless
   * `--verifier-key` or `RELEASE_VERIFIER_KEY` names one), and `--vsa` and `release mirror` check
   * them with `publicKey`. `id` names the verifier in each summary. Paths are relative to the config.
   */
  verifier: z
    .strictObject({
      publicKey: z.string().min(1).optional(),
      privateKey: z.string().min(1).optional(),
      id: z.url().optional(),
    })
    .optional(),
});

/** What a config file may contain (every key optional). */
export type ReleaseConfigInput = Omit<z.input<typeof configSchema>, 'artifacts'> & {
  /** Each artifact by name; `false` drops a role's default (a service without a worker). */
  artifacts?: Record<string, ImageArtifactInput | CliArtifactInput | false>;
};
/** The validated configuration with defaults filled in. */
export type ReleaseConfig = z.output<typeof configSchema>;

/** An image artifact's name (its key under `artifacts`): api, worker, web, or an extra one. */
export type ImageArtifact = string;

export function isRegistryReference(value: string): boolean {
  if (value.startsWith(OCI_LAYOUT_PREFIX)) return value.length > OCI_LAYOUT_PREFIX.length;
  return REGISTRY.test(value);
}
