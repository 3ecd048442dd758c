import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { UsageError } from '../errors.ts';
import type { BaseContext } from '../pipeline/context.ts';
import { probeDeployment } from '../verify/probe-deployment.ts';
import type { ImageReadingRequest, WorkerEngine } from '../verify/worker-engines.ts';
import type { DeploymentEngineEntry } from './deployment-engine-entry.ts';
import { DEPLOYMENT_ENGINES, engineReaders } from './deployment-engines.ts';
import { deploymentOptions } from './deployment-options.ts';
import { deploymentTargets, engineFlags, type TargetWording, targetReaders } from './deployment-targets.ts';

const wording: TargetWording = {
  command: 'verify',
  noUrl: { message: 'which deployment?', hint: 'release verify --url …' },
  allHint: 'drop them',
};

function base(deployments: unknown[] = []): BaseContext {
  return {
    cwd: '/srv',
    configDir: '/srv',
    config: validateConfig({ deployments }, 'test'),
    env: {},
    dryRun: false,
    json: false,
    warnings: [],
  };
}

/** What the third engine's reader was asked, to show verify reads the worker through it. */
const asked: { target: unknown; request: ImageReadingRequest }[] = [];

/** A third engine's reader, as its folder would export it: Nomad allocations of an image. */
const nomadReader: WorkerEngine = {
  name: 'nomad',
  runs: (target) => target.name === 'nomad',
  readImage: async (target, request) => {
    asked.push({ target, request });
    return [{ name: request.name ?? 'worker', source: `nomad ${target['namespace']}`, version: 'v1.4.0' }];
  },
  readApiPerNode: async () => [],
};

/** A third engine as a new folder would declare it: its flags, its refusal, its target, its reader. */
const nomad: DeploymentEngineEntry = {
  name: 'nomad',
  title: 'a Nomad namespace',
  options: [new Option('--nomad <address>'), new Option('--nomad-namespace <ns>')],
  refuse: (flags, { code }) =>
    flags['nomadNamespace'] && !flags['nomad']
      ? new UsageError(`${code}_NAMESPACE_WITHOUT_NOMAD`, '--nomad-namespace needs --nomad')
      : undefined,
  fromFlags: async (flags) =>
    flags['nomad']
      ? {
          engine: { name: 'nomad', address: flags['nomad'], namespace: flags['nomadNamespace'] ?? 'default' },
        }
      : undefined,
  reader: async () => nomadReader,
};

const engines = [nomad, ...DEPLOYMENT_ENGINES];

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe('the deployment engines of verify and watch', () => {
  it("adds the built-in engines' flags after the URLs, each once, in registry order", () => {
    const command = deploymentOptions(new Command(), 'the API');
    expect(command.options.map((o) => o.long)).toEqual([
      '--url',
      '--web-url',
      '--worker-url',
      '--compose',
      '--project-name',
      '--docker',
      '--docker-host',
      '--url-per-node',
    ]);
    expect(engineFlags()).toEqual(['compose', 'projectName', 'docker', 'dockerHost', 'urlPerNode']);
  });

  it('takes a third engine from its entry alone: its flags, its refusals, its target, its reader', async () => {
    // Flags: verify's and watch's option list, and what --all and --manifests refuse beside them.
    const command = deploymentOptions(new Command(), 'the API', engines).exitOverride();
    expect(command.options.map((o) => o.long).slice(3, 5)).toEqual(['--nomad', '--nomad-namespace']);
    command.parse(
      ['--url', 'http://127.0.0.1:9/', '--nomad', 'http://nomad:4646', '--nomad-namespace', 'shop'],
      {
        from: 'user',
      },
    );
    const flags = command.opts();
    expect(engineFlags(engines).slice(0, 2)).toEqual(['nomad', 'nomadNamespace']);
    expect(
      await codeOf(
        deploymentTargets(
          { all: true, nomad: 'x' },
          base([{ name: 'a', url: 'http://a' }]),
          wording,
          engines,
        ),
      ),
    ).toBe('VERIFY_ALL_WITH_TARGET');
    expect(
      await codeOf(deploymentTargets({ url: 'http://a', nomadNamespace: 'shop' }, base(), wording, engines)),
    ).toBe('VERIFY_NAMESPACE_WITHOUT_NOMAD');

    // Targets: built from the flags by the entry, named for its reader.
    const targets = await deploymentTargets(flags, base(), wording, engines);
    expect(targets).toEqual([
      {
        url: 'http://127.0.0.1:9',
        engine: { name: 'nomad', address: 'http://nomad:4646', namespace: 'shop' },
      },
    ]);

    // Reader: verify reads the worker through the entry's reader, with the image asked for.
    const readers = await targetReaders(targets, engines);
    expect(readers.engines?.map((e) => e.name)).toEqual(['nomad', 'compose', 'docker']);
    const probed = await probeDeployment(targets[0]!, {
      env: {},
      cwd: '/srv',
      timeoutMs: 2_000,
      workerImage: 'acme/worker',
      cli: false,
      ...readers,
    });
    expect(probed.probed).toContain('worker');
    expect(probed.results.find((r) => r.name === 'worker')).toEqual({
      name: 'worker',
      source: 'nomad shop',
      version: 'v1.4.0',
    });
    expect(asked.map((a) => a.request.image)).toEqual(['acme/worker']);
  });

  it('loads no reader for a target that names no engine, and the built-in ones by name', async () => {
    expect(await targetReaders([{ url: 'http://a' }])).toEqual({});
    expect((await engineReaders()).map((e) => e.name)).toEqual(['compose', 'docker']);
  });
});
