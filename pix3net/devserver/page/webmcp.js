// WebMCP (docs/bridge.md, "WebMCP"): where the browser offers `document.modelContext` (Chromium
// with the WebMCP feature, which pix3's Chrome is started with), the seven `pix3` tools are
// registered there too, through the same dispatcher as the `devtoolstooldiscovery` group.
// Not annotated `debugging`: chrome-devtools-mcp lists such tools among its third-party tools,
// where the `pix3` group already names them; these are for WebMCP clients (chrome-devtools-mcp's
// `list_webmcp_tools`, the browser's own agent).

import { TOOLS, toolEntry } from "./tools.js";

// Registers every tool; resolves to the names registered (none without document.modelContext).
// `controller.abort()` unregisters them all.
export function registerWebMcp(doc, call, controller = new AbortController()) {
  const context = doc.modelContext;
  if (!context || typeof context.registerTool !== "function") return Promise.resolve([]);
  const done = TOOLS.map(async (tool) => {
    const entry = { ...toolEntry(tool), execute: (input) => call(tool.name, input ?? {}) };
    try {
      await context.registerTool(entry, { signal: controller.signal });
      return tool.name;
    } catch (error) {
      console.warn(`pix3: WebMCP did not take ${tool.name}: ${error && error.message}`);
      return null;
    }
  });
  return Promise.all(done).then((names) => names.filter(Boolean));
}
