import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { parseAllDocuments } from 'yaml';

// GitLab's own CI schema (gitlab-org/gitlab app/assets/javascripts/editor/schema/ci.json), as
// gitlab-ci-local (a devDependency) bundles it, checked in process with ajv. Why not run
// `gitlab-ci-local --list`: its bundle needs Node 22 (`Set.prototype.union`) and crashes on the
// Node 20.19 we support; and it relaxes the schema before use (drops four patterns), while the
// literal in the bundle is GitLab's file as published. No network, no git repository, no process.

const BUNDLE = 'gitlab-ci-local/dist/index.js';
const SCHEMA_ID = '$id:"https://gitlab.com/.gitlab-ci.yml"';

/** The end of the object or array literal that opens at `start`, skipping string contents. */
function literalEnd(source: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') if (--depth === 0) return i + 1;
  }
  throw new Error(`${BUNDLE}: the CI schema literal does not end`);
}

/** GitLab's CI schema, read out of the gitlab-ci-local bundle (a minified object literal). */
export function loadGitlabCiSchema(): Record<string, unknown> {
  const path = createRequire(import.meta.url).resolve(BUNDLE);
  const source = readFileSync(path, 'utf8');
  const at = source.indexOf(SCHEMA_ID);
  const start = source.lastIndexOf('={', at) + 1;
  if (at < 0 || start === 0)
    throw new Error(`${path}: no GitLab CI schema (${SCHEMA_ID}); has the bundle's layout changed?`);
  // A literal of strings, numbers and `!0`/`!1`, not JSON: evaluated with no globals and a time limit.
  const schema = runInNewContext(`(${source.slice(start, literalEnd(source, start))})`, Object.create(null), {
    timeout: 5000,
  }) as Record<string, unknown>;
  const definitions = schema['definitions'] as Record<string, unknown> | undefined;
  if (schema['$id'] !== 'https://gitlab.com/.gitlab-ci.yml' || !definitions?.['job_template'])
    throw new Error(`${path}: what was read is not GitLab's CI schema`);
  return schema;
}

let validate: ReturnType<Ajv['compile']> | undefined;

function message(error: ErrorObject): string {
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  return `${error.instancePath || '/'} ${error.message ?? error.keyword}${extra ? ` (${extra})` : ''}`;
}

const INPUT = /\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g;

/** `$[[ inputs.x ]]` in every key and string value of a parsed document replaced, as GitLab interpolates a component (after parsing, so a value can't break the YAML). */
function interpolate(node: unknown, inputs: Record<string, string>, problems: string[]): unknown {
  if (typeof node === 'string')
    return node.replace(INPUT, (_, name: string) => {
      if (name in inputs) return inputs[name]!;
      problems.push(`input ${name} is used but not declared in spec:inputs`);
      return '';
    });
  if (Array.isArray(node)) return node.map((item) => interpolate(item, inputs, problems));
  if (node && typeof node === 'object')
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        interpolate(k, inputs, problems),
        interpolate(v, inputs, problems),
      ]),
    );
  return node;
}

function check(value: unknown, label: string, problems: string[]): void {
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    validate = ajv.compile(loadGitlabCiSchema());
  }
  // allErrors reports every failed branch of a oneOf/anyOf too: each distinct message once.
  if (!validate(value))
    problems.push(...new Set((validate.errors ?? []).map((e) => `${label}: ${message(e)}`)));
}

/**
 * What GitLab's CI schema says of a pipeline file; empty when GitLab would take it. A CI/CD
 * component (a `spec:` header document, then the jobs) is checked as GitLab reads it: the header on
 * its own, the jobs after each `$[[ inputs.x ]]` is replaced by `inputs[x]` or the input's default.
 */
export function gitlabSchemaErrors(text: string, inputs: Record<string, string> = {}): string[] {
  const problems: string[] = [];
  const documents = parseAllDocuments(text);
  for (const document of documents)
    if ('errors' in document) problems.push(...document.errors.map((e) => `YAML: ${e.message}`));
  if (problems.length > 0 || documents.length === 0)
    return problems.length > 0 ? problems : ['no YAML document'];
  const values = documents.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown);
  if (values.length > 2) return [`${values.length} YAML documents; GitLab reads a header and one body`];
  if (values.length === 1) {
    check(values[0], 'pipeline', problems);
    return problems;
  }
  check(values[0], 'spec header', problems);
  const declared =
    (values[0] as { spec?: { inputs?: Record<string, { default?: unknown }> } }).spec?.inputs ?? {};
  const used = new Set([...documents[1]!.toString().matchAll(INPUT)].map((m) => m[1]!));
  const givenOrDefault: Record<string, string> = {};
  for (const [name, spec] of Object.entries(declared)) {
    if (!used.has(name)) problems.push(`input ${name} is declared but not used`);
    const value = inputs[name] ?? spec?.default;
    if (value === undefined) problems.push(`input ${name} has no default and no value given`);
    givenOrDefault[name] = String(value ?? '');
  }
  for (const name of Object.keys(inputs))
    if (!(name in declared)) problems.push(`input ${name} is given but not declared in spec:inputs`);
  check(interpolate(values[1], givenOrDefault, problems), 'jobs', problems);
  return problems;
}

/**
 * A component's jobs as GitLab hands them to a runner: the body parsed, then every `$[[ inputs.x ]]`
 * replaced by `inputs[x]` or the input's default (GitLab interpolates after parsing).
 */
export function interpolatedJobs(
  text: string,
  inputs: Record<string, string> = {},
): Record<string, Record<string, unknown>> {
  const [header, body] = parseAllDocuments(text).map((d) => ('errors' in d ? d.toJS() : undefined));
  const declared =
    (header as { spec?: { inputs?: Record<string, { default?: unknown }> } }).spec?.inputs ?? {};
  const values = Object.fromEntries(
    Object.entries(declared).map(([name, spec]) => [name, inputs[name] ?? String(spec?.default ?? '')]),
  );
  return interpolate(body, values, []) as Record<string, Record<string, unknown>>;
}
