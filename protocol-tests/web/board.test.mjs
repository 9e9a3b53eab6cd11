// The web board in a real browser, as a person uses it: Debian's chromium, driven by
// playwright-core, against `pbrain-wuzi serve` on loopback. It plays a move and sees
// Wuzi's answer, undoes, turns on the analysis and sees the win-rate bar and a best line,
// loads an SGF that c-gomoku-cli wrote and sees the review graph with a labelled mistake,
// refuses a broken record with its line, saves, takes a screenshot, and checks the page
// at 360 and 1920 pixels wide.
//
//   node board.test.mjs PBRAIN-WUZI GAME.sgf SCREENSHOT.png
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const [exe, sgf, shot] = process.argv.slice(2);
const THINK = 0.5; // Wuzi's time a move in this test, in seconds
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};

function startServer() {
  const server = spawn(exe, ["serve", "--port", "0", "--threads", "1"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/open (http:\/\/\S+)/);
      if (m) resolve({ server, url: m[1] });
    });
    server.on("exit", (code) => reject(new Error(`the server ended (${code}): ${out}`)));
  });
}

const { server, url } = await startServer();
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Whether the page comes to a state within 30 s, told as a check.
  const reaches = async (what, fn, arg) => {
    let ok = true;
    try {
      await page.waitForFunction(fn, arg, { timeout: 30000 });
    } catch {
      ok = false;
    }
    check(ok, what);
  };
  const moves = (n) => page.waitForFunction((n) => document.body.dataset.moves === String(n), n, { timeout: 30000 });
  const clickCell = async (x, y) => {
    const c = await page.evaluate(([x, y]) => window.wuziBoard.cellCenter(x, y), [x, y]);
    await page.mouse.click(c.x, c.y);
  };
  await page.goto(url);
  await moves(0);

  // A new game with Wuzi at 0.5 s a move.
  await page.click("#new-box summary");
  await page.fill("#time", String(THINK));
  await page.click("#new");
  await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("your move"));

  // Moves, each answered and drawn: the time from the click to Wuzi's stone on the
  // board, against Wuzi's thinking time (a figure printed, not a pass or fail: the
  // machine's load decides it).
  const state = () => page.evaluate(async () => {
    const q = new URLSearchParams(location.search);
    return (await fetch(`/api/state?token=${q.get("token")}&session=${window.wuziSession}`)).json();
  });
  const times = [];
  for (const [x, y] of [[7, 7], [6, 6], [8, 8], [5, 5], [9, 9], [4, 4], [10, 10], [6, 8]]) {
    const s = await state();
    if (s.result) break;
    if (s.moves.some(([a, b]) => a === x && b === y)) continue;
    const n = s.moves.length;
    const t0 = Date.now();
    await clickCell(x, y);
    await page.waitForFunction((n) => Number(document.body.dataset.moves) >= n + 1 &&
      (Number(document.body.dataset.moves) === n + 2 || document.getElementById("status").textContent.includes("wins")), n, { timeout: 30000 });
    if (Number(await page.evaluate(() => document.body.dataset.moves)) === n + 2) times.push(Date.now() - t0);
    if (times.length === 1) {
      const said = await page.textContent("#message");
      check(/^Wuzi plays [a-o]\d+ \(depth \d+, [\d.]+ s\): /.test(said), `Wuzi's move is said: ${said}`);
      check(/for you \(eval [-+]?\d+\)|wins in/.test(said), "its value is told for you");
    }
  }
  times.sort((a, b) => a - b);
  console.log(`moves answered and drawn: ${times.length} moves, median ${times[times.length >> 1]} ms, worst ${times[times.length - 1]} ms (Wuzi's time ${THINK * 1000} ms)`);
  check(times.length >= 3, "Wuzi answered every move");
  // A new game, and h8 again.
  await page.click("#new");
  await moves(0);
  await clickCell(7, 7);
  await moves(2);

  // A hint, said and ringed on the board.
  await page.click("#hint");
  await page.waitForFunction(() => document.body.dataset.hint !== "", null, { timeout: 30000 });
  const hint = await page.evaluate(() => document.body.dataset.hint);
  check((await page.textContent("#message")).startsWith(`Hint: ${hint} (depth `), `the hint ${hint} is said and drawn`);

  // Undo takes back both.
  await page.click("#undo");
  await reaches("undo takes back the move and the answer", () => document.body.dataset.moves === "0");

  // The analysis: a move, then the switch; the bar and a best line appear, live.
  await clickCell(7, 7);
  await moves(2);
  await page.check("#analysis");
  await page.waitForFunction(() => document.body.dataset.winbar !== "" && Number(document.body.dataset.bestLine) > 0, null, { timeout: 30000 });
  const bar = await page.evaluate(() => document.getElementById("winbar-black").style.width);
  check(/^\d+(\.\d+)?%$/.test(bar), `the win-rate bar shows black's share (${bar})`);
  const top = await page.$$eval("#lines li", (l) => l.map((x) => x.textContent));
  check(top.length >= 1 && /for (black|white)/.test(top[0]), `the top moves are listed: ${top[0]}`);
  // A click during the analysis plays the cell, and the analysis goes on.
  await clickCell(9, 9);
  await reaches("a click while analysing plays it, unanswered, and the analysis goes on", () =>
    document.body.dataset.moves === "3" && document.body.dataset.analysing === "true" &&
    Number(document.body.dataset.bestLine) > 0);
  await page.uncheck("#analysis");
  await page.waitForFunction(() => document.body.dataset.analysing === "false");

  // A broken record is refused with its line; the game stays.
  await page.click("#records-box summary");
  await page.fill("#paste", "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,x,0\n10,10,0\n-1\n");
  await page.click("#load");
  await page.waitForFunction(() => document.getElementById("message").textContent.includes("line 3"));
  check((await page.textContent("#message")).includes('found "9,x,0"'), "a broken psq is refused, quoting its line");
  check(await page.evaluate(() => document.body.dataset.moves === "3"), "the game on the board is kept");

  // c-gomoku-cli's SGF, loaded from a file, then reviewed.
  await page.setInputFiles("#file", sgf);
  await moves(51);
  await page.click("#review-box summary");
  await page.selectOption("#review-depth", "4");
  await page.click("#review");
  await page.waitForSelector("#graph circle.labelled", { timeout: 120000 });
  const labels = await page.$$eval("#graph circle.labelled title", (t) => t.map((x) => x.textContent));
  check(labels.some((t) => /blunder|mistake|inaccuracy|allowed|missed/.test(t)), `the graph marks mistakes: ${labels.slice(0, 3).join("; ")}`);
  await page.click("#graph circle.labelled");
  await page.waitForFunction(() => document.getElementById("review-info").textContent.includes("best"));
  check(Number(await page.evaluate(() => document.body.dataset.bestLine)) > 0, "a point of the graph shows the best line there");
  await page.screenshot({ path: shot });
  console.log(`screenshot: ${shot}`);

  // Saved as psq: the whole game.
  const psq = await page.evaluate(async () => {
    const q = new URLSearchParams(location.search);
    const s = document.body.dataset;
    return (await fetch(`/api/save?token=${q.get("token")}&session=${window.wuziSession}&format=psq`)).text();
  });
  check(psq.startsWith("Piskvorky 15x15") && psq.trim().split("\n").length === 53, "save writes the game as psq");

  // A phone and a wide screen.
  for (const width of [360, 1920]) {
    const p = await browser.newPage({ viewport: { width, height: width === 360 ? 740 : 1080 } });
    await p.goto(url);
    await p.waitForFunction(() => document.body.dataset.moves === "0");
    const m = await p.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      board: document.getElementById("board").getBoundingClientRect(),
    }));
    check(m.scroll <= width, `${width} px: nothing wider than the screen (${m.scroll})`);
    check(m.board.width >= Math.min(300, width - 40) && m.board.bottom <= (width === 360 ? 740 : 1080), `${width} px: the board fits (${Math.round(m.board.width)} px wide)`);
    await p.close();
  }
} catch (e) {
  failures.push(String(e));
  console.log(`FAIL ${e}`);
} finally {
  await browser.close();
  server.kill();
}
if (failures.length) {
  console.log(`${failures.length} failed`);
  process.exit(1);
}
console.log("web board: all passed");
