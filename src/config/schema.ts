import { z } from 'zod';

// Image repository names per the distribution spec: lowercase path components.
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
// A registry host (with a dot, a port, or `localhost`, as docker requires) and an optional namespace.
const REGISTRY =
  /^(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*:\d{1,5}|\[[0-9a-fA-F:]+\](?::\d{1,5})?)(?::\d{1,5})?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export const OCI_LAYOUT_PREFIX = 'oci-layout:';
/** The minimal node base `release base-image` makes on this machine (nothing is pulled). */
export const DEFAULT_BASE_IMAGE = `${OCI_LAYOUT_PREFIX}.release/base/node:20`;
// An image reference: a layout path or a registry host, a repository, then a tag or a digest.
const BASE_IMAGE =
  /^(?:oci-layout:[^\s:@]*[a-z0-9]|[A-Za-z0-9.[\]:-]+\/[a-z0-9][a-z0-9._/-]*)(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[0-9a-f]{64})?$/;

const registryRef = z.string().refine((value) => isRegistryReference(value), {
  message: 'expected a registry like "127.0.0.1:5000/acme" or "oci-layout:<dir>"',
});

const imageArtifact = (image: string) =>
  z.strictObject({
    image: z
      .string()
      .regex(REPOSITORY, 'expected a lowercase repository name like "service-api"')
      .default(image),
    /** The image `release build` builds on (node at /usr/local/bin/node); `release base-image` makes the default. */
    base: z
      .string()
      .regex(
        BASE_IMAGE,
        'expected "oci-layout:<dir>/<repository>[:tag]" or "<host[:port]>/<repository>[:tag]"',
      )
      .default(DEFAULT_BASE_IMAGE),
  });

export const configSchema = z.strictObject({
  /** Where images live: a registry reference, or `oci-layout:<dir>` for the embedded default. */
  registry: registryRef.default(`${OCI_LAYOUT_PREFIX}.release/oci`),
  /** Registry hosts (`host[:port]`) reached over plain http although not loopback (test rigs only). */
  insecureRegistries: z.array(z.string().min(1)).default([]),
  /** The release record that stamp writes and build, promote and verify read. */
  record: z.string().min(1).default('dist/release.json'),
  /** Live deployments `release verify --all` checks (README "release verify", fleets). */
  deployments: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        url: z.url({ protocol: /^https?$/, error: 'expected the API base URL (http:// or https://)' }),
        webUrl: z.url({ protocol: /^https?$/, error: 'expected the web client URL' }).optional(),
        workerUrl: z.url({ protocol: /^https?$/, error: "expected the worker's /healthz URL" }).optional(),
      }),
    )
    .refine((list) => new Set(list.map((d) => d.name)).size === list.length, {
      message: 'deployment names must be unique',
    })
    .default([]),
  artifacts: z
    .strictObject({
      api: imageArtifact('service-api').prefault({}),
      worker: imageArtifact('service-worker').prefault({}),
      web: imageArtifact('service-web').prefault({}),
      cli: z
        .strictObject({
          package: z.string().regex(NPM_NAME, 'expected an npm package name').default('service-cli'),
        })
        .prefault({}),
    })
    .prefault({}),
  /**
   * Signed release candidates (README "Signing release candidates"): `publicKey` is the SPKI PEM
   * every signature is checked against; `privateKey` the encrypted PKCS#8 PEM `release sign` uses
   * when neither `--key` nor `RELEASE_SIGNING_KEY` names one. Paths are relative to the config.
   */
  signing: z
    .strictObject({
      publicKey: z.string().min(1).optional(),
      privateKey: z.string().min(1).optional(),
    })
    .optional(),
});

/** What a config file may contain (every key optional). */
export type ReleaseConfigInput = z.input<typeof configSchema>;
/** The validated configuration with defaults filled in. */
export type ReleaseConfig = z.output<typeof configSchema>;

export const IMAGE_ARTIFACTS = ['api', 'worker', 'web'] as const;
export type ImageArtifact = (typeof IMAGE_ARTIFACTS)[number];

export function isRegistryReference(value: string): boolean {
  if (value.startsWith(OCI_LAYOUT_PREFIX)) return value.length > OCI_LAYOUT_PREFIX.length;
  return REGISTRY.test(value);
}
