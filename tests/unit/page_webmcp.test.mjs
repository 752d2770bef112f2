// WebMCP registration of the page's tools (docs/bridge.md, "WebMCP") under node:test, with a
// stand-in `document.modelContext` (run by tests/unit/test_page_webmcp.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { TOOL_NAMES, TOOLS } from "../../pix3net/devserver/page/tools.js";
import { registerWebMcp } from "../../pix3net/devserver/page/webmcp.js";

function modelContext({ refuse = [] } = {}) {
  const tools = new Map();
  return {
    tools,
    registerTool(tool, { signal }) {
      if (refuse.includes(tool.name)) return Promise.reject(new Error("duplicate name"));
      tools.set(tool.name, tool);
      signal.addEventListener("abort", () => tools.delete(tool.name));
      return Promise.resolve();
    },
  };
}

test("without document.modelContext nothing is registered", async () => {
  assert.deepEqual(await registerWebMcp({}, async () => ({})), []);
  assert.deepEqual(await registerWebMcp({ modelContext: {} }, async () => ({})), []);
});

test("the eight tools, their schemas, no debugging annotation, the same dispatcher; abort unregisters", async () => {
  const context = modelContext();
  const calls = [];
  const controller = new AbortController();
  const call = async (name, params) => {
    calls.push([name, params]);
    return { ok: true, name };
  };
  assert.deepEqual(await registerWebMcp({ modelContext: context }, call, controller), TOOL_NAMES);
  for (const tool of TOOLS) {
    const registered = context.tools.get(tool.name);
    assert.equal(registered.description, tool.description);
    assert.deepEqual(registered.inputSchema, tool.inputSchema);
    assert.equal(registered.annotations, undefined); // listed once by chrome-devtools-mcp: as the pix3 group
  }
  assert.deepEqual(await context.tools.get("pix3_scene").execute({ maxDepth: 1 }), { ok: true, name: "pix3_scene" });
  assert.deepEqual(await context.tools.get("pix3_status").execute(undefined), { ok: true, name: "pix3_status" });
  assert.deepEqual(calls, [["pix3_scene", { maxDepth: 1 }], ["pix3_status", {}]]);
  controller.abort();
  assert.equal(context.tools.size, 0);
});

test("a tool the browser refuses is left out, the others stay", async () => {
  const context = modelContext({ refuse: ["pix3_play"] });
  const warned = [];
  const warn = console.warn;
  console.warn = (text) => warned.push(text);
  try {
    const names = await registerWebMcp({ modelContext: context }, async () => ({}));
    assert.deepEqual(names, TOOL_NAMES.filter((name) => name !== "pix3_play"));
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(warned, ["pix3: WebMCP did not take pix3_play: duplicate name"]);
});
