/* glTF 2.0 parse: the asset object and extensions. Which extensions the loader reads (the public list),
 * extensionsUsed and extensionsRequired, and one walk over the JSON tree that checks every extension
 * object against where its extension may appear. The content of extensions known but not read is
 * checked in gltf_extcheck.c. */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"

#include <orrery/scene.h>

#include <stdio.h>
#include <string.h>

/* ---- asset, extensions -------------------------------------------------------------------------- */

static const char *const supported_extensions[] = {
    "KHR_lights_punctual", "KHR_materials_emissive_strength", "KHR_materials_unlit", "KHR_texture_transform",
    "EXT_mesh_gpu_instancing", "KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_meshopt_compression",
    "EXT_texture_webp", "MSFT_lod",
#ifdef ORRI_HAVE_DRACO
    "KHR_draco_mesh_compression",
#endif
    NULL,
};

static bool extension_supported(const char *name)
{
    for (const char *const *s = supported_extensions; *s; s++)
        if (strcmp(*s, name) == 0) return true;
    return false;
}

bool orr_gltf_extension_supported(const char *name)
{
    return name && extension_supported(name);
}

uint32_t orr_gltf_extensions(const char **out, uint32_t max)
{
    uint32_t n = 0;
    for (const char *const *s = supported_extensions; *s; s++, n++)
        if (out && n < max) out[n] = *s;
    return n;
}

/* Why a known extension is refused, for the message; "" for the others. */
static const char *unsupported_reason(const char *name)
{
    if (strcmp(name, "KHR_texture_basisu") == 0) return " (no Basis Universal transcoder is packaged)";
    if (strcmp(name, "KHR_draco_mesh_compression") == 0) return " (this build has no Draco decoder: libdraco-dev)";
    return "";
}

/* ---- extension objects: one walk over the JSON tree ------------------------------------------- */

/* Where the extensions this loader reads (and some it knows but does not read) may appear: the owner
 * of the `extensions` object. One found anywhere else breaks the spec and is ignored (violation());
 * an extension without an entry here is not checked for its place. */
enum {
    EXT_AT_ROOT = 1,
    EXT_AT_NODE = 2,
    EXT_AT_MATERIAL = 4,
    EXT_AT_TEXINFO = 8, /* a textureInfo: materials[i].*Texture, also nested */
    EXT_AT_TEXTURE = 16,
    EXT_AT_PRIMITIVE = 32,
};
static const struct {
    const char *name;
    unsigned at;
} extension_places[] = {
    {"KHR_lights_punctual", EXT_AT_ROOT | EXT_AT_NODE},
    {"KHR_materials_emissive_strength", EXT_AT_MATERIAL},
    {"KHR_materials_unlit", EXT_AT_MATERIAL},
    {"KHR_texture_transform", EXT_AT_TEXINFO},
    {"EXT_mesh_gpu_instancing", EXT_AT_NODE},
    {"MSFT_lod", EXT_AT_NODE}, /* a node's levels of detail: one mesh's (gltf_build_lods.c) */
    {"EXT_texture_webp", EXT_AT_TEXTURE},
    {"KHR_texture_basisu", EXT_AT_TEXTURE},
    {"KHR_draco_mesh_compression", EXT_AT_PRIMITIVE},
    /* known, not read: only their place is checked */
    {"KHR_materials_anisotropy", EXT_AT_MATERIAL},
    {"KHR_materials_clearcoat", EXT_AT_MATERIAL},
    {"KHR_materials_diffuse_transmission", EXT_AT_MATERIAL},
    {"KHR_materials_dispersion", EXT_AT_MATERIAL},
    {"KHR_materials_ior", EXT_AT_MATERIAL},
    {"KHR_materials_iridescence", EXT_AT_MATERIAL},
    {"KHR_materials_pbrSpecularGlossiness", EXT_AT_MATERIAL},
    {"KHR_materials_sheen", EXT_AT_MATERIAL},
    {"KHR_materials_specular", EXT_AT_MATERIAL},
    {"KHR_materials_transmission", EXT_AT_MATERIAL},
    {"KHR_materials_volume", EXT_AT_MATERIAL},
    {"KHR_materials_variants", EXT_AT_ROOT | EXT_AT_PRIMITIVE},
    {"KHR_node_visibility", EXT_AT_NODE},
    {"KHR_mesh_quantization", 0}, /* declared only: it has no extension objects */
};

/* One step of the path from the root: a member (key) or an array element (key NULL, index). */
typedef struct ext_frame {
    const struct ext_frame *up; /* NULL for the root object */
    const char *key;
    uint32_t index;
} ext_frame;

typedef struct ext_walk {
    orri_gltf_pctx *c;
    const cJSON *used; /* extensionsUsed; NULL-able */
    /* unsupported extensions warned about, once per extension and top-level member (extensions,
     * materials, meshes, ...): a file that uses one on every material gets one warning, not thousands */
    const char *warned[32], *warned_top[32];
    uint32_t warned_n;
    bool stop; /* the fast pass needs to know only that something warns */
} ext_walk;

static size_t ext_path(const ext_frame *f, char *out, size_t cap)
{
    if (!f || !f->up) return 0; /* the root */
    size_t n = ext_path(f->up, out, cap);
    int w = f->key ? snprintf(out + n, cap - n, "%s%s", n ? "." : "", f->key) : snprintf(out + n, cap - n, "[%u]", f->index);
    if (w < 0 || (size_t)w >= cap - n) return cap - 1;
    return n + (size_t)w;
}

/* Warns "<path of f>: <message>". */
/* A warning, or with `error` a violation of the spec (violation()), at the frame's path. */
static void ext_warn(ext_walk *w, const ext_frame *f, bool error, const char *fmt, ...) ORRI_PRINTF(4, 5);
static void ext_warn(ext_walk *w, const ext_frame *f, bool error, const char *fmt, ...)
{
    char path[400], msg[300];
    path[0] = msg[0] = 0;
    if (w->c->paths) {
        ext_path(f, path, sizeof path);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    if (error) orri_gltf_violation(w->c, "%s: %s", path, msg);
    else orri_gltf_warn(w->c, "%s: %s", path, msg);
    if (!w->c->paths) w->stop = true;
}

/* The kind of object a frame stands for, as extension_places names them. */
static unsigned ext_owner(const ext_frame *f)
{
    if (!f->up) return EXT_AT_ROOT;
    if (!f->key && f->up->key && f->up->up && !f->up->up->up) { /* an element of a top-level array */
        if (strcmp(f->up->key, "nodes") == 0) return EXT_AT_NODE;
        if (strcmp(f->up->key, "materials") == 0) return EXT_AT_MATERIAL;
        if (strcmp(f->up->key, "textures") == 0) return EXT_AT_TEXTURE;
    }
    if (!f->key && f->up->key && strcmp(f->up->key, "primitives") == 0) return EXT_AT_PRIMITIVE;
    if (f->key) {
        size_t n = strlen(f->key);
        if (n > 7 && strcmp(f->key + n - 7, "Texture") == 0) return EXT_AT_TEXINFO;
    }
    return 0;
}

static bool ext_declared(const cJSON *used, const char *name)
{
    for (const cJSON *e = used ? used->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

static void ext_walk_value(ext_walk *w, const cJSON *v, const ext_frame *f);

static void ext_check(ext_walk *w, const cJSON *ext, const ext_frame *ef, const ext_frame *owner)
{
    if (!cJSON_IsObject(ext)) {
        ext_warn(w, ef, true, "expected an object, found %s; ignored", orri_gltf_jtype(ext));
        return;
    }
    const ext_frame *top = ef;
    while (top->up && top->up->up) top = top->up;
    for (const cJSON *x = ext->child; x && !w->stop; x = x->next) {
        const char *name = x->string ? x->string : "";
        ext_frame xf = {ef, name, 0};
        if (!cJSON_IsObject(x)) {
            ext_warn(w, &xf, true, "expected an object, found %s; ignored", orri_gltf_jtype(x));
            continue;
        }
        if (!ext_declared(w->used, name)) ext_warn(w, &xf, true, "extension %s is not declared in extensionsUsed", name);
        bool placed = true;
        for (size_t k = 0; k < sizeof extension_places / sizeof extension_places[0]; k++)
            if (strcmp(extension_places[k].name, name) == 0) placed = (extension_places[k].at & ext_owner(owner)) != 0;
        if (!placed) {
            ext_warn(w, &xf, true, "extension %s does not belong here, ignored", name);
            continue;
        }
        if (!extension_supported(name)) {
            bool seen = false;
            for (uint32_t k = 0; k < w->warned_n && !seen; k++)
                seen = strcmp(w->warned[k], name) == 0 && strcmp(w->warned_top[k], top->key) == 0;
            if (seen || w->warned_n == 32) continue; /* beyond 32 kinds: still warned about in extensionsUsed */
            w->warned[w->warned_n] = name, w->warned_top[w->warned_n++] = top->key;
            ext_warn(w, &xf, false, "extension %s is not supported, ignored", name);
            continue; /* its content is not read, so it is not checked either */
        }
        ext_walk_value(w, x, &xf);
    }
}

static void ext_walk_value(ext_walk *w, const cJSON *v, const ext_frame *f)
{
    if (cJSON_IsArray(v)) {
        uint32_t i = 0;
        for (const cJSON *e = v->child; e && !w->stop; e = e->next, i++) {
            if (!cJSON_IsObject(e) && !cJSON_IsArray(e)) continue;
            ext_frame ef = {f, NULL, i};
            ext_walk_value(w, e, &ef);
        }
        return;
    }
    if (!cJSON_IsObject(v)) return;
    for (const cJSON *m = v->child; m && !w->stop; m = m->next) {
        if (!m->string || strcmp(m->string, "extras") == 0) continue; /* the application's, anything goes */
        if (!cJSON_IsObject(m) && !cJSON_IsArray(m)) continue;
        ext_frame mf = {f, m->string, 0};
        if (strcmp(m->string, "extensions") == 0) ext_check(w, m, &mf, f);
        else ext_walk_value(w, m, &mf);
    }
    /* a non-object `extensions` member is skipped above; name it */
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(v, "extensions");
    if (ext && !cJSON_IsObject(ext) && !w->stop) {
        ext_frame mf = {f, "extensions", 0};
        ext_check(w, ext, &mf, f);
    }
}

/* Every `extensions` object of the file: its members are objects, declared in extensionsUsed, and
 * supported (once per extension and top-level member) where the loader reads them. Warnings only: what
 * is not read is ignored. Nesting is bounded by cJSON's limit, so the recursion is too. Skipped when
 * no logger listens. Returns the walk, so that extensionsUsed need not repeat what it said. */
static void check_extension_objects(orri_gltf_pctx *c, const cJSON *used, ext_walk *w)
{
    *w = (ext_walk){.c = c, .used = used};
    if (!c->doc->logger.log) return;
    ext_frame root = {NULL, NULL, 0};
    ext_walk_value(w, c->doc->json, &root);
}

static bool ext_warned(const ext_walk *w, const char *name)
{
    for (uint32_t k = 0; k < w->warned_n; k++)
        if (strcmp(w->warned[k], name) == 0) return true;
    return false;
}

/* The index of an earlier string equal to e in arr, or -1; only the first 256 entries are compared
 * (a list of extensions is short; a hostile one must not cost n^2). */
static int32_t earlier_duplicate(const cJSON *arr, const cJSON *e, uint32_t i)
{
    if (i >= 256) return -1;
    int32_t k = 0;
    for (const cJSON *p = arr->child; p && p != e; p = p->next, k++)
        if (cJSON_IsString(p) && strcmp(p->valuestring, e->valuestring) == 0) return k;
    return -1;
}

static bool parse_version(const char *s, unsigned *major, unsigned *minor)
{
    unsigned a = 0, b = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') a = a * 10 + (unsigned)(*p++ - '0'), a = a > 100000 ? 100000 : a;
    if (*p++ != '.') return false;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') b = b * 10 + (unsigned)(*p++ - '0'), b = b > 100000 ? 100000 : b;
    if (*p) return false;
    *major = a;
    *minor = b;
    return true;
}

bool orri_gltf_parse_asset(orri_gltf_pctx *c)
{
    const cJSON *root = c->doc->json;
    const cJSON *asset;
    if (!orri_gltf_jobject(c, root, "asset", "", &asset)) return false;
    if (!asset) return PARSE_ERR(c, "asset: required property is missing");
    const char *version;
    if (!orri_gltf_jstring(c, asset, "version", "asset", &version)) return false;
    if (!version) return PARSE_ERR(c, "asset.version: required property is missing");
    unsigned major, minor;
    if (!parse_version(version, &major, &minor)) return PARSE_ERR(c, "asset.version: '%s' is not MAJOR.MINOR", version);
    if (major != 2) return orri_gltf_fail(c, ORR_ERROR_UNSUPPORTED, "asset.version: %s is not glTF 2.x", version);
    const char *minv;
    if (!orri_gltf_jstring(c, asset, "minVersion", "asset", &minv)) return false;
    if (minv) {
        unsigned a, b;
        if (!parse_version(minv, &a, &b)) return PARSE_ERR(c, "asset.minVersion: '%s' is not MAJOR.MINOR", minv);
        if (a != 2 || b > 0) return orri_gltf_fail(c, ORR_ERROR_UNSUPPORTED, "asset.minVersion: %s is newer than 2.0", minv);
    }
    static const char *const known[] = {"version", "minVersion", "generator", "copyright", NULL};
    orri_gltf_check_keys(c, asset, "asset", known);

    const cJSON *req, *used;
    if (!orri_gltf_jarray(c, root, "extensionsRequired", "", &req) || !orri_gltf_jarray(c, root, "extensionsUsed", "", &used)) return false;
    uint32_t i = 0;
    for (const cJSON *e = req ? req->child : NULL; e; e = e->next, i++) {
        if (!cJSON_IsString(e)) return PARSE_ERR(c, "extensionsRequired[%u]: expected a string", i);
        if (!extension_supported(e->valuestring))
            return orri_gltf_fail(c, ORR_ERROR_UNSUPPORTED, "extensionsRequired[%u]: required extension %s is not supported%s", i,
                                  e->valuestring, unsupported_reason(e->valuestring));
        if (strcmp(e->valuestring, "KHR_mesh_quantization") == 0) c->quantization = true;
        int32_t dup = earlier_duplicate(req, e, i);
        if (dup >= 0) orri_gltf_violation(c, "extensionsRequired[%u]: %s is listed twice (extensionsRequired[%d])", i, e->valuestring, dup);
    }
    ext_walk walk;
    check_extension_objects(c, used, &walk);
    i = 0;
    for (const cJSON *e = used ? used->child : NULL; e; e = e->next, i++) {
        if (!cJSON_IsString(e)) return PARSE_ERR(c, "extensionsUsed[%u]: expected a string", i);
        int32_t dup = earlier_duplicate(used, e, i);
        if (dup >= 0) orri_gltf_violation(c, "extensionsUsed[%u]: %s is listed twice (extensionsUsed[%d])", i, e->valuestring, dup);
        else if (!extension_supported(e->valuestring) && !ext_warned(&walk, e->valuestring))
            orri_gltf_warn(c, "extensionsUsed[%u]: extension %s is not supported, ignored", i, e->valuestring);
        /* KHR_mesh_quantization relaxes formats only when required (the extension says it must be) */
    }
    static const char *const root_known[] = {"asset", "extensionsRequired", "extensionsUsed", "buffers", "bufferViews",
                                             "accessors", "images", "samplers", "textures", "materials", "meshes",
                                             "cameras", "skins", "nodes", "scenes", "scene", "animations", NULL};
    orri_gltf_check_keys(c, root, "", root_known);
    return true;
}
