// The one 2D renderer's placement (pix3net/devserver/page/scene2d.js) under node:test: the
// design viewport fitted into a box, Y up, a node's centre relative to its parent's, rotation
// counter-clockwise in degrees, scale, visibility and opacity down the tree, zIndex order, hit
// tests. The numbers are worked out by hand here, not by the module's own helpers.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bounds, corners, fitView, has2D, hitTest, placeNodes, sceneNodes } from "../../pix3net/devserver/page/scene2d.js";

const node = (id, type, props = {}, children = [], family = "2d") => ({ id, type, name: id, draw: { family, props }, children });
const close = (a, b, label) => assert.ok(Math.abs(a - b) < 1e-9, `${label}: ${a} ≠ ${b}`);
const origin = (entry) => [entry.matrix[4], entry.matrix[5]];

test("the viewport is letterboxed into the box, centred", () => {
  assert.deepEqual(fitView([1920, 1080], 960, 600), { scale: 0.5, cx: 480, cy: 300, width: 960, height: 540, viewport: [1920, 1080] });
  const tall = fitView([1080, 1920], 800, 480);
  close(tall.scale, 0.25, "scale");
  assert.deepEqual([tall.width, tall.height], [270, 480]);
  assert.equal(fitView(undefined, 192, 108).scale, 0.1); // no design size: the starters' 1920×1080
});

test("placement: Y up, centres relative to the parent's, rotation counter-clockwise, scale", () => {
  const outline = {
    nodes: [
      node("root", "Group2D", { position: [100, 50], width: 400, height: 200 }, [
        node("turned", "Group2D", { position: [0, 0], rotation: 90, scale: [2, 2] }, [
          node("tip", "ColorRect2D", { position: [10, 0], width: 4, height: 6 }),
        ]),
      ]),
    ],
  };
  const view = fitView([1920, 1080], 960, 540); // scale 0.5, centre (480, 270)
  const placed = placeNodes(sceneNodes(outline), view);
  assert.deepEqual(placed.map((e) => e.node.id), ["root", "turned", "tip"]);
  const [root, , tip] = placed;
  assert.deepEqual(origin(root), [480 + 50, 270 - 25]); // up is up
  // tip: (10, 0) scaled ×2 → (20, 0), turned 90° counter-clockwise → (0, 20), + root (100, 50) → (100, 70)
  close(origin(tip)[0], 480 + 100 * 0.5, "tip x");
  close(origin(tip)[1], 270 - 70 * 0.5, "tip y");
  // its 4×6 box, doubled and turned: 12 wide, 8 tall on the page at scale 0.5 → 6 × 4
  const box = bounds(corners(tip));
  close(box.width, 6, "width");
  close(box.height, 4, "height");
  close(box.x, 530 - 3, "left");
  close(box.y, 235 - 2, "top");
});

test("visibility and opacity go down the tree; other families are skipped with their children", () => {
  const outline = {
    nodes: [
      node("a", "Group2D", { visible: false, opacity: 0.5 }, [node("b", "ColorRect2D", { opacity: 0.5 })]),
      node("c", "Group2D", { opacity: 2 }),
      node("cam", "Camera3D", {}, [node("inside", "Sprite2D")], "3d"),
    ],
  };
  const placed = placeNodes(sceneNodes(outline), fitView([100, 100], 100, 100));
  assert.deepEqual(placed.map((e) => [e.node.id, e.visible, e.opacity]), [["a", false, 0.5], ["b", false, 0.25], ["c", true, 1]]);
  assert.equal(has2D(sceneNodes(outline)), true);
  assert.equal(has2D(sceneNodes({ nodes: [node("cam", "Camera3D", {}, [], "3d")] })), false);
});

test("zIndex orders siblings, document order among equals", () => {
  const outline = { nodes: [node("x", "ColorRect2D", { zIndex: 2 }), node("y", "ColorRect2D"), node("z", "ColorRect2D", { zIndex: -1 }), node("w", "ColorRect2D")] };
  assert.deepEqual(placeNodes(sceneNodes(outline), fitView([100, 100], 100, 100)).map((e) => e.node.id), ["z", "y", "w", "x"]);
});

test("a click selects the topmost visible node under it", () => {
  const outline = {
    nodes: [
      node("back", "ColorRect2D", { width: 100, height: 100 }),
      node("front", "ColorRect2D", { position: [20, 20], width: 20, height: 20 }),
      node("ghost", "ColorRect2D", { position: [20, 20], width: 20, height: 20, visible: false }),
      node("label", "Label2D", { position: [-30, 0], width: 0, height: 0 }),
    ],
  };
  const placed = placeNodes(sceneNodes(outline), fitView([100, 100], 100, 100)); // 1:1, centre (50, 50)
  assert.equal(hitTest(placed, 70, 30), "front"); // (20, 20) up and right of the centre
  assert.equal(hitTest(placed, 50, 50), "back");
  assert.equal(hitTest(placed, 20, 50), "back"); // a 0×0 label is not hit
  assert.equal(hitTest(placed, 200, 200), null);
});

test("the render nodes are copies a game may change", () => {
  const outline = { nodes: [node("s", "Sprite2D", { position: [1, 2] })] };
  const [copy] = sceneNodes(outline);
  copy.props.position[0] = 99;
  assert.deepEqual(outline.nodes[0].draw.props.position, [1, 2]);
});

test("a hostile scene's values fall back to the defaults instead of breaking the page", () => {
  const outline = {
    nodes: [
      node("a", "ColorRect2D", { position: "x", rotation: null, scale: [null, "2"], width: -5, height: 1e308, opacity: "1" }),
      node("b", "Group2D", { position: [1, 2, 3, 4], scale: { x: 2 } }, [node("c", "Label2D", { width: NaN, height: 10 })]),
      { id: "d", type: "Sprite2D", children: [] }, // no draw record at all
    ],
  };
  const placed = placeNodes(sceneNodes(outline), fitView([100, 100], 100, 100));
  assert.deepEqual(placed.map((e) => [e.node.id, e.matrix.map((v) => Math.round(v * 1000) / 1000), e.opacity]), [
    ["a", [1, 0, 0, -1, 50, 50], 1], // position/rotation/scale defaults; a non-number opacity is 1
    ["b", [1, 0, 0, -1, 51, 48], 1],
    ["c", [1, 0, 0, -1, 51, 48], 1],
  ]);
  assert.equal(corners(placed[0]), null); // a negative width is no area
  assert.equal(corners(placed[2]), null);
});
