"""Loads glTF exports of hkgen in Blender (``bpy`` as a Python module, headless), checks that
every bone and mesh of the glTF arrived, and renders a PNG of the first file's scene (its
skeletons drawn as tubes from each bone to its parent, its meshes shaded) for a person to look at.

Setup (bpy wheels are built for one Python: bpy 5.0 needs CPython 3.11):

    python3.11 -m venv target/bpy-venv
    target/bpy-venv/bin/pip install bpy
    target/bpy-venv/bin/python tools/gltf_blender.py --png-dir target/blender-png export.glb [more.glb ...]

Inputs: any export (`hkgen gltf export OUT.glb FILE...`); `cargo test --test gltf
the_khronos_validator` leaves every corpus export in target/tmp/gltf-validate/ (named after its
file, listed in index.tsv). The check of 2026-12-07 took one export per game from there (Elden
Ring chr c3460.hkx, Sekiro c1130 a000_007200, DS3 map h30_00_00_00_002500, BotW
Enemy_Lizalfos.hkrg, TotK Armor_006_RaulSkin_Upper.bphcl, AC6 c0100 Skeleton.hkx, DSR c2240.hkx,
Demon's Souls MapCollisionTemplate_DES.hkx, Bloodborne c2020 a000_003000) and Skyrim's
dwarvenspherecenturion skeleton exported with `--up z`.

Prints one JSON line per file: joints, mesh nodes and triangles in the glTF, the bones, meshes
and triangles Blender made, the joints it lacks; exits 1 when a count differs or a joint is
missing. The PNG: an orthographic view from the front, a little from the side (Blender's -Y,
turned 25 degrees), workbench shading; bones as orange tubes from each bone to its parent,
meshes grey-blue and see-through.
"""

import argparse
import json
import math
import struct
import sys
from pathlib import Path

import bpy
from mathutils import Vector


def gltf_parts(path):
    """The JSON part of a .glb or .gltf, and its binary buffer."""
    data = Path(path).read_bytes()
    if data[:4] == b"glTF":
        (length,) = struct.unpack_from("<I", data, 12)
        return json.loads(data[20 : 20 + length]), data[28 + length :]
    g = json.loads(data)
    uri = g["buffers"][0]["uri"] if g.get("buffers") else None
    return g, (Path(path).parent / uri).read_bytes() if uri else b""


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def gltf_triangles(g, bin_):
    """Triangles of every mesh node of the glTF (indexed triangle primitives, as hkgen writes):
    (all, distinct). Blender keeps one face per set of three vertices, so a mesh that lists the
    same triangle twice arrives with the distinct count."""
    total = distinct = 0
    for node in g.get("nodes", []):
        if "mesh" in node:
            for p in g["meshes"][node["mesh"]]["primitives"]:
                a = g["accessors"][p["indices"]]
                view = g["bufferViews"][a["bufferView"]]
                start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
                idx = struct.unpack_from("<%dI" % a["count"], bin_, start)
                tris = [tuple(sorted(idx[k : k + 3])) for k in range(0, len(idx), 3)]
                total += len(tris)
                distinct += len(set(tris))
    return total, distinct


def load(path):
    """Imports `path` into an empty scene; what the glTF holds (joints, mesh nodes, triangles)
    and what Blender made of it, and whether they agree."""
    reset()
    g, bin_ = gltf_parts(path)
    nodes = g.get("nodes", [])
    joints = [nodes[j].get("name", "") for s in g.get("skins", []) for j in s["joints"]]
    mesh_nodes = [n for n in nodes if "mesh" in n]
    bpy.ops.import_scene.gltf(filepath=str(path))
    objects = list(bpy.context.scene.objects)
    bones = [b.name for o in objects if o.type == "ARMATURE" for b in o.data.bones]
    # The importer adds a mesh (an icosphere) per armature to draw its bones with: not the glTF's.
    shapes = {pb.custom_shape.name for o in objects if o.type == "ARMATURE" for pb in o.pose.bones if pb.custom_shape}
    meshes = [o for o in objects if o.type == "MESH" and o.name not in shapes]
    triangles = 0
    for o in meshes:
        o.data.calc_loop_triangles()
        triangles += len(o.data.loop_triangles)
    missing = sorted(set(joints) - set(bones))
    report = {
        "file": str(path),
        "gltf_joints": len(joints),
        "gltf_mesh_nodes": len(mesh_nodes),
        "gltf_triangles": gltf_triangles(g, bin_)[0],
        "gltf_distinct_triangles": gltf_triangles(g, bin_)[1],
        "gltf_animations": len(g.get("animations", [])),
        "blender_armatures": sum(1 for o in objects if o.type == "ARMATURE"),
        "blender_bones": len(bones),
        "blender_meshes": len(meshes),
        "blender_triangles": triangles,
        "blender_actions": len(bpy.data.actions),
        "missing_joints": missing[:20],
    }
    ok = (
        not missing
        and len(bones) == len(joints)
        and len(meshes) == len(mesh_nodes)
        and triangles == report["gltf_distinct_triangles"]
        and report["blender_actions"] >= report["gltf_animations"]
    )
    report["ok"] = ok
    return report, ok


def skeleton_tubes():
    """A curve object of one tube per bone from its parent's head to its head, in world space."""
    curve = bpy.data.curves.new("bones", "CURVE")
    curve.dimensions = "3D"
    points = []
    for o in bpy.data.objects:
        if o.type != "ARMATURE":
            continue
        for b in o.data.bones:
            head = o.matrix_world @ b.head_local
            if b.parent is not None:
                start = o.matrix_world @ b.parent.head_local
            else:
                start = o.matrix_world @ b.tail_local
            if (head - start).length > 1e-6:
                points.append((start, head))
    size = 0.0
    if points:
        xs = [p[k] for seg in points for p in seg for k in range(3)]
        size = max(xs) - min(xs)
    curve.bevel_depth = max(size, 1.0) * 0.004
    for a, b in points:
        s = curve.splines.new("POLY")
        s.points.add(1)
        s.points[0].co = (*a, 1.0)
        s.points[1].co = (*b, 1.0)
    obj = bpy.data.objects.new("bones", curve)
    bpy.context.scene.collection.objects.link(obj)
    return [p for seg in points for p in seg]


def render(png):
    scene = bpy.context.scene
    pts = skeleton_tubes()
    shapes = {pb.custom_shape.name for o in bpy.data.objects if o.type == "ARMATURE" for pb in o.pose.bones if pb.custom_shape}
    for o in bpy.data.objects:
        if o.type == "MESH" and o.name not in shapes:
            pts += [o.matrix_world @ Vector(c) for c in o.bound_box]
    if not pts:
        pts = [Vector((0, 0, 0)), Vector((1, 1, 1))]
    lo = Vector([min(p[k] for p in pts) for k in range(3)])
    hi = Vector([max(p[k] for p in pts) for k in range(3)])
    centre = (lo + hi) / 2
    extent = max(hi.x - lo.x, hi.z - lo.z, 1e-3)
    # An orthographic camera in front (Blender is Z-up; the glTF importer turns Y-up into it),
    # a little from the side.
    cam_data = bpy.data.cameras.new("cam")
    cam_data.type = "ORTHO"
    cam_data.ortho_scale = extent * 1.25
    cam = bpy.data.objects.new("cam", cam_data)
    depth = max(hi.y - lo.y, extent) * 3
    angle = math.radians(25)
    cam.location = (centre.x + math.sin(angle) * depth, centre.y - math.cos(angle) * depth, centre.z)
    cam.rotation_euler = (math.radians(90), 0, angle)
    cam_data.clip_end = depth * 4
    scene.collection.objects.link(cam)
    scene.camera = cam
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "OBJECT"
    # Meshes see-through, so that the bones inside a ragdoll's or cloth's meshes show.
    scene.display.shading.show_xray = True
    scene.display.shading.xray_alpha = 0.6
    shapes = {pb.custom_shape.name for o in bpy.data.objects if o.type == "ARMATURE" for pb in o.pose.bones if pb.custom_shape}
    for o in bpy.data.objects:
        if o.name in shapes:
            o.hide_render = True
    for k, o in enumerate(o for o in bpy.data.objects if o.type in ("MESH", "CURVE")):
        o.color = (0.9, 0.35, 0.2, 1) if o.type == "CURVE" else (0.5 + 0.1 * (k % 4), 0.6, 0.7, 1)
    scene.render.resolution_x = 900
    scene.render.resolution_y = 900
    scene.render.film_transparent = False
    scene.render.filepath = str(png)
    Path(png).parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.render.render(write_still=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--png", help="render the first file's scene to this PNG")
    ap.add_argument("--png-dir", help="render each file's scene to DIR/<file stem>.png")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    failed = False
    for i, f in enumerate(args.files):
        report, ok = load(f)
        png = None
        if args.png_dir:
            png = Path(args.png_dir) / (Path(f).stem + ".png")
        elif i == 0 and args.png:
            png = args.png
        if png:
            render(png)
            report["png"] = str(png)
        print(json.dumps(report), flush=True)
        failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
