import { imageArtifacts } from '../../config/artifacts.ts';
import { roleCommands, roleOfCommand } from '../../config/role-of-command.ts';
import type { ReleaseConfig } from '../../config/schema.ts';
import { isImageOf } from '../../registry/image-ref.ts';

/**
 * Which of a deployment's services are one-shot jobs the config declares (`role: 'job'`): a
 * service of a job's image whose command runs the job's (roleOfCommand, as verify tells them).
 * Every engine's upgrade runs these first and waits for each to exit 0.
 */
export function jobServiceNames(
  config: Pick<ReleaseConfig, 'artifacts'>,
  services: readonly { name: string; image: string | undefined; argv: readonly string[] }[],
): Set<string> {
  const jobImages = [
    ...new Set(
      imageArtifacts(config)
        .filter((a) => a.role === 'job')
        .map((a) => a.image),
    ),
  ];
  const jobs = new Set<string>();
  for (const service of services) {
    const image = jobImages.find((repo) => service.image !== undefined && isImageOf(service.image, repo));
    if (image && roleOfCommand(service.argv, roleCommands(config, image))?.role === 'job')
      jobs.add(service.name);
  }
  return jobs;
}
