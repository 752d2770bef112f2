// playwright-core over the CDP proxy: chromium.connectOverCDP(url, {headers}) and a screenshot.
// argv: <endpoint> <token> <screenshotPath>
'use strict';
const {chromium} = require('playwright-core');

async function main() {
  const [endpoint, token, out] = process.argv.slice(2);
  const browser = await chromium.connectOverCDP(endpoint, {headers: {Authorization: `Bearer ${token}`}});
  const context = browser.contexts()[0] || await browser.newContext();
  const page = await context.newPage();
  await page.setViewportSize({width: 200, height: 100});
  await page.setContent('<body style="margin:0;background:rgb(255,0,0)"><h1>pix3</h1></body>');
  await page.screenshot({path: out});
  const title = await page.evaluate(() => 6 * 7);
  await page.close();
  console.log(JSON.stringify({evaluated: title}));
  process.exit(0);  // drop the connection; browser.close() could end the shared Chrome
}
main().catch(e => { console.error(`FAILED: ${e && e.stack || e}`); process.exit(1); });
