// Makes the --trace picture of docs/runtime.md: opens a trace2html page (catapult's trace
// viewer, the one chrome://tracing shows, as one HTML file) in headless Chromium, waits
// until the viewer has imported the trace, selects the longest phase span so the bottom
// panel shows its args, and saves the page as PNG. Driven over the DevTools protocol
// because the viewer imports in steps that `chromium --screenshot` does not wait for.
//
// usage: node --experimental-websocket scripts/trace-screenshot.mjs PAGE.html OUT.png
//   (Node 22 and later need no flag; Node 20 needs it for WebSocket)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The window is sized so the three tracks and the selected span's args fit: Chromium's
// headless window is about 143 px taller than the page it shows.
const width = 1300, height = 830, argsPanelPx = 470;
const timeoutMs = 60000;

// Before Chromium starts a failure exits at once; after, it throws, so that `finally`
// stops Chromium and removes its profile.
let chromiumStarted = false;
function fail(message) {
  if (chromiumStarted) throw new Error(message);
  console.error(`trace-screenshot: ${message}`);
  process.exit(1);
}
const sleep = ms => new Promise(done => setTimeout(done, ms));

const [page, out] = process.argv.slice(2);
if (!page || !out) fail('usage: node --experimental-websocket scripts/trace-screenshot.mjs PAGE.html OUT.png');
if (!existsSync(page)) fail(`${page}: no such file (make it with catapult's tracing/bin/trace2html)`);
if (typeof WebSocket === 'undefined') fail('this Node has no WebSocket: run it with --experimental-websocket');

const profile = mkdtempSync(join(tmpdir(), 'trace-screenshot-'));
const chromium = spawn('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
  '--remote-debugging-port=0', `--user-data-dir=${profile}`, `--window-size=${width},${height}`, 'about:blank'],
  { stdio: 'ignore' });
chromiumStarted = true;
let spawnError = null;
chromium.on('error', e => { spawnError = e; });
try {
  // Port 0 lets Chromium pick a free port; it writes the one it took to this file.
  const portFile = join(profile, 'DevToolsActivePort');
  const started = Date.now();
  while (!existsSync(portFile) || !readFileSync(portFile, 'utf8').includes('\n')) {
    if (spawnError) fail(`cannot start chromium (${spawnError.message}): apt-get install chromium`);
    if (Date.now() - started > timeoutMs) fail('chromium did not open its DevTools port');
    await sleep(100);
  }
  const port = readFileSync(portFile, 'utf8').split('\n')[0];
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const socket = new WebSocket(targets.find(t => t.type === 'page').webSocketDebuggerUrl);
  await new Promise(open => socket.addEventListener('open', open));
  let lastId = 0;
  const replies = new Map();
  socket.addEventListener('message', m => {
    const message = JSON.parse(m.data);
    if (replies.has(message.id)) replies.get(message.id)(message);
  });
  const send = (method, params = {}) => new Promise(reply => {
    replies.set(++lastId, reply);
    socket.send(JSON.stringify({ id: lastId, method, params }));
  });
  const evaluate = async expression => {
    const { result } = await send('Runtime.evaluate', { expression, returnByValue: true });
    if (result.exceptionDetails) fail(`in the page: ${result.exceptionDetails.exception?.description}`);
    return result.result.value;
  };

  await send('Page.navigate', { url: 'file://' + resolve(page) });
  const importedExpr = `(() => { const view = document.querySelector('tr-ui-timeline-view');
    return !!(view && view.model && !document.querySelector('tr-ui-b-progress-dialog')); })()`;
  while (!(await evaluate(importedExpr))) {
    if (Date.now() - started > timeoutMs) fail(`${page}: the trace viewer did not finish importing`);
    await sleep(200);
  }
  const selected = await evaluate(`(() => {
    const view = document.querySelector('tr-ui-timeline-view');
    let longest;
    for (const e of view.model.getDescendantEvents())
      if (e.category === 'phase' && (!longest || e.duration > longest.duration)) longest = e;
    if (!longest) return null;
    view.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet([longest]));
    document.querySelector('tr-ui-a-analysis-view').style.height = '${argsPanelPx}px';
    window.dispatchEvent(new Event('resize'));
    return longest.title;
  })()`);
  if (selected === null) fail(`${page}: the trace has no phase span ("cat":"phase")`);
  await sleep(1500); // the viewer redraws on the next animation frames
  const { result } = await send('Page.captureScreenshot', { format: 'png' });
  writeFileSync(out, Buffer.from(result.data, 'base64'));
  console.log(`${out}: selected "${selected}"`);
  socket.close();
} catch (e) {
  console.error(`trace-screenshot: ${e.message}`);
  process.exitCode = 1;
} finally {
  if (!spawnError) {
    chromium.kill();
    await new Promise(exited => (chromium.exitCode !== null || chromium.signalCode ? exited() : chromium.on('exit', exited)));
  }
  rmSync(profile, { recursive: true, force: true });
}
