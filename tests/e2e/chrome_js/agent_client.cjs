// A long-lived client of the CDP proxy that opens one tab of a colour and keeps working in it
// (docs/editor.md, "Watching the agents").
// argv: <puppeteer|playwright> <browserWSEndpoint with ?client=> <token> <css colour>
// Opens a tab filled with the colour, prints {"ready": true, "url"}, then every 200 ms sets an
// extra `Authorization` header on the tab (the watch view must show it redacted) and evaluates in
// it, until its stdin closes or the proxy ends it; prints {"ended": <why>} at the end.
'use strict';

async function main() {
  const [library, endpoint, token, colour] = process.argv.slice(2, 6);
  const url = `data:text/html,<title>${colour}</title><style>html,body{margin:0;height:100%;background:${colour}}</style>`;
  const headers = {Authorization: `Bearer ${token}`};
  let page;
  let ended = null;
  if (library === 'puppeteer') {
    const puppeteer = require('puppeteer-core');
    const browser = await puppeteer.connect({browserWSEndpoint: endpoint, headers, defaultViewport: {width: 640, height: 400}});
    browser.on('disconnected', () => { ended = ended || 'disconnected'; });
    page = await browser.newPage();
    await page.goto(url);
  } else {
    const {chromium} = require('playwright-core');
    const browser = await chromium.connectOverCDP(endpoint, {headers});
    browser.on('disconnected', () => { ended = ended || 'disconnected'; });
    const context = browser.contexts()[0];
    page = await context.newPage();
    await page.setViewportSize({width: 640, height: 400});
    await page.goto(url);
  }
  console.log(JSON.stringify({ready: true, url}));
  process.stdin.on('end', () => { ended = ended || 'stdin closed'; });
  process.stdin.resume();
  while (!ended) {
    try {
      await page.setExtraHTTPHeaders({Authorization: `Bearer agent-${colour}-secret`});
      await page.evaluate(() => document.title);
    } catch (e) {
      ended = ended || `evaluate failed: ${e && e.message || e}`;
    }
    await new Promise(r => setTimeout(r, 200));
  }
  console.log(JSON.stringify({ended}));
  process.exit(0);
}

main().catch(e => {
  console.error(e && e.stack || String(e));
  process.exit(1);
});
