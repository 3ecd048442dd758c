import { CONFIG_SCHEMA_REF as SCHEMA_REF } from '../config/json-schema.ts';
import { printable } from '../text/printable.ts';
import type { InitPlan } from './plan-config.ts';

// Release candidates are signed: the public key `release keygen` writes, committed beside the config.
export const SIGNING = { publicKey: 'release-signing.pub' };

/**
 * The top-level keys besides the plan's: `signing` (init's default, or the user's under --force)
 * and any other a user's config had (kept by --force as they were).
 */
export type ConfigRest = Record<string, unknown>;

/** The config as `release.config.json`: the plan's values, with the `$schema` line editors read. */
export function renderJsonConfig(plan: InitPlan, rest: ConfigRest = { signing: SIGNING }): string {
  const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));
  const versionVariables = hasVersionVariables(plan) ? { versionVariables: plan.versionVariables } : {};
  const { signing, ...others } = rest;
  return `${JSON.stringify({ $schema: SCHEMA_REF, registry: plan.registry, ...versionVariables, ...(signing === undefined ? {} : { signing }), ...others, artifacts }, null, 2)}\n`;
}

function hasVersionVariables(plan: InitPlan): boolean {
  return plan.versionVariables.server.length + plan.versionVariables.client.length > 0;
}

/**
 * The config as `release.config.ts`, commented: what each artifact was found from, what was
 * guessed, and what is still to fill in. `withTypes`: service-release is installed in the project,
 * so the config may import `defineConfig` (types and completion); otherwise a plain object.
 */
export function renderTsConfig(
  plan: InitPlan,
  withTypes: boolean,
  rest: ConfigRest = { signing: SIGNING },
): string {
  const { signing, ...others } = rest;
  const lines: string[] = [
    '// The release configuration, written by `release init` from what it found in this repository.',
    '// Every key: docs/reference/config.md in the service-release package; check it with',
    '// `npx release build --dry-run`.',
  ];
  if (plan.todo.length) {
    lines.push('//', '// Still to fill in:');
    for (const todo of plan.todo) lines.push(...wrap(`- ${commentText(todo)}`, '//   '));
  }
  if (withTypes)
    lines.push("import { defineConfig } from 'service-release';", '', 'export default defineConfig({');
  else lines.push('', 'export default {');
  lines.push(
    '  // Where images go: a registry and namespace, or an OCI layout directory (no registry needed).',
    `  registry: ${literal(plan.registry)},`,
    ...(hasVersionVariables(plan)
      ? [
          '  // Build args and client variables that carry the version: release build sets each to it,',
          '  // beside SERVICE_VERSION (server) and SERVICE_CLIENT_VERSION (client).',
          `  versionVariables: ${value(plan.versionVariables, '  ')},`,
        ]
      : []),
    ...(signing === undefined
      ? []
      : [
          '  // The key release candidates are signed with: `npx release keygen` writes release-signing.pub',
          '  // (commit it) and release-signing.key (a CI secret, RELEASE_SIGNING_KEY; never commit it).',
          `  signing: ${value(signing, '  ')},`,
        ]),
    ...Object.entries(others).map(([k, v]) => `  ${key(k)}: ${value(v, '  ')},`),
    '  // What is released and how each artifact is built; `false` drops a role this service does not have.',
    '  artifacts: {',
  );
  for (const artifact of plan.artifacts) {
    for (const note of artifact.notes) lines.push(...wrap(commentText(note), '    // '));
    lines.push(`    ${key(artifact.name)}: ${value(artifact.value, '    ')},`);
  }
  lines.push('  },', withTypes ? '});' : '};', '');
  return lines.join('\n');
}

function value(v: unknown, indent: string): string {
  if (v === null || typeof v !== 'object') return literal(v);
  const inline = oneLine(v);
  if (inline.length + indent.length <= 100) return inline;
  const inner = `${indent}  `;
  if (Array.isArray(v))
    return `[\n${v.map((item) => `${inner}${value(item, inner)},`).join('\n')}\n${indent}]`;
  const entries = Object.entries(v).map(([k, item]) => `${inner}${key(k)}: ${value(item, inner)},`);
  return `{\n${entries.join('\n')}\n${indent}}`;
}

function oneLine(v: unknown): string {
  if (v === null || typeof v !== 'object') return literal(v);
  if (Array.isArray(v)) return `[${v.map(oneLine).join(', ')}]`;
  const entries = Object.entries(v).map(([k, item]) => `${key(k)}: ${oneLine(item)}`);
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}

/**
 * A value as a TypeScript literal, by JSON's serializer (every control character, line separator
 * and lone surrogate escaped), in single quotes as the file's own style: a name with a newline,
 * quotes, backslashes, `${` or `*\/` stays one string on one line.
 */
function literal(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v);
  const json = JSON.stringify(v).slice(1, -1);
  const body = json.replace(/\\.|'|[\u2028\u2029]/g, (m) =>
    m === '\\"' ? '"' : m === "'" ? "\\'" : m.length === 1 ? `\\u${m.charCodeAt(0).toString(16)}` : m,
  );
  return `'${body}'`;
}

/**
 * Text from the repository (paths, names) in a `//` comment: nothing may end the comment early (a
 * newline or a line separator) or reach a terminal that shows the file (escapes): the project's
 * sanitiser, and the two line separators JavaScript ends a comment at.
 */
function commentText(text: string): string {
  return printable(text, { max: 2000 }).replace(
    /[\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
}

function key(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : literal(k);
}

function wrap(text: string, prefix: string, width = 100): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && prefix.length + line.length + word.length + 1 > width) {
      out.push(`${prefix}${line}`);
      line = `  ${word}`;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(`${prefix}${line}`);
  return out;
}
