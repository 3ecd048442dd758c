import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.ts';
import { DOCKER_OPTIONS } from './docker/docker-options.ts';
import { engineOptions, enginesTitle, selectEngine, UPGRADE_ENGINES } from './engines.ts';
import type { UpgradeEngineEntry } from './upgrade-engine.ts';
import type { ConfiguredDeployment } from './upgrade-input.ts';

const deployment = (compose?: ConfiguredDeployment['compose']): ConfiguredDeployment => ({
  name: 'prod',
  url: 'https://svc.example.com',
  services: { api: 'svc_api', worker: 'svc_worker' },
  ...(compose ? { compose } : {}),
});

/** A third engine as a new folder would declare it: its own flag selects it, its own option. */
const nomad: UpgradeEngineEntry = {
  name: 'nomad',
  title: 'Nomad',
  options: [new Option('--nomad'), new Option('--nomad-namespace <ns>')],
  selects: (flags) => flags['nomad'] === true,
  strayFlags: (flags) =>
    flags['nomadNamespace'] ? new UsageError('NOMAD_ONLY', '--nomad-namespace needs --nomad') : undefined,
  load: () => Promise.reject(new Error('not loaded in this test')),
};

describe('the upgrade engine registry', () => {
  it('selects Compose by --compose or the deployment, else Swarm, as before', () => {
    expect(selectEngine({ compose: [] }, undefined).name).toBe('swarm');
    expect(selectEngine({ compose: ['docker-compose.yml'] }, undefined).name).toBe('compose');
    expect(selectEngine({ compose: [] }, deployment({ files: ['compose.yml'] })).name).toBe('compose');
    expect(selectEngine({ compose: [] }, deployment()).name).toBe('swarm');
  });

  it('refuses --project-name without a Compose project, with its own code and words', () => {
    const refused = (() => {
      try {
        selectEngine({ compose: [], projectName: 'acme' }, deployment());
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(UsageError);
    expect(refused).toMatchObject({
      code: 'UPGRADE_PROJECT_WITHOUT_COMPOSE',
      message: '--project-name names a Compose project: give its files with --compose',
    });
    expect(selectEngine({ compose: ['a.yml'], projectName: 'acme' }, undefined).name).toBe('compose');
  });

  it('adds each flag once, --docker-host shared by both Docker engines, in registry order', () => {
    const flags = engineOptions().map((o) => o.long);
    expect(flags).toEqual(['--compose', '--project-name', '--docker-host']);
    expect(UPGRADE_ENGINES.filter((e) => e.options.includes(DOCKER_OPTIONS[0]!)).map((e) => e.name)).toEqual([
      'compose',
      'swarm',
    ]);
  });

  it('takes a new engine from its entry alone: its flags, its selection, its stray flags', () => {
    const engines = [nomad, ...UPGRADE_ENGINES];
    expect(engineOptions(engines).map((o) => o.long)).toEqual([
      '--nomad',
      '--nomad-namespace',
      '--compose',
      '--project-name',
      '--docker-host',
    ]);
    expect(enginesTitle(engines)).toBe('Docker Swarm, Nomad or a Compose project');
    expect(enginesTitle()).toBe('Docker Swarm or a Compose project');
    expect(selectEngine({ nomad: true, compose: [] }, undefined, engines).name).toBe('nomad');
    expect(selectEngine({ compose: [] }, undefined, engines).name).toBe('swarm');
    expect(() => selectEngine({ compose: [], nomadNamespace: 'x' }, undefined, engines)).toThrow(
      /--nomad-namespace needs --nomad/,
    );
    expect(() => selectEngine({ nomad: true, compose: ['a.yml'] }, undefined, engines)).toThrow(
      expect.objectContaining({ code: 'UPGRADE_ENGINES_CONFLICT' }),
    );
  });
});
