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
quantized accessors have seeds too (outputs over 200 KB are left out). Seeds are named after their folder and file
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
    print(f"{n} seeds in {out}")


main()
