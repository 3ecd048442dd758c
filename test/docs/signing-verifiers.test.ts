import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { PREDICATE } from '../../src/evidence/statements.ts';
import { VSA_PREDICATE } from '../../src/evidence/vsa.ts';
import { generateSigningKeys } from '../../src/signing/keys.ts';
import { ROOT } from './doc-pages.ts';

// The policies of docs/guides/signing-verifiers.md, as a reader copies them. Kyverno, the
// policy-controller and Ratify cannot run here (no cluster, and none of them installs from npm),
// and kubectl's client dry run needs an API server for a custom resource: so each policy is read
// from the page, parsed, held to the fields its tool's API types define (read from their sources:
// Kyverno's api/kyverno/v1 ClusterPolicy, Rule and ImageVerification types; policy-controller's
// v1beta1 ClusterImagePolicy; Ratify's v1beta1 Verifier and KeyManagementProvider), to the
// predicate types a release carries, and given a real public key in place of the placeholder.

const PAGE = readFileSync(join(ROOT, 'docs/guides/signing-verifiers.md'), 'utf8');
const PLACEHOLDER = '(the lines of release-signing.pub)';

/** The YAML block after `<!-- policy: <name> -->`, its placeholder key lines replaced by `pem`'s. */
function policy(name: string, pem?: string): Doc[] {
  const found = new RegExp(`<!-- policy: ${name} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(PAGE);
  if (!found) throw new Error(`no policy ${name} in the page`);
  let text = found[1]!;
  if (pem) {
    // The placeholder line and its BEGIN/END lines become the key's lines, at their indentation.
    const body = pem.trim().split('\n').slice(1, -1);
    text = text.replace(/^( *)\(the lines of release-signing\.pub\)$/gm, (_, indent: string) =>
      body.map((line) => indent + line).join('\n'),
    );
  }
  const docs = parseAllDocuments(text);
  for (const doc of docs) expect(doc.errors, name).toEqual([]);
  return docs.map((d) => d.toJS() as Doc);
}

/** A parsed policy document; the parts a test asserts on are typed where they are read. */
type Doc = Record<string, unknown>;
interface AttestorSet {
  entries: { keys: unknown }[];
}
interface VerifyImages {
  type: string;
  attestors: AttestorSet[];
  attestations: {
    type: string;
    attestors: AttestorSet[];
    conditions?: { all: { key: string; operator: string }[] }[];
  }[];
}
/** The first verifyImages entry of a Kyverno policy's first rule. */
function verifyImagesOf(doc: Doc | undefined): VerifyImages {
  return (doc!['spec'] as { rules: { verifyImages: VerifyImages[] }[] }).rules[0]!.verifyImages[0]!;
}

/** A shape: the keys an object may have, each with its own shape; `[shape]` for a list of them. */
type Shape = { [key: string]: Shape | [Shape] | 'leaf' };
const leaf = 'leaf' as const;

/** Every key `value` has that `shape` does not define, by path. */
function unknownKeys(value: unknown, shape: Shape | [Shape] | 'leaf', path: string): string[] {
  if (shape === leaf) return [];
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path} is not a list`];
    return value.flatMap((item, i) => unknownKeys(item, shape[0], `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [`${path} is not an object`];
  return Object.entries(value).flatMap(([key, child]) =>
    key in shape ? unknownKeys(child, shape[key]!, `${path}.${key}`) : [`${path}.${key}`],
  );
}

const metadata: Shape = { name: leaf, namespace: leaf, labels: leaf, annotations: leaf };
const kyvernoKeys: Shape = {
  publicKeys: leaf,
  signatureAlgorithm: leaf,
  kms: leaf,
  secret: leaf,
  rekor: { url: leaf, pubkey: leaf, ignoreTlog: leaf },
  ctlog: { ignoreSCT: leaf, pubkey: leaf, tsaCertChain: leaf },
};
const kyvernoAttestors: [Shape] = [
  {
    count: leaf,
    entries: [
      {
        keys: kyvernoKeys,
        certificates: leaf,
        keyless: leaf,
        attestor: leaf,
        annotations: leaf,
        repository: leaf,
        signatureAlgorithm: leaf,
      },
    ],
  },
];
const kyvernoCondition: Shape = { key: leaf, operator: leaf, value: leaf, message: leaf };
const kyvernoPolicy: Shape = {
  apiVersion: leaf,
  kind: leaf,
  metadata,
  spec: {
    ...Object.fromEntries(
      [
        'admission',
        'applyRules',
        'background',
        'emitWarning',
        'failurePolicy',
        'generateExisting',
        'mutateExistingOnPolicyUpdate',
        'schemaValidation',
        'useServerSideApply',
        'validationFailureAction',
        'webhookConfiguration',
        'webhookTimeoutSeconds',
      ].map((k) => [k, leaf]),
    ),
    rules: [
      {
        name: leaf,
        match: {
          any: [{ resources: { kinds: leaf, names: leaf, namespaces: leaf, selector: leaf } }],
          all: leaf,
        },
        exclude: leaf,
        context: leaf,
        preconditions: leaf,
        verifyImages: [
          {
            failureAction: leaf,
            type: leaf,
            imageReferences: leaf,
            skipImageReferences: leaf,
            attestors: kyvernoAttestors,
            attestations: [
              {
                name: leaf,
                type: leaf,
                predicateType: leaf,
                attestors: kyvernoAttestors,
                conditions: [{ any: [kyvernoCondition], all: [kyvernoCondition] }],
              },
            ],
            annotations: leaf,
            repository: leaf,
            cosignOCI11: leaf,
            mutateDigest: leaf,
            verifyDigest: leaf,
            validate: leaf,
            required: leaf,
            imageRegistryCredentials: leaf,
            useCache: leaf,
          },
        ],
      },
    ],
  },
};
const clusterImagePolicy: Shape = {
  apiVersion: leaf,
  kind: leaf,
  metadata,
  spec: {
    images: [{ glob: leaf }],
    authorities: [
      {
        name: leaf,
        key: { data: leaf, secretRef: leaf, kms: leaf, hashAlgorithm: leaf },
        keyless: leaf,
        static: leaf,
        source: leaf,
        ctlog: leaf,
        attestations: [{ name: leaf, predicateType: leaf, policy: leaf }],
        rfc3161timestamp: leaf,
        signatureFormat: leaf,
      },
    ],
    policy: leaf,
    mode: leaf,
    match: leaf,
  },
};
const ratify: Record<string, Shape> = {
  KeyManagementProvider: {
    apiVersion: leaf,
    kind: leaf,
    metadata,
    spec: { type: leaf, refreshInterval: leaf, parameters: { contentType: leaf, value: leaf } },
  },
  Verifier: {
    apiVersion: leaf,
    kind: leaf,
    metadata,
    spec: {
      name: leaf,
      type: leaf,
      version: leaf,
      artifactTypes: leaf,
      address: leaf,
      source: leaf,
      parameters: {
        trustPolicies: [
          {
            version: leaf,
            name: leaf,
            scopes: leaf,
            keys: [{ provider: leaf, name: leaf, version: leaf, file: leaf }],
            keyless: leaf,
            tLogVerify: leaf,
            rekorURL: leaf,
          },
        ],
      },
    },
  },
};

/** Every string under `value` that holds a PEM public key. */
function pems(value: unknown): string[] {
  if (typeof value === 'string') return value.includes('BEGIN PUBLIC KEY') ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(pems);
  if (value && typeof value === 'object') return Object.values(value).flatMap(pems);
  return [];
}

const { publicKey } = generateSigningKeys('signing-verifiers-doc');
const keyPem = publicKey.key.export({ type: 'spki', format: 'pem' }) as string;
/** The key as a verifier reads it from the policy: the same key, or the check fails. */
function holdsTheKey(docs: Doc[]): void {
  const found = pems(docs);
  expect(found.length).toBeGreaterThan(0);
  for (const pem of found) {
    const key = createPublicKey(pem);
    expect(key.export({ type: 'spki', format: 'der' })).toEqual(
      publicKey.key.export({ type: 'spki', format: 'der' }),
    );
  }
}

describe('docs/guides/signing-verifiers.md', () => {
  it('Kyverno, type Cosign: only ClusterPolicy fields, the release key without a log, every predicate a release carries', () => {
    const [doc] = policy('kyverno-cosign', keyPem);
    expect(doc).toMatchObject({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy' });
    expect(unknownKeys(doc, kyvernoPolicy, '')).toEqual([]);
    const verify = verifyImagesOf(doc);
    expect(verify.type).toBe('Cosign');
    const attestors = [verify.attestors, ...verify.attestations.map((a) => a.attestors)].flat();
    for (const a of attestors.flatMap((set) => set.entries))
      expect(a.keys).toMatchObject({ rekor: { ignoreTlog: true }, ctlog: { ignoreSCT: true } });
    expect(verify.attestations.map((a) => a.type)).toEqual([
      PREDICATE.sbom,
      PREDICATE.provenance,
      PREDICATE.releaseSet,
    ]);
    // The condition reads the release set's own field: the version it names.
    expect(verify.attestations[2]!.conditions![0]!.all[0]).toMatchObject({
      key: '{{ version }}',
      operator: 'Equals',
    });
    holdsTheKey([doc!]);
    expect(PAGE).toContain(VSA_PREDICATE);
  });

  it('Kyverno, type SigstoreBundle: the same key, the SBOM among the bundles', () => {
    const [doc] = policy('kyverno-sigstore-bundle', keyPem);
    expect(unknownKeys(doc, kyvernoPolicy, '')).toEqual([]);
    const verify = verifyImagesOf(doc);
    expect(verify.type).toBe('SigstoreBundle');
    expect(verify.attestors[0]!.entries[0]!.keys).toMatchObject({
      rekor: { ignoreTlog: true },
      ctlog: { ignoreSCT: true },
    });
    expect(verify.attestations.map((a) => a.type)).toEqual([PREDICATE.sbom]);
    holdsTheKey([doc!]);
  });

  it('policy-controller: a key authority in the legacy format (bundle refuses one), its attestations by URI', () => {
    const [doc] = policy('policy-controller', keyPem);
    expect(doc).toMatchObject({ apiVersion: 'policy.sigstore.dev/v1beta1', kind: 'ClusterImagePolicy' });
    expect(unknownKeys(doc, clusterImagePolicy, '')).toEqual([]);
    const authority = (doc!['spec'] as { authorities: Record<string, unknown>[] }).authorities[0]!;
    expect(authority['signatureFormat'] ?? 'legacy').toBe('legacy');
    expect(authority['keyless']).toBeUndefined();
    expect(authority['ctlog']).toBeUndefined();
    expect((authority['attestations'] as { predicateType: string }[]).map((a) => a.predicateType)).toEqual([
      PREDICATE.sbom,
      PREDICATE.provenance,
    ]);
    holdsTheKey([doc!]);
  });

  it('Ratify: an inline key provider and a cosign verifier of .sig artifacts naming it', () => {
    const docs = policy('ratify', keyPem);
    expect(docs.map((d) => d['kind'])).toEqual(['KeyManagementProvider', 'Verifier']);
    for (const doc of docs) {
      expect(doc['apiVersion']).toBe('config.ratify.deislabs.io/v1beta1');
      expect(unknownKeys(doc, ratify[String(doc['kind'])]!, '')).toEqual([]);
    }
    const [provider, verifier] = docs as [
      { metadata: { name: string }; spec: unknown },
      { spec: { parameters: { trustPolicies: { keys: unknown; tLogVerify: unknown }[] } } },
    ];
    expect(provider.spec).toMatchObject({ type: 'inline', parameters: { contentType: 'key' } });
    expect(verifier.spec).toMatchObject({
      name: 'cosign',
      artifactTypes: 'application/vnd.dev.cosign.artifact.sig.v1+json',
    });
    const policy0 = verifier.spec.parameters.trustPolicies[0]!;
    expect(policy0.keys).toEqual([{ provider: provider.metadata.name }]);
    expect(policy0.tLogVerify).toBe(false);
    holdsTheKey(docs);
  });

  it('the check catches what it is for: a misspelt field, a placeholder left in, a key cut short', () => {
    const [doc] = policy('kyverno-cosign', keyPem);
    const keys = verifyImagesOf(doc).attestors[0]!.entries[0]!.keys as { rekor: Record<string, unknown> };
    keys.rekor['ignoreTLog'] = true;
    expect(unknownKeys(doc, kyvernoPolicy, '')).toEqual([
      '.spec.rules[0].verifyImages[0].attestors[0].entries[0].keys.rekor.ignoreTLog',
    ]);
    expect(() => holdsTheKey(policy('policy-controller'))).toThrow();
    const cut = keyPem
      .split('\n')
      .filter((_, i) => i !== 1)
      .join('\n');
    expect(() => holdsTheKey(policy('policy-controller', cut))).toThrow();
    expect(PAGE.split(PLACEHOLDER).length - 1).toBeGreaterThanOrEqual(8);
  });

  it('cosign commands use the key and skip the transparency log; gh and Notation say why they cannot', () => {
    const commands = [...PAGE.matchAll(/^cosign (verify(?:-attestation)?) (.*?)(?:\\\n\s*(.*))?$/gm)].map(
      (m) => [m[1], `${m[2]} ${m[3] ?? ''}`],
    );
    expect(commands.map(([c]) => c)).toEqual([
      'verify',
      'verify-attestation',
      'verify-attestation',
      'verify-attestation',
    ]);
    for (const [, args] of commands) {
      expect(args).toContain('--key release-signing.pub');
      expect(args).toContain('--insecure-ignore-tlog=true');
    }
    expect(commands[1]![1]).toContain('--type cyclonedx');
    expect(commands[3]![1]).toContain(`--type ${PREDICATE.releaseSet}`);
    expect(PAGE).toMatch(/gh attestation verify`\*\*[\s\S]*?keyless/);
    expect(PAGE).toMatch(/\*\*Notation\*\*[\s\S]*?X\.509/);
    // Where a tool cannot run in the tests, the page says its commands come from its documentation.
    for (const heading of [
      '## cosign',
      '## Kyverno, `type: Cosign`',
      '## Kyverno, `type: SigstoreBundle`',
      '## sigstore policy-controller',
      '## Ratify',
    ])
      expect(PAGE.split(heading)[1]!.trimStart().startsWith('From the tool')).toBe(true);
  });
});
