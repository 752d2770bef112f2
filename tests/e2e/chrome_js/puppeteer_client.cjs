// One puppeteer-core client of the CDP proxy: opens its own page, drives it, closes it.
// argv: <browserWSEndpoint> <token> <name> <startFlagFile>
// Once connected it creates <startFlagFile>.<name>.connected, then waits until <startFlagFile>
// exists (so two clients run at once), then prints a JSON summary.
// Run with DEBUG='puppeteer:protocol:*' so the raw frames land on stderr for the test to check.
'use strict';
const fs = require('fs');
const puppeteer = require('puppeteer-core');

async function main() {
  const [endpoint, token, name, flag] = process.argv.slice(2);
  const browser = await puppeteer.connect({
    browserWSEndpoint: endpoint,
    headers: {Authorization: `Bearer ${token}`},
    defaultViewport: {width: 320, height: 240},
  });
  fs.writeFileSync(`${flag}.${name}.connected`, '');
  while (!fs.existsSync(flag)) await new Promise(r => setTimeout(r, 20));
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
  await new Promise(r => setTimeout(r, 200));  // let late console events arrive
  const stillOpen = (await browser.pages()).map(p => p.url()).filter(u => u.includes(`<title>${name}<`));
  await browser.disconnect();
  console.log(JSON.stringify({name, started, ended, results, consoleSeen, text, targetId, stillOpen}));
}
main().catch(e => { console.error(`FAILED: ${e && e.stack || e}`); process.exit(1); });
