import { createHash } from 'node:crypto';
import CycloneDX from '@cyclonedx/cyclonedx-library';
import { PackageURL } from 'packageurl-js';

const { Enums, Models, Serialize, Spec, SPDX } = CycloneDX;

/** What an image holds, as read from its own layers (evidence/image-contents.ts). */
export interface ImageContents {
  /** The repository within its store (`acme-api`): the SBOM's subject, with the digest. */
  repository: string;
  /** The image's manifest digest, `sha256:<hex>`. */
  digest: string;
  /** The version the image was built as (`v1.2.0-rc.1`). */
  version: string;
  /** The base it was built on, by digest. */
  base: { reference: string; digest: string };
  /**
   * Every regular file the build added on top of the base, absolute path and SHA-256 (hex); of an
   * index, each platform image's, with its platform (`linux/arm64`).
   */
  files: readonly { path: string; sha256: string; platform?: string }[];
  /** The npm packages found among those files (a `node_modules/<name>/package.json`). */
  packages: readonly (NpmPackage & { platform?: string })[];
  /** An index's platform images: each a component, its files and packages depending on it. */
  platforms?: readonly { platform: string; digest: string }[];
}

/** The property naming the platform image a file or package of an index's SBOM is in. */
export const PLATFORM_PROPERTY = 'service-release:platform';

export interface NpmPackage {
  name: string;
  version: string;
  /** The `license` field as written, when it is a string. */
  license?: string;
  /** Where its package.json is in the image. */
  path: string;
}

/** The tool named in the SBOM's metadata: this toolkit and its version. */
export interface SbomTool {
  name: string;
  version: string;
}

/**
 * The CycloneDX 1.6 JSON SBOM of one image, built with the official library. Reproducible: no
 * timestamp, lists sorted, and the serial number a name-based UUID of the image digest, so the
 * same image gives the same bytes on every machine and every run.
 */
export function sbomOf(contents: ImageContents, tool: SbomTool): string {
  const bom = new Models.Bom({ serialNumber: `urn:uuid:${uuidFromDigest(contents.digest)}` });
  bom.metadata.tools.components.add(
    new Models.Component(Enums.ComponentType.Application, tool.name, { version: tool.version }),
  );
  const image = new Models.Component(Enums.ComponentType.Container, contents.repository, {
    bomRef: `image:${contents.digest}`,
    version: contents.version,
  });
  image.hashes.set(Enums.HashAlgorithm['SHA-256'], hexOf(contents.digest));
  bom.metadata.component = image;

  const base = new Models.Component(Enums.ComponentType.Container, contents.base.reference, {
    bomRef: `base:${contents.base.digest}`,
    version: contents.base.digest,
    description: 'base image',
  });
  base.hashes.set(Enums.HashAlgorithm['SHA-256'], hexOf(contents.base.digest));
  bom.components.add(base);
  image.dependencies.add(base.bomRef);

  // Of an index, each platform image is a component of its own, with its digest, and each file
  // or package names its platform (a path is in every platform's image, with its own bytes).
  const onPlatform = (platform: string | undefined) =>
    platform === undefined ? [] : [new Models.Property(PLATFORM_PROPERTY, platform)];
  const refOn = (platform: string | undefined) => (platform === undefined ? '' : `${platform}:`);
  for (const child of contents.platforms ?? []) {
    const component = new Models.Component(Enums.ComponentType.Container, contents.repository, {
      bomRef: `image:${child.digest}`,
      version: contents.version,
      description: `platform image ${child.platform}`,
      properties: new Models.PropertyRepository(onPlatform(child.platform)),
    });
    component.hashes.set(Enums.HashAlgorithm['SHA-256'], hexOf(child.digest));
    bom.components.add(component);
    image.dependencies.add(component.bomRef);
  }
  for (const file of contents.files) {
    const component = new Models.Component(Enums.ComponentType.File, file.path, {
      bomRef: `file:${refOn(file.platform)}${file.path}`,
      properties: new Models.PropertyRepository(onPlatform(file.platform)),
    });
    component.hashes.set(Enums.HashAlgorithm['SHA-256'], file.sha256);
    bom.components.add(component);
  }
  for (const pkg of contents.packages) {
    const [namespace, name] = pkg.name.startsWith('@') ? pkg.name.split('/', 2) : [undefined, pkg.name];
    const purl = new PackageURL('npm', namespace, name!, pkg.version, undefined, undefined);
    const component = new Models.Component(Enums.ComponentType.Library, name!, {
      bomRef: `npm:${refOn(pkg.platform)}${pkg.path}`,
      version: pkg.version,
      purl: purl.toString(),
      properties: new Models.PropertyRepository(onPlatform(pkg.platform)),
      ...(namespace ? { group: namespace } : {}),
    });
    if (pkg.license) component.licenses.add(licenseOf(pkg.license));
    bom.components.add(component);
    image.dependencies.add(component.bomRef);
  }
  const serializer = new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6));
  return `${serializer.serialize(bom, { sortLists: true, space: 2 })}\n`;
}

/** A known SPDX id, an SPDX expression (`MIT OR Apache-2.0`), else the name as written. */
function licenseOf(text: string) {
  const id = SPDX.fixupSpdxId(text);
  if (id) return new Models.SpdxLicense(id);
  if (/\s(OR|AND|WITH)\s/.test(text)) return new Models.LicenseExpression(text);
  return new Models.NamedLicense(text);
}

function hexOf(digest: string): string {
  const hex = /^sha256:([0-9a-f]{64})$/.exec(digest)?.[1];
  if (!hex) throw new TypeError(`not a sha256 digest: ${digest}`);
  return hex;
}

// RFC 4122 URL namespace: the serial is the v5 UUID of `oci-digest:<digest>` in it.
const URL_NAMESPACE = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');

/** A name-based (v5) UUID of the digest: stable per image, unique across images. */
export function uuidFromDigest(digest: string): string {
  const hash = createHash('sha1').update(URL_NAMESPACE).update(`oci-digest:${digest}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
