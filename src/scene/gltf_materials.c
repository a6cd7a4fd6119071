/* glTF 2.0 parse: images, samplers, textures and materials (KHR_texture_transform,
 * KHR_materials_emissive_strength, KHR_materials_unlit). Images are only located here; they are
 * read and decoded when a texture first uses them (gltf_build_textures.c). */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"

#include <string.h>

/* An encoded image file is read up to this size (a decodable one is far smaller). */
#define ORRI_GLTF_MAX_IMAGE_BYTES (UINT64_C(1) << 28)

/* ---- images, samplers, textures, materials ------------------------------------------------------ */

bool orri_gltf_parse_images(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "images", &arr, &d->image_count)) return false;
    d->images = orri_gltf_palloc(c, d->image_count, sizeof *d->images);
    if (d->image_count && !d->images) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "images[%u]", i);
        orri_gltf_image *img = &d->images[i];
        img->source = -1;
        img->view = -1;
        const char *uri, *mime;
        int32_t view;
        if (!orri_gltf_jstring(c, j, "uri", path, &uri) || !orri_gltf_jstring(c, j, "mimeType", path, &mime) || !orri_gltf_jstring(c, j, "name", path, &img->name) ||
            !orri_gltf_jref(c, j, "bufferView", path, d->view_count, "bufferViews", &view))
            return false;
        static const char *const known[] = {"uri", "mimeType", "bufferView", NULL};
        orri_gltf_check_keys(c, j, path, known);
        if (uri && view >= 0) orri_gltf_violation(c, "%s: both uri and bufferView; bufferView used", path);
        if (view >= 0) {
            if (!mime) orri_gltf_violation(c, "%s.mimeType: required with bufferView, missing", path);
            else if (!orri_gltf_image_type_ok(c, mime, strlen(mime)))
                orri_gltf_violation(c, "%s.mimeType: '%.64s' is not an image type glTF (or an extension the file uses) allows", path, mime);
            const orri_gltf_view *v = &d->views[view];
            img->view = view;
            img->bytes = v->data;
            img->size = (size_t)v->length;
        } else if (uri) {
            char upath[80];
            PATHF(c, upath, sizeof upath, "%s.uri", path);
            if (strncmp(uri, "data:", 5) == 0) {
                size_t n = 0;
                if (!orri_gltf_decode_data_uri(c, uri, upath, true, &img->owned, &n)) return false;
                img->bytes = img->owned;
                img->size = n;
                continue;
            }
            if (strlen(uri) == 0) return PARSE_ERR(c, "%s: empty URI", upath);
            /* a file is read only when a texture uses it (gltf_build_textures.c), and once however many images name it */
            char full[2048];
            if (!orri_gltf_uri_file_path(c, uri, upath, full, sizeof full)) return false;
            img->source = orri_gltf_source_intern(c, full, ORRI_GLTF_MAX_IMAGE_BYTES, upath);
            if (img->source < 0) return false;
        } else {
            orri_gltf_violation(c, "%s: neither uri nor bufferView; the texture falls back", path);
        }
    }
    return true;
}

bool orri_gltf_parse_samplers(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "samplers", &arr, &d->sampler_count)) return false;
    d->samplers = orri_gltf_palloc(c, d->sampler_count, sizeof *d->samplers);
    if (d->sampler_count && !d->samplers) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "samplers[%u]", i);
        int64_t mag, min, ws, wt;
        if (!orri_gltf_jint(c, j, "magFilter", path, 9729, 0, INT32_MAX, &mag) || !orri_gltf_jint(c, j, "minFilter", path, 9987, 0, INT32_MAX, &min) ||
            !orri_gltf_jint(c, j, "wrapS", path, 10497, 0, INT32_MAX, &ws) || !orri_gltf_jint(c, j, "wrapT", path, 10497, 0, INT32_MAX, &wt))
            return false;
        static const char *const known[] = {"magFilter", "minFilter", "wrapS", "wrapT", NULL};
        orri_gltf_check_keys(c, j, path, known);
        orr_sampler *s = &d->samplers[i];
        if (mag != 9728 && mag != 9729) orri_gltf_violation(c, "%s.magFilter: %lld is not a filter, linear used", path, (long long)mag), mag = 9729;
        s->mag_filter = mag == 9728 ? ORR_FILTER_NEAREST : ORR_FILTER_LINEAR;
        switch (min) {
        case 9728: s->min_filter = ORR_FILTER_NEAREST; break;
        case 9729: s->min_filter = ORR_FILTER_LINEAR; break;
        case 9984: s->min_filter = ORR_FILTER_NEAREST, s->mipmaps = true; break; /* NEAREST_MIPMAP_NEAREST */
        case 9985: s->min_filter = ORR_FILTER_LINEAR, s->mipmaps = true; break;  /* LINEAR_MIPMAP_NEAREST */
        case 9986: s->min_filter = ORR_FILTER_NEAREST, s->mipmaps = true; break; /* NEAREST_MIPMAP_LINEAR */
        case 9987: s->min_filter = ORR_FILTER_LINEAR, s->mipmaps = true; break;  /* LINEAR_MIPMAP_LINEAR */
        default:
            orri_gltf_violation(c, "%s.minFilter: %lld is not a filter, linear used", path, (long long)min);
            s->min_filter = ORR_FILTER_LINEAR;
            s->mipmaps = true;
        }
        int64_t w[2] = {ws, wt};
        orr_wrap *dst[2] = {&s->wrap_s, &s->wrap_t};
        for (int k = 0; k < 2; k++) {
            if (w[k] == 33071) *dst[k] = ORR_WRAP_CLAMP;
            else if (w[k] == 33648) *dst[k] = ORR_WRAP_MIRROR;
            else {
                if (w[k] != 10497) orri_gltf_violation(c, "%s.wrap%c: %lld is not a wrap mode, repeat used", path, k ? 'T' : 'S', (long long)w[k]);
                *dst[k] = ORR_WRAP_REPEAT;
            }
        }
    }
    return true;
}

/* textures[i].extensions: EXT_texture_webp's source is read in place of the core one (which, when
 * present, is the fallback for loaders without WebP); KHR_texture_basisu cannot be transcoded here,
 * so its texture keeps the core PNG/JPEG source (a file requiring it was refused by name). */
static bool parse_texture_sources(orri_gltf_pctx *c, const cJSON *j, const char *path, orri_gltf_texture *t)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *ext, *webp, *basisu;
    if (!orri_gltf_jobject(c, j, "extensions", path, &ext)) return false;
    if (!ext) return true;
    char ep[96], xp[160];
    PATHF(c, ep, sizeof ep, "%s.extensions", path);
    if (!orri_gltf_jobject(c, ext, "EXT_texture_webp", ep, &webp) || !orri_gltf_jobject(c, ext, "KHR_texture_basisu", ep, &basisu)) return false;
    if (webp) {
        PATHF(c, xp, sizeof xp, "%s.EXT_texture_webp", ep);
        int32_t src;
        if (!orri_gltf_jrequired(c, webp, "source", xp) || !orri_gltf_jref(c, webp, "source", xp, d->image_count, "images", &src)) return false;
        t->source = src;
    }
    if (basisu) {
        PATHF(c, xp, sizeof xp, "%s.KHR_texture_basisu", ep);
        int32_t src;
        if (!orri_gltf_jref(c, basisu, "source", xp, d->image_count, "images", &src)) return false;
        if (!webp)
            orri_gltf_warn(c, "%s: KHR_texture_basisu is not supported (no Basis Universal transcoder is packaged); %s", xp,
                           t->source >= 0 ? "the core source is used" : "the texture has no other source and falls back");
    }
    return true;
}

bool orri_gltf_parse_textures(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "textures", &arr, &d->texture_count)) return false;
    d->textures = orri_gltf_palloc(c, d->texture_count, sizeof *d->textures);
    if (d->texture_count && !d->textures) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "textures[%u]", i);
        orri_gltf_texture *t = &d->textures[i];
        if (!orri_gltf_jref(c, j, "source", path, d->image_count, "images", &t->source) ||
            !orri_gltf_jref(c, j, "sampler", path, d->sampler_count, "samplers", &t->sampler))
            return false;
        static const char *const known[] = {"source", "sampler", NULL};
        orri_gltf_check_keys(c, j, path, known);
        if (!parse_texture_sources(c, j, path, t)) return false;
        if (t->source < 0) orri_gltf_warn(c, "%s: no source image; the texture falls back", path);
    }
    return true;
}

static bool parse_texref(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, orri_gltf_texref *out,
                         const char *scale_key)
{
    out->texture = -1;
    out->scale = 1.0f;
    out->uv_scale[0] = out->uv_scale[1] = 1.0f;
    const cJSON *j;
    if (!orri_gltf_jobject(c, obj, key, path, &j)) return false;
    if (!j) return true;
    char p[160];
    PATHF(c, p, sizeof p, "%s.%s", path, key);
    int64_t tc;
    double scale;
    if (!orri_gltf_jrequired(c, j, "index", p) || !orri_gltf_jref(c, j, "index", p, c->doc->texture_count, "textures", &out->texture) ||
        !orri_gltf_jint(c, j, "texCoord", p, 0, 0, INT32_MAX, &tc) || !orri_gltf_jnum(c, j, scale_key ? scale_key : "scale", p, 1.0, &scale))
        return false;
    if (tc >= ORRI_GLTF_MAX_SETS) {
        orri_gltf_warn(c, "%s.texCoord: set %lld is not supported, set 0 used", p, (long long)tc);
        tc = 0;
    }
    out->texcoord = (uint32_t)tc;
    out->scale = scale_key ? (float)scale : 1.0f;
    const cJSON *ext, *tt;
    if (!orri_gltf_jobject(c, j, "extensions", p, &ext)) return false;
    if (ext) {
        char ep[200];
        PATHF(c, ep, sizeof ep, "%s.extensions", p);
        if (!orri_gltf_jobject(c, ext, "KHR_texture_transform", ep, &tt)) return false;
        if (tt) {
            char tp[240];
            PATHF(c, tp, sizeof tp, "%s.KHR_texture_transform", ep);
            double off[2] = {0, 0}, sc[2] = {1, 1}, rot;
            int64_t tc2;
            if (!orri_gltf_jnums(c, tt, "offset", tp, 2, off, NULL) || !orri_gltf_jnums(c, tt, "scale", tp, 2, sc, NULL) ||
                !orri_gltf_jnum(c, tt, "rotation", tp, 0.0, &rot) || !orri_gltf_jint(c, tt, "texCoord", tp, -1, 0, INT32_MAX, &tc2))
                return false;
            out->offset[0] = (float)off[0], out->offset[1] = (float)off[1];
            out->uv_scale[0] = (float)sc[0], out->uv_scale[1] = (float)sc[1];
            out->rotation = (float)rot;
            if (tc2 >= ORRI_GLTF_MAX_SETS) {
                orri_gltf_warn(c, "%s.texCoord: set %lld is not supported, set 0 used", tp, (long long)tc2);
                tc2 = 0;
            }
            if (tc2 >= 0) out->texcoord = (uint32_t)tc2;
        }
    }
    return true;
}

float orri_gltf_clamp01(orri_gltf_pctx *c, const char *path, const char *key, double v)
{
    if (v < 0.0 || v > 1.0) {
        orri_gltf_violation(c, "%s.%s: %g is outside [0, 1], clamped", path, key, v);
        v = v < 0.0 ? 0.0 : 1.0;
    }
    return (float)v;
}

bool orri_gltf_parse_materials(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "materials", &arr, &d->material_count)) return false;
    d->materials = orri_gltf_palloc(c, d->material_count, sizeof *d->materials);
    if (d->material_count && !d->materials) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "materials[%u]", i);
        orri_gltf_material *m = &d->materials[i];
        m->value = orr_material_default();
        if (!orri_gltf_jstring(c, j, "name", path, &m->name)) return false;
        static const char *const known[] = {"pbrMetallicRoughness", "normalTexture", "occlusionTexture", "emissiveTexture",
                                            "emissiveFactor", "alphaMode", "alphaCutoff", "doubleSided", NULL};
        orri_gltf_check_keys(c, j, path, known);
        const cJSON *pbr;
        if (!orri_gltf_jobject(c, j, "pbrMetallicRoughness", path, &pbr)) return false;
        if (pbr) {
            char pp[96];
            PATHF(c, pp, sizeof pp, "%s.pbrMetallicRoughness", path);
            double bc[4] = {1, 1, 1, 1}, metal, rough;
            if (!orri_gltf_jnums(c, pbr, "baseColorFactor", pp, 4, bc, NULL) || !orri_gltf_jnum(c, pbr, "metallicFactor", pp, 1.0, &metal) ||
                !orri_gltf_jnum(c, pbr, "roughnessFactor", pp, 1.0, &rough) ||
                !parse_texref(c, pbr, "baseColorTexture", pp, &m->base_color, NULL) ||
                !parse_texref(c, pbr, "metallicRoughnessTexture", pp, &m->metallic_roughness, NULL))
                return false;
            for (int k = 0; k < 4; k++) m->value.base_color[k] = orri_gltf_clamp01(c, pp, "baseColorFactor", bc[k]);
            m->value.metallic = orri_gltf_clamp01(c, pp, "metallicFactor", metal);
            m->value.roughness = orri_gltf_clamp01(c, pp, "roughnessFactor", rough);
        } else {
            m->base_color.texture = m->metallic_roughness.texture = -1;
        }
        double em[3] = {0, 0, 0}, cutoff;
        bool ds;
        const char *mode;
        if (!parse_texref(c, j, "normalTexture", path, &m->normal, "scale") ||
            !parse_texref(c, j, "occlusionTexture", path, &m->occlusion, "strength") ||
            !parse_texref(c, j, "emissiveTexture", path, &m->emissive, NULL) ||
            !orri_gltf_jnums(c, j, "emissiveFactor", path, 3, em, NULL) || !orri_gltf_jnum(c, j, "alphaCutoff", path, 0.5, &cutoff) ||
            !orri_gltf_jbool(c, j, "doubleSided", path, false, &ds) || !orri_gltf_jstring(c, j, "alphaMode", path, &mode))
            return false;
        for (int k = 0; k < 3; k++) m->value.emissive[k] = orri_gltf_clamp01(c, path, "emissiveFactor", em[k]);
        if (cutoff < 0) {
            orri_gltf_violation(c, "%s.alphaCutoff: %g is negative, 0 used", path, cutoff);
            cutoff = 0;
        }
        m->value.alpha_cutoff = (float)cutoff;
        m->value.double_sided = ds;
        if (!mode || strcmp(mode, "OPAQUE") == 0) m->value.alpha_mode = ORR_ALPHA_OPAQUE;
        else if (strcmp(mode, "MASK") == 0) m->value.alpha_mode = ORR_ALPHA_MASK;
        else if (strcmp(mode, "BLEND") == 0) m->value.alpha_mode = ORR_ALPHA_BLEND;
        else return PARSE_ERR(c, "%s.alphaMode: '%s' is not OPAQUE, MASK or BLEND", path, mode);
        const cJSON *ext;
        if (!orri_gltf_jobject(c, j, "extensions", path, &ext)) return false;
        if (ext) {
            char ep[96];
            PATHF(c, ep, sizeof ep, "%s.extensions", path);
            const cJSON *es, *unlit;
            if (!orri_gltf_jobject(c, ext, "KHR_materials_emissive_strength", ep, &es) ||
                !orri_gltf_jobject(c, ext, "KHR_materials_unlit", ep, &unlit))
                return false;
            if (es) {
                char sp[160];
                PATHF(c, sp, sizeof sp, "%s.KHR_materials_emissive_strength", ep);
                double s;
                if (!orri_gltf_jnum(c, es, "emissiveStrength", sp, 1.0, &s)) return false;
                if (s < 0) return PARSE_ERR(c, "%s.emissiveStrength: %g is negative", sp, s);
                m->value.emissive_strength = (float)s;
            }
            m->value.unlit = unlit != NULL;
        }
    }
    return true;
}
