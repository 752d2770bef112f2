// pix3net's declarations of the @pix3/runtime script surface (written for pix3net, not generated
// from the runtime). Deliberately permissive: members this file does not list type as `any`, so a
// script is never failed for an API these declarations do not know. See docs/check.md.

export type PropertyType = "number" | "string" | "boolean" | "color" | "vector2" | "vector3" | "enum" | "node" | "resource" | "object";
export interface PropertyDefinition {
  name: string;
  type: PropertyType | string;
  [key: string]: any;
}
export interface PropertySchema {
  nodeType?: string;
  properties: PropertyDefinition[];
  [key: string]: any;
}

export declare class NodeBase {
  constructor(...args: any[]);
  id: string;
  name: string;
  type: string;
  visible: boolean;
  readonly children: NodeBase[];
  parent: NodeBase | null;
  [key: string]: any;
}

export declare class Group extends NodeBase {}
export declare class Node2D extends NodeBase {}
export declare class ColorRect2D extends NodeBase {}
export declare class Sprite2D extends NodeBase {}
export declare class TiledSprite2D extends NodeBase {}
export declare class AnimatedSprite2D extends NodeBase {}
export declare class Group2D extends NodeBase {}
export declare class CanvasLayer2D extends NodeBase {}
export declare class SpineSkeleton2D extends NodeBase {}
export declare class Button2D extends NodeBase {}
export declare class Label2D extends NodeBase {}
export declare class UIControl2D extends NodeBase {}
export declare class Slider2D extends NodeBase {}
export declare class Joystick2D extends NodeBase {}
export declare class Checkbox2D extends NodeBase {}
export declare class Bar2D extends NodeBase {}
export declare class InventorySlot2D extends NodeBase {}
export declare class ScrollContainer2D extends NodeBase {}
export declare class Camera2D extends NodeBase {}
export declare class Node3D extends NodeBase {}
export declare class Camera3D extends NodeBase {}
export declare class VirtualCamera3D extends NodeBase {}
export declare class GeometryMesh extends NodeBase {}
export declare class MeshInstance extends NodeBase {}
export declare class InstancedMesh3D extends NodeBase {}
export declare class AmbientLightNode extends NodeBase {}
export declare class HemisphereLightNode extends NodeBase {}
export declare class DirectionalLightNode extends NodeBase {}
export declare class PointLightNode extends NodeBase {}
export declare class SpotLightNode extends NodeBase {}
export declare class Sprite3D extends NodeBase {}
export declare class AnimatedSprite3D extends NodeBase {}
export declare class Particles3D extends NodeBase {}
export declare class PostProcess extends NodeBase {}
export declare class AudioPlayer extends NodeBase {}

/** A component attached to a node (`user:<ExportName>` in a scene's `components`). */
export declare abstract class Script {
  constructor(...args: any[]);
  /** The node this component is attached to. */
  node: NodeBase;
  enabled: boolean;
  onAttach?(node: NodeBase): void;
  onStart?(): void;
  onUpdate?(dt: number): void;
  onDetach?(): void;
  static getPropertySchema?(): PropertySchema;
  [key: string]: any;
}
