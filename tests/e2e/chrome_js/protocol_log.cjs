// Preload (node -r) for puppeteer clients: every CDP frame puppeteer sends or receives is appended
// to $PIX3_PROTOCOL_LOG as one JSON line ["SEND"|"RECV", <frame text>], so a test can check what
// reached this client and nothing else. Puppeteer logs frames as debug('puppeteer:protocol:…')([frame]);
// debug renders an array argument through its %O formatter, which we take over.
'use strict';
const fs = require('fs');
const debug = require('debug');
const out = process.env.PIX3_PROTOCOL_LOG;
debug.enable('puppeteer:protocol:*');
debug.formatters.O = function (value) {
  const ns = String(this.namespace || '');
  const dir = ns.includes('RECV') ? 'RECV' : ns.includes('SEND') ? 'SEND' : null;
  if (dir && Array.isArray(value)) {
    for (const frame of value) if (typeof frame === 'string') fs.appendFileSync(out, JSON.stringify([dir, frame]) + '\n');
  }
  return '';
};
debug.log = () => {};
