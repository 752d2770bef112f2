// The one 2D scene renderer (docs/game-page.md, "A plain-JavaScript game"): the editor page's
// scene view and a plain-JavaScript game page (the demo) both draw a scene with it, so the two
// draw the same scene the same way. Its input is the dev server's scene outline with `draw=1`
// (docs/tree.md, "Drawing data"): the scene model has already read the file (schema names,
// documented defaults, W21 layout, texture paths); this module only places and paints.
//
// Space: the design viewport (the manifest's viewportBaseSize), X right, Y up, origin at its
// centre; a node's position is its centre relative to its parent's centre, rotation in degrees
// (counter-clockwise, as Y points up), scale multiplies the node and its children.
// Served at /__pix3/page/scene2d.js; no import, so a game page can load it from there as it is.

const DEG = Math.PI / 180;
export const DRAWN_TYPES = ["Group2D", "ColorRect2D", "Sprite2D", "Label2D"];

function num(value, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function pair(value, fallback) {
  return Array.isArray(value) && value.length >= 2 ? [num(value[0], fallback[0]), num(value[1], fallback[1])] : fallback;
}

// The outline's nodes as render nodes: {id, type, name, family, props, children}. `props` is a
// fresh copy per node, so a game may change it (position, label…) and draw again.
export function sceneNodes(outline) {
  const make = (node) => ({
    id: node.id,
    type: node.type,
    name: node.name ?? null,
    family: node.draw?.family ?? null,
    props: structuredClone(node.draw?.props ?? {}),
    children: (node.children ?? []).map(make),
  });
  return (outline?.nodes ?? []).map(make);
}

export function* eachNode(nodes) {
  for (const node of nodes) {
    yield node;
    yield* eachNode(node.children);
  }
}

export function findById(nodes, id) {
  for (const node of eachNode(nodes)) if (node.id === id) return node;
  return null;
}

// True when the scene has a 2D node to draw.
export function has2D(nodes) {
  for (const node of eachNode(nodes)) if (node.family === "2d") return true;
  return false;
}

// The design viewport fitted (letterboxed) into a box of `width` × `height` CSS pixels.
export function fitView(viewport, width, height) {
  const [vw, vh] = pair(viewport, [1920, 1080]);
  const scale = Math.max(0, Math.min(width / vw, height / vh));
  return { scale, cx: width / 2, cy: height / 2, width: vw * scale, height: vh * scale, viewport: [vw, vh] };
}

// Affine matrices [a, b, c, d, e, f] as canvas' setTransform takes them.
export function multiply(m, n) {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

export function apply(m, x, y) {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

function invert(m) {
  const det = m[0] * m[3] - m[1] * m[2];
  if (!det) return null;
  return [m[3] / det, -m[1] / det, -m[2] / det, m[0] / det, (m[2] * m[5] - m[3] * m[4]) / det, (m[1] * m[4] - m[0] * m[5]) / det];
}

// The node's own transform: translate(position) · rotate(rotation) · scale(scale).
export function localMatrix(props) {
  const [x, y] = pair(props.position, [0, 0]);
  const [sx, sy] = pair(props.scale, [1, 1]);
  const r = num(props.rotation, 0) * DEG;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  return [cos * sx, sin * sx, -sin * sy, cos * sy, x, y];
}

// The node's box in its own space: width × height around its origin, null without an area
// (a Label2D's default 0 × 0 is a point).
export function nodeSize(node) {
  const width = num(node.props.width, 0);
  const height = num(node.props.height, 0);
  return width > 0 && height > 0 ? [width, height] : null;
}

// Children in drawing order: by zIndex, document order among equals (zAsRelative is not told
// apart: every zIndex orders its siblings).
function ordered(nodes) {
  return nodes.map((node, index) => ({ node, index }))
    .sort((a, b) => num(a.node.props.zIndex, 0) - num(b.node.props.zIndex, 0) || a.index - b.index)
    .map((entry) => entry.node);
}

// Every 2D node placed, in drawing order: {node, matrix (design space → view CSS px), visible
// (itself and every ancestor), opacity (multiplied down)}. Nodes of other families are skipped
// with their children.
export function placeNodes(nodes, view) {
  const placed = [];
  const root = [view.scale, 0, 0, -view.scale, view.cx, view.cy];
  const visit = (list, parent, visible, opacity) => {
    for (const node of ordered(list)) {
      if (node.family !== "2d") continue;
      const matrix = multiply(parent, localMatrix(node.props));
      const shown = visible && node.props.visible !== false;
      const alpha = opacity * Math.min(1, Math.max(0, num(node.props.opacity, 1)));
      placed.push({ node, matrix, visible: shown, opacity: alpha });
      visit(node.children, matrix, shown, alpha);
    }
  };
  visit(nodes, root, true, 1);
  return placed;
}

// The four corners of a placed node's box in view CSS px (null without a size).
export function corners(entry) {
  const size = nodeSize(entry.node);
  if (!size) return null;
  const [w, h] = [size[0] / 2, size[1] / 2];
  return [[-w, h], [w, h], [w, -h], [-w, -h]].map(([x, y]) => apply(entry.matrix, x, y));
}

export function bounds(points) {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const left = Math.min(...xs);
  const top = Math.min(...ys);
  return { x: left, y: top, width: Math.max(...xs) - left, height: Math.max(...ys) - top };
}

// The topmost visible node whose box holds the point (view CSS px), or null.
export function hitTest(placed, x, y) {
  for (let i = placed.length - 1; i >= 0; i -= 1) {
    const entry = placed[i];
    const size = nodeSize(entry.node);
    if (!entry.visible || !size) continue;
    const inverse = invert(entry.matrix);
    if (!inverse) continue;
    const [lx, ly] = apply(inverse, x, y);
    if (Math.abs(lx) <= size[0] / 2 && Math.abs(ly) <= size[1] / 2) return entry.node.id;
  }
  return null;
}

// Project textures (project paths → images), loaded once, tinted copies cached per colour.
export class Textures {
  constructor({ base = "/", onLoad = () => {} } = {}) {
    this.base = base;
    this.onLoad = onLoad;
    this.images = new Map(); // path → {image, state: "loading"|"ready"|"failed"}
    this.tints = new Map();
  }

  url(path) {
    return this.base + path.split("/").map(encodeURIComponent).join("/");
  }

  // The image when loaded, else null (and it starts loading).
  get(path) {
    if (typeof path !== "string" || !path) return null;
    let entry = this.images.get(path);
    if (!entry) {
      const image = new Image();
      entry = { image, state: "loading" };
      entry.ready = new Promise((resolve) => {
        image.onload = () => { entry.state = "ready"; resolve(true); this.onLoad(path); };
        image.onerror = () => { entry.state = "failed"; resolve(false); this.onLoad(path); };
      });
      image.src = this.url(path);
      this.images.set(path, entry);
    }
    return entry.state === "ready" ? entry.image : null;
  }

  // Resolves once every texture the nodes name has loaded or failed.
  async settled(nodes) {
    const waits = [];
    for (const node of eachNode(nodes)) {
      if (node.family === "2d" && typeof node.props.texture === "string" && node.props.texture) {
        this.get(node.props.texture);
        waits.push(this.images.get(node.props.texture).ready);
      }
    }
    await Promise.all(waits);
  }

  forget(paths) {
    for (const path of paths) {
      this.images.delete(path);
      for (const key of [...this.tints.keys()]) if (key.startsWith(`${path}\n`)) this.tints.delete(key);
    }
  }

  // The image multiplied by `color` (the sprite's tint), its alpha kept.
  tinted(path, image, color) {
    const key = `${path}\n${color}`;
    let canvas = this.tints.get(key);
    if (!canvas) {
      canvas = new OffscreenCanvas(Math.max(1, image.naturalWidth), Math.max(1, image.naturalHeight));
      const ctx = canvas.getContext("2d");
      ctx.drawImage(image, 0, 0);
      ctx.globalCompositeOperation = "multiply";
      ctx.fillStyle = color;
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.globalCompositeOperation = "destination-in";
      ctx.drawImage(image, 0, 0);
      this.tints.set(key, canvas);
    }
    return canvas;
  }
}

function white(color) {
  return typeof color !== "string" || /^#(fff|ffffff|ffffffff)$/i.test(color.trim());
}

function paint(ctx, value, fallback) {
  ctx.fillStyle = fallback;
  ctx.fillStyle = typeof value === "string" ? value : fallback; // an invalid colour leaves the fallback
}

function drawLabel(ctx, props, scale) {
  const text = typeof props.label === "string" ? props.label : "";
  if (!text) return;
  const size = Math.max(1, num(props.labelFontSize, 16));
  const [w, h] = [num(props.width, 0), num(props.height, 0)];
  const weight = typeof props.labelFontWeight === "string" ? props.labelFontWeight : "normal";
  const family = typeof props.labelFontFamily === "string" ? props.labelFontFamily : "Arial";
  ctx.font = `${weight} ${size}px ${JSON.stringify(family)}, sans-serif`;
  const align = ["left", "center", "right"].includes(props.labelAlign) ? props.labelAlign : "center";
  const valign = ["top", "middle", "bottom"].includes(props.labelVAlign) ? props.labelVAlign : "middle";
  ctx.textAlign = align;
  ctx.textBaseline = valign;
  ctx.letterSpacing = `${num(props.labelLetterSpacing, 0)}px`;
  const lines = text.split("\n");
  const lineHeight = size * 1.2;
  const x = align === "left" ? -w / 2 : align === "right" ? w / 2 : 0;
  const first = valign === "top" ? -h / 2 : valign === "bottom" ? h / 2 - lineHeight * (lines.length - 1)
    : -lineHeight * (lines.length - 1) / 2;
  ctx.scale(1, -1); // text reads downwards: undo the Y-up flip
  if (typeof props.labelShadowColor === "string" && props.labelShadowColor) {
    ctx.shadowColor = props.labelShadowColor;
    ctx.shadowOffsetX = num(props.labelShadowOffsetX, 0) * scale;
    ctx.shadowOffsetY = num(props.labelShadowOffsetY, 0) * scale;
  }
  const outline = num(props.outlineWidth, 0);
  lines.forEach((line, i) => {
    const y = first + i * lineHeight;
    if (outline > 0) {
      ctx.lineJoin = "round";
      ctx.lineWidth = outline * 2;
      ctx.strokeStyle = typeof props.outlineColor === "string" ? props.outlineColor : "#000000";
      ctx.strokeText(line, x, y);
    }
    paint(ctx, props.labelColor, "#ffffff");
    ctx.fillText(line, x, y);
  });
}

// Paints the placed nodes on `ctx` (whose transform maps view CSS px to its pixels: `base`).
// Returns the nodes it could not draw fully: {id, why}.
export function drawPlaced(ctx, placed, { textures, base = [1, 0, 0, 1, 0, 0], scale = 1 } = {}) {
  const missing = [];
  for (const entry of placed) {
    const { node, visible, opacity } = entry;
    if (!visible || opacity <= 0) continue;
    const props = node.props;
    ctx.save();
    ctx.setTransform(...multiply(base, entry.matrix));
    ctx.globalAlpha = opacity;
    const size = nodeSize(node);
    if (node.type === "ColorRect2D" && size) {
      paint(ctx, props.color, "#ffffff");
      ctx.fillRect(-size[0] / 2, -size[1] / 2, size[0], size[1]);
    } else if (node.type === "Sprite2D" && size) {
      const image = textures ? textures.get(props.texture) : null;
      if (image) {
        const source = white(props.color) ? image : textures.tinted(props.texture, image, props.color);
        ctx.scale(1, -1);
        ctx.drawImage(source, -size[0] / 2, -size[1] / 2, size[0], size[1]);
      } else {
        missing.push({ id: node.id, why: props.texture ? `texture ${props.texture} not loaded` : "no texture" });
      }
    } else if (node.type === "Label2D") {
      drawLabel(ctx, props, scale);
    }
    ctx.restore();
  }
  return missing;
}

// One call for a canvas: fit the viewport, place, clear, paint. `background` fills the area
// outside the design viewport. Returns {view, placed, missing}.
export function drawScene(canvas, nodes, viewport, { textures, background = "#000000", dpr = 1, cssWidth, cssHeight } = {}) {
  const width = cssWidth ?? canvas.width / dpr;
  const height = cssHeight ?? canvas.height / dpr;
  const view = fitView(viewport, width, height);
  const placed = placeNodes(nodes, view);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.save();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.beginPath();
  ctx.rect(view.cx - view.width / 2, view.cy - view.height / 2, view.width, view.height);
  ctx.clip();
  const missing = drawPlaced(ctx, placed, { textures, base: [dpr, 0, 0, dpr, 0, 0], scale: view.scale });
  ctx.restore();
  return { view, placed, missing };
}
