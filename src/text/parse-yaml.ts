import { Composer, CST, type Document, isScalar, Lexer, LineCounter, Parser, visit } from 'yaml';

/**
 * The one way the toolkit parses YAML it did not write: deployment files, Compose files, configs.
 * The `yaml` package left to itself takes minutes on hostile input (a long line of `"x" "x" …`
 * makes one pretty error per token, each with a copy of the line; 50,000 aliases are resolved in
 * quadratic time; 500,000 `---` make as many documents), so the text is lexed here, counted as it
 * goes, and stopped at the first syntax error or the first bound crossed. Keys are not held unique
 * by the parser (the last wins, as Helm, Compose and kubectl read them): `duplicates` names each
 * key given twice in one map, with its line, for the reader to refuse.
 */
export interface YamlLimits {
  /** Documents in one stream (`---` separated). */
  maxDocuments?: number;
  /** Alias nodes (`*name`) in the whole stream. */
  maxAliases?: number;
  /** Milliseconds of lexing and composing before the parse gives up. */
  budgetMs?: number;
}

export interface YamlOptions extends YamlLimits {
  /** `<<` merge keys (Compose files use them; YAML 1.2 left them out). */
  merge?: boolean;
}

export type YamlProblemCode =
  | 'YAML_SYNTAX'
  | 'YAML_TOO_MANY_DOCUMENTS'
  | 'YAML_TOO_MANY_ALIASES'
  | 'YAML_TOO_SLOW';

export interface YamlProblem {
  code: YamlProblemCode;
  /** One line, without the source excerpt. */
  message: string;
  /** 1-based, where the parse stopped. */
  line: number;
}

export interface DuplicateKey {
  key: string;
  /** 1-based line of the second (and each later) occurrence. */
  line: number;
}

export interface YamlRead {
  /** Every document, unless `problem` says why the parse stopped (then what came before it). */
  documents: Document.Parsed[];
  problem?: YamlProblem;
  duplicates: DuplicateKey[];
}

export const YAML_LIMITS: Required<YamlLimits> = { maxDocuments: 1_000, maxAliases: 1_000, budgetMs: 10_000 };

/** Parse `text` within the limits (synchronously: for text already bounded in size). */
export function readYaml(text: string, options: YamlOptions = {}): YamlRead {
  const steps = parseSteps(text, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * As `readYaml`, giving the event loop a turn every few milliseconds, so that a signal (SIGTERM,
 * Ctrl-C) stops the run while a large file is being read.
 */
export async function readYamlAsync(text: string, options: YamlOptions = {}): Promise<YamlRead> {
  const steps = parseSteps(text, options);
  let turn = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - turn > 20) {
      await new Promise((done) => setImmediate(done));
      turn = performance.now();
    }
  }
}

/** Thrown inside the composer to stop it at the first problem. */
class Stop {
  constructor(readonly problem: Omit<YamlProblem, 'line'> & { offset: number }) {}
}

type ErrorSource = number | [number, number] | { offset: number };

function* parseSteps(text: string, options: YamlOptions): Generator<void, YamlRead> {
  const limits = { ...YAML_LIMITS, ...options };
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  const composer = new Composer({
    prettyErrors: false,
    uniqueKeys: false,
    merge: Boolean(options.merge),
  });
  // The composer collects every error of a document before it hands the document over; the
  // first one is all a reader needs, and collecting the rest is what takes minutes. (A nested
  // collection catches what is thrown and reports it again as RESOURCE_EXHAUSTION: the first
  // problem is thrown again, unchanged.)
  let first: Stop | undefined;
  (composer as unknown as { onError: unknown }).onError = (
    source: ErrorSource,
    code: string,
    message: string,
    warning?: boolean,
  ) => {
    if (warning) return;
    const offset = typeof source === 'number' ? source : Array.isArray(source) ? source[0] : source.offset;
    first ??= new Stop({ code: 'YAML_SYNTAX', message: `${code}: ${message.split('\n')[0]}`, offset });
    throw first;
  };
  lines.addNewLine(0);
  const documents: Document.Parsed[] = [];
  const started = performance.now();
  let offset = 0;
  let aliases = 0;
  let count = 0;
  let atScalar = false;
  const take = (docs: Iterable<Document.Parsed>) => {
    for (const doc of docs) {
      documents.push(doc);
      if (documents.length > limits.maxDocuments)
        throw new Stop({
          code: 'YAML_TOO_MANY_DOCUMENTS',
          message: `more than ${limits.maxDocuments} documents`,
          offset,
        });
    }
  };
  try {
    for (const lexeme of new Lexer().lex(text)) {
      // A scalar's text follows its SCALAR marker: only other lexemes are tokens by their first character.
      if (atScalar) atScalar = false;
      else {
        const type = CST.tokenType(lexeme);
        if (type === 'scalar') atScalar = true;
        else if (type === 'alias' && ++aliases > limits.maxAliases)
          throw new Stop({
            code: 'YAML_TOO_MANY_ALIASES',
            message: `more than ${limits.maxAliases} aliases`,
            offset,
          });
      }
      for (const token of parser.next(lexeme)) take(composer.next(token));
      offset += lexeme.length;
      if (++count % 2048 === 0) {
        if (performance.now() - started > limits.budgetMs)
          throw new Stop({
            code: 'YAML_TOO_SLOW',
            message: `not parsed within ${limits.budgetMs} ms`,
            offset,
          });
        yield;
      }
    }
    for (const token of parser.end()) take(composer.next(token));
    take(composer.end());
  } catch (thrown) {
    if (!(thrown instanceof Stop)) throw thrown;
    const { offset: at, ...problem } = thrown.problem;
    return { documents, problem: { ...problem, line: lines.linePos(at).line }, duplicates: [] };
  }
  const broken = documents.flatMap((d) => d.errors)[0];
  if (broken)
    return {
      documents,
      problem: {
        code: 'YAML_SYNTAX',
        message: `${broken.code}: ${broken.message.split('\n')[0]}`,
        line: lines.linePos(broken.pos[0]).line,
      },
      duplicates: [],
    };
  return { documents, duplicates: duplicateKeys(documents, lines) };
}

function duplicateKeys(documents: Document.Parsed[], lines: LineCounter): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  for (const doc of documents)
    visit(doc, {
      Map(_, map) {
        const seen = new Set<string>();
        for (const pair of map.items) {
          if (!isScalar(pair.key)) continue;
          const key = String(pair.key.value);
          if (seen.has(key)) found.push({ key, line: lines.linePos(pair.key.range?.[0] ?? 0).line });
          seen.add(key);
        }
      },
    });
  return found;
}

/**
 * The first document of `text` as plain data, aliases expanded at most `maxAliases` times in
 * all; or the problem that stopped the parse (a circular or excessive alias included).
 */
export function readYamlValue(
  text: string,
  options: YamlOptions = {},
): { value: unknown; duplicates: DuplicateKey[] } | { problem: YamlProblem } {
  const read = readYaml(text, options);
  if (read.problem) return { problem: read.problem };
  const doc = read.documents[0];
  if (!doc) return { value: null, duplicates: [] };
  try {
    return {
      value: doc.toJS({ maxAliasCount: options.maxAliases ?? YAML_LIMITS.maxAliases }),
      duplicates: read.duplicates,
    };
  } catch (error) {
    // toJS throws past maxAliasCount (a "billion laughs" file) and on an alias with no anchor.
    return {
      problem: { code: 'YAML_TOO_MANY_ALIASES', message: (error as Error).message.split('\n')[0]!, line: 1 },
    };
  }
}
