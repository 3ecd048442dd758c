/**
 * What a chart's templates say about its values when the values file says nothing: the sentry
 * chart comments out `# repository: getsentry/sentry` and `# tag: Chart.AppVersion`, and only its
 * `_helper.tpl` knows them (`default "getsentry/sentry" .Values.images.sentry.repository`,
 * `default .Chart.AppVersion .Values.images.sentry.tag`). Read, never rendered: a regex over the
 * two spellings of Helm's `default` (argument and pipe).
 */
export interface TemplateDefaults {
  /** values path (`images.sentry`) -> the repository its templates default to. */
  repositories: Map<string, string>;
  /** values paths whose `tag` defaults to the chart's appVersion. */
  appVersionTags: Set<string>;
}

const VALUES = String.raw`\.Values\.([A-Za-z0-9_.]+)`;
const REPO_ARG = new RegExp(String.raw`default\s+"([^"\s]+)"\s+${VALUES}\.repository\b`, 'g');
const REPO_PIPE = new RegExp(String.raw`${VALUES}\.repository\s*\|\s*default\s+"([^"\s]+)"`, 'g');
const TAG_ARG = new RegExp(String.raw`default\s+\.Chart\.AppVersion\s+${VALUES}\.tag\b`, 'g');
const TAG_PIPE = new RegExp(String.raw`${VALUES}\.tag\s*\|\s*default\s+\.Chart\.AppVersion\b`, 'g');

export function templateDefaults(templates: string): TemplateDefaults {
  const repositories = new Map<string, string>();
  for (const m of templates.matchAll(REPO_ARG)) repositories.set(m[2]!, m[1]!);
  for (const m of templates.matchAll(REPO_PIPE)) repositories.set(m[1]!, m[2]!);
  const appVersionTags = new Set<string>();
  for (const m of templates.matchAll(TAG_ARG)) appVersionTags.add(m[1]!);
  for (const m of templates.matchAll(TAG_PIPE)) appVersionTags.add(m[1]!);
  return { repositories, appVersionTags };
}
