// One puppeteer-core client of the CDP proxy: opens its own page, drives it, closes it.
// argv: <browserWSEndpoint> <token> <name> <dir>
// Coordination through files in <dir>, so two clients provably run at once:
//   writes <name>.ready once connected, then waits for `go`;
//   writes <name>.done once its page is closed, then waits for `finish` before disconnecting
//   (so it is still listening while the other client works), then prints a JSON summary.
// Run with `node -r protocol_log.cjs` so the raw frames land in $PIX3_PROTOCOL_LOG for the test to check.
// It never calls browser.pages(): that makes a Page (Runtime.enable, …) for *every* open page,
// the other client's too, and Chrome then replays that page's console messages to this client.
'use strict';
const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');

async function waitFor(file) {
  while (!fs.existsSync(file)) await new Promise(r => setTimeout(r, 20));
}

async function main() {
  const [endpoint, token, name, dir] = process.argv.slice(2);
  const browser = await puppeteer.connect({
    browserWSEndpoint: endpoint,
    headers: {Authorization: `Bearer ${token}`},
    defaultViewport: {width: 320, height: 240},
  });
  fs.writeFileSync(path.join(dir, `${name}.ready`), '');
  await waitFor(path.join(dir, 'go'));
  const started = Date.now();
  const page = await browser.newPage();
  const consoleSeen = [];
  page.on('console', msg => consoleSeen.push(msg.text()));
  await page.goto(`data:text/html,<title>${name}</title><p id=p>${name}</p>`);
  const results = [];
  for (let i = 0; i < 25; i++) {
    results.push(await page.evaluate((n, k) => { console.log(`${n}:${k}`); return `${n}:${k}:${document.title}`; }, name, i));
    await new Promise(r => setTimeout(r, 10));
  }
  const text = await page.$eval('#p', el => el.textContent);
  const targetId = page.target()._targetId;
  await page.close();
  const ended = Date.now();
  fs.writeFileSync(path.join(dir, `${name}.done`), '');
  await waitFor(path.join(dir, 'finish'));
  // The targets this client was told about (Target.targetCreated/targetDestroyed through the proxy): no commands sent.
  const stillOpen = browser.targets().filter(t => t.type() === 'page' && t.url().includes(`<title>${name}<`)).map(t => t.url());
  await browser.disconnect();
  console.log(JSON.stringify({name, started, ended, results, consoleSeen, text, targetId, stillOpen}));
}
main().catch(e => { console.error(`FAILED: ${e && e.stack || e}`); process.exit(1); });
