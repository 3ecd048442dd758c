import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { NODE_PATH, sharedLibraries } from '../../src/build-engines/base-image.ts';
import { loadBaseIntoDocker } from '../../src/build-engines/docker/load-base.ts';
import { goArch, openBaseImage } from '../../src/oci-image/base-image-reader.ts';
import { createLayer, type LayerEntry } from '../../src/oci-image/layer.ts';
import { putImage } from '../../src/oci-image/write-image.ts';
import { parseBaseImageRef } from '../../src/registry/image-ref.ts';
import { openStore } from '../../src/registry/open-store.ts';

/** The programs a Dockerfile's RUN steps use in the suites: a shell and a few coreutils. */
const PROGRAMS = [
  '/bin/sh',
  '/bin/cat',
  '/bin/mkdir',
  '/bin/chmod',
  '/bin/ls',
  '/bin/rm',
  '/bin/cp',
  '/usr/bin/stat',
];

/**
 * Put into a private dockerd, under `name` (`acme/node:22-slim`), the base a production Dockerfile
 * hard-codes: nothing can be pulled here, so it is made from this machine (node, a POSIX shell and
 * a few coreutils with the shared libraries they load, a minimal /etc and /tmp) and loaded as
 * `docker load` takes it, the way a team imports a base it cannot pull. `node: false`: the shell only.
 */
export async function importNodeShellBase(
  docker: Docker,
  name: string,
  options: { node?: boolean } = {},
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-node-shell-base-'));
  try {
    const entries = new Map<string, LayerEntry>();
    const add = async (path: string, source: string) => {
      entries.set(path, { type: 'file', path, mode: 0o755, source: realpathSync(source) });
      for (const lib of await sharedLibraries(source))
        entries.set(lib.path, { type: 'file', path: lib.path, mode: 0o755, source: lib.source });
    };
    if (options.node !== false) await add(NODE_PATH, process.execPath);
    for (const program of PROGRAMS) await add(program, program);
    const layer = await createLayer(
      [
        ...entries.values(),
        ...(options.node === false
          ? []
          : [{ type: 'symlink' as const, path: '/usr/bin/node', target: NODE_PATH }]),
        {
          type: 'file',
          path: '/etc/passwd',
          content: 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n',
        },
        { type: 'file', path: '/etc/group', content: 'root:x:0:\nnogroup:x:65534:\n' },
        { type: 'dir', path: '/tmp', mode: 0o1777 },
      ],
      0,
      1,
    );
    const store = openStore(`oci-layout:${dir}`, { cwd: dir, env: {} });
    await putImage({
      store,
      repository: 'base',
      tags: ['1'],
      config: {
        architecture: goArch(process.arch),
        os: 'linux',
        config: { Env: ['PATH=/usr/local/bin:/usr/bin:/bin'], Cmd: ['/bin/sh'] },
        rootfs: { type: 'layers', diff_ids: [layer.diffId] },
        history: [{ created_by: 'node, sh and coreutils of the test machine' }],
      },
      layers: [layer],
    });
    const { base, close } = await openBaseImage(parseBaseImageRef(`oci-layout:${dir}/base:1`), (registry) =>
      openStore(registry, { cwd: dir, env: {} }),
    );
    try {
      await loadBaseIntoDocker(docker, base, name);
    } finally {
      await close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
