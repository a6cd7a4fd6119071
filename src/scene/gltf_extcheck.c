/* The content of the glTF extensions the loader knows but does not read (extension_places in
 * gltf_extensions.c): their values are ignored when drawing, yet a file whose extension data breaks that
 * extension's specification is invalid, and `orrery validate` must say so. Each such place is logged
 * at ORR_LOG_ERROR with its JSON path; the load itself is never refused for it (the loader drops
 * the extension, as a viewer that does not know it would).
 *
 * Checked: value ranges and types, required members, texture references (textureInfo), and the
 * tangent space that some textures need (KHR_materials_anisotropy's anisotropyTexture,
 * KHR_materials_clearcoat's clearcoatNormalTexture: a primitive using such a material has TANGENT,
 * or its material has a normalTexture to generate tangents from); KHR_materials_variants' root list
 * and each primitive's mappings (references to variants and materials, the root list they need).
 * Only extensions named in extensionsUsed are looked at (one used without being declared is a
 * violation already reported by the extension walk), so a file that uses none costs one pass over
 * extensionsUsed. */
#include "scene/gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum field_kind { F_NUM, F_TEX, F_NORMAL_TEX, F_COLOR3, F_COLOR4, F_BOOL };
enum {
    LO_OPEN = 1, /* the lower bound is excluded */
    ZERO_OK = 2, /* 0 is allowed besides [lo, hi] (KHR_materials_ior: 0 or at least 1) */
    TANGENT = 4, /* a texture read in tangent space */
};

typedef struct field {
    const char *key;
    enum field_kind kind;
    double lo, hi; /* F_NUM and colours */
    unsigned flags;
} field;

#define NUM01(k) {k, F_NUM, 0.0, 1.0, 0}
#define NUM_MIN(k, lo) {k, F_NUM, lo, INFINITY, 0}
#define TEX(k) {k, F_TEX, 0, 0, 0}

static const field anisotropy[] = {NUM01("anisotropyStrength"), {"anisotropyRotation", F_NUM, -INFINITY, INFINITY, 0},
                                   {"anisotropyTexture", F_TEX, 0, 0, TANGENT}, {0}};
static const field clearcoat[] = {NUM01("clearcoatFactor"), TEX("clearcoatTexture"), NUM01("clearcoatRoughnessFactor"),
                                  TEX("clearcoatRoughnessTexture"), {"clearcoatNormalTexture", F_NORMAL_TEX, 0, 0, TANGENT},
                                  {0}};
static const field diffuse_transmission[] = {NUM01("diffuseTransmissionFactor"), TEX("diffuseTransmissionTexture"),
                                             {"diffuseTransmissionColorFactor", F_COLOR3, 0, 1, 0},
                                             TEX("diffuseTransmissionColorTexture"), {0}};
static const field dispersion[] = {NUM_MIN("dispersion", 0.0), {0}};
static const field ior[] = {{"ior", F_NUM, 1.0, INFINITY, ZERO_OK}, {0}};
static const field iridescence[] = {NUM01("iridescenceFactor"), TEX("iridescenceTexture"), NUM_MIN("iridescenceIor", 1.0),
                                    NUM_MIN("iridescenceThicknessMinimum", 0.0), NUM_MIN("iridescenceThicknessMaximum", 0.0),
                                    TEX("iridescenceThicknessTexture"), {0}};
static const field spec_gloss[] = {{"diffuseFactor", F_COLOR4, 0, 1, 0}, TEX("diffuseTexture"),
                                   {"specularFactor", F_COLOR3, 0, 1, 0}, NUM01("glossinessFactor"),
                                   TEX("specularGlossinessTexture"), {0}};
static const field sheen[] = {{"sheenColorFactor", F_COLOR3, 0, 1, 0}, TEX("sheenColorTexture"),
                              NUM01("sheenRoughnessFactor"), TEX("sheenRoughnessTexture"), {0}};
static const field specular[] = {NUM01("specularFactor"), TEX("specularTexture"),
                                 {"specularColorFactor", F_COLOR3, 0, INFINITY, 0}, TEX("specularColorTexture"), {0}};
static const field transmission[] = {NUM01("transmissionFactor"), TEX("transmissionTexture"), {0}};
static const field volume[] = {NUM_MIN("thicknessFactor", 0.0), TEX("thicknessTexture"),
                               {"attenuationDistance", F_NUM, 0.0, INFINITY, LO_OPEN},
                               {"attenuationColor", F_COLOR3, 0, 1, 0}, {0}};
static const field node_visibility[] = {{"visible", F_BOOL, 0, 0, 0}, {0}};

static const struct {
    const char *name;
    const field *fields;
} material_exts[] = {
    {"KHR_materials_anisotropy", anisotropy},
    {"KHR_materials_clearcoat", clearcoat},
    {"KHR_materials_diffuse_transmission", diffuse_transmission},
    {"KHR_materials_dispersion", dispersion},
    {"KHR_materials_ior", ior},
    {"KHR_materials_iridescence", iridescence},
    {"KHR_materials_pbrSpecularGlossiness", spec_gloss},
    {"KHR_materials_sheen", sheen},
    {"KHR_materials_specular", specular},
    {"KHR_materials_transmission", transmission},
    {"KHR_materials_volume", volume},
};

static const char VARIANTS[] = "KHR_materials_variants";
static const char VISIBILITY[] = "KHR_node_visibility";

static void bad(orri_gltf_check *k, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void bad(orri_gltf_check *k, const char *fmt, ...)
{
    k->found = true;
    if (!k->paths || !k->doc->logger.log) return;
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&k->doc->logger, ORR_LOG_ERROR, k->name, fmt, ap);
    va_end(ap);
}

static const char *type_of(const cJSON *j)
{
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    return "null";
}

static bool in_range(const field *f, double v)
{
    if ((f->flags & ZERO_OK) && v == 0.0) return true;
    if ((f->flags & LO_OPEN) ? v <= f->lo : v < f->lo) return false;
    return v <= f->hi;
}

static void range_text(const field *f, char *out, size_t cap)
{
    if (f->flags & ZERO_OK) snprintf(out, cap, "0 or at least %g", f->lo);
    else if (isinf(f->hi)) snprintf(out, cap, "%s %g", (f->flags & LO_OPEN) ? "above" : "at least", f->lo);
    else snprintf(out, cap, "in [%g, %g]", f->lo, f->hi);
}

/* An index into a top-level array of `count` `what`; false (reported) when it is not one. */
static bool check_index(orri_gltf_check *k, const cJSON *j, const char *path, uint32_t count, const char *what)
{
    if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble)) {
        bad(k, "%s: expected an index, found %s", path, cJSON_IsNumber(j) ? "a fraction" : type_of(j));
        return false;
    }
    if (j->valuedouble < 0 || j->valuedouble >= (double)count) {
        bad(k, "%s: %.17g is out of range, %u %s", path, j->valuedouble, count, what);
        return false;
    }
    return true;
}

/* A textureInfo (normalTextureInfo with `normal`): an object with an index into textures. */
static void check_texinfo(orri_gltf_check *k, const cJSON *t, const char *path, bool normal)
{
    if (!cJSON_IsObject(t)) {
        bad(k, "%s: expected an object, found %s", path, type_of(t));
        return;
    }
    char p[360]; /* path: at most 299 characters (check_fields) */
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(t, "index");
    snprintf(p, sizeof p, "%s.index", path);
    if (!index) bad(k, "%s: required property 'index' is missing", path);
    else check_index(k, index, p, k->doc->texture_count, "textures");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(t, "texCoord");
    if (tc && (!cJSON_IsNumber(tc) || tc->valuedouble < 0 || tc->valuedouble != floor(tc->valuedouble)))
        bad(k, "%s.texCoord: expected an integer of at least 0", path);
    const cJSON *scale = cJSON_GetObjectItemCaseSensitive(t, "scale");
    if (normal && scale && !cJSON_IsNumber(scale)) bad(k, "%s.scale: expected a number, found %s", path, type_of(scale));
}

/* The members of one extension object; returns the first present texture that needs a tangent space. */
static const char *check_fields(orri_gltf_check *k, const cJSON *x, const char *path, const field *fields)
{
    const char *tangent = NULL;
    char p[300], range[64]; /* path: at most 255 characters */
    for (const field *f = fields; f->key; f++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, f->key);
        if (!v) continue;
        snprintf(p, sizeof p, "%s.%s", path, f->key);
        switch (f->kind) {
        case F_NUM:
            if (!cJSON_IsNumber(v)) bad(k, "%s: expected a number, found %s", p, type_of(v));
            else if (!in_range(f, v->valuedouble)) {
                range_text(f, range, sizeof range);
                bad(k, "%s: %g is not %s; the extension is not read", p, v->valuedouble, range);
            }
            break;
        case F_COLOR3:
        case F_COLOR4: {
            int want = f->kind == F_COLOR3 ? 3 : 4, n = 0;
            bool ok = cJSON_IsArray(v);
            for (const cJSON *e = ok ? v->child : NULL; e; e = e->next, n++)
                ok = ok && cJSON_IsNumber(e) && in_range(f, e->valuedouble);
            if (!ok || n != want) {
                range_text(f, range, sizeof range);
                bad(k, "%s: expected %d numbers %s; the extension is not read", p, want, range);
            }
            break;
        }
        case F_BOOL:
            if (!cJSON_IsBool(v)) bad(k, "%s: expected a boolean, found %s", p, type_of(v));
            break;
        case F_TEX:
        case F_NORMAL_TEX:
            check_texinfo(k, v, p, f->kind == F_NORMAL_TEX);
            if ((f->flags & TANGENT) && !tangent) tangent = f->key;
            break;
        }
    }
    return tangent;
}

static bool declared(const cJSON *used, const char *name)
{
    for (const cJSON *e = used ? used->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

/* extensions.KHR_materials_variants: {"variants": [{"name": ...}, ...]} with at least one variant.
 * Returns the number of variants (0 when the list is absent or broken). */
static uint32_t check_variant_list(orri_gltf_check *k, const cJSON *root_ext)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(root_ext, VARIANTS);
    if (!cJSON_IsObject(x)) return 0;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(x, "variants");
    if (!list) {
        bad(k, "extensions.%s: required property 'variants' is missing", VARIANTS);
        return 0;
    }
    if (!cJSON_IsArray(list) || !list->child) {
        bad(k, "extensions.%s.variants: expected a non-empty array, found %s", VARIANTS,
            cJSON_IsArray(list) ? "an empty one" : type_of(list));
        return 0;
    }
    uint32_t n = 0;
    for (const cJSON *v = list->child; v; v = v->next, n++) {
        const cJSON *name = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "name") : NULL;
        if (!cJSON_IsObject(v)) bad(k, "extensions.%s.variants[%u]: expected an object, found %s", VARIANTS, n, type_of(v));
        else if (!name) bad(k, "extensions.%s.variants[%u]: required property 'name' is missing", VARIANTS, n);
        else if (!cJSON_IsString(name))
            bad(k, "extensions.%s.variants[%u].name: expected a string, found %s", VARIANTS, n, type_of(name));
    }
    return n;
}

/* meshes[m].primitives[p].extensions.KHR_materials_variants: {"mappings": [{"variants": [...],
 * "material": M}, ...]}, which needs the root list (`variants` of them, `root` whether declared). */
static void check_mappings(orri_gltf_check *k, const cJSON *x, const char *path, bool root, uint32_t variants)
{
    if (!root) bad(k, "%s: the file has no extensions.%s, whose variants the mappings name", path, VARIANTS);
    const cJSON *maps = cJSON_GetObjectItemCaseSensitive(x, "mappings");
    if (!maps) {
        bad(k, "%s: required property 'mappings' is missing", path);
        return;
    }
    if (!cJSON_IsArray(maps) || !maps->child) {
        bad(k, "%s.mappings: expected a non-empty array, found %s", path, cJSON_IsArray(maps) ? "an empty one" : type_of(maps));
        return;
    }
    uint32_t i = 0;
    char mp[300], p[360]; /* path: at most 255 characters */
    for (const cJSON *m = maps->child; m; m = m->next, i++) {
        snprintf(mp, sizeof mp, "%s.mappings[%u]", path, i);
        if (!cJSON_IsObject(m)) {
            bad(k, "%s: expected an object, found %s", mp, type_of(m));
            continue;
        }
        const cJSON *vs = cJSON_GetObjectItemCaseSensitive(m, "variants");
        const cJSON *mat = cJSON_GetObjectItemCaseSensitive(m, "material");
        if (!vs) bad(k, "%s: required property 'variants' is missing", mp);
        else if (!cJSON_IsArray(vs) || !vs->child)
            bad(k, "%s.variants: expected a non-empty array, found %s", mp, cJSON_IsArray(vs) ? "an empty one" : type_of(vs));
        else {
            uint32_t e = 0;
            for (const cJSON *v = vs->child; v; v = v->next, e++) {
                snprintf(p, sizeof p, "%s.variants[%u]", mp, e);
                if (root) check_index(k, v, p, variants, "variants");
            }
        }
        snprintf(p, sizeof p, "%s.material", mp);
        if (!mat) bad(k, "%s: required property 'material' is missing", mp);
        else check_index(k, mat, p, k->doc->material_count, "materials");
    }
}

void orri_gltf_check_unread_extensions(orri_gltf_check *k)
{
    orri_gltf_doc *d = k->doc;
    const cJSON *root = d->json;
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(root, "extensionsUsed");
    bool mats[sizeof material_exts / sizeof material_exts[0]], any_mat = false;
    for (size_t e = 0; e < sizeof material_exts / sizeof material_exts[0]; e++)
        any_mat = (mats[e] = declared(used, material_exts[e].name)) || any_mat;
    bool variants = declared(used, VARIANTS), visibility = declared(used, VISIBILITY);
    char path[256];

    if (any_mat) {
        uint32_t i = 0;
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "materials");
        for (const cJSON *m = arr ? arr->child : NULL; m && i < d->material_count; m = m->next, i++) {
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(m, "extensions");
            if (!cJSON_IsObject(ext)) continue;
            for (size_t e = 0; e < sizeof material_exts / sizeof material_exts[0]; e++) {
                const cJSON *x = mats[e] ? cJSON_GetObjectItemCaseSensitive(ext, material_exts[e].name) : NULL;
                if (!cJSON_IsObject(x)) continue; /* a non-object is reported by the extension walk */
                snprintf(path, sizeof path, "materials[%u].extensions.%s", i, material_exts[e].name);
                const char *t = check_fields(k, x, path, material_exts[e].fields);
                if (t && !d->materials[i].tangent_need) {
                    d->materials[i].tangent_need = material_exts[e].name;
                    d->materials[i].tangent_texture = t;
                }
            }
        }
        for (uint32_t mi = 0; mi < d->mesh_count; mi++)
            for (uint32_t pi = 0; pi < d->meshes[mi].primitive_count; pi++) {
                const orri_gltf_primitive *p = &d->meshes[mi].primitives[pi];
                if (p->material < 0 || p->tangent >= 0) continue;
                const orri_gltf_material *mat = &d->materials[p->material];
                if (!mat->tangent_need || mat->normal.texture >= 0) continue;
                bad(k, "meshes[%u].primitives[%u].material: material %d's %s.%s needs a tangent space, and the "
                       "primitive has no TANGENT and the material no normalTexture to generate one from",
                    mi, pi, p->material, mat->tangent_need, mat->tangent_texture);
            }
    }
    if (variants) {
        const cJSON *root_ext = cJSON_GetObjectItemCaseSensitive(root, "extensions");
        bool has_root = cJSON_IsObject(root_ext) && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root_ext, VARIANTS));
        uint32_t n = has_root ? check_variant_list(k, root_ext) : 0;
        uint32_t mi = 0;
        const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
        for (const cJSON *m = meshes ? meshes->child : NULL; m; m = m->next, mi++) {
            uint32_t pi = 0;
            const cJSON *prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
            for (const cJSON *p = prims ? prims->child : NULL; p; p = p->next, pi++) {
                const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p, "extensions");
                const cJSON *x = cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, VARIANTS) : NULL;
                if (!cJSON_IsObject(x)) continue;
                snprintf(path, sizeof path, "meshes[%u].primitives[%u].extensions.%s", mi, pi, VARIANTS);
                check_mappings(k, x, path, has_root, n);
            }
        }
    }
    if (visibility) {
        uint32_t i = 0;
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
        for (const cJSON *n = nodes ? nodes->child : NULL; n; n = n->next, i++) {
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(n, "extensions");
            const cJSON *x = cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, VISIBILITY) : NULL;
            if (!cJSON_IsObject(x)) continue;
            snprintf(path, sizeof path, "nodes[%u].extensions.%s", i, VISIBILITY);
            check_fields(k, x, path, node_visibility);
        }
    }
}
