// pix3net ships no copy of @types/three. This permissive stand-in names three's common classes
// (every member typed `any`) so scripts that use them type-check; see docs/check.md.

export declare class Object3D {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Scene {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Group {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Mesh {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Points {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Line {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Sprite {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Camera {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class PerspectiveCamera {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class OrthographicCamera {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Vector2 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Vector3 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Vector4 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Quaternion {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Euler {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Matrix3 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Matrix4 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Color {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Box2 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Box3 {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Sphere {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Plane {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Ray {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Raycaster {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Clock {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Texture {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class CanvasTexture {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class DataTexture {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Material {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class MeshBasicMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class MeshStandardMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class MeshLambertMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class MeshPhongMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class SpriteMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class ShaderMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class LineBasicMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class PointsMaterial {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class BufferGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class BufferAttribute {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Float32BufferAttribute {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class BoxGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class SphereGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class PlaneGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class CylinderGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class ConeGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class TorusGeometry {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class Light {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class AmbientLight {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class DirectionalLight {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class PointLight {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class SpotLight {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class HemisphereLight {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class InstancedMesh {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class AnimationMixer {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class AnimationClip {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class WebGLRenderer {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare class TextureLoader {
  constructor(...args: any[]);
  [key: string]: any;
}
export declare const MathUtils: any;
export declare const REVISION: string;
