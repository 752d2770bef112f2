// The `pix3` tool group: names, descriptions and JSON Schemas, in table order (docs/bridge.md).
// Both transports read this one table: chrome-devtools-mcp's discovery (its ajv validates the
// schemas server-side) and window.__PIX3_DEBUG__.call (validated here by paramschema.js).

export const GROUP_NAME = "pix3";

export const GROUP_DESCRIPTION =
  "Pix3 editor page: sync it with the files on disk, read a scene's nodes, play the game in a " +
  "frame, run it until a condition holds, read the errors it logged. Scenes and scripts are " +
  "edited as FILES, never through these tools; call pix3_sync after a batch of edits; see the " +
  "other agents at work (pix3_agents). " +
  "Every refusal is {ok:false, reason, detail}.";

const EMPTY = { type: "object", properties: {}, additionalProperties: false };

export const TOOLS = [
  {
    name: "pix3_status",
    description:
      "The page's state: versions, project, active scene, which tab writes, scenes with text " +
      "not yet on disk (dirty, pending), play state and owner, error count, and viteClient " +
      "(true when Vite's HMR client reached the editor page).",
    inputSchema: EMPTY,
  },
  {
    name: "pix3_sync",
    description:
      "Write the page's unsaved scenes, rescan the project and wait until the editor runs the " +
      "files as they are on disk. Call it after every batch of file edits and before reading a " +
      "file someone else may have changed. expect = {path: sha256} of files you wrote (a " +
      "mismatch means someone else wrote them). Not ok is no barrier: on stale_modules call " +
      "again; on expect_mismatch re-read and sync with the new hashes; on stale follow " +
      "`playing`: \"agent\" → pix3_play restart, then sync again; \"designer\" → wait or ask.",
    inputSchema: {
      type: "object",
      properties: {
        expect: { type: "object", description: "Project-relative path → sha256 the file must have on disk." },
        timeoutMs: { type: "integer", minimum: 100, maximum: 120000 },
      },
      additionalProperties: false,
    },
  },
  {
    name: "pix3_scene",
    description:
      "Read a scene as the editor page holds it (an unsaved text wins over the file): the node " +
      "tree {nodeId, type, name, properties, children…} of the active scene or `path`, maxDepth " +
      "levels deep (default 3); one node with its components and `saved` (as the file has it) " +
      "and `screen` (its origin on the page in CSS px, from the scene view of the active 2D " +
      "scene; ours: `screenRect`, its box) with nodeId; or the nodes whose name or type contains " +
      "`find`. Read-only.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "res:// or project-relative scene path." },
        maxDepth: { type: "integer", minimum: 1, maximum: 8 },
        nodeId: { type: "string" },
        find: { type: "string" },
      },
      additionalProperties: false,
    },
  },
  {
    name: "pix3_play",
    description:
      "Run the game: start loads the project's game page (/?scene=<res path>) in the editor " +
      "page's frame with the active scene (or scenePath) and makes the agent its owner; stop, " +
      "restart, pause and resume act on a session an agent started (pause holds the game's " +
      "animation frames, resume lets them run; both can be repeated). A session the person " +
      "started with the page's Play button is refused with not_owner, force included. status " +
      "returns playing, status (loading, running, paused or stopped), playOwner and startedAt.",
    inputSchema: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["start", "stop", "restart", "pause", "resume", "status"] },
        scenePath: { type: "string" },
        force: { type: "boolean" },
      },
      required: ["action"],
      additionalProperties: false,
    },
  },
  {
    name: "pix3_game_run",
    description:
      "Watch the running game frame by frame until a predicate holds (until, any of them), one " +
      "fails (fail, any of them) or a budget runs out; read `verdict` first. Needs a play " +
      "session. Frames are the frames the game draws (its requestAnimationFrame callbacks) in " +
      "real time. A game page that never ran (its script did not load), reloaded or left is an " +
      "ERROR naming why; `judged` holds the codes pix3 smoke gives the same page. Predicates: " +
      "{kind:\"gameState\", path, op, value} and {kind:\"gameStateChanged\", path, by?} on the " +
      "snapshot the game offers (globalThis.__PIX3_GAME_DEBUG__), {kind:\"newErrors\", min?}, " +
      "{kind:\"frames\", n}. Predicates on nodes (nodeGone, nodeMoved, nodeAppeared, " +
      "nodeProperty), input, bots and signals need the Pix3 runtime's node graph and are refused.",
    inputSchema: {
      type: "object",
      properties: {
        until: { type: "array", items: { type: "object" } },
        fail: { type: "array", items: { type: "object" } },
        watch: { type: "array", items: { type: "string" } },
        maxFrames: { type: "integer", minimum: 1 },
        maxWallMs: { type: "integer", minimum: 1 },
        settleMs: { type: "integer", minimum: 0 },
        fixedDeltaSec: { type: "number" },
        pauseOnOutcome: { type: "boolean" },
        bot: {
          type: "object",
          description: "A stored bot policy {name}; refused by this page (it needs the Pix3 runtime).",
        },
      },
      required: ["until"],
      additionalProperties: true,
    },
  },
  {
    name: "pix3_screenshot",
    description:
      "Prepare the page so that chrome-devtools-mcp's take_screenshot shows what you want: " +
      "`game` makes the running game's frame fill the viewport, `scene` the scene view (the " +
      "active 2D scene as stored, the selected node outlined), `viewport` brings back the " +
      "editor page (node tree, scene view, game). Then call take_screenshot; no image data is " +
      "returned here.",
    inputSchema: {
      type: "object",
      properties: { target: { type: "string", enum: ["game", "viewport", "scene"] } },
      required: ["target"],
      additionalProperties: false,
    },
  },
  {
    name: "pix3_errors",
    description:
      "Errors and warnings the editor page and the game frame logged (uncaught errors, " +
      "unhandled rejections, console.error, console.warn, files that did not load with url and " +
      "reason, dialogs, navigation), with the game's code; oldest first, at most 200; since " +
      "(epoch ms) keeps the later ones; clear empties the list after reading it.",
    inputSchema: {
      type: "object",
      properties: { since: { type: "integer", minimum: 0 }, clear: { type: "boolean" } },
      additionalProperties: false,
    },
  },
  {
    name: "pix3_agents",
    description:
      "The agents connected to pix3's Chrome (the CDP proxy of the Chrome `pix3 editor` started): " +
      "per client its number, name (?client=), since, calls, callsPerSecond, lastMethod, errors " +
      "and its tabs {title, url, thumbnail} (a JPEG data URL at most 320 px wide, or null); " +
      "editorTab.answering. The owner hands them to this page through Chrome (never over HTTP); " +
      "{ok:false, reason:\"no_owner\"} when no owner answers (2 s) or it sends nothing (6 s). Read-only; " +
      "`pix3 editor --kick <client>` ends one.",
    inputSchema: EMPTY,
  },
];

export const TOOL_NAMES = TOOLS.map((tool) => tool.name);

// A deep copy, so that nothing handed out can change the table.
export function toolEntry(tool) {
  return { name: tool.name, description: tool.description, inputSchema: structuredClone(tool.inputSchema) };
}
