import { describe, expect, it } from 'vitest';
import type { EngineTarget } from '../deployment-engines/engine-target.ts';
import type { WorkerEngine } from './engines/worker-engine.ts';
import { deploymentEngine, WORKER_ENGINES } from './worker-engines.ts';

// Which reader reads a target: the one `engine.name` names, else the first that runs it; the
// deprecated `docker` is the same field under its first name, read only when `engine` is absent.

/** A reader that says which it is and where it was asked to read. */
function reader(name: string, runs: (t: EngineTarget) => boolean): WorkerEngine {
  return {
    name,
    runs,
    readImage: async (target) => [{ name: 'worker', source: `${name}@${JSON.stringify(target)}` }] as never,
    readApiPerNode: async () => [],
  };
}
const engines = [reader('special', (t) => t['special'] !== undefined), reader('plain', () => true)];

describe('deploymentEngine: the reader a target names', () => {
  it.each<[string, { engine?: EngineTarget; docker?: EngineTarget }, string | undefined]>([
    ['engine names its reader', { engine: { name: 'special', host: 'h' } }, 'special'],
    ['engine unnamed: the first reader that runs it', { engine: { special: 1 } }, 'special'],
    ['engine unnamed, only the last runs it', { engine: { host: 'h' } }, 'plain'],
    ['the deprecated docker, read alone', { docker: { name: 'special' } }, 'special'],
    ['the deprecated docker, unnamed', { docker: { host: 'h' } }, 'plain'],
    ['engine wins over docker', { engine: { name: 'plain' }, docker: { name: 'special' } }, 'plain'],
    ['no engine at all', {}, undefined],
  ])('%s', async (_, target, expected) => {
    const engine = deploymentEngine(target, engines);
    expect(engine?.name).toBe(expected);
    if (!engine) return;
    const [reading] = await engine.readImage({ image: 'acme/worker', env: {}, timeoutMs: 1 });
    // The reader is handed the target's own place, from whichever field held it.
    expect((reading as unknown as { source: string }).source).toBe(
      `${expected}@${JSON.stringify(target.engine ?? target.docker)}`,
    );
  });

  it('a name no reader has is our bug, said so', () => {
    expect(() => deploymentEngine({ engine: { name: 'nomad' } }, engines)).toThrow(
      'no reader for the deployment engine "nomad"',
    );
  });

  it("the default readers: a Compose project's target by either field, a bare engine as Docker", () => {
    for (const field of ['engine', 'docker'] as const) {
      expect(deploymentEngine({ [field]: { composeProject: 'acme' } }, WORKER_ENGINES)?.name).toBe('compose');
      expect(deploymentEngine({ [field]: { host: 'unix:///d.sock' } }, WORKER_ENGINES)?.name).toBe('docker');
    }
    expect(deploymentEngine({ engine: { name: 'compose', composeProject: 'acme' } })?.name).toBe('compose');
  });
});
