import type { StatusDocument } from './status-json.ts';

// The status page: one self-contained HTML document (no external assets: a phone on a flaky link,
// a locked-down network). The table is drawn by the script from the status document, first from
// the copy embedded in the page, then from `status.json` every few seconds, so it refreshes
// without a reload. Text from outside (versions, messages) only ever goes in through textContent.

const STYLE = `
:root { color-scheme: light dark; --ok: #1a7f37; --warn: #9a6700; --drift: #cf222e; --muted: #6e7781; }
body { font: 15px/1.4 system-ui, sans-serif; margin: 0; padding: 12px; }
h1 { font-size: 1.25rem; margin: 0 0 4px; }
#summary { font-weight: 600; }
#meta { color: var(--muted); font-size: .85rem; margin-bottom: 10px; }
#stale { background: var(--drift); color: #fff; padding: 6px 10px; border-radius: 4px; margin: 6px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #8884; vertical-align: top; }
.ver { font-family: ui-monospace, monospace; word-break: break-all; }
.badge { display: inline-block; font-size: .75rem; font-weight: 700; padding: 0 6px; border-radius: 3px; margin-left: 6px; color: #fff; }
.s-ok .badge, .st-in-step { background: var(--ok); }
.s-warn .badge, .s-notice .badge { background: var(--warn); }
.s-drift .badge, .s-unreachable .badge, .st-drift, .st-unreachable { background: var(--drift); }
.s-skipped .badge { background: var(--muted); }
td.s-drift, td.s-unreachable { background: #cf222e22; }
td.s-warn { background: #9a670022; }
.why { display: block; color: var(--muted); font-size: .8rem; }
.state { color: #fff; padding: 1px 8px; border-radius: 3px; font-weight: 700; white-space: nowrap; }
section.deployment { margin-top: 14px; }
section.deployment h2 { font-size: 1rem; margin: 0 0 4px; }
li { margin-bottom: 6px; }
.fix, .rule { display: block; font-size: .85rem; }
.fix { font-family: ui-monospace, monospace; word-break: break-word; }
.rule { color: var(--muted); }
@media (max-width: 700px) {
  thead { display: none; }
  table, tbody, tr, td { display: block; width: auto; }
  tr { border: 1px solid #8886; border-radius: 6px; margin-bottom: 10px; }
  td::before { content: attr(data-label); display: block; font-size: .75rem; color: var(--muted); }
  /* On a phone only what was read matters; what was not asked for is said once per deployment. */
  td.s-skipped { display: none; }
}`;

const SCRIPT = `
const ARTIFACTS = ['api', 'worker', 'web', 'cli'];
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}
const STATUS_WORD = { ok: 'ok', warn: 'WARN', notice: 'notice', drift: 'DRIFT', unreachable: 'UNREACHABLE', skipped: 'not checked' };
function cell(d, name) {
  const rows = d.artifacts.filter((a) => a.name === name);
  const rank = { unreachable: 5, drift: 4, warn: 3, notice: 2, ok: 1, skipped: 0 };
  const a = rows.sort((x, y) => rank[y.status] - rank[x.status])[0];
  if (!a) return el('td', { 'data-label': name, class: 'cell s-skipped', 'data-artifact': name, 'data-status': 'none' }, '-');
  return el('td', { 'data-label': name, class: 'cell s-' + a.status, 'data-artifact': name, 'data-status': a.status, title: a.source },
    el('span', { class: 'ver' }, a.version === null ? '-' : a.version),
    el('span', { class: 'badge' }, STATUS_WORD[a.status] || a.status),
    a.why || a.detail || a.role ? el('span', { class: 'why' }, [a.role, a.why, a.detail].filter(Boolean).join('; ')) : null);
}
function render(doc) {
  const s = doc.summary;
  document.getElementById('summary').textContent = doc.pending
    ? 'waiting for the first round'
    : s.total + ' deployments: ' + s.inStep + ' in step, ' + s.drift + ' drift, ' + s.unreachable + ' unreachable';
  document.getElementById('summary').dataset.drift = String(s.drift + s.unreachable);
  window.lastRound = doc.lastRound;
  tick();
  const body = document.getElementById('rows');
  body.replaceChildren(...doc.deployments.map((d) =>
    el('tr', { 'data-deployment': d.name, 'data-state': d.state },
      el('td', { 'data-label': 'deployment' }, el('strong', {}, d.name), el('span', { class: 'why' }, d.url)),
      ...ARTIFACTS.map((name) => cell(d, name)),
      el('td', { 'data-label': 'state' }, el('span', { class: 'state st-' + d.state.replace(' ', '-') }, d.state)))));
  const details = document.getElementById('details');
  details.replaceChildren(...doc.deployments.filter((d) => d.findings.length > 0).map((d) =>
    el('section', { class: 'deployment', 'data-deployment': d.name },
      el('h2', {}, d.name + ': ' + d.verdict),
      el('ul', {}, ...d.findings.map((f) => el('li', { 'data-code': f.code, 'data-severity': f.severity },
        el('strong', {}, (f.severity === 'drift' || f.severity === 'unreachable' ? 'x ' : f.severity + ' ') + f.code + ': '),
        f.message,
        el('span', { class: 'fix' }, 'fix: ' + f.fix),
        f.rule ? el('span', { class: 'rule' }, 'rule: ' + f.rule) : null))))));
}
function tick() {
  const r = window.lastRound;
  const meta = document.getElementById('meta');
  if (!r) { meta.textContent = 'no round yet'; return; }
  const ago = Math.max(0, Math.round((Date.now() - Date.parse(r.startedAt)) / 1000));
  meta.textContent = 'last round ' + ago + ' s ago, took ' + (r.durationMs / 1000).toFixed(2) + ' s' + (r.complete ? '' : ' (cut short by its deadline)');
}
let doc = JSON.parse(document.getElementById('initial').textContent);
render(doc);
async function refresh() {
  try {
    const response = await fetch('status.json', { cache: 'no-store' });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    doc = await response.json();
    render(doc);
    document.getElementById('stale').hidden = true;
  } catch (error) {
    const stale = document.getElementById('stale');
    stale.textContent = 'cannot reach the watch (' + error.message + '): showing the last state read';
    stale.hidden = false;
  }
}
setInterval(refresh, Math.max(1000, Math.min(doc.intervalMs, 10000)));
setInterval(tick, 1000);
`;

/** The whole page; `nonce` lets exactly its own inline style and script run (see the CSP header). */
export function statusPage(doc: StatusDocument, nonce: string): string {
  // `<` escaped so no version string can close the script element.
  const embedded = JSON.stringify(doc).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>release watch</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<h1>Release watch</h1>
<div id="summary">waiting for the first round</div>
<div id="meta"></div>
<div id="stale" role="alert" hidden></div>
<table>
<thead><tr><th>Deployment</th><th>API</th><th>Worker</th><th>Web</th><th>CLI</th><th>State</th></tr></thead>
<tbody id="rows"></tbody>
</table>
<div id="details"></div>
<script id="initial" type="application/json">${embedded}</script>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}
