/**
 * Escape text for an HTML text node or a double- or single-quoted attribute value. In src/text/
 * because the web client's build writes its version into HTML and a release re-writes it there.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
