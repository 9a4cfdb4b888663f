import type { MinuteFigures } from "../../metrics/hourly-figures";
import type { PartnerStatus, StatusData } from "./status-data";

/**
 * The status page as one HTML document: server-rendered, inline CSS and SVG,
 * no script, no build step. One column on a phone, cards side by side on a
 * wide screen. Every value is escaped.
 */

const esc = (value: unknown): string =>
  String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const time = (at: number | undefined): string => (at === undefined ? "never" : new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z"));

const duration = (seconds: number | undefined): string => {
  if (seconds === undefined) return "—";
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
};

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#f3f5f8}
header{background:#1d2433;color:#fff;padding:12px 16px;display:flex;flex-wrap:wrap;gap:8px;align-items:baseline;justify-content:space-between}
header h1{font-size:18px;margin:0}header small{color:#b8c1d1}
main{padding:12px;display:grid;gap:12px;grid-template-columns:repeat(auto-fill,minmax(min(100%,360px),1fr))}
section{background:#fff;border-radius:8px;padding:12px 14px;box-shadow:0 1px 2px rgba(0,0,0,.08);min-width:0}
h2{font-size:16px;margin:0 0 8px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
h3{font-size:13px;margin:10px 0 4px;color:#5a6478;text-transform:uppercase;letter-spacing:.04em}
table{border-collapse:collapse;width:100%;font-size:14px}td,th{text-align:left;padding:3px 6px 3px 0;vertical-align:top;overflow-wrap:break-word}th{color:#5a6478;font-weight:600}
.badge{font-size:12px;border-radius:10px;padding:1px 8px;background:#e4e8ef;color:#1d2433;font-weight:600}
.ok{background:#d7f2df;color:#17602d}.bad{background:#fbdcdc;color:#8a1c1c}.warn{background:#fff0c9;color:#7a5500}
.figures{display:flex;gap:14px;flex-wrap:wrap;margin:6px 0}.figures div{min-width:70px}.figures b{display:block;font-size:18px}
svg{width:100%;height:auto;display:block;background:#f8f9fb;border-radius:4px}
ul{margin:0;padding-left:18px}.muted{color:#5a6478}
form{display:inline}button{font:inherit;padding:4px 10px;border-radius:6px;border:1px solid #b8c1d1;background:#fff;cursor:pointer}
`;

const page = (title: string, body: string, refresh = false): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refresh ? '<meta http-equiv="refresh" content="30">' : ""}<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;

/** Requests per minute as bars (errors in red on top of them), and the mean answer time as a line, over the last hour. */
const hourChart = (minutes: MinuteFigures[], label: string): string => {
  const w = 300;
  const h = 64;
  const barW = w / minutes.length;
  const maxRequests = Math.max(1, ...minutes.map((m) => m.requests));
  const maxMs = Math.max(1, ...minutes.map((m) => m.meanMs));
  const bars = minutes
    .map((m, i) => {
      if (m.requests === 0) return "";
      const x = (i * barW).toFixed(1);
      const total = (m.requests / maxRequests) * (h - 4);
      const errors = (m.errors / maxRequests) * (h - 4);
      return `<rect x="${x}" y="${(h - total).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(total - errors).toFixed(1)}" fill="#7da7d9"/>${
        errors > 0 ? `<rect x="${x}" y="${(h - errors).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${errors.toFixed(1)}" fill="#d9534f"/>` : ""
      }`;
    })
    .join("");
  const points = minutes
    .map((m, i) => (m.requests ? `${(i * barW + barW / 2).toFixed(1)},${(h - 2 - (m.meanMs / maxMs) * (h - 8)).toFixed(1)}` : undefined))
    .filter(Boolean)
    .join(" ");
  return `<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(label)}"><title>${esc(label)}</title>${bars}${
    points ? `<polyline points="${points}" fill="none" stroke="#1d2433" stroke-width="1.5"/>` : ""
  }</svg><div class="muted" style="font-size:12px">bars: requests per minute (red: errors) · line: mean answer time, max ${Math.round(maxMs)} ms · last 60 min</div>`;
};

const statusClass = (value: string): string => (value === "registered" || value === "ok" ? "ok" : value === "pending" || value === "no calls yet" ? "warn" : "bad");

const partnerCard = (p: PartnerStatus): string => {
  const errorRate = p.requests ? `${((p.errors / p.requests) * 100).toFixed(1)} %` : "—";
  const syncs = p.syncs.length
    ? `<table><tr><th>module</th><th>last pull</th><th>lag</th><th>result</th></tr>${p.syncs
        .map((s) => `<tr><td>${esc(s.module)}</td><td>${esc(time(s.lastPullAt))}</td><td>${esc(duration(s.lagSeconds))}</td><td>${esc(s.lastResult ?? "—")}</td></tr>`)
        .join("")}</table>`
    : '<p class="muted">no scheduled pulls</p>';
  const head = p.outbox.head
    ? `<p><span class="badge bad">failing head</span> ${esc(p.outbox.head.label)} · ${esc(p.outbox.head.attempts)} attempts since ${esc(time(p.outbox.head.failingSince))}<br><span class="muted">${esc(p.outbox.head.lastError)}</span></p>`
    : "";
  const list = (items: string[], none: string) => (items.length ? `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join("")}</ul>` : `<p class="muted">${none}</p>`);
  return `<section class="partner" data-partner="${esc(p.id)}">
<h2>${esc(p.id)} <span class="badge ${statusClass(p.status)}">${esc(p.status)}</span> <span class="badge ${statusClass(p.connection)}">${esc(p.connection)}</span></h2>
<table><tr><th>version</th><td>${esc(p.version ?? "—")}</td></tr><tr><th>roles</th><td>${esc(p.roles.join(", ") || "—")}</td></tr>
<tr><th>last call to it</th><td>${p.lastCall ? `${esc(time(p.lastCall.at))} (${esc(p.lastCall.result)})` : "—"}</td></tr></table>
<div class="figures"><div><b data-figure="requests">${p.requests}</b>requests, 1 h</div><div><b data-figure="error-rate">${esc(errorRate)}</b>errors</div><div><b data-figure="latency">${p.requests ? `${p.meanMs.toFixed(1)} ms` : "—"}</b>mean time</div><div><b data-figure="pending">${p.pending}</b>pending commands</div>${p.figures
    .map((f) => `<div><b data-figure="${esc(f.id)}"${f.alarming && f.value ? ' class="bad"' : ""}>${f.value}</b>${esc(f.label)}</div>`)
    .join("")}</div>
${hourChart(p.lastHour, `${p.id}: requests, errors and answer time over the last hour`)}
<h3>Sync</h3>${syncs}
<h3>Outbox</h3><p><b data-figure="outbox-depth">${p.outbox.depth}</b> queued · <b>${p.outbox.deadLetters}</b> dead letters</p>${head}
<h3>Translation losses seen</h3>${list(p.losses, "none")}
<h3>Repairs</h3>${list(p.repairs, "none")}
</section>`;
};

export const renderStatusPage = (data: StatusData): string =>
  page(
    "ocpi-gateway status",
    `<header><h1>ocpi-gateway status</h1><small>${esc(time(data.at))} · refreshes every 30 s</small><form method="post" action="/admin/status/logout"><button type="submit">Log out</button></form></header>
<main>
<section><h2>Our parties</h2><table><tr><th>party</th><th>role</th><th>name</th></tr>${data.parties
      .map((p) => `<tr><td>${esc(p.party)}</td><td>${esc(p.role)}</td><td>${esc(p.name)}</td></tr>`)
      .join("")}</table>
<h3>Modules</h3><table><tr><th>module</th><th>interface</th><th>adapter</th><th>versions</th></tr>${data.modules
      .map((m) => `<tr><td>${esc(m.module)}</td><td>${esc(m.interface)}</td><td>${esc(m.adapter)}</td><td>${esc(m.versions)}</td></tr>`)
      .join("")}</table>
<h3>Pending commands</h3>${
      data.pending.length
        ? `<table>${data.pending.map((k) => `<tr><td>${esc(k.kind)}</td><td>${k.pending}</td></tr>`).join("")}</table>`
        : '<p class="muted">no asynchronous modules served</p>'
    }</section>
${data.partners.map(partnerCard).join("\n") || '<section><p class="muted">No partners yet.</p></section>'}
</main>`,
    true,
  );

export const renderLogin = (failed: boolean): string =>
  page(
    "ocpi-gateway status: log in",
    `<header><h1>ocpi-gateway status</h1></header><main><section><h2>Log in</h2>
<form method="post" action="/admin/status/login" style="display:block">
<p><label for="token">Admin token (<code>server.admin_token</code>)</label><br>
<input id="token" name="token" type="password" autocomplete="current-password" required style="width:100%;font:inherit;padding:6px"></p>
${failed ? '<p class="badge bad" role="alert">That is not the admin token.</p>' : ""}
<p><button type="submit">Log in</button></p></form></section></main>`,
  );
