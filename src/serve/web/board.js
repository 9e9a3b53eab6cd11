"use strict";
// Wuzi's web board: draws the game the server keeps, sends what the person does, and
// shows the analysis the server streams. Every request carries the page's token.
const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const canvas = $("board");
const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
let S = null;          // the server's state of the game
let session = null;
let live = null;       // the analysis's last snapshot
let review = null;     // the review's rows
let shown = null;      // a review row being looked at: its best line is drawn
let busy = false;
let geometry = { left: 0, top: 0, cell: 1 };

const cellName = (c) => letters[c[0]] + (c[1] + 1);

async function call(path, body, method = "POST") {
  const url = `/api/${path}?token=${encodeURIComponent(token)}` +
    (method === "GET" ? `&session=${session}` : "");
  const init = method === "GET" ? {} : {
    method, headers: { "Content-Type": "application/json" },
    body: JSON.stringify(Object.assign({ session }, body || {})),
  };
  let j;
  try {
    const r = await fetch(url, init);
    j = await r.json();
  } catch (e) {
    say("The server does not answer: is pbrain-wuzi serve still running?");
    return null;
  }
  if (j.width) { S = j; }
  say(j.error || "");
  update();
  return j;
}

function say(text) { $("message").textContent = text; }

async function act(path, body) {
  if (busy) return null;
  busy = true;
  const thinking = ["play", "hint", "swap", "new", "review"].includes(path);
  if (thinking) $("status").textContent = path === "review" ? "Wuzi reviews the game…" : "Wuzi thinks…";
  try { return await call(path, body); } finally { busy = false; update(); }
}

function update() {
  if (!S) return;
  $("rule-name").textContent = `${S.ruleName}, ${S.width}x${S.height}`;
  const you = S.human;
  $("status").textContent = S.result ? S.result :
    (S.analysing ? `analysis: ${S.next} to move` :
      (S.next === you ? `your move (${you})` : `${S.next} to move (Swap: Wuzi plays it)`));
  if (!$("message").textContent && S.said) say(S.said);
  $("analysis").checked = S.analysing;
  $("analysis-box").hidden = !S.analysing;
  $("ply").textContent = `${S.at} / ${S.line.length}`;
  document.body.dataset.moves = S.moves.length;
  document.body.dataset.analysing = S.analysing;
  document.body.dataset.hint = S.hint ? cellName(S.hint) : "";
  drawWinbar();
  drawLines();
  draw();
}

function drawWinbar() {
  let black = null;
  if (S.analysing && live && live.lines.length) black = live.lines[0].black;
  else if (review && S.at > 0 && review[S.at - 1]) black = review[S.at - 1].black;
  const bar = $("winbar-black");
  bar.style.width = `${black === null ? 50 : black}%`;
  $("winbar-text").textContent = black === null ? "" :
    `black ${Math.round(black)}% · white ${Math.round(100 - black)}%`;
  document.body.dataset.winbar = black === null ? "" : String(black);
}

function drawLines() {
  const list = $("lines");
  list.innerHTML = "";
  if (!S.analysing || !live) { $("analysis-info").textContent = ""; return; }
  $("analysis-info").textContent = live.depth ?
    `depth ${live.depth}, ${Math.round(live.nps / 1000)}k nodes/s, ${live.mover} to move` :
    "analysing…";
  for (const l of live.lines) {
    const li = document.createElement("li");
    li.textContent = `${l.move}: ${l.text} — ${l.pv.slice(0, 8).map(cellName).join(" ")}`;
    li.onclick = () => act("play", { cell: l.move });
    list.appendChild(li);
  }
}

function draw() {
  const w = S.width, h = S.height;
  const css = canvas.getBoundingClientRect().width || 300;
  const ratio = window.devicePixelRatio || 1;
  const cell = css / (Math.max(w, h) + 1.2);
  canvas.style.aspectRatio = `${w + 1.2} / ${h + 1.2}`;
  const cssH = cell * (h + 1.2);
  canvas.width = Math.round(css * ratio);
  canvas.height = Math.round(cssH * ratio);
  const g = canvas.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  const ox = cell * 1.1, oy = cell * 1.1;
  geometry = { left: ox, top: oy, cell };
  const at = (x, y) => [ox + x * cell, oy + y * cell];
  g.fillStyle = "#e3b866"; g.fillRect(0, 0, css, cssH);
  g.strokeStyle = "#5a4320"; g.lineWidth = 1;
  for (let x = 0; x < w; x++) { g.beginPath(); g.moveTo(...at(x, 0)); g.lineTo(...at(x, h - 1)); g.stroke(); }
  for (let y = 0; y < h; y++) { g.beginPath(); g.moveTo(...at(0, y)); g.lineTo(...at(w - 1, y)); g.stroke(); }
  g.fillStyle = "#3a2a10"; g.font = `${Math.max(8, cell * 0.42)}px sans-serif`;
  g.textAlign = "center"; g.textBaseline = "middle";
  for (let x = 0; x < w; x++) { const [px] = at(x, 0); g.fillText(letters[x], px, oy - cell * 0.75); g.fillText(letters[x], px, oy + (h - 1) * cell + cell * 0.75); }
  for (let y = 0; y < h; y++) { const [, py] = at(0, y); g.fillText(String(y + 1), ox - cell * 0.8, py); g.fillText(String(y + 1), ox + (w - 1) * cell + cell * 0.8, py); }
  const stone = (c, colour, alpha, label) => {
    const [px, py] = at(c[0], c[1]);
    g.globalAlpha = alpha;
    g.beginPath(); g.arc(px, py, cell * 0.45, 0, 2 * Math.PI);
    g.fillStyle = colour === "black" ? "#111" : "#f8f8f8"; g.fill();
    g.strokeStyle = "#333"; g.stroke();
    g.globalAlpha = 1;
    if (label) { g.fillStyle = colour === "black" ? "#fff" : "#000"; g.fillText(label, px, py); }
  };
  S.moves.forEach((c, i) => stone(c, i % 2 === 0 ? "black" : "white", 1, ""));
  // Renju: the points black may not play, as red crosses.
  g.strokeStyle = "#c00"; g.lineWidth = 2;
  for (const c of S.forbidden) {
    const [px, py] = at(c[0], c[1]); const r = cell * 0.22;
    g.beginPath(); g.moveTo(px - r, py - r); g.lineTo(px + r, py + r); g.moveTo(px + r, py - r); g.lineTo(px - r, py + r); g.stroke();
  }
  g.lineWidth = 1;
  // A best line, as numbered stones: the analysis's, or a reviewed move's.
  let line = null, first = S.next;
  if (S.analysing && live && live.lines.length) line = live.lines[0].pv;
  else if (shown) line = shown.line;
  if (line) {
    line.slice(0, 10).forEach((c, i) => {
      const colour = (i % 2 === 0) === (first === "black") ? "black" : "white";
      stone(c, colour, 0.55, String(i + 1));
    });
  }
  document.body.dataset.bestLine = line ? line.length : 0;
  // A hint: a ring where Wuzi would play for you.
  if (S.hint && !line) {
    const [px, py] = at(S.hint[0], S.hint[1]);
    g.strokeStyle = "#06c"; g.lineWidth = 3;
    g.beginPath(); g.arc(px, py, cell * 0.42, 0, 2 * Math.PI); g.stroke();
    g.lineWidth = 1;
  }
  if (S.moves.length) {
    const [px, py] = at(...S.moves[S.moves.length - 1]);
    g.fillStyle = "#e22"; g.beginPath(); g.arc(px, py, cell * 0.12, 0, 2 * Math.PI); g.fill();
  }
  g.strokeStyle = "#1b0"; g.lineWidth = 3;
  for (const c of S.five) { const [px, py] = at(c[0], c[1]); g.beginPath(); g.arc(px, py, cell * 0.47, 0, 2 * Math.PI); g.stroke(); }
  g.lineWidth = 1;
}

// Where cell (x, y) is on the page, for tests and tools.
window.wuziBoard = {
  cellCenter(x, y) {
    const r = canvas.getBoundingClientRect();
    return { x: r.left + geometry.left + x * geometry.cell, y: r.top + geometry.top + y * geometry.cell };
  },
};

canvas.addEventListener("click", (e) => {
  if (!S) return;
  const r = canvas.getBoundingClientRect();
  const x = Math.round((e.clientX - r.left - geometry.left) / geometry.cell);
  const y = Math.round((e.clientY - r.top - geometry.top) / geometry.cell);
  if (x < 0 || y < 0 || x >= S.width || y >= S.height) return;
  shown = null;
  act("play", { cell: `${x},${y}` });
});

function drawGraph() {
  const svg = $("graph");
  svg.innerHTML = "";
  if (!review || !review.length) return;
  const n = review.length, W = 400, H = 120;
  const px = (i) => (n === 1 ? W / 2 : (i / (n - 1)) * (W - 10) + 5);
  const py = (b) => H - 5 - (b / 100) * (H - 10);
  const ns = "http://www.w3.org/2000/svg";
  const mid = document.createElementNS(ns, "line");
  Object.entries({ x1: 0, x2: W, y1: py(50), y2: py(50), stroke: "#bbb" }).forEach(([k, v]) => mid.setAttribute(k, v));
  svg.appendChild(mid);
  const poly = document.createElementNS(ns, "polyline");
  poly.setAttribute("points", review.map((r, i) => `${px(i)},${py(r.black)}`).join(" "));
  poly.setAttribute("fill", "none"); poly.setAttribute("stroke", "#246"); poly.setAttribute("stroke-width", "2");
  svg.appendChild(poly);
  review.forEach((r, i) => {
    const c = document.createElementNS(ns, "circle");
    c.setAttribute("cx", px(i)); c.setAttribute("cy", py(r.black));
    c.setAttribute("r", r.label ? 5 : 3);
    c.setAttribute("fill", r.label ? (r.label === "only move" ? "#2a2" : "#d22") : "#246");
    if (r.label) c.setAttribute("class", "labelled");
    const t = document.createElementNS(ns, "title");
    t.textContent = `${r.ply}. ${r.move}${r.label ? ": " + r.label : ""}`;
    c.appendChild(t);
    c.onclick = () => showRow(r);
    svg.appendChild(c);
  });
}

async function showRow(r) {
  await act("goto", { ply: r.ply - 1 });
  shown = r;
  $("review-info").textContent =
    `${r.ply}. ${r.colour} ${r.move}: before ${r.before}, after ${r.after}; best ${r.best} ${r.bestValue}` +
    (r.loss ? `, loss ${r.loss} pp` : "") + (r.label ? ` (${r.label})` : "") +
    ` — line ${r.line.slice(0, 8).map(cellName).join(" ")}`;
  update();
}

$("undo").onclick = () => { shown = null; act("undo"); };
$("redo").onclick = () => { shown = null; act("redo"); };
$("hint").onclick = () => act("hint");
$("swap").onclick = () => act("swap");
$("analysis").onchange = (e) => {
  shown = null; live = null;
  S.analysing = e.target.checked; // as asked, until the server's answer says
  act("analysis", { on: e.target.checked });
};
$("size").onchange = () => { $("size-other").hidden = $("size").value !== "other"; };
$("new").onclick = () => {
  const size = $("size").value === "other" ? $("size-other").value.trim() : $("size").value;
  review = null; shown = null; drawGraph();
  act("new", { rule: Number($("rule").value), size, human: $("side").value, time: Number($("time").value) });
};
$("load").onclick = () => loadText($("paste").value, null);
$("file").onchange = async (e) => {
  const f = e.target.files[0];
  if (f) loadText(await f.text(), f.name);
};
async function loadText(text, name) {
  const j = await act("load", { text, name });
  if (j && !j.error) { review = null; shown = null; drawGraph(); say(`Loaded ${S.line.length} moves.`); }
}
$("save").onclick = async () => {
  const format = $("format").value;
  const r = await fetch(`/api/save?token=${encodeURIComponent(token)}&session=${session}&format=${format}`);
  if (!r.ok) { say((await r.json()).error); return; }
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await r.blob());
  a.download = `wuzi-game.${format === "pos" ? "txt" : format}`;
  a.click();
};
const step = (n) => { shown = null; act("goto", { ply: Math.max(0, Math.min(S.line.length, n)) }); };
$("first").onclick = () => step(0);
$("back").onclick = () => step(S.at - 1);
$("forward").onclick = () => step(S.at + 1);
$("last").onclick = () => step(S.line.length);
$("review").onclick = async () => {
  const j = await act("review", { depth: Number($("review-depth").value) });
  if (j && j.rows) {
    review = j.rows; drawGraph();
    const marked = review.filter((r) => r.label && r.label !== "only move").length;
    $("review-info").textContent = `${review.length} moves reviewed to depth ${j.depth}; ${marked} marked. Click a point to see the best move there.`;
    update();
  }
};
window.addEventListener("resize", () => S && draw());
window.addEventListener("pagehide", () => {
  navigator.sendBeacon(`/api/close?token=${encodeURIComponent(token)}`, JSON.stringify({ session }));
});

(async () => {
  const j = await call("session");
  if (!j || !j.session) { say(j && j.error ? j.error : "No session: reload the page."); return; }
  session = j.session;
  window.wuziSession = session;
  const events = new EventSource(`/api/events?token=${encodeURIComponent(token)}&session=${session}`);
  events.onmessage = (e) => { live = JSON.parse(e.data); if (S && S.analysing) update(); };
  update();
})();
