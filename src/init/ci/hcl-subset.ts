/**
 * The part of HCL a `docker-bake.hcl` is written in, read as data: blocks with labels
 * (`target "api" { … }`), attributes of strings, numbers, booleans, lists and objects; any other
 * expression (a function call, a conditional) kept as its text, for the reader to leave alone.
 * Strings keep their `${…}` interpolations as written. Comments (`#`, `//`, `/* … *\/`) dropped.
 *
 * A bounded subset rather than a library: @cdktf/hcl2json (Go's parser in 2 MB of WASM) belongs to
 * CDK for Terraform, which HashiCorp stopped maintaining in December 2025, and hcl2-parser
 * (GopherJS, 750 KB) has had no release since 2021; bake files use only this much of HCL. One
 * pass over the text (a tokenizer with no backtracking), nesting capped at MAX_DEPTH, so a
 * hostile file costs time linear in its size. Pure.
 */
export type HclValue =
  | string
  | number
  | boolean
  | HclValue[]
  | { [key: string]: HclValue }
  | { expression: string };

export interface HclBlock {
  type: string;
  labels: string[];
  body: HclBody;
}

export interface HclBody {
  attributes: Record<string, HclValue>;
  blocks: HclBlock[];
}

export type HclRead = { body: HclBody } | { unreadable: string };

const MAX_DEPTH = 64;
const MAX_TEXT = 2 * 1024 * 1024;

type Token =
  | { kind: 'ident'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'punct'; text: string }
  | { kind: 'newline' };

export function readHcl(text: string): HclRead {
  if (text.length > MAX_TEXT) return { unreadable: `over ${MAX_TEXT / 1024 / 1024} MB` };
  let tokens: Token[];
  try {
    tokens = tokenize(text);
    const parser = new Parser(tokens);
    const body = parser.body(0, true);
    return { body };
  } catch (error) {
    return { unreadable: (error as Error).message.slice(0, 200) };
  }
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      out.push({ kind: 'newline' });
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Error('a comment is not closed');
      i = end + 2;
    } else if (c === '"') {
      // A string with `${…}` interpolations (their own braces and strings inside) and escapes.
      let j = i + 1;
      let value = '';
      let start = j;
      let depth = 0;
      for (;;) {
        if (j >= n) throw new Error('a string is not closed');
        const d = text[j]!;
        if (depth === 0 && d === '"') break;
        if (d === '\\' && j + 1 < n) {
          value += text.slice(start, j) + escaped(text[j + 1]!);
          j += 2;
          start = j;
          continue;
        }
        if (d === '$' && text[j + 1] === '{') {
          depth++;
          j += 2;
          continue;
        }
        if (depth > 0 && d === '}') depth--;
        if (d === '\n' && depth === 0) throw new Error('a string runs past its line');
        j++;
      }
      value += text.slice(start, j);
      out.push({ kind: 'string', text: value });
      i = j + 1;
    } else if (c === '<' && text[i + 1] === '<') {
      // A heredoc: `<<EOT` or `<<-EOT` up to a line holding only its marker.
      const lineEnd = text.indexOf('\n', i);
      if (lineEnd < 0) throw new Error('a heredoc is not closed');
      const marker = text
        .slice(i + 2, lineEnd)
        .replace(/^-/, '')
        .trim();
      if (!/^[A-Za-z_]\w{0,63}$/.test(marker)) throw new Error('a heredoc has no marker');
      let j = lineEnd + 1;
      let body = '';
      for (;;) {
        const end = text.indexOf('\n', j);
        const line = text.slice(j, end < 0 ? n : end);
        if (line.trim() === marker) {
          i = end < 0 ? n : end;
          break;
        }
        body += `${line}\n`;
        if (end < 0) throw new Error('a heredoc is not closed');
        j = end + 1;
      }
      out.push({ kind: 'string', text: body });
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w-]/.test(text[j]!)) j++;
      out.push({ kind: 'ident', text: text.slice(i, j) });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j]!)) j++;
      out.push({ kind: 'number', text: text.slice(i, j) });
      i = j;
    } else {
      // Two-character operators kept together; everything else one character.
      const two = text.slice(i, i + 2);
      if (['==', '!=', '>=', '<=', '&&', '||', '=>', '...'].includes(two)) {
        out.push({ kind: 'punct', text: two });
        i += 2;
      } else {
        out.push({ kind: 'punct', text: c });
        i++;
      }
    }
  }
  return out;
}

function escaped(c: string): string {
  return c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }

  private skipNewlines(): void {
    while (this.peek()?.kind === 'newline') this.at++;
  }

  body(depth: number, top: boolean): HclBody {
    if (depth > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH}`);
    const body: HclBody = { attributes: {}, blocks: [] };
    for (;;) {
      this.skipNewlines();
      const token = this.peek();
      if (!token) {
        if (top) return body;
        throw new Error('a block is not closed');
      }
      if (token.kind === 'punct' && token.text === '}' && !top) {
        this.at++;
        return body;
      }
      if (token.kind !== 'ident') throw new Error(`expected a name, found ${describe(token)}`);
      this.at++;
      const next = this.peek();
      if (next?.kind === 'punct' && next.text === '=') {
        this.at++;
        body.attributes[token.text] = this.value(depth + 1);
        continue;
      }
      const labels: string[] = [];
      while (this.peek()?.kind === 'string' || this.peek()?.kind === 'ident') {
        labels.push((this.peek() as { text: string }).text);
        this.at++;
      }
      const open = this.peek();
      if (open?.kind !== 'punct' || open.text !== '{') throw new Error(`expected { after ${token.text}`);
      this.at++;
      body.blocks.push({ type: token.text, labels, body: this.body(depth + 1, false) });
    }
  }

  /** A value up to the end of its attribute: a literal, or the text of any other expression. */
  private value(depth: number): HclValue {
    if (depth > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH}`);
    const start = this.at;
    const literal = this.literal(depth);
    const end = this.peek();
    if (
      literal !== undefined &&
      (!end || end.kind === 'newline' || (end.kind === 'punct' && [',', '}', ']'].includes(end.text)))
    )
      return literal;
    // Not a literal (a call, a conditional, a reference): its tokens up to the end of the line
    // at depth 0, kept as text.
    this.at = start;
    const parts: string[] = [];
    let nesting = 0;
    for (;;) {
      const token = this.peek();
      if (!token) break;
      if (
        nesting === 0 &&
        (token.kind === 'newline' || (token.kind === 'punct' && [',', '}', ']'].includes(token.text)))
      )
        break;
      if (token.kind === 'punct' && ['(', '[', '{'].includes(token.text)) nesting++;
      if (token.kind === 'punct' && [')', ']', '}'].includes(token.text)) nesting--;
      if (nesting > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH}`);
      if (token.kind !== 'newline')
        parts.push(token.kind === 'string' ? JSON.stringify(token.text) : token.text);
      this.at++;
    }
    return { expression: parts.join(' ').slice(0, 1000) };
  }

  private literal(depth: number): HclValue | undefined {
    const token = this.peek();
    if (!token) return undefined;
    if (token.kind === 'string') {
      this.at++;
      return token.text;
    }
    if (token.kind === 'number') {
      this.at++;
      return Number(token.text);
    }
    if (token.kind === 'ident' && (token.text === 'true' || token.text === 'false')) {
      this.at++;
      return token.text === 'true';
    }
    if (token.kind === 'ident' && token.text === 'null') {
      this.at++;
      return { expression: 'null' };
    }
    if (token.kind === 'punct' && token.text === '[') {
      this.at++;
      const list: HclValue[] = [];
      for (;;) {
        this.skipNewlines();
        const next = this.peek();
        if (!next) throw new Error('a list is not closed');
        if (next.kind === 'punct' && next.text === ']') {
          this.at++;
          return list;
        }
        list.push(this.value(depth + 1));
        this.skipNewlines();
        const sep = this.peek();
        if (sep?.kind === 'punct' && sep.text === ',') this.at++;
      }
    }
    if (token.kind === 'punct' && token.text === '{') {
      this.at++;
      const object: Record<string, HclValue> = {};
      for (;;) {
        this.skipNewlines();
        const key = this.peek();
        if (!key) throw new Error('an object is not closed');
        if (key.kind === 'punct' && key.text === '}') {
          this.at++;
          return object;
        }
        if (key.kind !== 'ident' && key.kind !== 'string')
          throw new Error(`expected a key, found ${describe(key)}`);
        this.at++;
        const eq = this.peek();
        if (eq?.kind !== 'punct' || (eq.text !== '=' && eq.text !== ':'))
          throw new Error(`expected = after ${key.text}`);
        this.at++;
        object[key.text] = this.value(depth + 1);
        const sep = this.peek();
        if (sep?.kind === 'punct' && sep.text === ',') this.at++;
      }
    }
    return undefined;
  }
}

function describe(token: Token): string {
  return token.kind === 'newline' ? 'a line end' : JSON.stringify(token.text.slice(0, 40));
}
