/*
 * Herd dashboard: one page, four views (cluster, queue, job, usage) drawn
 * from the controller's own JSON API on the same origin (docs/protocol.md).
 * Every call carries the user's token (X-SLURM-USER-NAME/-TOKEN), kept in
 * sessionStorage only: it dies with the tab. Everything a user typed (job
 * names, reasons, output) is put into the page as text, never as HTML.
 * Charts are inline SVG drawn here (docs/dashboard.md says why).
 */
"use strict";

const REFRESH_MS = 5000;
const PAGE_ROWS = 200;
const SVGNS = "http://www.w3.org/2000/svg";

const state = {
  view: "cluster", jobId: null, timer: null, busy: false,
  jobs: [], nodes: [], page: 0, samples: {},   // samples: job id -> [[t, util%], ...]
};

/* ---- small DOM helpers ---- */
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    /* through the CSSOM: the page's CSP refuses style attributes */
    else if (k === "style") for (const [p, x] of Object.entries(v)) e.style.setProperty(p, x);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat(Infinity)) if (k !== null && k !== undefined)
    e.append(k instanceof Node ? k : String(k));
  return e;
}
function s(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids.flat(Infinity)) if (k !== null && k !== undefined)
    e.append(k instanceof Node ? k : String(k));
  return e;
}
const $ = (id) => document.getElementById(id);
function fmtTime(t) {
  if (!t || t <= 0) return "";
  const d = new Date(t * 1000);
  return d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit",
                                       minute: "2-digit" });
}
function setStatus(msg) { $("status").textContent = msg; }

/* A user's colour: a light hue from the name, so that dark text reads on it
 * (contrast above 7:1 at 85 % lightness) and one user is one colour. */
function userColour(name) {
  let x = 2166136261;                    // FNV-1a: names a letter apart land far apart
  for (const c of name) x = Math.imul(x ^ c.charCodeAt(0), 16777619);
  return `hsl(${(x >>> 0) % 360}, 65%, 84%)`;
}

/* ---- login: the fragment from `herd web-url`, or the form ---- */
function takeFragment() {
  const frag = location.hash.slice(1);
  if (!frag.includes("token=")) return;
  const p = new URLSearchParams(frag);
  if (p.get("token") && p.get("user")) {
    sessionStorage.setItem("herd.token", p.get("token"));
    sessionStorage.setItem("herd.user", p.get("user"));
  }
  /* the token leaves the address bar and the history at once */
  history.replaceState(null, "", location.pathname + "#/cluster");
}
function creds() {
  return { user: sessionStorage.getItem("herd.user"), token: sessionStorage.getItem("herd.token") };
}
function parseToken(text) {
  const m = /SLURM_JWT=(\S+)/.exec(text);
  return (m ? m[1] : text).trim();
}
function logout(msg) {
  sessionStorage.removeItem("herd.token");
  sessionStorage.removeItem("herd.user");
  showLogin(msg || "");
}

class AuthError extends Error {}
async function api(path) {
  const c = creds();
  const r = await fetch(path, { headers: { "X-SLURM-USER-NAME": c.user || "",
                                           "X-SLURM-USER-TOKEN": c.token || "" },
                                cache: "no-store", credentials: "omit" });
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (r.status === 401) throw new AuthError(body && body.error || "not signed in");
  if (!r.ok) {
    const err = new Error(body && body.error || `HTTP ${r.status}`);
    err.status = r.status;
    throw err;
  }
  return body;
}

/* ---- views ---- */
function showOnly(id) {
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== id;
  for (const a of document.querySelectorAll("nav a"))
    if (a.dataset.view === state.view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
}
function showLogin(msg) {
  clearTimeout(state.timer);
  $("nav").hidden = true;
  $("who").hidden = true;
  $("login-error").textContent = msg || "";
  showOnly("view-login");
}

function route() {
  takeFragment();
  const c = creds();
  if (!c.token || !c.user) return showLogin("");
  $("nav").hidden = false;
  $("who").hidden = false;
  $("who-name").textContent = c.user;
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  state.view = ["cluster", "queue", "job", "usage"].includes(parts[0]) ? parts[0] : "cluster";
  state.jobId = state.view === "job" ? parts[1] : null;
  showOnly("view-" + state.view);
  refresh(true);
}

async function refresh(first) {
  clearTimeout(state.timer);
  if (state.busy) { state.timer = setTimeout(refresh, 500); return; }
  state.busy = true;
  try {
    if (state.view === "cluster") await loadCluster();
    else if (state.view === "queue") await loadQueue(first);
    else if (state.view === "job") await loadJob(first);
    else if (state.view === "usage") await loadUsage();
    setStatus("Updated " + new Date().toLocaleTimeString());
  } catch (e) {
    if (e instanceof AuthError) { state.busy = false; return logout("Sign-in failed: " + e.message); }
    setStatus("Could not refresh: " + e.message);
  }
  state.busy = false;
  if (!document.hidden) state.timer = setTimeout(refresh, REFRESH_MS);
}

/* ---- cluster: every node, each GPU a cell ---- */
const JOB_FIELDS = "job_id,user_name,user_id,partition,name,state,reason,reason_text," +
  "start_estimate,start_time,submit_time,node_list,num_nodes,gpus_alloc";

async function loadCluster() {
  const [nodes, jobs] = await Promise.all([api("/v1/nodes"),
    api("/v1/jobs?states=RUNNING,COMPLETING,SUSPENDED&fields=" + JOB_FIELDS)]);
  const owner = {};     // "node/index" -> job
  for (const j of jobs.jobs || [])
    for (const [node, idx] of Object.entries(j.gpus_alloc || {}))
      for (const i of idx) owner[node + "/" + i] = j;
  const box = $("nodes");
  const out = [];
  for (const n of nodes.nodes || []) {
    const st = String(n.state || "");
    const down = /DOWN|DRAIN|FAIL/.test(st) || n.responding === false;
    const cells = [];
    for (let i = 0; i < (n.gpus || 0); i++) {
      const j = owner[n.name + "/" + i];
      if (j) {
        cells.push(h("a", { class: "gpu busy", href: "#/job/" + j.job_id, "data-job": j.job_id,
                            "data-user": j.user_name, style: { background: userColour(j.user_name) },
                            "aria-label": `GPU ${i} of ${n.name}: job ${j.job_id}, ${j.user_name}` },
                     h("span", { class: "idx" }, "GPU " + i), j.user_name));
      } else {
        cells.push(h("span", { class: down ? "gpu off" : "gpu idle", role: "img",
                               "aria-label": `GPU ${i} of ${n.name}: ${down ? "unavailable" : "idle"}` },
                     h("span", { class: "idx" }, "GPU " + i), down ? "unavailable" : "idle"));
      }
    }
    out.push(h("div", { class: down ? "node down" : "node", "data-node": n.name },
      h("h3", {}, n.name, " ", h("span", { class: "state" }, st + (n.responding === false ? "*" : ""))),
      down ? h("p", { class: "node-reason" }, st + (n.reason ? ": " + n.reason : "")) : null,
      h("p", { class: "state" }, `CPUs ${n.alloc_cpus}/${n.cpus} in use, GPUs ${n.alloc_gpus || 0}/${n.gpus || 0}`),
      n.gpus ? h("div", { class: "gpus" }, cells) : h("p", { class: "note" }, "no GPUs")));
  }
  box.replaceChildren(...out);
}

/* ---- queue: all jobs, filtered here, 200 rows a page ---- */
async function loadQueue(first) {
  const r = await api("/v1/jobs?fields=" + JOB_FIELDS);
  state.jobs = r.jobs || [];
  fillFilter("f-user", state.jobs.map((j) => j.user_name));
  fillFilter("f-part", state.jobs.map((j) => j.partition));
  if (first) state.page = 0;
  renderQueue();
}
function fillFilter(id, values) {
  const sel = $(id);
  const have = new Set([...sel.options].map((o) => o.value));
  for (const v of [...new Set(values)].sort())
    if (v && !have.has(v)) sel.append(h("option", { value: v }, v));
}
function queueMatches() {
  const u = $("f-user").value, p = $("f-part").value, st = $("f-state").value;
  const t = $("f-text").value.trim().toLowerCase();
  return state.jobs.filter((j) => (!u || j.user_name === u) && (!p || j.partition === p) &&
    (!st || j.state === st) &&
    (!t || String(j.job_id) === t || String(j.name || "").toLowerCase().includes(t)));
}
function renderQueue() {
  const rows = queueMatches();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
  state.page = Math.min(state.page, pages - 1);
  const slice = rows.slice(state.page * PAGE_ROWS, (state.page + 1) * PAGE_ROWS);
  const frag = document.createDocumentFragment();
  for (const j of slice) {
    const pending = j.state === "PENDING";
    frag.append(h("tr", { "data-job": j.job_id },
      h("td", {}, h("a", { href: "#/job/" + j.job_id }, String(j.job_id))),
      h("td", {}, j.user_name), h("td", {}, j.partition), h("td", {}, j.name || ""),
      h("td", {}, j.state),
      h("td", { class: "reason" }, pending ? (j.reason_text || j.reason || "") : ""),
      h("td", {}, pending ? (j.start_estimate > 0 ? fmtTime(j.start_estimate) : "not known")
                          : fmtTime(j.start_time)),
      h("td", {}, j.node_list || "")));
  }
  $("queue-rows").replaceChildren(frag);
  $("queue-count").textContent = `${rows.length} of ${state.jobs.length} jobs`;
  $("page-info").textContent = `Page ${state.page + 1} of ${pages}`;
  $("page-prev").disabled = state.page === 0;
  $("page-next").disabled = state.page >= pages - 1;
}

/* ---- one job ---- */
async function loadJob(first) {
  const id = state.jobId;
  const r = await api("/v1/jobs/" + encodeURIComponent(id));
  const j = r.jobs[0];
  $("job-h").textContent = `Job ${j.job_id}: ${j.name || ""}`;
  const gpus = Object.entries(j.gpus_alloc || {}).map(([n, i]) => `${n}: ${i.join(",")}`).join("; ");
  const facts = [
    ["User", j.user_name], ["Account", j.account || ""], ["Partition", j.partition],
    ["State", j.state], j.state === "PENDING" ? ["Reason", j.reason_text || j.reason] : null,
    j.state === "PENDING" ? ["Expected start", j.start_estimate > 0 ? fmtTime(j.start_estimate) : "not known"] : null,
    ["Nodes", j.node_list || "(none yet)"], ["CPUs", j.num_cpus], ["GPUs", gpus || "none"],
    ["Time limit", j.time_limit < 0 ? "UNLIMITED" : j.time_limit + " min"],
    ["Submitted", fmtTime(j.submit_time)], ["Started", fmtTime(j.start_time)],
    ["Ended", fmtTime(j.end_time)],
  ].filter(Boolean);
  $("job-body").replaceChildren(h("dl", { class: "facts" },
    facts.map(([k, v]) => [h("dt", {}, k), h("dd", { "data-fact": k }, v === undefined ? "" : v)])));
  drawTimeline(j, r.now);
  drawGpu(j, r.now);
  if (first) $("job-output").textContent = "loading...";
  try {
    const o = await api("/v1/jobs/" + encodeURIComponent(id) + "/output");
    $("job-output").textContent = (o.truncated ? "[... earlier output not shown]\n" : "") + (o.data || "");
    $("job-output").dataset.shown = "1";
  } catch (e) {
    if (e instanceof AuthError) throw e;
    $("job-output").textContent = "Output not available: " + e.message;
    $("job-output").dataset.shown = "0";
  }
}

function drawTimeline(j, now) {
  const t0 = j.submit_time, t2 = j.end_time > 0 ? j.end_time : now;
  const span = Math.max(1, t2 - t0), W = 600, x = (t) => 10 + (W - 20) * (t - t0) / span;
  const parts = [s("rect", { x: 10, y: 20, width: W - 20, height: 16, fill: "#eef1f4", stroke: "#57606a" })];
  const label = [`submitted ${fmtTime(t0)}`];
  if (j.start_time > 0) {
    parts.push(s("rect", { x: x(j.start_time), y: 20, width: Math.max(2, x(t2) - x(j.start_time)),
                           height: 16, fill: "#2da44e" }));
    label.push(`started ${fmtTime(j.start_time)}`);
  }
  if (j.end_time > 0) label.push(`ended ${fmtTime(j.end_time)}`);
  parts.push(s("text", { x: 10, y: 54 }, label.join(", ")));
  $("job-timeline").setAttribute("aria-label", "Timeline: " + label.join(", "));
  $("job-timeline").replaceChildren(s("svg", { viewBox: `0 0 ${W} 62`, width: W, height: 62 }, parts));
}

/* The controller keeps a running job's latest figures (usage_live); the
 * plot is what this page has seen of them since it opened, plus the job's
 * averages, which cover its whole run. */
function drawGpu(j, now) {
  const box = $("job-gpu");
  const live = j.usage_live && j.usage_live.gpu;
  const done = j.usage && j.usage.gpu;
  const g = live || done;
  if (!g) { box.replaceChildren(h("p", { class: "note" }, "No GPU figures for this job.")); return; }
  const gpus = g.gpus || [];
  const util = gpus.reduce((a, x) => a + (x.util_last !== undefined ? x.util_last : x.util_ave || 0), 0) /
    Math.max(1, gpus.length);
  if (live) {
    const arr = state.samples[j.job_id] = state.samples[j.job_id] || [];
    const at = j.usage_live.sampled_at || now;      // one point per sampling round
    if (!arr.length || arr[arr.length - 1][0] !== at) arr.push([at, util]);
    if (arr.length > 720) arr.shift();
  }
  const pts = state.samples[j.job_id] || [];
  const W = 600, H = 140, pad = 30;
  const items = [s("line", { x1: pad, y1: 10, x2: pad, y2: H - 20, stroke: "#57606a" }),
                 s("line", { x1: pad, y1: H - 20, x2: W - 5, y2: H - 20, stroke: "#57606a" }),
                 s("text", { x: 0, y: 14 }, "100%"), s("text", { x: 8, y: H - 22 }, "0%")];
  if (pts.length > 1) {
    const t0 = pts[0][0], span = Math.max(1, pts[pts.length - 1][0] - t0);
    const d = pts.map(([t, u], i) => `${i ? "L" : "M"}${(pad + (W - pad - 5) * (t - t0) / span).toFixed(1)},` +
                      `${(H - 20 - (H - 30) * Math.min(100, u) / 100).toFixed(1)}`).join(" ");
    items.push(s("path", { d, fill: "none", stroke: "#0550ae", "stroke-width": 2 }));
  }
  const text = gpus.map((x) => `GPU ${x.node ? x.node + ":" : ""}${x.index}: average ${Math.round(x.util_ave || 0)}%` +
    (x.util_last !== undefined ? `, now ${x.util_last}%` : "") + `, peak ${x.util_max || 0}%`).join("; ");
  items.push(s("text", { x: pad + 4, y: H - 4 }, pts.length > 1 ? "since this page opened" :
    "(the line grows as the page refreshes)"));
  box.replaceChildren(s("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
                                 "aria-label": "GPU utilization: " + text }, items),
                      h("p", {}, text));
}

/* ---- usage: GPU-hours per user and account from the records ---- */
async function loadUsage() {
  const span = Number($("u-range").value);
  const end = Math.floor(Date.now() / 1000), start = end - span;
  const r = await api(`/v1/accounting?start=${start}&end=${end}`);
  const byUser = {}, byAcct = {};
  for (const { record: rec } of r.jobs || []) {
    const gpus = (rec.allocs || []).reduce((a, x) => a + popcount(x.gpu_mask || 0), 0);
    if (!gpus || !(rec.start_time > 0)) continue;
    const a = Math.max(start, rec.start_time), b = Math.min(end, rec.end_time > 0 ? rec.end_time : r.now);
    if (b <= a) continue;
    const hours = gpus * (b - a) / 3600;
    const acct = (rec.spec && rec.spec.account) || rec.account || "(none)";
    byUser[rec.user_name] = (byUser[rec.user_name] || 0) + hours;
    byAcct[acct] = (byAcct[acct] || 0) + hours;
  }
  barChart($("usage-users"), byUser, "GPU-hours per user");
  barChart($("usage-accts"), byAcct, "GPU-hours per account");
}
function popcount(n) {
  let c = 0;
  for (let x = BigInt(n); x > 0n; x >>= 1n) c += Number(x & 1n);
  return c;
}
function barChart(box, data, title) {
  const rows = Object.entries(data).sort((a, b) => b[1] - a[1]);
  if (!rows.length) { box.replaceChildren(h("p", { class: "note" }, "No GPU use in this period.")); return; }
  const max = rows[0][1] || 1, W = 600, row = 22, left = 140;
  const bars = rows.map(([k, v], i) => [
    s("text", { x: 0, y: i * row + 15 }, k),
    s("rect", { x: left, y: i * row + 3, height: row - 6, width: Math.max(1, (W - left - 70) * v / max),
                fill: userColour(k), stroke: "#57606a" }),
    s("text", { x: left + (W - left - 70) * v / max + 6, y: i * row + 15 }, v.toFixed(2))]);
  const tbl = h("table", { class: "jobs" }, h("caption", { class: "note" }, title),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "GPU-hours"))),
    h("tbody", {}, rows.map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, v.toFixed(2))))));
  box.replaceChildren(s("svg", { viewBox: `0 0 ${W} ${rows.length * row}`, width: W,
                                 height: rows.length * row, role: "img", "aria-label": title }, bars),
                      h("details", {}, h("summary", {}, "As a table"), tbl));
}

/* ---- wiring ---- */
document.addEventListener("DOMContentLoaded", () => {
  takeFragment();
  $("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const tok = parseToken($("login-token").value);
    const user = $("login-user").value.trim();
    if (!tok || !user) return;
    sessionStorage.setItem("herd.token", tok);
    sessionStorage.setItem("herd.user", user);
    $("login-token").value = "";
    location.hash = "#/cluster";
    route();
  });
  $("logout").addEventListener("click", () => logout("Signed out."));
  for (const id of ["f-user", "f-part", "f-state"])
    $(id).addEventListener("change", () => { state.page = 0; renderQueue(); });
  $("f-text").addEventListener("input", () => { state.page = 0; renderQueue(); });
  $("queue-filters").addEventListener("submit", (ev) => ev.preventDefault());
  $("page-prev").addEventListener("click", () => { state.page--; renderQueue(); });
  $("page-next").addEventListener("click", () => { state.page++; renderQueue(); });
  $("u-range").addEventListener("change", () => refresh(false));
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(false); });
  window.addEventListener("hashchange", route);
  route();
});
