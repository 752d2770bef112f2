// The scene view (docs/devserver.md, "The editor page"): the open scene as stored, drawn with the
// one 2D renderer (scene2d.js) the demo game uses too; the selected node outlined; a click
// selects the topmost node under the pointer. It runs no behaviours: what moves in the game
// stays where the file puts it here. `pix3_scene {nodeId}` reads node positions on the page
// from it (`screenOf`), and `pix3_screenshot {target:"scene"}` waits for it (`ready`).

import { Textures, bounds, corners, drawScene, findById, has2D, hitTest, placeNodes, fitView, sceneNodes } from "./scene2d.js";

const OUTLINE = "#5aa9ff";
const FAINT = "rgba(154, 184, 232, 0.55)";
const TEXTURE_WAIT_MS = 3000; // how long `ready` waits for the open scene's textures

export const ONLY_2D = "The scene view draws 2D scenes only; this scene has no 2D node. Its tree and properties are beside it.";

export class SceneView {
  constructor({ canvas, note, onSelect = () => {} }) {
    this.canvas = canvas;
    this.note = note;
    this.onSelect = onSelect;
    this.textures = new Textures({ base: "/", onLoad: () => this.draw() });
    this.key = null; // the outline drawn (path|version)
    this.nodes = [];
    this.viewport = [1920, 1080];
    this.placed = [];
    this.selected = null;
    this.drawn = 0;
    canvas.addEventListener("click", (event) => {
      const rect = canvas.getBoundingClientRect();
      const id = hitTest(this.placed, event.clientX - rect.left, event.clientY - rect.top);
      this.onSelect(id);
    });
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  // The open scene ({path, outline, version} or {path, error} or null) and the selected node.
  show(open, selected) {
    const key = open ? `${open.path}|${open.version ?? ""}|${open.error ?? ""}` : "none";
    if (key !== this.key) {
      this.key = key;
      this.open = open;
      this.nodes = open?.outline ? sceneNodes(open.outline) : [];
      this.viewport = open?.outline?.viewport ?? [1920, 1080];
    } else if (selected === this.selected) {
      return;
    }
    this.selected = selected;
    this.draw();
  }

  message() {
    if (!this.open) return "No scene open.";
    if (this.open.error) return this.open.error;
    if (!has2D(this.nodes)) return ONLY_2D;
    return "";
  }

  draw() {
    const canvas = this.canvas;
    const text = this.message();
    this.note.textContent = text;
    this.note.hidden = text === "";
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    const drawn = drawScene(canvas, text ? [] : this.nodes, this.viewport, {
      textures: this.textures, background: "#101215", dpr, cssWidth: width, cssHeight: height,
    });
    this.placed = drawn.placed;
    const ctx = canvas.getContext("2d");
    ctx.save();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (!text) {
      // the design viewport's edge, and a faint box where a node draws nothing it could
      ctx.strokeStyle = "#31363e";
      ctx.lineWidth = 1;
      ctx.strokeRect(drawn.view.cx - drawn.view.width / 2 - 0.5, drawn.view.cy - drawn.view.height / 2 - 0.5, drawn.view.width + 1, drawn.view.height + 1);
      ctx.setLineDash([4, 3]);
      ctx.strokeStyle = FAINT;
      for (const { id } of drawn.missing) this.trace(ctx, id);
      ctx.setLineDash([]);
      if (this.selected) {
        ctx.strokeStyle = OUTLINE;
        ctx.lineWidth = 2;
        this.trace(ctx, this.selected, true);
      }
    }
    ctx.restore();
    this.drawn += 1;
  }

  trace(ctx, id, origin = false) {
    const entry = this.placed.find((e) => e.node.id === id);
    if (!entry) return;
    const points = corners(entry);
    if (points) {
      ctx.beginPath();
      points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.stroke();
    }
    if (origin) {
      const [x, y] = [entry.matrix[4], entry.matrix[5]];
      ctx.beginPath();
      ctx.moveTo(x - 6, y); ctx.lineTo(x + 6, y); ctx.moveTo(x, y - 6); ctx.lineTo(x, y + 6);
      ctx.stroke();
    }
  }

  // Where a node of `outline` (the active scene) is on the page: its origin `screen {x, y}` and
  // the bounding box of its rect `screenRect`, in CSS pixels of the page, or a note saying why not.
  screenOf(outline, nodeId) {
    const nodes = sceneNodes(outline);
    const node = findById(nodes, nodeId);
    if (!node || node.family !== "2d") {
      return { screen: null, note: `No \`screen\`: the scene view draws 2D nodes only, and ${node?.type ?? "this node"} is not one.` };
    }
    const rect = this.canvas.getBoundingClientRect();
    if (!rect.width || !rect.height || !this.canvas.isConnected || this.canvas.offsetParent === null) {
      return { screen: null, note: "No `screen`: the scene view is not on the page now (the game fills it); pix3_screenshot {target:\"viewport\"} brings it back." };
    }
    const view = fitView(outline.viewport ?? [1920, 1080], rect.width, rect.height);
    const entry = placeNodes(nodes, view).find((e) => e.node.id === nodeId);
    const screen = { x: rect.left + entry.matrix[4], y: rect.top + entry.matrix[5] };
    const points = corners(entry);
    const box = points ? bounds(points) : null;
    return { screen, screenRect: box && { x: rect.left + box.x, y: rect.top + box.y, width: box.width, height: box.height } };
  }

  // Resolves once the open scene is drawn with its textures (at most TEXTURE_WAIT_MS).
  async ready() {
    let timer;
    await Promise.race([
      this.textures.settled(this.nodes),
      new Promise((resolve) => { timer = setTimeout(resolve, TEXTURE_WAIT_MS); }),
    ]);
    clearTimeout(timer);
    // the page laid out for the view (a hidden tab gets no animation frame: not waited for)
    await new Promise((resolve) => { requestAnimationFrame(resolve); setTimeout(resolve, 100); });
    this.draw();
  }
}
