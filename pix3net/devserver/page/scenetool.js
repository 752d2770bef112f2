// pix3_scene's shaping (docs/bridge.md, "pix3_scene"): the dev server answers a scene's
// outline from the Python scene model (GET /__pix3/api/scene, the `pix3 tree --json` nodes plus
// each node's `saved` mapping); this module turns it into the tool's answers. Pure functions.

export const DEFAULT_MAX_DEPTH = 3;
export const SCENE_ROOT_ID = "<scene-root>";
export const NO_SCREEN =
  "No `screen`: the scene view shows the active scene only; open this scene (pix3_status's " +
  "activeScene is the one shown) to read its nodes' positions on the page.";

// `res://a/b`, `./a/b`, `/a/b/`, `a\\b` → `a/b` (the editor's project-path rule).
export function toProjectPath(value) {
  let text = String(value);
  if (text.slice(0, 6).toLowerCase() === "res://") text = text.slice(6);
  text = text.replace(/\\/g, "/");
  for (;;) {
    if (text.startsWith("./")) text = text.slice(2);
    else if (text.startsWith("/")) text = text.slice(1);
    else break;
  }
  return text.replace(/\/+$/, "");
}

export function resPath(value) {
  return `res://${toProjectPath(value)}`;
}

function isVectorRecord(value) {
  const keys = Object.keys(value);
  return (keys.length === 3 || (keys.length === 4 && "w" in value)) &&
    ["x", "y", "z"].every((k) => typeof value[k] === "number");
}

// A JSON-able copy: depth-limited, at most 100 items per array and 60 keys per object, `_`-keys
// dropped, {x,y,z[,w]} records kept whole at any depth.
export function safeSerialize(value, depth) {
  if (value === null || typeof value === "number" || typeof value === "boolean" || typeof value === "string") {
    return value;
  }
  if (typeof value === "bigint") return Number(value);
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return null;
  if (Array.isArray(value)) {
    if (depth <= 0) return `[Array(${value.length})]`;
    return value.slice(0, 100).map((item) => safeSerialize(item, depth - 1));
  }
  if (isVectorRecord(value)) {
    const out = { x: value.x, y: value.y, z: value.z };
    if ("w" in value) out.w = value.w;
    return out;
  }
  if (depth <= 0) return "[Object]";
  const keys = Object.keys(value).filter((k) => !k.startsWith("_"));
  const out = {};
  for (const key of keys.slice(0, 60)) out[key] = safeSerialize(value[key], depth - 1);
  if (keys.length > 60) out["…"] = `(+${keys.length - 60} more keys)`;
  return out;
}

// A vector as the file writes it ([x, y, z?] or {x, y, z?}; a 2D rotation is one number) as
// {x, y, z} (`z` when the file gives two numbers); null when the file does not say (the
// runtime's default applies).
export function vector3(value, z = 0) {
  if (typeof value === "number") return { x: 0, y: 0, z: value };
  if (Array.isArray(value) && value.length >= 2 && value.every((v) => typeof v === "number")) {
    return { x: value[0], y: value[1], z: value.length > 2 ? value[2] : z };
  }
  if (value && typeof value === "object" && typeof value.x === "number" && typeof value.y === "number") {
    return { x: value.x, y: value.y, z: typeof value.z === "number" ? value.z : z };
  }
  return null;
}

function transformOf(properties) {
  const t = properties && typeof properties.transform === "object" && properties.transform ? properties.transform : {};
  const pick = (...values) => values.find((v) => v !== undefined);
  return {
    position: vector3(pick(t.position, properties?.position)),
    rotation: vector3(pick(t.rotationEuler, t.rotation, properties?.rotation)),
    scale: vector3(pick(t.scale, properties?.scale), 1), // a 2D scale leaves z alone
  };
}

function savedOf(node) {
  return node.saved && typeof node.saved === "object" ? node.saved : {};
}

// One node as the tool shows it; `depth` = how many levels of children to expand below it.
export function nodeDto(node, depth) {
  const saved = savedOf(node);
  const properties = saved.properties && typeof saved.properties === "object" ? saved.properties : {};
  const dto = {
    nodeId: node.id,
    type: node.type,
    name: node.name ?? null,
    visible: node.hidden !== true,
    transform: transformOf(properties),
    groups: node.groups ?? [],
    componentCount: node.components.length,
    properties: safeSerialize(properties, 4),
  };
  if (node.instance) dto.instance = node.instance;
  const children = node.children ?? [];
  if (children.length) {
    if (depth > 0) dto.children = children.map((child) => nodeDto(child, depth - 1));
    else dto.childCount = children.length;
  }
  return dto;
}

export function* walk(nodes) {
  for (const node of nodes) {
    yield node;
    yield* walk(node.children ?? []);
  }
}

export function sceneTree(outline, { maxDepth = DEFAULT_MAX_DEPTH, version = null } = {}) {
  return {
    nodeId: SCENE_ROOT_ID,
    type: "SceneRoot",
    name: outline.description || "Scene",
    visible: true,
    transform: { position: null, rotation: null, scale: null },
    groups: [],
    componentCount: 0,
    properties: null,
    children: outline.nodes.map((node) => nodeDto(node, maxDepth - 1)),
    sceneVersion: version,
  };
}

export function findNodes(outline, text) {
  const needle = String(text).toLowerCase();
  const matches = [];
  for (const node of walk(outline.nodes)) {
    const name = (node.name ?? "").toLowerCase();
    if (name.includes(needle) || String(node.type).toLowerCase().includes(needle)) {
      matches.push({ nodeId: node.id, type: node.type, name: node.name ?? null });
    }
  }
  return matches;
}

export function findNode(outline, nodeId) {
  for (const node of walk(outline.nodes)) if (node.id === nodeId) return node;
  return null;
}

export function componentsOf(node) {
  const authored = Array.isArray(savedOf(node).components) ? savedOf(node).components : [];
  return authored.map((component, index) => {
    const item = component && typeof component === "object" ? component : {};
    const config = {};
    for (const [key, value] of Object.entries(item)) {
      if (!["type", "id", "enabled"].includes(key)) config[key] = value;
    }
    return {
      index,
      type: typeof item.type === "string" ? item.type : null,
      id: typeof item.id === "string" ? item.id : null,
      enabled: item.enabled !== false,
      config: safeSerialize(config, 3),
    };
  });
}

// The answer of pix3_scene for an outline the page holds (`params` already validated).
// `screenOf(nodeId)` → {screen, screenRect?, note?}: where the scene view shows the node (only
// for the scene it shows; without it `screen` is null with NO_SCREEN).
export function shapeScene(outline, params, { path, version, selection, screenOf = null }) {
  if (typeof params.nodeId === "string") {
    const node = findNode(outline, params.nodeId);
    if (!node) return { ok: false, reason: "not_found", detail: `No node "${params.nodeId}" in the scene.`, path };
    const dto = nodeDto(node, 0);
    dto.components = componentsOf(node);
    const placed = screenOf ? screenOf(node.id) : { screen: null, note: NO_SCREEN };
    const answer = { ok: true, node: dto, saved: safeSerialize(savedOf(node), 6), screen: placed.screen };
    if (placed.screenRect) answer.screenRect = placed.screenRect;
    answer.path = path;
    if (placed.note) answer.note = placed.note;
    return answer;
  }
  if (typeof params.find === "string") return { ok: true, path, matches: findNodes(outline, params.find) };
  const maxDepth = params.maxDepth ?? DEFAULT_MAX_DEPTH;
  return { ok: true, path, scene: sceneTree(outline, { maxDepth, version }), selection };
}
