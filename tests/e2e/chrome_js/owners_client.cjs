// A puppeteer-core client of the CDP proxy that opens things and leaves (docs/cdp-proxy.md,
// "Ownership and protection").
// argv: <browserWSEndpoint> <token> <mode>
//   open:  3 tabs (2 in the default context, 1 in a context of its own) and that context, then
//          browser.disconnect(): prints {targets, context}
//   close: 1 tab, then browser.close() on the connected browser: prints {targets, closed: true}
//   editor: tries to close the editor tab (<editor url> as argv[5]) by its page target, by the tab
//           target holding it, and with page.close(): prints {refused: [messages]}
'use strict';
const puppeteer = require('puppeteer-core');

async function main() {
  const [endpoint, token, mode] = process.argv.slice(2, 5);
  const browser = await puppeteer.connect({
    browserWSEndpoint: endpoint,
    headers: {Authorization: `Bearer ${token}`},
    defaultViewport: {width: 320, height: 240},
  });
  const targets = [];
  if (mode === 'open') {
    for (let n = 0; n < 2; n++) {
      const page = await browser.newPage();
      await page.goto(`data:text/html,<title>owned ${n}</title>`);
      targets.push(page.target()._targetId);
    }
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    targets.push(page.target()._targetId);
    const contextId = context.id;
    await browser.disconnect();
    console.log(JSON.stringify({targets, context: contextId}));
  } else if (mode === 'close') {
    const page = await browser.newPage();
    targets.push(page.target()._targetId);
    await browser.close();
    console.log(JSON.stringify({targets, closed: true}));
  } else if (mode === 'editor') {
    const editorUrl = process.argv[5];
    const editor = (await browser.pages()).find(p => p.url() === editorUrl);
    if (!editor) throw new Error(`no page at ${editorUrl}`);
    const refused = [];
    const tries = [
      () => editor.target().createCDPSession().then(s => s.connection().send('Target.closeTarget', {targetId: editor.target()._targetId})),
      () => editor.target().createCDPSession().then(s => s.connection().send('Target.closeTarget', {targetId: editor._tabId})),
      () => editor.close(),
    ];
    for (const attempt of tries) {
      try {
        await attempt();
        refused.push(null);
      } catch (e) {
        refused.push(String(e && e.message || e));
      }
    }
    await browser.disconnect();
    console.log(JSON.stringify({refused, tab: editor._tabId, page: editor.target()._targetId}));
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
}
main().catch(e => { console.error(`FAILED: ${e && e.stack || e}`); process.exit(1); });
