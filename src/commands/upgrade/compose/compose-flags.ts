import { Option } from 'commander';
import { collect } from '../option-parsers.ts';
import type { EngineFlags } from '../upgrade-input.ts';

/** The flags only the Compose engine takes (it also names the Docker ones: compose-entry.ts). */
export const COMPOSE_OPTIONS: readonly Option[] = [
  new Option(
    '--compose <file>',
    'upgrade a Compose project: its files, first file first (repeatable); --service names Compose services',
  )
    .argParser(collect)
    .default([]),
  new Option(
    '--project-name <name>',
    'with --compose: the Compose project name (default: as Compose chooses it)',
  ),
];

/** `--compose <file>` as commander parsed it: the files given, first file first. */
export function composeFlag(flags: EngineFlags): string[] {
  const files = flags['compose'];
  return Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string') : [];
}

/** `--project-name <name>`, when given. */
export function projectNameFlag(flags: EngineFlags): string | undefined {
  const name = flags['projectName'];
  return typeof name === 'string' ? name : undefined;
}
