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
print(f"{n} seeds in {out}")
