#!/usr/bin/env python3
"""Writes a glTF 2.0 file of a furry orb: a UV sphere of radius R (default 0.5 m) with texture
coordinates (u around, v from pole to pole), normals outward and a warm base colour, for
`orrery render FILE --fur LENGTH`, which dresses it in fur (glTF has no fur material: the tool makes every
material shade fur). Only the standard library is used; the buffer is embedded.

Usage: furry_orb.py OUT.gltf [--radius R] [--slices N] [--stacks N]"""
import base64
import json
import math
import struct
import sys


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out, radius, slices, stacks = argv[1], 0.5, 96, 48
    i = 2
    while i < len(argv):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if argv[i] == "--radius":
            radius = float(value)
        elif argv[i] == "--slices" and value.isdigit() and 3 <= int(value) <= 4096:
            slices = int(value)
        elif argv[i] == "--stacks" and value.isdigit() and 2 <= int(value) <= 4096:
            stacks = int(value)
        else:
            print(f"furry_orb.py: bad option {argv[i]!r} (--radius R, --slices 3..4096, --stacks 2..4096)", file=sys.stderr)
            return 2
        i += 2
    if not (radius > 0 and math.isfinite(radius)):
        print("furry_orb.py: --radius must be above 0", file=sys.stderr)
        return 2
    pos, nrm, uv, idx = bytearray(), bytearray(), bytearray(), bytearray()
    for st in range(stacks + 1):
        theta = math.pi * st / stacks
        for sl in range(slices + 1):
            phi = 2 * math.pi * sl / slices
            n = (math.sin(theta) * math.cos(phi), math.cos(theta), -math.sin(theta) * math.sin(phi))
            pos += struct.pack("<3f", *(c * radius for c in n))
            nrm += struct.pack("<3f", *n)
            uv += struct.pack("<2f", sl / slices, st / stacks)
    for st in range(stacks):
        for sl in range(slices):
            a = st * (slices + 1) + sl
            b = a + slices + 1
            idx += struct.pack("<6I", a, b, a + 1, a + 1, b, b + 1)  # counter-clockwise seen from outside
    vertices = (slices + 1) * (stacks + 1)
    blob = bytes(pos + nrm + uv + idx)
    views, offset = [], 0
    for part, target in ((pos, 34962), (nrm, 34962), (uv, 34962), (idx, 34963)):
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(part), "target": target})
        offset += len(part)
    gltf = {
        "asset": {"version": "2.0", "generator": "orrery scripts/furry_orb.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "orb", "mesh": 0}],
        "meshes": [{"name": "orb", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
                                                   "indices": 3, "material": 0}]}],
        "materials": [{"name": "orb", "pbrMetallicRoughness": {"baseColorFactor": [0.85, 0.42, 0.12, 1.0],
                                                               "metallicFactor": 0.0, "roughnessFactor": 0.7}}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": vertices, "type": "VEC3",
             "min": [-radius, -radius, -radius], "max": [radius, radius, radius]},
            {"bufferView": 1, "componentType": 5126, "count": vertices, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": vertices, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5125, "count": slices * stacks * 6, "type": "SCALAR"},
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
    }
    with open(out, "w") as f:
        json.dump(gltf, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
