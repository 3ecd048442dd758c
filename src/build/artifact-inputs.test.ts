import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { artifactInputs, toolkitOutputs } from './artifact-inputs.ts';

describe('artifact inputs and the toolkit outputs', () => {
  const config = validateConfig(
    {
      registry: 'oci-layout:.release/oci',
      artifacts: {
        api: { image: 'acme-api', files: [{ from: './api/dist/server.mjs', to: '/srv/api/server.mjs' }] },
        worker: { image: 'acme-worker', files: [{ from: 'worker/', to: '/srv/worker' }] },
        web: { image: 'acme-web', context: 'web', base: 'oci-layout:.release/base/node:20' },
        cli: { package: 'acme-cli', build: { command: ['sh', 'b.sh'], archive: 'dist/acme-cli.tar.gz' } },
      },
    },
    'test',
  );

  it('lists each image artifact’s context and files, tidied, once', () => {
    expect(artifactInputs(config)).toEqual(['api/dist/server.mjs', 'web', 'worker']);
  });

  it('lists what the toolkit writes: record, stamp files, CLI archive and signature, layouts', () => {
    expect(toolkitOutputs(config)).toEqual([
      '.release/base',
      '.release/oci',
      'dist/acme-cli.tar.gz',
      'dist/acme-cli.tar.gz.sig',
      'dist/build-args.json',
      'dist/cli-version.json',
      'dist/release.env',
      'dist/release.json',
    ]);
  });
});
