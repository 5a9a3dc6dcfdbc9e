/** Minimal server-side HTML helpers: escape everything that did not come from this module. */
export const esc = (text: string): string =>
  text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** A console page; `signedIn` false (the sign-in pages) leaves out the sign-out button. */
export function page(title: string, body: string, signedIn = true): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · citetrace</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#123c5a;color:#fff;padding:.6rem 1rem;display:flex;gap:1.2rem;align-items:center}
header a{color:#fff}main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #d4d8dd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eef2f5}.step{background:#fff;border:1px solid #d4d8dd;border-left:4px solid #2f6f9f;padding:.6rem 1rem;margin:.8rem 0}
.cited{font-weight:600}.stale{color:#a4262c;font-weight:600}mark{background:#ffe58a;padding:.1rem}
pre.revision{white-space:pre-wrap;background:#fff;border:1px solid #d4d8dd;padding:1rem}
label{display:block;margin:.4rem 0}input[type=text],select,textarea{font:inherit;padding:.3rem;min-width:20rem}
button{font:inherit;padding:.35rem .9rem;background:#2f6f9f;color:#fff;border:0;border-radius:3px;cursor:pointer}
.signout{margin-left:auto}.ok{color:#0b6b2b;font-weight:600}.fail{color:#a4262c;font-weight:600}
.badge{display:inline-block;padding:0 .45rem;border-radius:3px;font-size:.85em;font-weight:600;border:1px solid}
.badge.in-force{background:#e3f4e6;color:#0b6b2b}.badge.future{background:#e6effa;color:#123c5a}.badge.draft{background:#f2f2f2;color:#444;border-style:dashed}
.badge.superseded{background:#fff4e0;color:#7a4a00}.badge.retired,.badge.withdrawn{background:#f6e3e4;color:#a4262c}
</style></head><body>
<header><strong>citetrace</strong><nav aria-label="console"><a href="/console">Traces</a> · <a href="/console/sources">Sources</a> · <a href="/console/ask">Ask</a></nav>${signedIn ? '<form method="post" action="/console/logout" class="signout"><button type="submit">Sign out</button></form>' : ''}</header>
<main>${body}</main></body></html>`;
}

export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return `<table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</tbody></table>`;
}

export const td = (html: string, cls = ''): string => `<td${cls ? ` class="${cls}"` : ''}>${html}</td>`;
