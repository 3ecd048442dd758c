import {
  type InspectedService,
  inspectService,
  isOutOfSequence,
  updateService,
} from '../../../deployment-engines/swarm/swarm.ts';
import type { DockerClient } from '../../../docker-client/connect.ts';
import type { ServiceSpec } from '../../../upgrade/swarm/swarm-types.ts';

/** Reads and writes before giving up: Swarm moves an index once or twice per update it runs. */
const ATTEMPTS = 5;
const PAUSE_MS = 100;

/**
 * Read the service, let `decide` name the spec to write (or none), and write it at the version
 * index just read; resolves to what was decided. Swarm moves a service's index by itself whenever
 * the status of an update changes: the interrupted upgrade's update pausing on the very crash that
 * stopped it, an update completing. A write at the index read a moment before is then refused as
 * out of sequence although no one changed the spec, so this reads again, decides again and writes
 * again. Only for the rollback, which puts its spec over whatever is there anyway: the upgrade
 * writes at the index it planned from, as a moved index there may be someone else's change.
 */
export async function writeAtCurrentIndex(
  docker: DockerClient,
  id: string,
  decide: (service: InspectedService) => ServiceSpec | undefined,
): Promise<ServiceSpec | undefined> {
  for (let attempt = 1; ; attempt++) {
    const service = await inspectService(docker, id);
    const spec = decide(service);
    if (!spec) return undefined;
    try {
      await updateService(docker, id, service.versionIndex, spec);
      return spec;
    } catch (error) {
      if (!isOutOfSequence(error) || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
  }
}
