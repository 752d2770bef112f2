"""Node types by the names other engines give them, for a suggestion when a scene names one
(docs/validate.md, "The disk format": node types).

People and agents coming from three.js, Godot, Unity, Phaser or PixiJS write the type they know
(``PerspectiveCamera``); the reference's suggestion (edit distance, containment) finds nothing
for most of those. Each entry is such a name, the Pix3 type that does the same job, and whose
name it is. A name that means different things in different engines (``Sprite``: 3D in three.js,
2D in Godot 3; ``Light``; ``Camera``) is left out, and so is one with no Pix3 type doing its job
(an area light, a shape drawer): the edit distance answers those, or nothing does.
"""

from __future__ import annotations

__all__ = ["ELSEWHERE"]

# (name, Pix3 type, whose name)
ELSEWHERE: tuple[tuple[str, str, str], ...] = (
    ("PerspectiveCamera", "Camera3D", "three.js"),
    ("OrthographicCamera", "Camera3D", "three.js"),
    ("Object3D", "Node3D", "three.js"),
    ("Mesh", "GeometryMesh", "three.js"),
    ("InstancedMesh", "InstancedMesh3D", "three.js"),
    ("Points", "Particles3D", "three.js"),
    ("PositionalAudio", "AudioPlayer", "three.js"),
    ("Spatial", "Node3D", "Godot 3"),
    ("OmniLight", "PointLightNode", "Godot 3"),
    ("OmniLight3D", "PointLightNode", "Godot"),
    ("MeshInstance3D", "MeshInstance", "Godot"),
    ("GPUParticles3D", "Particles3D", "Godot"),
    ("CPUParticles3D", "Particles3D", "Godot"),
    ("AudioStreamPlayer", "AudioPlayer", "Godot"),
    ("AudioStreamPlayer2D", "AudioPlayer", "Godot"),
    ("AudioStreamPlayer3D", "AudioPlayer", "Godot"),
    ("TextureRect", "Sprite2D", "Godot"),
    ("TextureButton", "Button2D", "Godot"),
    ("HSlider", "Slider2D", "Godot"),
    ("VSlider", "Slider2D", "Godot"),
    ("ProgressBar", "Bar2D", "Godot"),
    ("TextureProgressBar", "Bar2D", "Godot"),
    ("NinePatchRect", "TiledSprite2D", "Godot"),
    ("RichTextLabel", "Label2D", "Godot"),
    ("Control", "Group2D", "Godot"),
    ("VBoxContainer", "Group2D", "Godot"),
    ("HBoxContainer", "Group2D", "Godot"),
    ("GameObject", "Node3D", "Unity"),
    ("SpriteRenderer", "Sprite2D", "Unity"),
    ("RawImage", "Sprite2D", "Unity"),
    ("TextMeshPro", "Label2D", "Unity"),
    ("TextMeshProUGUI", "Label2D", "Unity"),
    ("Toggle", "Checkbox2D", "Unity"),
    ("ScrollRect", "ScrollContainer2D", "Unity"),
    ("ParticleSystem", "Particles3D", "Unity"),
    ("AudioSource", "AudioPlayer", "Unity"),
    ("Canvas", "CanvasLayer2D", "Unity"),
    ("Image", "Sprite2D", "Phaser"),
    ("Rectangle", "ColorRect2D", "Phaser"),
    ("TileSprite", "TiledSprite2D", "Phaser"),
    ("NineSlice", "TiledSprite2D", "Phaser"),
    ("Text", "Label2D", "Phaser and PixiJS"),
    ("BitmapText", "Label2D", "Phaser and PixiJS"),
    ("Container", "Group2D", "Phaser and PixiJS"),
    ("TilingSprite", "TiledSprite2D", "PixiJS"),
    ("NineSliceSprite", "TiledSprite2D", "PixiJS"),
)
