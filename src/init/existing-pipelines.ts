import { printable } from '../text/printable.ts';
import type { WorkflowRead } from './ci/github-workflows.ts';
import { matchesGithubFilters, type TagScheme } from './tag-scheme.ts';

/**
 * The repository's own workflows that would publish beside the pipeline init writes: one that
 * pushes the same images, or moves `latest`, on the same tags (or on a GitHub release, which
 * comes with a tag). Two pipelines then race for the same tags; `release promote` moves `latest`
 * itself, to the release it signed. Each warning names the workflow, where it builds and pushes,
 * and what to change there. Pure.
 */
export interface ExistingPipelineWarning {
  path: string;
  text: string;
}

/**
 * `images`: the repositories the config publishes (`ghcr.io/acme/acme-api`); `ours`: the
 * pipeline file init writes (not warned about).
 */
export function existingPipelineWarnings(
  workflows: readonly WorkflowRead[],
  images: readonly string[],
  tags: TagScheme,
  ours: string,
): ExistingPipelineWarning[] {
  const out: ExistingPipelineWarning[] = [];
  const releaseTag = tags.example;
  const rcTag = `${tags.example}-rc.1`;
  for (const workflow of workflows) {
    if (workflow.path === ours || workflow.unreadable) continue;
    const { triggers } = workflow;
    const onTags = [releaseTag, rcTag].filter(
      (tag) =>
        matchesGithubFilters(triggers.tags, tag) &&
        !(triggers.tagsIgnore.length && matchesGithubFilters(triggers.tagsIgnore, tag)),
    );
    const onRelease = triggers.release !== undefined;
    if (!onTags.length && !onRelease) continue;
    const pushing = workflow.builds.filter((b) => b.push !== false);
    const same = [
      ...new Set(
        [...pushing.flatMap((b) => b.images), ...workflow.pushed.map(repositoryOfRef)].filter((image) =>
          images.some((ours) => sameImage(ours, image)),
        ),
      ),
    ];
    // Only what is pushed moves a tag: a build kept local (push: false) moves nothing.
    const latest = workflow.pushed.some((ref) => /:latest$/.test(ref)) || pushing.some((b) => b.pushesLatest);
    if (!same.length && !latest) continue;
    const when = [
      ...(onTags.length
        ? [`tags ${triggers.tags.map((t) => `'${t}'`).join(', ')} (${onTags.join(', ')})`]
        : []),
      ...(onRelease ? ['a GitHub release'] : []),
    ].join(' and ');
    const what = [
      ...(same.length ? [`pushes ${same.join(', ')}`] : []),
      ...(latest ? ['moves :latest'] : []),
    ].join(' and ');
    const where = pushing
      .filter((b) => b.pushesLatest || b.images.some((i) => same.includes(i)))
      .map((b) => b.at)
      .slice(0, 3);
    out.push({
      path: workflow.path,
      text: printable(
        `${workflow.path} also ${what} on ${when}${where.length ? ` (${where.join('; ')})` : ''}: two pipelines would publish the same release. ` +
          `Change it there: drop its push of these images (push: false, or remove the job) and let the release workflow publish them${latest ? "; or at least stop it moving latest (remove ':latest' / type=raw,value=latest, or flavor latest=false): release promote --channel release moves latest to the release it signed" : ''}`,
        { max: 1500 },
      ),
    });
  }
  return out;
}

function repositoryOfRef(ref: string): string {
  const at = ref.indexOf('@');
  const noDigest = at < 0 ? ref : ref.slice(0, at);
  const colon = noDigest.lastIndexOf(':');
  return colon > noDigest.lastIndexOf('/') ? noDigest.slice(0, colon) : noDigest;
}

/**
 * The same repository: equal, equal but for Docker Hub's implied host, or, where the workflow
 * wrote its registry or namespace as an expression (`${{secrets.ORG}}/acme-api`), the same name.
 */
function sameImage(ours: string, theirs: string): boolean {
  const strip = (r: string) => r.replace(/^(docker\.io|index\.docker\.io)\//, '').replace(/^library\//, '');
  if (strip(ours) === strip(theirs)) return true;
  if (!theirs.includes('${{')) return false;
  const name = (r: string) => r.slice(r.lastIndexOf('/') + 1);
  return name(ours) === name(theirs);
}
