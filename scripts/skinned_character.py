#!/usr/bin/env python3
"""Writes a glTF 2.0 file of one skinned, animated character with a skin of J joints (default 1000), for
`orrery bench frame FILE --n N`: N copies of it, animated (the file's animation 0, one rotation channel
per joint) and skinned on the GPU every frame.

The skeleton is the one `orrery bench extract --skinned` builds: joint j's parent is joint (j - 1) / 3,
its rest translation (0.02 x ((j % 3) - 1), 0.1, 0). The mesh is one box per joint (24 vertices, flat
normals), its top four corners weighted to the joint, its bottom four half to the joint and half to its
parent, so that vertices blend two joints. Only the standard library is used; the buffer is embedded.

Usage: skinned_character.py OUT.gltf [--joints J] [--box SIZE]"""
import base64
import json
import math
import struct
import sys


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out, joints, size = argv[1], 1000, 0.02
    i = 2
    while i < len(argv):
        if argv[i] == "--joints" and i + 1 < len(argv) and argv[i + 1].isdigit() and 1 <= int(argv[i + 1]) <= 65536:
            joints = int(argv[i + 1])
        elif argv[i] == "--box" and i + 1 < len(argv):
            size = float(argv[i + 1])
        else:
            print(f"skinned_character.py: bad option {argv[i]!r} (--joints 1..65536, --box SIZE)", file=sys.stderr)
            return 2
        i += 2
    parent = [-1] + [(j - 1) // 3 for j in range(1, joints)]
    local = [(0.02 * ((j % 3) - 1), 0.1, 0.0) for j in range(joints)]
    world = []
    for j in range(joints):
        p = world[parent[j]] if parent[j] >= 0 else (0.0, 0.0, 0.0)
        world.append(tuple(p[k] + local[j][k] for k in range(3)))
    pos, nrm, jnt, wts, idx = bytearray(), bytearray(), bytearray(), bytearray(), bytearray()
    faces = [((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), (0, 0, 1), (0, 1, 0)), ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
             ((0, -1, 0), (1, 0, 0), (0, 0, 1)), ((0, 0, 1), (1, 0, 0), (0, 1, 0)), ((0, 0, -1), (0, 1, 0), (1, 0, 0))]
    lo, hi = [1e30] * 3, [-1e30] * 3
    for j in range(joints):
        c = world[j]
        base = j * 24
        for f, (n, u, v) in enumerate(faces):
            for k, (a, b) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
                p = [c[m] + size * (n[m] + a * u[m] + b * v[m]) for m in range(3)]
                for m in range(3):
                    lo[m], hi[m] = min(lo[m], p[m]), max(hi[m], p[m])
                pos += struct.pack("<3f", *p)
                nrm += struct.pack("<3f", *n)
                bottom = p[1] < c[1] and parent[j] >= 0
                jnt += struct.pack("<4H", j, parent[j] if bottom else 0, 0, 0)
                wts += struct.pack("<4f", 0.5 if bottom else 1.0, 0.5 if bottom else 0.0, 0.0, 0.0)
            q = base + f * 4
            idx += struct.pack("<6I", q, q + 1, q + 2, q, q + 2, q + 3)
    ibm = b"".join(struct.pack("<16f", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -w[0], -w[1], -w[2], 1) for w in world)
    times = struct.pack("<3f", 0.0, 0.5, 1.0)
    rot = bytearray()
    for j in range(joints):
        a = 0.3 * (j % 7) / 6.0
        rot += struct.pack("<12f", 0, 0, 0, 1, 0, 0, math.sin(a / 2), math.cos(a / 2), 0, 0, 0, 1)
    chunks = [pos, nrm, jnt, wts, idx, ibm, times, rot]
    blob, views, off = bytearray(), [], 0
    for ch in chunks:
        views.append({"buffer": 0, "byteOffset": off, "byteLength": len(ch)})
        blob += ch
        off += len(ch)
    verts = joints * 24
    accessors = [
        {"bufferView": 0, "componentType": 5126, "count": verts, "type": "VEC3", "min": lo, "max": hi},
        {"bufferView": 1, "componentType": 5126, "count": verts, "type": "VEC3"},
        {"bufferView": 2, "componentType": 5123, "count": verts, "type": "VEC4"},
        {"bufferView": 3, "componentType": 5126, "count": verts, "type": "VEC4"},
        {"bufferView": 4, "componentType": 5125, "count": joints * 36, "type": "SCALAR"},
        {"bufferView": 5, "componentType": 5126, "count": joints, "type": "MAT4"},
        {"bufferView": 6, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]},
    ]
    samplers, channels = [], []
    for j in range(joints):
        accessors.append({"bufferView": 7, "byteOffset": j * 48, "componentType": 5126, "count": 3, "type": "VEC4"})
        samplers.append({"input": 6, "output": 7 + j})
        channels.append({"sampler": j, "target": {"node": j + 1, "path": "rotation"}})
    nodes = [{"name": "body", "mesh": 0, "skin": 0}]
    for j in range(joints):
        node = {"name": f"joint{j}", "translation": list(local[j])}
        kids = [k + 1 for k in range(joints) if parent[k] == j]
        if kids:
            node["children"] = kids
        nodes.append(node)
    doc = {
        "asset": {"version": "2.0", "generator": "orrery scripts/skinned_character.py"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "JOINTS_0": 2, "WEIGHTS_0": 3},
                                    "indices": 4}]}],
        "skins": [{"joints": list(range(1, joints + 1)), "inverseBindMatrices": 5, "skeleton": 1}],
        "animations": [{"name": "swing", "samplers": samplers, "channels": channels}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}],
    }
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(f"{out}: {joints} joints, {verts} vertices, {joints * 12} triangles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
