import { DockerfileParser, type Instruction } from 'dockerfile-ast';

/** A position range in the file, as the parser gives it (lines and characters from 0). */
type Range = { start: { line: number; character: number }; end: { line: number; character: number } };

/**
 * A Dockerfile read into stages and instructions, as BuildKit reads it: the `# syntax=` directive,
 * the ARGs before the first FROM (what FROM lines may use), and per stage its base, name,
 * `--platform`, and each instruction with its flags (`--mount=type=cache,target=/x` keeps its
 * options) and whether it carries a heredoc. Pure: the text in, data out.
 *
 * Parsed by dockerfile-ast (the parser of the Dockerfile language server VS Code and others use):
 * it handles line continuations, the `escape` directive, comments inside continued lines, JSON
 * and shell forms, flags and heredocs, which a line-by-line reader of our own would get wrong.
 */
export interface DockerfileFlag {
  name: string;
  /** `--link` has no value. */
  value: string | undefined;
  /** `--mount=type=cache,target=/x` -> { type: 'cache', target: '/x' }. */
  options: Record<string, string>;
}

export interface DockerfileInstruction {
  /** Upper case: `RUN`, `COPY`. */
  keyword: string;
  /** 1-based line of the instruction's first line. */
  line: number;
  /** The arguments after the flags, continuation lines joined. */
  args: string;
  flags: DockerfileFlag[];
  /** A heredoc (`RUN <<EOF`, `COPY <<EOF /x`). */
  heredoc: boolean;
}

export interface DockerfileStage {
  /** 0-based, as `COPY --from=0` counts. */
  index: number;
  /** `FROM ... AS <name>`, lower-cased as BuildKit compares them. */
  name: string | undefined;
  /** The image as written (`node:20-slim`, `${BASE}`, an earlier stage's name, `scratch`). */
  from: string;
  /** `FROM --platform=...`, as written. */
  platform: string | undefined;
  line: number;
  /** The stage's instructions after its FROM. */
  instructions: DockerfileInstruction[];
}

export interface ParsedDockerfile {
  /** The `# syntax=` directive's value: the frontend image BuildKit fetches to read the file. */
  syntax: string | undefined;
  /** ARGs before the first FROM, with their defaults. */
  globalArgs: { name: string; default: string | undefined }[];
  stages: DockerfileStage[];
}

/**
 * A one-line ARG value as written: the parser drops the backslash of `${P/\//-}`, and the
 * substitution must see it to tell the pattern's slash from the one before the replacement.
 */
function rawValue(text: string, property: { getValueRange(): Range | null }): string | undefined {
  const range = property.getValueRange();
  if (!range || range.start.line !== range.end.line) return undefined;
  return text.split('\n')[range.start.line]?.slice(range.start.character, range.end.character);
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const dockerfile = DockerfileParser.parse(text);
  const syntax = dockerfile
    .getDirectives()
    .find((d) => d.getName().toLowerCase() === 'syntax')
    ?.getValue();
  const globalArgs = dockerfile.getInitialARGs().flatMap((arg) => {
    const property = arg.getProperty();
    const name = property?.getName();
    return name ? [{ name, default: rawValue(text, property!) ?? property?.getValue() ?? undefined }] : [];
  });
  const stages: DockerfileStage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword().toUpperCase();
    if (keyword === 'FROM') {
      const from = dockerfile.getFROMs().find((f) => sameRange(f, instruction));
      stages.push({
        index: stages.length,
        name: from?.getBuildStage()?.toLowerCase() ?? undefined,
        from: from?.getImage() ?? '',
        platform: flagsOf(instruction).find((f) => f.name === 'platform')?.value,
        line: instruction.getRange().start.line + 1,
        instructions: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) continue; // ARGs before the first FROM are in globalArgs
    const content = instruction.getArgumentsContent() ?? '';
    stage.instructions.push({
      keyword,
      line: instruction.getRange().start.line + 1,
      args: content,
      flags: flagsOf(instruction),
      heredoc: /^<<-?["']?[A-Za-z_][A-Za-z0-9_]*["']?/m.test(heredocCandidate(keyword, content)),
    });
  }
  return { syntax: syntax || undefined, globalArgs, stages };
}

/** RUN, COPY and ADD take heredocs; look at their arguments only. */
function heredocCandidate(keyword: string, content: string): string {
  if (!['RUN', 'COPY', 'ADD'].includes(keyword)) return '';
  return content
    .split(/\s+/)
    .filter((word) => word.startsWith('<<'))
    .join('\n');
}

function flagsOf(instruction: Instruction): DockerfileFlag[] {
  const withFlags = instruction as Instruction & {
    getFlags?: () => {
      getName(): string;
      getValue(): string | null;
      getOptions?: () => { getName(): string; getValue(): string | null }[];
    }[];
  };
  return (withFlags.getFlags?.() ?? []).map((flag) => ({
    name: flag.getName().toLowerCase(),
    value: flag.getValue() ?? undefined,
    options: Object.fromEntries(
      (flag.getOptions?.() ?? []).map((option) => [option.getName().toLowerCase(), option.getValue() ?? '']),
    ),
  }));
}

function sameRange(a: Instruction, b: Instruction): boolean {
  const [x, y] = [a.getRange().start, b.getRange().start];
  return x.line === y.line && x.character === y.character;
}
