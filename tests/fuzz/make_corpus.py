#!/usr/bin/env python3
"""Writes a libFuzzer seed corpus for fuzz_gltf from the shared sample models, at run time (the
third-party files are never copied into the repository, and neither is anything made from them).

Both sample folders are read: gltf/ (core glTF 2.0) and gltf-ext/ (Draco, WebP, KTX, meshopt). Every
.gltf gets its external buffers inlined as data URIs, so that a seed loads the same with any base
folder; images of at most 16 KiB are inlined with their own MIME type (so the PNG, JPEG and WebP
decoders see real images), larger ones become a 1x1 PNG so seeds stay small. .glb files and the
files of gltf-invalid/ are copied as they are. Where gltfpack is installed, each core sample is also
packed twice, `-c -noq` (EXT_meshopt_compression at full precision) and `-cc` (quantized,
KHR_mesh_quantization, with the octahedral and quaternion filters), so the meshopt decoder and the
quantized accessors have seeds too (outputs over 200 KB are left out). Two synthesized seeds reach
what the samples do not: a 300-joint skin with channels past node 256 of 600, and 1000-byte names. Seeds are named after their folder and file
(gltf-ext_BoxDraco_Box.gltf), so the corpus is the same set of names on every machine.

Usage: make_corpus.py OUT_DIR [ASSETS_DIR]     (ASSETS_DIR: $ORRERY_ASSETS, else ../shared/assets)"""
import base64, json, os, shutil, subprocess, sys, tempfile

MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
        ".ktx2": "image/ktx2"}
TINY_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
IMAGE_INLINE_MAX = 16 * 1024
SEED_MAX = 200000


def seed_name(assets, path):
    return os.path.relpath(path, assets).replace("/", "_").replace(" ", "_")


def inline_gltf(root, path):
    """The .gltf at path with its external buffers and images inlined, or None when it cannot be."""
    try:
        j = json.load(open(path, encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    for b in j.get("buffers", []):
        uri = b.get("uri", "")
        if uri and not uri.startswith("data:"):
            with open(os.path.join(root, uri), "rb") as f:
                b["uri"] = "data:application/octet-stream;base64," + base64.b64encode(f.read()).decode()
    for im in j.get("images", []):
        uri = im.get("uri")
        if uri is None or uri.startswith("data:"):
            if uri is not None and len(uri) > IMAGE_INLINE_MAX * 4 // 3 + 64:
                im["uri"] = TINY_PNG
            continue
        file = os.path.join(root, uri)
        mime = MIME.get(os.path.splitext(uri)[1].lower())
        if mime and os.path.isfile(file) and os.path.getsize(file) <= IMAGE_INLINE_MAX:
            with open(file, "rb") as f:
                im["uri"] = "data:" + mime + ";base64," + base64.b64encode(f.read()).decode()
        else:
            im["uri"] = TINY_PNG
    return json.dumps(j, separators=(",", ":"))


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


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    assets = sys.argv[2] if len(sys.argv) > 2 else os.environ.get(
        "ORRERY_ASSETS", os.path.join(here, "..", "..", "..", "shared", "assets"))
    if not os.path.isdir(os.path.join(assets, "gltf")):
        sys.exit(f"make_corpus.py: {assets}/gltf: no such folder (the sample models)")
    os.makedirs(out, exist_ok=True)
    n = 0
    for folder in ("gltf", "gltf-ext"):
        for root, dirs, files in os.walk(os.path.join(assets, folder)):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(root, f)
                if f.endswith(".glb"):
                    if os.path.getsize(p) <= 4 * SEED_MAX:
                        shutil.copy(p, os.path.join(out, seed_name(assets, p)))
                        n += 1
                elif f.endswith(".gltf"):
                    text = inline_gltf(root, p)
                    if text is not None and len(text) <= SEED_MAX:
                        open(os.path.join(out, seed_name(assets, p)), "w").write(text)
                        n += 1
    if shutil.which("gltfpack"):
        with tempfile.TemporaryDirectory() as tmp:
            for root, dirs, files in os.walk(os.path.join(assets, "gltf")):
                dirs.sort()
                for f in sorted(files):
                    if not (f.endswith(".gltf") or f.endswith(".glb")):
                        continue
                    p = os.path.join(root, f)
                    for tag, flags in (("c", ["-c", "-noq"]), ("cc", ["-cc"])):
                        packed = os.path.join(tmp, "out.glb")
                        done = subprocess.run(["gltfpack", "-i", p, "-o", packed] + flags,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                        if done.returncode == 0 and os.path.isfile(packed) and os.path.getsize(packed) <= SEED_MAX:
                            name = "gltfpack-" + tag + "_" + os.path.splitext(seed_name(assets, p))[0] + ".glb"
                            shutil.move(packed, os.path.join(out, name))
                            n += 1
    for root, dirs, files in os.walk(os.path.join(assets, "gltf-invalid")):
        dirs.sort()
        for f in sorted(files):
            if (f.endswith(".gltf") or f.endswith(".glb")) and not f.endswith(".report.json"):
                p = os.path.join(root, f)
                shutil.copy(p, os.path.join(out, seed_name(assets, p)))
                n += 1
    for joints, nodes, name_len in ((300, 600, 8), (20, 300, 1000)):
        with open(os.path.join(out, f"synth_skin{joints}_nodes{nodes}_name{name_len}.gltf"), "w") as f:
            f.write(synth(joints, nodes, name_len))
        n += 1
    print(f"{n} seeds in {out}")


main()
