// The demo game: catch the falling coins. Plain JavaScript, no build step and no packages.
//
// The scene is the file scenes/main.pix3scene, read through the Pix3 dev server
// (/__pix3/api/scene?draw=1: the nodes with their properties as the scene model reads them) and
// drawn with the editor's own 2D renderer (/__pix3/page/scene2d.js), so the game and the editor's
// scene view draw the same scene the same way. The game moves the ship, the coin and the stars
// every frame and keeps the score; everything else is as the file says. Edit the file (colours,
// sizes, texts, positions) and the running game takes the change: see `filesChanged` below.

import { Textures, drawScene, eachNode, findById, sceneNodes } from "/__pix3/page/scene2d.js";

const FALL_SPEED = 420; // design pixels per second
const SHIP_SPEED = 900;
const STEER_SPEED = 1100;
const CATCH_RANGE = 90; // how far from the ship's centre a coin still counts as caught
const MANUAL_FOR_MS = 1500; // the autopilot waits this long after the last key
const MAX_STEP_S = 0.05; // a long pause (a hidden tab) is not one giant step

const query = new URLSearchParams(location.search).get("scene") ?? "res://scenes/main.pix3scene";
const scenePath = query.replace(/^res:\/\//i, "").replace(/^\/+/, "");
const canvas = document.getElementById("game");
const message = document.getElementById("message");
const textures = new Textures();

let nodes = [];
let viewport = [1920, 1080];
const state = {
  frame: 0,
  score: 0,
  missed: 0,
  shipX: 0,
  shipVelocity: 0,
  coinX: 300,
  coinY: 420,
  coinSpin: 0,
  starY: new Map(),
  keys: new Set(),
  manualUntil: 0,
  seed: 7,
  reloads: 0,
};

function random() {
  state.seed = (state.seed * 1103515245 + 12345) % 2147483648; // a fixed sequence: runs repeat
  return state.seed / 2147483648;
}

async function readScene(path) {
  const response = await fetch(`/__pix3/api/scene?path=${encodeURIComponent(path)}&draw=1`, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(`${path}: ${body.message ?? `HTTP ${response.status}`}`);
  return body;
}

// The scene as the file has it now; the game's own state (positions it moves, the score) stays.
async function load() {
  const outline = await readScene(scenePath);
  nodes = sceneNodes(outline);
  viewport = outline.viewport;
  await textures.settled(nodes);
}

function props(id) {
  return findById(nodes, id)?.props ?? null;
}

function step(dt, now) {
  const ship = props("ship");
  const coin = props("coin");
  const [width, height] = viewport;
  const shipY = ship ? ship.position[1] : -height / 3;
  const half = width / 2 - 80;
  let velocity;
  if (now < state.manualUntil || state.keys.size) {
    velocity = (state.keys.has("right") - state.keys.has("left")) * STEER_SPEED;
  } else {
    const gap = state.coinX - state.shipX;
    velocity = Math.sign(gap) * Math.min(SHIP_SPEED, Math.abs(gap) / dt);
  }
  state.shipX = Math.max(-half, Math.min(half, state.shipX + velocity * dt));
  state.shipVelocity = velocity;
  state.coinY -= FALL_SPEED * dt;
  state.coinSpin = (state.coinSpin + 120 * dt) % 360;
  if (state.coinY <= shipY + 40) {
    if (Math.abs(state.coinX - state.shipX) <= CATCH_RANGE) state.score += 1;
    else state.missed += 1;
    state.coinY = height / 2 + 40;
    state.coinX = Math.round((random() * 2 - 1) * (width / 2 - 160));
  }
  for (const node of findById(nodes, "stars")?.children ?? []) {
    const speed = 40 + 30 * (node.props.width ?? 4);
    let y = (state.starY.get(node.id) ?? node.props.position[1]) - speed * dt;
    if (y < -height / 2) y += height;
    state.starY.set(node.id, y);
  }
}

// The game's state written into the nodes the renderer draws.
function apply() {
  const ship = props("ship");
  if (ship) {
    ship.position = [state.shipX, ship.position[1]];
    ship.rotation = -state.shipVelocity / 60;
  }
  const coin = props("coin");
  if (coin) {
    coin.position = [state.coinX, state.coinY];
    coin.rotation = state.coinSpin;
  }
  for (const node of findById(nodes, "stars")?.children ?? []) {
    if (state.starY.has(node.id)) node.props.position = [node.props.position[0], state.starY.get(node.id)];
  }
  const score = props("score");
  if (score) score.label = `SCORE ${state.score}`;
}

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  drawScene(canvas, nodes, viewport, { textures, background: "#05070f", dpr, cssWidth: width, cssHeight: height });
}

let last = null;
function frame(now) {
  requestAnimationFrame(frame);
  const dt = last === null ? 0 : Math.min(MAX_STEP_S, (now - last) / 1000);
  last = now;
  state.frame += 1;
  if (dt > 0) step(dt, now);
  apply();
  draw();
}

function nodeFacts(node) {
  const facts = { type: node.type, position: node.props.position, rotation: node.props.rotation, visible: node.props.visible };
  for (const key of ["scale", "width", "height", "color", "label", "texture"]) {
    if (key in node.props) facts[key] = node.props[key];
  }
  return facts;
}

// What the editor page and `pix3 smoke` read (docs/game-page.md): the score, the counters and
// every node as drawn. `filesChanged` is the live-edit hook: the editor calls it with the files a
// sync changed while the game plays, and the game says which of them it could not take live.
globalThis.__PIX3_GAME_DEBUG__ = {
  name: "pix3-demo",
  snapshot: () => ({
    scene: `res://${scenePath}`,
    frame: state.frame,
    score: state.score,
    missed: state.missed,
    reloads: state.reloads,
    ship: { x: state.shipX, y: props("ship")?.position[1] ?? null },
    coin: { x: state.coinX, y: state.coinY },
    nodes: Object.fromEntries([...eachNode(nodes)].map((node) => [node.id, nodeFacts(node)])),
  }),
  async filesChanged(paths) {
    const stale = paths.filter((path) => path === "index.html" || path.startsWith("src/"));
    const images = paths.filter((path) => /\.(png|jpe?g|webp|gif)$/i.test(path));
    textures.forget(images);
    const applied = [...images];
    if (paths.includes(scenePath) || images.length) {
      await load();
      state.reloads += 1;
      if (paths.includes(scenePath)) applied.push(scenePath);
    }
    return { applied, stale };
  },
};

const KEYS = { ArrowLeft: "left", KeyA: "left", ArrowRight: "right", KeyD: "right" };
window.addEventListener("keydown", (event) => {
  if (!KEYS[event.code]) return;
  state.keys.add(KEYS[event.code]);
  state.manualUntil = performance.now() + MANUAL_FOR_MS;
});
window.addEventListener("keyup", (event) => {
  if (!KEYS[event.code]) return;
  state.keys.delete(KEYS[event.code]);
  state.manualUntil = performance.now() + MANUAL_FOR_MS;
});

load().then(() => {
  state.shipX = props("ship")?.position[0] ?? 0;
  state.coinX = props("coin")?.position[0] ?? state.coinX;
  state.coinY = props("coin")?.position[1] ?? state.coinY;
  requestAnimationFrame(frame);
}, (error) => {
  message.hidden = false;
  message.textContent = `The game could not read its scene: ${error.message}`;
  console.error("pix3-demo: the scene could not be read:", error);
});
