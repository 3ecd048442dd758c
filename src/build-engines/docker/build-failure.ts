import { printable } from '../../text/printable.ts';

/** What the builder said about a failed build, read from its plain progress output. */
export interface BuildFailure {
  /** The failing step as BuildKit names it (`[build 2/3] RUN npm ci`); undefined when none was. */
  step: string | undefined;
  /** BuildKit's error for it (`process "/bin/sh -c npm ci" did not complete successfully: exit code: 1`). */
  error: string;
  /** The failing step's own last output lines (what the command printed before it failed). */
  output: string[];
}

const OUTPUT_LINES = 12;
const LINE_MAX = 240;

/**
 * The failing step of a BuildKit build from its `--progress=plain` output: the `#N ERROR: ...`
 * line, the title of step N (`#N [stage x/y] RUN ...`) and the last lines step N printed
 * (`#N 0.512 text`), each bounded and escaped. Without a step error (the Dockerfile could not be
 * read, a base could not be resolved), the builder's last error line. Pure.
 */
export function readBuildFailure(log: string): BuildFailure {
  const lines = log.split(/\r?\n/);
  let id: string | undefined;
  let error = '';
  for (const line of lines) {
    const match = /^#(\d+) ERROR:\s?(.*)$/.exec(line);
    if (match) {
      id = match[1];
      error = match[2] ?? '';
      break;
    }
  }
  if (id === undefined) {
    const last = [...lines]
      .reverse()
      .find((line) => /^(?:ERROR|error)(?:\[.*\])?:|failed to solve|^Error response from daemon/.test(line));
    const fallback = last ?? [...lines].reverse().find((line) => line.trim() !== '') ?? 'the build failed';
    return { step: undefined, error: clean(fallback.replace(/^(?:ERROR|error):\s*/, '')), output: [] };
  }
  const own = lines.filter((line) => line.startsWith(`#${id} `)).map((line) => line.slice(id!.length + 2));
  const step = own.find((text) => !/^(?:sha256:|DONE|CACHED|ERROR|\d+\.\d+ )/.test(text));
  const output = own
    .filter((text) => /^\d+\.\d+ /.test(text))
    .map((text) => text.replace(/^\d+\.\d+ /, ''))
    .slice(-OUTPUT_LINES);
  return {
    step: step === undefined ? undefined : clean(step),
    error: clean(error),
    output: output.map(clean),
  };
}

/** The failure as the lines of an error message: the step, its error, its last output indented. */
export function formatBuildFailure(failure: BuildFailure): string {
  return [
    ...(failure.step ? [`failed step: ${failure.step}`] : []),
    `error: ${failure.error}`,
    ...(failure.output.length ? ['its last output:', ...failure.output.map((line) => `  | ${line}`)] : []),
  ].join('\n');
}

function clean(text: string): string {
  return printable(text.trimEnd(), { max: LINE_MAX });
}
