#!/usr/bin/env python3
"""Writes the two models `bench gltf` is measured on into OUT_DIR (nothing is committed):

  terrain.glb    a 1000 x 1000 grid terrain (1M vertices, 2M triangles, normals and UVs) written as OBJ
                 and run through gltfpack -c (meshopt-compressed, quantized: what pipelines ship); no images
  textured.gltf  a FlightHelmet-sized textured model: 6 materials, each with its own 2048 x 2048 RGBA PNG
                 (a smooth, noisy pattern that compresses like a photo), on a quad each

usage: scripts/bench_gltf_models.py OUT_DIR [--grid N] [--images N] [--size S] [--no-terrain] [--no-textured]
then:  build/orrery bench gltf OUT_DIR/terrain.glb; build/orrery bench gltf OUT_DIR/textured.gltf
"""
import json, math, os, random, struct, subprocess, sys, zlib

def terrain(out, n):
    obj = os.path.join(out, "terrain.obj")
    with open(obj, "w") as f:
        for y in range(n):
            for x in range(n):
                h = 0.05 * math.sin(x * 0.05) * math.cos(y * 0.07) + 0.01 * math.sin(x * 0.31 + y * 0.17)
                f.write("v %.6f %.6f %.6f\n" % (x / n, h, y / n))
        for y in range(n):
            for x in range(n):
                f.write("vt %.6f %.6f\n" % (x / (n - 1), y / (n - 1)))
        for y in range(n):
            for x in range(n):  # the analytic normal of the height field
                dx = (0.05 * 0.05 * math.cos(x * 0.05) * math.cos(y * 0.07) + 0.01 * 0.31 * math.cos(x * 0.31 + y * 0.17)) * n
                dz = (-0.05 * 0.07 * math.sin(x * 0.05) * math.sin(y * 0.07) + 0.01 * 0.17 * math.cos(x * 0.31 + y * 0.17)) * n
                l = math.sqrt(dx * dx + 1 + dz * dz)
                f.write("vn %.6f %.6f %.6f\n" % (-dx / l, 1 / l, -dz / l))
        for y in range(n - 1):
            for x in range(n - 1):
                a = y * n + x + 1
                b, c, d = a + 1, a + n, a + n + 1
                f.write("f %d/%d/%d %d/%d/%d %d/%d/%d\nf %d/%d/%d %d/%d/%d %d/%d/%d\n" % (a, a, a, c, c, c, b, b, b, b, b, b, c, c, c, d, d, d))
    subprocess.run(["gltfpack", "-i", obj, "-o", os.path.join(out, "terrain.glb"), "-c"], check=True)
    os.remove(obj)

def png(path, w, h, seed):
    rnd = random.Random(seed)
    rows = []
    for y in range(h):
        row = bytearray([0])  # filter: none
        for x in range(w):
            r = int(127 + 120 * math.sin((x + seed * 37) * 0.011) * math.cos(y * 0.013)) & 255
            g = int(127 + 120 * math.sin(y * 0.017 + seed)) & 255
            b = (r ^ g) & 255
            row += bytes((r, g, (b + rnd.randrange(16)) & 255, 255))
        rows.append(bytes(row))
    raw = b"".join(rows)
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    open(path, "wb").write(data)

def _png_job(args):
    png(*args)

def textured(out, count=6, size=2048):
    pos = struct.pack("<12f", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0)
    uv = struct.pack("<8f", 0, 1, 1, 1, 1, 0, 0, 0)
    idx = struct.pack("<6H", 0, 1, 2, 0, 2, 3)
    open(os.path.join(out, "textured.bin"), "wb").write(pos + uv + idx)
    import multiprocessing
    with multiprocessing.Pool() as pool:  # one image per process
        pool.map(_png_job, [(os.path.join(out, "tex%d.png" % i), size, size, i) for i in range(count)])
    g = {
        "asset": {"version": "2.0"},
        "buffers": [{"uri": "textured.bin", "byteLength": len(pos) + len(uv) + len(idx)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 32},
                        {"buffer": 0, "byteOffset": 80, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
                      {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
                      {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}],
        "images": [{"uri": "tex%d.png" % i} for i in range(count)],
        "textures": [{"source": i} for i in range(count)],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": i}}} for i in range(count)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": i}]}
                   for i in range(count)],
        "nodes": [{"mesh": i, "translation": [i * 1.1, 0, 0]} for i in range(count)],
        "scenes": [{"nodes": list(range(count))}], "scene": 0,
    }
    json.dump(g, open(os.path.join(out, "textured.gltf"), "w"))

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    grid = int(sys.argv[sys.argv.index("--grid") + 1]) if "--grid" in sys.argv else 1000
    os.makedirs(out, exist_ok=True)
    images = int(sys.argv[sys.argv.index("--images") + 1]) if "--images" in sys.argv else 6
    size = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else 2048
    if "--no-terrain" not in sys.argv:
        terrain(out, grid)
    if "--no-textured" not in sys.argv:
        textured(out, images, size)
