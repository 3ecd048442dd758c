/**
 * A Dockerfile argument list split into words as Docker splits it: whitespace separates, single
 * and double quotes group (and are removed), a backslash escapes the next character. One pass over
 * the text that copies runs of plain characters as slices, so linear in its length whatever it
 * holds (no regular expression to backtrack).
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let parts: string[] = [];
  let inWord = false;
  let i = 0;
  const end = text.length;
  const flush = () => {
    if (inWord) words.push(parts.length === 1 ? parts[0]! : parts.join(''));
    parts = [];
    inWord = false;
  };
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      flush();
      i++;
    } else if (c === 34 || c === 39) {
      // A quoted run: up to the closing quote (or the end), backslashes escaping in "…" only.
      inWord = true;
      let j = i + 1;
      let start = j;
      while (j < end && text.charCodeAt(j) !== c) {
        if (c === 34 && text.charCodeAt(j) === 92 && j + 1 < end) {
          parts.push(text.slice(start, j));
          start = j + 1;
          j += 2;
        } else j++;
      }
      parts.push(text.slice(start, j));
      i = j + 1;
    } else if (c === 92 && i + 1 < end) {
      inWord = true;
      parts.push(text[i + 1]!);
      i += 2;
    } else {
      inWord = true;
      let j = i;
      while (j < end) {
        const d = text.charCodeAt(j);
        if (d === 32 || d === 9 || d === 10 || d === 13 || d === 34 || d === 39 || d === 92) break;
        j++;
      }
      parts.push(text.slice(i, j));
      i = j;
    }
  }
  flush();
  return words;
}
