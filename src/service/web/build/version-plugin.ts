import type { Plugin } from 'vite';
import { InternalError } from '../../../errors.ts';
import { escapeHtml } from './client-version.ts';

/**
 * Bakes one version into a web build, in the two files it is read from:
 * - `<meta name="service-client-version">` in index.html (the bundle reads it at run time for the
 *   user menu and the reload notice; `release verify` falls back to it),
 * - `version.json` (`{"version": ...}`), which `release verify` reads over HTTP.
 * Never into the scripts: their bytes stay the same whatever the version, so a release made from
 * an rc re-stamps these two files only (the image's version layer).
 *
 * `version` must already be validated by `clientVersionOf`; it is still escaped for HTML and
 * serialised as JSON, never pasted in raw.
 */
export function serviceVersionPlugin(version: string): Plugin {
  return {
    name: 'service-client-version',
    transformIndexHtml(html) {
      const meta = `<meta name="service-client-version" content="${escapeHtml(version)}" />`;
      // Right after the charset declaration, which must stay first in <head>.
      const charset = /<meta charset="[^"]*"\s*\/?>/i.exec(html);
      if (!charset) throw new InternalError('WEB_INDEX_NO_CHARSET', 'index.html has no <meta charset>');
      const at = charset.index + charset[0].length;
      return `${html.slice(0, at)}\n    ${meta}${html.slice(at)}`;
    },
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'version.json',
        source: `${JSON.stringify({ version })}\n`,
      });
    },
  };
}
