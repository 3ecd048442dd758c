import { createHash, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SIGNATURE_SUFFIX, signArchive, signatureFileText } from '../../../archives/archive-signature.ts';
import { packNpmPackage } from '../../../archives/npm-package-archive.ts';
import { UsageError } from '../../../errors.ts';
import { writeFileAtomically } from '../../../files/atomic-write.ts';
import { bundleSvc } from './bundle-svc.ts';
import { cliPackageJson } from './package-json.ts';

export interface CliArchive {
  path: string;
  sha256: string;
  size: number;
  /** `<path>.sig` when the archive was signed (base64 ECDSA P-256 / SHA-256 over its bytes). */
  signaturePath?: string;
}

/** Sign the archive: the public key svc bakes in, and the key that signs the bytes. */
export interface ArchiveSigning {
  /** SPKI PEM: baked into svc, which checks the next archive it installs against it. */
  publicKeyPem: string;
  privateKey: KeyObject;
}

/**
 * Build `service-cli.tar.gz`: svc bundled into one file with `version` baked in, plus its
 * package.json, packed as `npm pack` packs (the format `npm install -g <file-or-url>` reads, with
 * npm's fixed entry times, so equal inputs give equal bytes; archives/npm-package-archive.ts). `outFile` is replaced atomically.
 */
export async function buildCliArchive(options: {
  version: string;
  outFile: string;
  installCommand?: string;
  /** Bake this SPKI PEM into svc without signing here (`release build` signs the archive itself). */
  publicKeyPem?: string;
  /** Bake the key and sign the archive into `<outFile>.sig` (tests, bench). */
  signing?: ArchiveSigning | undefined;
}): Promise<CliArchive> {
  const version = options.version.trim();
  if (!version || version.length > 128 || /[\s\u0000-\u001f\u007f-\u009f]/.test(version)) {
    throw new UsageError('CLI_VERSION_INVALID', `"${options.version}" cannot be baked into svc`, {
      hint: 'use the release tag (SERVICE_VERSION or release stamp): no spaces or control characters, at most 128 characters',
    });
  }
  const stage = await mkdtemp(join(tmpdir(), 'svc-archive-'));
  try {
    const pkg = join(stage, 'package');
    await bundleSvc({
      version,
      outFile: join(pkg, 'svc.js'),
      ...(options.installCommand ? { installCommand: options.installCommand } : {}),
      ...(options.signing || options.publicKeyPem
        ? { publicKeyPem: options.signing?.publicKeyPem ?? options.publicKeyPem! }
        : {}),
    });
    const svc = join(pkg, 'svc.js');
    const bytes = await packNpmPackage([
      { path: 'package.json', content: Buffer.from(`${JSON.stringify(cliPackageJson(version), null, 2)}\n`) },
      { path: 'svc.js', content: await readFile(svc), mode: (await stat(svc)).mode },
    ]);
    const path = resolve(options.outFile);
    const signaturePath = `${path}${SIGNATURE_SUFFIX}`;
    await writeFileAtomically(path, bytes);
    const archive: CliArchive = {
      path,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
    };
    if (options.signing) {
      await writeFileAtomically(
        signaturePath,
        signatureFileText(signArchive(bytes, options.signing.privateKey)),
      );
      archive.signaturePath = signaturePath;
    } else if (!options.publicKeyPem) {
      await rm(signaturePath, { force: true }); // a signature of an older archive must not stay beside it
    }
    return archive;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
