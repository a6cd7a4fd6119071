#!/usr/bin/env python3
"""Writes a libFuzzer seed corpus for fuzz_gltf from the shared sample models, at run time (the
third-party files are never copied into the repository). Every valid .gltf gets its external buffers
inlined as data URIs (images are replaced by a tiny PNG so seeds stay small); .glb files and the
invalid corpus are copied as they are.  Usage: make_corpus.py OUT_DIR [ASSETS_DIR]"""
import base64, json, os, shutil, sys

out = sys.argv[1]
assets = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "assets")
os.makedirs(out, exist_ok=True)
TINY_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
n = 0
for root, _, files in os.walk(os.path.join(assets, "gltf")):
    for f in files:
        p = os.path.join(root, f)
        if f.endswith(".glb"):
            shutil.copy(p, os.path.join(out, "valid_" + f)); n += 1
        elif f.endswith(".gltf"):
            j = json.load(open(p))
            for b in j.get("buffers", []):
                uri = b.get("uri", "")
                if uri and not uri.startswith("data:"):
                    data = open(os.path.join(root, uri), "rb").read()
                    b["uri"] = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
            for im in j.get("images", []):
                if "uri" in im:
                    im["uri"] = TINY_PNG
            text = json.dumps(j, separators=(",", ":"))
            if len(text) <= 200000:
                open(os.path.join(out, "valid_" + f), "w").write(text); n += 1
for root, _, files in os.walk(os.path.join(assets, "gltf-invalid")):
    for f in files:
        if (f.endswith(".gltf") or f.endswith(".glb")) and not f.endswith(".report.json"):
            rel = os.path.relpath(os.path.join(root, f), assets).replace("/", "_")
            shutil.copy(os.path.join(root, f), os.path.join(out, rel)); n += 1

# Synthesized seeds for what the sample models do not reach: a skin of 300 joints (past the old cap of
# 256), an animation whose channels target nodes past 256 of 600, names of 1000 bytes.
import struct
def synth(joints, nodes, name_len):
    pos = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    jnt = struct.pack("<12H", 0, 0, 0, 0, joints // 2, 0, 0, 0, joints - 1, 0, 0, 0)
    wts = struct.pack("<12f", 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)
    ibm = b"".join(struct.pack("<16f", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.01 * j, 0, 1) for j in range(joints))
    times = struct.pack("<2f", 0, 1)
    moves = struct.pack("<6f", 0, 0, 0, 0, 1, 0)
    blob = pos + jnt + wts + ibm + times + moves
    offs = [0, len(pos), len(pos) + len(jnt), len(pos) + len(jnt) + len(wts)]
    offs.append(offs[3] + len(ibm)); offs.append(offs[4] + len(times))
    views = [{"buffer": 0, "byteOffset": o, "byteLength": l}
             for o, l in zip(offs, [len(pos), len(jnt), len(wts), len(ibm), len(times), len(moves)])]
    acc = [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
           {"bufferView": 1, "componentType": 5123, "count": 3, "type": "VEC4"},
           {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
           {"bufferView": 3, "componentType": 5126, "count": joints, "type": "MAT4"},
           {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
           {"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC3"}]
    long = ("n" * name_len)
    # node 0: the skinned mesh; nodes 1..joints: a chain of joints; the rest: loose roots
    nd = [{"mesh": 0, "skin": 0, "name": long + "0"}]
    for j in range(joints):
        n_ = {"name": long + str(j + 1), "translation": [0, 0.01, 0]}
        if j + 1 < joints: n_["children"] = [j + 2]
        nd.append(n_)
    while len(nd) < nodes: nd.append({"name": "loose" + str(len(nd))})
    channels = [{"sampler": 0, "target": {"node": k, "path": "translation"}} for k in (1, 257, nodes - 1)]
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1] + list(range(joints + 1, nodes)), "name": long}],
           "nodes": nd, "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
           "skins": [{"joints": list(range(1, joints + 1)), "inverseBindMatrices": 3}],
           "animations": [{"samplers": [{"input": 4, "output": 5}], "channels": channels}],
           "accessors": acc, "bufferViews": views,
           "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}]}
    return json.dumps(doc, separators=(",", ":"))
for joints, nodes, name_len in ((300, 600, 8), (20, 300, 1000)):
    open(os.path.join(out, f"synth_skin{joints}_nodes{nodes}_name{name_len}.gltf"), "w").write(synth(joints, nodes, name_len)); n += 1
print(f"{n} seeds in {out}")
