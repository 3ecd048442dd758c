import { sha256Digest } from '../../src/registry/digest.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import type { TestImage } from './make-image.ts';

/**
 * The smallest program a container can run until it is killed: a static x86-64 Linux ELF whose
 * whole code is `pause(); goto start`. Nothing can be pulled from the internet and this machine
 * has no static busybox, so a test that needs a *running* container of an image built in the
 * registry (not by `docker build`) runs this. 129 bytes, no libc, no interpreter.
 */
export function pauseElf(): Buffer {
  const code = Buffer.from([0xb8, 0x22, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7]); // mov eax,34; syscall; jmp -9
  const base = 0x400000n;
  const header = Buffer.alloc(64 + 56);
  header.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0); // ELF, 64-bit, little endian, SysV
  header.writeUInt16LE(2, 16); // executable
  header.writeUInt16LE(0x3e, 18); // x86-64
  header.writeUInt32LE(1, 20);
  header.writeBigUInt64LE(base + 120n, 24); // entry: the code right after the headers
  header.writeBigUInt64LE(64n, 32); // program headers follow the ELF header
  header.writeUInt16LE(64, 52);
  header.writeUInt16LE(56, 54);
  header.writeUInt16LE(1, 56);
  const size = BigInt(header.length + code.length);
  header.writeUInt32LE(1, 64); // PT_LOAD
  header.writeUInt32LE(5, 68); // read + execute
  header.writeBigUInt64LE(0n, 72);
  header.writeBigUInt64LE(base, 80);
  header.writeBigUInt64LE(base, 88);
  header.writeBigUInt64LE(size, 96);
  header.writeBigUInt64LE(size, 104);
  header.writeBigUInt64LE(0x1000n, 112);
  return Buffer.concat([header, code]);
}

/** A linux/amd64 OCI image whose entrypoint is `/pause`, with this config env and labels. */
export function makePauseImage(options: { env?: string[]; labels?: Record<string, string> }): TestImage {
  const layer = tarOf('pause', pauseElf());
  const layerDigest = sha256Digest(layer);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Entrypoint: ['/pause'], Env: options.env ?? [], Labels: options.labels ?? {} },
      rootfs: { type: 'layers', diff_ids: [layerDigest] },
    }),
  );
  const configDigest = sha256Digest(config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      config: { mediaType: MEDIA_TYPES.ociConfig, digest: configDigest, size: config.length },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length },
      ],
    }),
  );
  return {
    manifest,
    descriptor: {
      mediaType: MEDIA_TYPES.ociManifest,
      digest: sha256Digest(manifest),
      size: manifest.length,
      platform: { architecture: 'amd64', os: 'linux' },
    },
    blobs: [
      { digest: configDigest, bytes: config },
      { digest: layerDigest, bytes: layer },
    ],
  };
}

/** A ustar archive holding one executable file. */
function tarOf(name: string, content: Uint8Array): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000755\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148); // the checksum field counts as spaces while summing
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = (512 - (content.length % 512)) % 512;
  return Buffer.concat([header, content, Buffer.alloc(padding), Buffer.alloc(1024)]);
}
