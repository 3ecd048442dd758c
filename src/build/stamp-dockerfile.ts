import type { DockerfileStage } from './dockerfile-stages.ts';

/** The stage `release build` adds after the one it builds, and the name it gives an unnamed last stage. */
export const STAMPED_STAGE = 'release-stamped';
const NAMED_LAST_STAGE = 'release-target';

/**
 * The Dockerfile with one stage appended, `FROM <built stage> AS release-stamped` and one `ENV`
 * of the version variables: the image's environment then carries the version whatever the
 * project's Dockerfile does with its build args (a build arg or a label is not an env). ENV adds
 * no layer, so the image's layers are the target's own. An unnamed last stage is named first (a
 * FROM cannot name a stage by its index). Line numbers are unchanged, so the builder's errors
 * still point at the project's lines.
 */
export function stampDockerfile(
  text: string,
  stage: DockerfileStage,
  env: Record<string, string>,
  /** Why the `# syntax=` directive is dropped (its frontend image cannot be fetched); undefined: kept. */
  dropSyntax?: string,
): { text: string; target: string } {
  let source = text;
  if (dropSyntax !== undefined)
    // Same line count: the builder's errors still point at the project's lines.
    source = source.replace(
      /^(#[ \t]*)syntax[ \t]*=[^\n]*/im,
      `# release build used the engine's own Dockerfile frontend: ${dropSyntax.replace(/[\r\n]/g, ' ')}`,
    );
  let name = stage.name;
  if (!name) {
    const lines = source.split('\n');
    const at = stage.line - 1;
    const line = lines[at] ?? '';
    // A FROM continued on the next line is rare; name it on its last physical line then.
    let end = at;
    while ((lines[end] ?? '').trimEnd().endsWith('\\') && end + 1 < lines.length) end++;
    lines[end] = `${(lines[end] ?? line).replace(/\s+$/, '')} AS ${NAMED_LAST_STAGE}`;
    source = lines.join('\n');
    name = NAMED_LAST_STAGE;
  }
  const pairs = Object.entries(env).map(([key, value]) => `${key}="${escapeEnvValue(value)}"`);
  const added = [
    '',
    '# Added by release build: the version in the image environment.',
    `FROM ${name} AS ${STAMPED_STAGE}`,
    ...(pairs.length ? [`ENV ${pairs.join(' ')}`] : []),
    '',
  ];
  return { text: `${source.replace(/\n*$/, '\n')}${added.join('\n')}`, target: STAMPED_STAGE };
}

/** Inside double quotes ENV still expands `$` and reads `\` as the escape character. */
function escapeEnvValue(value: string): string {
  return value.replace(/[\\"$]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ');
}
