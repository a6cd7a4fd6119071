/* glTF 2.0: from a validated document to resources in the asset library and a prefab world.
 *
 * Order: textures (an image read and decoded once, when a texture first uses it), materials, meshes,
 * skins, clips, then the template world (root -> one child per scene -> node subtrees). Everything the
 * document refers to by index is created once per file, so nodes that share a mesh share one
 * orr_mesh_id. What the library receives is counted against the load's budget (spend) before it is
 * decoded, and a load that fails takes back everything it had added (take_back). */
#include "core/internal.h"
#include "scene/gltf_internal.h"
#include "scene/prefab_internal.h"

#include <limits.h>
#include <math.h>
#include <orrery/scene.h>
#include <stdlib.h>
#include <string.h>

/* Decoded bytes one load may add to the library by default, at least (orr_gltf_options.max_decoded_bytes). */
#define ORRI_GLTF_DEFAULT_BUDGET (UINT64_C(1) << 30)

/* Decoded images larger than this fall back (a hostile header must not make us allocate gigabytes). */
#define ORRI_GLTF_MAX_IMAGE_PIXELS (16384u * 4096u)

typedef struct bctx {
    orr_assets *assets;
    const orri_gltf_doc *doc;
    const orr_gltf_options *options;
    orr_allocator alloc;
    orr_logger logger;
    orr_error *err;
    const char *name;
    orr_texture_id *textures;        /* per glTF texture: sRGB when a material reads it as color, else linear */
    orr_texture_id *textures_linear; /* the linear copy of a texture used both as color and as data */
    orr_material_id *materials;
    orr_mesh_id *meshes;
    orr_skin_id *skins;
    orr_clip_id *clips;
    uint64_t entities; /* what the prefab world will hold (check_entity_budget) */
    uint8_t *texture_fallback; /* per glTF texture: 1 when its image could not be used (white stands in) */
    uint64_t budget, spent; /* bytes of decoded vertices, indices, keys and pixels the load may add (spend) */
    uint32_t image_threads; /* threads that decoded the images */
    uint64_t image_ns;      /* spent decoding them */
    uint32_t *view_users, *accessor_users; /* what reads each (sole_user), counted at the first need */
} bctx;

static void bwarn(bctx *b, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void bwarn(bctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vwarn(&b->logger, b->name, fmt, ap);
    va_end(ap);
}

/* bwarn for a place where the file breaks the glTF 2.0 spec (gltf_parse.c, violation()). */
static void bviolation(bctx *b, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void bviolation(bctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&b->logger, ORR_LOG_ERROR, b->name, fmt, ap);
    va_end(ap);
}

static void *balloc(bctx *b, size_t count, size_t size)
{
    if (!count || !size) return NULL;
    if (count > SIZE_MAX / size) return NULL;
    return orri_gltf_alloc(&b->alloc, count * size);
}

static void bfree(bctx *b, void *p) { orri_gltf_dealloc(&b->alloc, p, 0); }

static orr_result oom(bctx *b, const char *what)
{
    return orri_error(b->err, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
}

/* The same, naming the element: "meshes[3]: out of memory". */
static orr_result oom_at(bctx *b, const char *array, uint32_t index)
{
    return orri_error(b->err, ORR_ERROR_OUT_OF_MEMORY, "%s[%u]: out of memory", array, index);
}

static orr_result from_assets(bctx *b, orr_result r, const char *what)
{
    const orr_error *e = orr_assets_last_error(b->assets);
    const char *msg = e && e->message[0] ? e->message : orr_result_name(r);
    size_t n = strlen(what);
    if (strncmp(msg, what, n) == 0 && msg[n] == ':') return orri_error(b->err, r, "%s", msg); /* no "prefab: prefab:" */
    return orri_error(b->err, r, "%s: %s", what, msg);
}

/* A failed load takes back everything it had added to the library (ids are none until added; a
 * texture shared by several glTF textures is removed once, the others then find it stale). */
static void take_back(bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; b->clips && i < d->animation_count; i++)
        if (!orr_id_is_none(b->clips[i])) orr_assets_remove_clip(b->assets, b->clips[i]);
    for (uint32_t i = 0; b->skins && i < d->skin_count; i++)
        if (!orr_id_is_none(b->skins[i])) orr_assets_remove_skin(b->assets, b->skins[i]);
    for (uint32_t i = 0; b->meshes && i < d->mesh_count; i++)
        if (!orr_id_is_none(b->meshes[i])) orr_assets_remove_mesh(b->assets, b->meshes[i]);
    for (uint32_t i = 0; b->materials && i < d->material_count; i++)
        if (!orr_id_is_none(b->materials[i])) orr_assets_remove_material(b->assets, b->materials[i]);
    for (uint32_t i = 0; b->textures && i < d->texture_count; i++) {
        if (!orr_id_is_none(b->textures[i])) orr_assets_remove_texture(b->assets, b->textures[i]);
        if (b->textures_linear && !orr_id_is_none(b->textures_linear[i]))
            orr_assets_remove_texture(b->assets, b->textures_linear[i]);
    }
}

/* Counts `bytes` the load is about to add to the library against its budget; refuses (CAPACITY)
 * naming `what` before anything is allocated when they would exceed it. */
static orr_result affordable(bctx *b, uint64_t bytes, const char *what)
{
    if (bytes > b->budget - b->spent)
        return orri_error(b->err, ORR_ERROR_CAPACITY,
                          "%s: %llu more bytes of decoded data would exceed the load's budget of %llu (%llu spent; "
                          "orr_gltf_options.max_decoded_bytes)",
                          what, (unsigned long long)bytes, (unsigned long long)b->budget, (unsigned long long)b->spent);
    return ORR_OK;
}

static orr_result spend(bctx *b, uint64_t bytes, const char *what)
{
    orr_result r = affordable(b, bytes, what);
    if (r == ORR_OK) b->spent += bytes;
    return r;
}

/* ---- textures ----------------------------------------------------------------------------------- */

static bool sampler_eq(const orr_sampler *x, const orr_sampler *y)
{
    return x->mag_filter == y->mag_filter && x->min_filter == y->min_filter && x->mipmaps == y->mipmaps &&
           x->wrap_s == y->wrap_s && x->wrap_t == y->wrap_t;
}

/* One library texture per distinct (image, colour space, sampler): glTF textures that differ in
 * nothing else share it, so a file naming one large image from many textures decodes it once and
 * holds one copy. Images are read and decoded only when a texture uses them, once, and their pixels
 * are freed after the last texture that uses them. */
typedef struct tex_made {
    int32_t next; /* the previous entry for the same image, -1 = none */
    orr_color_space cs;
    orr_sampler sampler;
    orr_texture_id id;
} tex_made;

static void image_job(void *ctx, uint32_t i)
{
    orri_gltf_image_job *const *queue = ctx;
    orri_gltf_image_decode(queue[i]);
}

/* Larger first, so that the pool ends together; ties in image order (any order gives the same bytes). */
static int job_cmp(const void *x, const void *y)
{
    const orri_gltf_image_job *a = *(orri_gltf_image_job *const *)x, *b = *(orri_gltf_image_job *const *)y;
    uint64_t na = (uint64_t)a->width * a->height, nb = (uint64_t)b->width * b->height;
    if (na != nb) return na > nb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* orr_gltf_options.progress, when there is one. */
static void report(const orr_gltf_options *o, orr_gltf_phase phase, uint64_t done, uint64_t total)
{
    if (o && o->progress) o->progress(o->progress_user, phase, done, total);
}

/* An image's pixels: memory of the asset library's streams, so that the last texture made from them
 * takes them over (orr_texture_desc.owned) instead of copying them. */
static void pixels_free(bctx *b, const orri_gltf_image_job *j, uint8_t *rgba)
{
    if (rgba) orr_assets_stream_free(b->assets, rgba, (size_t)j->width * j->height * 4);
}

/* Every image a texture uses, decoded once into its own slot (jobs[image]): headers and output
 * buffers on the caller's thread in texture order (the budget is checked there, before anything is
 * decoded), the pixels on the worker pool, the warnings afterwards in image order. So the library
 * receives the same bytes in the same order whatever the thread count. */
static orr_result decode_images(bctx *b, orri_gltf_image_job *jobs, uint8_t **pixels)
{
    const orri_gltf_doc *d = b->doc;
    uint8_t *queued = balloc(b, d->image_count + 1, 1);
    uint32_t *first_use = balloc(b, d->image_count + 1, sizeof *first_use);
    orri_gltf_image_job **queue = balloc(b, d->image_count + 1, sizeof *queue);
    orr_result r = ORR_OK;
    if (!queued || !first_use || !queue) {
        r = oom(b, "images");
        goto out;
    }
    uint64_t t0 = orri_gltf_now_ns();
    uint32_t qn = 0;
    uint64_t pending = 0; /* pixel bytes of the images queued so far */
    for (uint32_t t = 0; t < d->texture_count && r == ORR_OK; t++) {
        int32_t src = d->textures[t].source;
        if (src < 0) {
            if (!queued[d->image_count]) bwarn(b, "textures[%u]: no source image; falls back to white", t);
            queued[d->image_count] = 1;
            continue;
        }
        uint32_t s = (uint32_t)src;
        if (queued[s]) continue;
        queued[s] = 1;
        first_use[s] = t;
        orri_gltf_image_job *j = &jobs[s];
        const char *why = NULL;
        if (!orri_gltf_image_data(d, s, &j->bytes, &j->size, &why)) {
            if (why) bwarn(b, "images[%u]: %s; textures[%u] falls back to white", s, why, t);
            else bwarn(b, "textures[%u]: image %u has no data; falls back to white", t, s);
            continue;
        }
        if (!orri_gltf_image_header(j)) { /* not a PNG, JPEG or WebP, or its header is damaged */
            bviolation(b, "images[%u]: %s; textures[%u] falls back to white", s, j->why, t);
            continue;
        }
        if (j->width > 16384 || j->height > 16384 || (uint64_t)j->width * j->height > ORRI_GLTF_MAX_IMAGE_PIXELS) {
            bwarn(b, "images[%u]: %ux%u is too large; textures[%u] falls back to white", s, j->width, j->height, t);
            continue;
        }
        uint64_t bytes = (uint64_t)j->width * j->height * 4;
        char what[48];
        snprintf(what, sizeof what, "images[%u]", s);
        /* refused before decoding; the pixels are counted per library texture made, later */
        r = affordable(b, pending + bytes, what);
        if (r != ORR_OK) break;
        j->rgba = orr_assets_stream_alloc(b->assets, (size_t)bytes); /* every pixel is written, or it is freed */
        if (!j->rgba) {
            r = oom(b, what);
            break;
        }
        pending += bytes;
        queue[qn++] = j;
    }
    if (r == ORR_OK && qn) {
        qsort(queue, qn, sizeof *queue, job_cmp);
        b->image_threads = orri_gltf_threads(b->options ? b->options->threads : 0);
        report(b->options, ORR_GLTF_PHASE_IMAGES, 0, qn);
        orri_gltf_run(d->pool, b->image_threads, qn, image_job, queue);
        report(b->options, ORR_GLTF_PHASE_IMAGES, qn, qn);
        for (uint32_t s = 0; s < d->image_count; s++) {
            orri_gltf_image_job *j = &jobs[s];
            if (!j->rgba) continue;
            if (j->ok) {
                if (j->why[0]) bviolation(b, "images[%u]: %s; drawn as far as it decodes", s, j->why);
                pixels[s] = j->rgba;
            } else {
                (j->unsupported ? bwarn : bviolation)(b, "images[%u]: %s; textures[%u] falls back to white", s, j->why,
                                                      first_use[s]);
                pixels_free(b, j, j->rgba);
            }
            j->rgba = NULL;
        }
    }
    b->image_ns += orri_gltf_now_ns() - t0;
out:
    for (uint32_t s = 0; jobs && s < d->image_count; s++) {
        pixels_free(b, &jobs[s], jobs[s].rgba);
        jobs[s].rgba = NULL;
    }
    bfree(b, queued), bfree(b, first_use), bfree(b, queue);
    return r;
}

/* orr_gltf_options.check_images: each image no texture uses, decoded on this thread one at a time
 * only to check it (its pixels are freed at once): one whose data is damaged is a violation, as it
 * is for a used image. */
static orr_result check_unused_images(bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    if (!b->options || !b->options->check_images || !d->image_count) return ORR_OK;
    uint8_t *used = balloc(b, d->image_count, 1);
    if (!used) return oom(b, "images");
    for (uint32_t t = 0; t < d->texture_count; t++)
        if (d->textures[t].source >= 0) used[d->textures[t].source] = 1;
    orr_result r = ORR_OK;
    uint64_t t0 = orri_gltf_now_ns();
    for (uint32_t s = 0; s < d->image_count && r == ORR_OK; s++) {
        if (used[s]) continue;
        orri_gltf_image_job j = {0};
        const char *why = NULL;
        if (!orri_gltf_image_data(d, s, &j.bytes, &j.size, &why)) {
            if (why) bwarn(b, "images[%u]: %s; no texture uses it", s, why);
            continue;
        }
        if (!orri_gltf_image_header(&j)) {
            bviolation(b, "images[%u]: %s; no texture uses it", s, j.why);
            continue;
        }
        if (j.width > 16384 || j.height > 16384 || (uint64_t)j.width * j.height > ORRI_GLTF_MAX_IMAGE_PIXELS) {
            bwarn(b, "images[%u]: %ux%u is too large to check; no texture uses it", s, j.width, j.height);
            continue;
        }
        size_t bytes = (size_t)j.width * j.height * 4;
        j.rgba = orri_gltf_alloc_uninit(&b->alloc, bytes);
        if (!j.rgba) {
            r = oom(b, "images");
            break;
        }
        orri_gltf_image_decode(&j);
        if (!j.ok) (j.unsupported ? bwarn : bviolation)(b, "images[%u]: %s; no texture uses it", s, j.why);
        else if (j.why[0]) bviolation(b, "images[%u]: %s; no texture uses it", s, j.why);
        orri_gltf_dealloc(&b->alloc, j.rgba, bytes);
    }
    b->image_ns += orri_gltf_now_ns() - t0;
    bfree(b, used);
    return r;
}

static orr_result build_textures(bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    if (!d->texture_count) return ORR_OK;
    uint32_t nimg = d->image_count + 1; /* the last slot: textures without a source (white) */
    /* color space by use: base color and emissive are sRGB */
    uint8_t *srgb = balloc(b, d->texture_count, 1);
    uint8_t **pixels = balloc(b, nimg, sizeof *pixels);
    orri_gltf_image_job *jobs = balloc(b, nimg, sizeof *jobs);
    uint32_t *last_use = balloc(b, nimg, sizeof *last_use);
    int32_t *head = balloc(b, nimg, sizeof *head);
    tex_made *made = balloc(b, (size_t)d->texture_count * 2, sizeof *made);
    uint32_t made_n = 0;
    orr_result r = ORR_OK;
    if (!srgb || !pixels || !jobs || !last_use || !head || !made) {
        r = oom(b, "textures");
        goto out;
    }
    for (uint32_t i = 0; i < nimg; i++) head[i] = -1;
    /* bit 0: read as color (sRGB), bit 1: read as data (linear); both = two textures */
    for (uint32_t i = 0; i < d->material_count; i++) {
        const orri_gltf_material *m = &d->materials[i];
        if (m->base_color.texture >= 0) srgb[m->base_color.texture] |= 1;
        if (m->emissive.texture >= 0) srgb[m->emissive.texture] |= 1;
        if (m->metallic_roughness.texture >= 0) srgb[m->metallic_roughness.texture] |= 2;
        if (m->normal.texture >= 0) srgb[m->normal.texture] |= 2;
        if (m->occlusion.texture >= 0) srgb[m->occlusion.texture] |= 2;
    }
    for (uint32_t t = 0; t < d->texture_count; t++)
        last_use[d->textures[t].source >= 0 ? (uint32_t)d->textures[t].source : d->image_count] = t;
    r = decode_images(b, jobs, pixels);
    for (uint32_t t = 0; t < d->texture_count && r == ORR_OK; t++) {
        const orri_gltf_texture *tex = &d->textures[t];
        uint32_t s = tex->source >= 0 ? (uint32_t)tex->source : d->image_count;
        orr_sampler smp = tex->sampler >= 0 ? d->samplers[tex->sampler]
                                            : (orr_sampler){.mag_filter = ORR_FILTER_LINEAR,
                                                            .min_filter = ORR_FILTER_LINEAR, .mipmaps = true};
        bool white = !pixels[s]; /* (before a texture made here takes them over) */
        for (int pass = 0; pass < 2 && r == ORR_OK; pass++) {
            /* pass 0: the texture as its materials read it first (sRGB if as color); pass 1: the linear copy */
            if (pass == 1 && srgb[t] != 3) {
                b->textures_linear[t] = b->textures[t];
                break;
            }
            orr_color_space cs = (pass == 0 && (srgb[t] & 1)) ? ORR_COLOR_SPACE_SRGB : ORR_COLOR_SPACE_LINEAR;
            orr_texture_id *dst = pass == 0 ? &b->textures[t] : &b->textures_linear[t];
            /* an image that could not be used shares the white fallback of every other */
            uint32_t key = pixels[s] ? s : d->image_count;
            const tex_made *found = NULL;
            for (int32_t k = head[key]; k >= 0 && !found; k = made[k].next)
                if (made[k].cs == cs && sampler_eq(&made[k].sampler, &smp)) found = &made[k];
            if (found) {
                *dst = found->id;
                continue;
            }
            static const uint8_t fallback[4] = {255, 255, 255, 255};
            orr_texture_desc td = {.name = s < d->image_count ? d->images[s].name : NULL, .width = 1, .height = 1,
                                   .rgba8 = fallback, .color_space = cs, .sampler = smp};
            if (pixels[s]) {
                td.rgba8 = pixels[s];
                td.width = jobs[s].width;
                td.height = jobs[s].height;
                td.owned = last_use[s] == t && (pass == 1 || srgb[t] != 3); /* no texture made after it uses them */
            } else {
                b->texture_fallback[t] = 1;
            }
            char what[48];
            snprintf(what, sizeof what, "textures[%u]", t);
            r = spend(b, (uint64_t)td.width * td.height * 4, what);
            if (r != ORR_OK) break;
            r = orr_assets_add_texture(b->assets, &td, dst);
            if (r != ORR_OK) {
                r = from_assets(b, r, what);
                break;
            }
            if (td.owned) pixels[s] = NULL; /* the library's now */
            made[made_n] = (tex_made){.next = head[key], .cs = cs, .sampler = smp, .id = *dst};
            head[key] = (int32_t)made_n++;
        }
        if (white) b->texture_fallback[t] = 1;
        if (last_use[s] == t && pixels[s]) { /* freed after the last texture that uses it, unless taken over */
            pixels_free(b, &jobs[s], pixels[s]);
            pixels[s] = NULL;
        }
    }
out:
    for (uint32_t i = 0; pixels && i < nimg; i++) pixels_free(b, &jobs[i], pixels[i]);
    bfree(b, srgb), bfree(b, pixels), bfree(b, jobs), bfree(b, last_use), bfree(b, head), bfree(b, made);
    return r;
}

/* ---- materials ---------------------------------------------------------------------------------- */

static orr_texture_ref texref(const bctx *b, const orri_gltf_texref *t, bool color)
{
    orr_texture_ref r = {.scale = t->scale, .uv_scale = {t->uv_scale[0], t->uv_scale[1]}};
    if (t->texture >= 0) r.texture = color ? b->textures[t->texture] : b->textures_linear[t->texture];
    r.texcoord = t->texcoord;
    r.offset[0] = t->offset[0], r.offset[1] = t->offset[1];
    r.rotation = t->rotation;
    return r;
}

static orr_result build_materials(bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < d->material_count; i++) {
        const orri_gltf_material *m = &d->materials[i];
        orr_material v = m->value;
        v.base_color_texture = texref(b, &m->base_color, true);
        v.metallic_roughness_texture = texref(b, &m->metallic_roughness, false);
        v.normal_texture = texref(b, &m->normal, false);
        if (m->normal.texture >= 0 && b->texture_fallback[m->normal.texture]) {
            /* white would read as a normal bent 45 degrees on every axis: no normal map instead */
            v.normal_texture.texture = (orr_texture_id){0, 0};
            bwarn(b, "materials[%u].normalTexture: texture %d has no usable image; the material has no normal map", i,
                  m->normal.texture);
        }
        v.occlusion_texture = texref(b, &m->occlusion, false);
        v.emissive_texture = texref(b, &m->emissive, true);
        orr_result r = orr_assets_add_material(b->assets, &v, &b->materials[i]);
        if (r != ORR_OK) {
            char what[48];
            snprintf(what, sizeof what, "materials[%u]", i);
            return from_assets(b, r, what);
        }
    }
    return ORR_OK;
}

/* ---- meshes ------------------------------------------------------------------------------------- */

static const orr_topology topology_of_mode[7] = {
    ORR_TOPOLOGY_POINTS,         ORR_TOPOLOGY_LINES,     ORR_TOPOLOGY_LINE_LOOP,     ORR_TOPOLOGY_LINE_STRIP,
    ORR_TOPOLOGY_TRIANGLES,      ORR_TOPOLOGY_TRIANGLE_STRIP, ORR_TOPOLOGY_TRIANGLE_FAN,
};

/* Streams of one primitive; `borrowed` ones point into the file's buffers (never freed here). */
typedef struct prim_scratch {
    float *pos, *nrm, *tan, *uv0, *uv1, *col, *wgt;
    uint16_t *jnt;
    uint32_t *idx;
    const void *borrowed[9];
    uint32_t owned; /* ORR_OWN_* bits: streams read into the asset library's memory (read_owned) */
    uint32_t vertex_count;
    struct convert_job { /* read_owned's conversions (read_packed's copies), run together by convert_streams */
        const orri_gltf_doc *doc;
        uint32_t accessor, components;
        float fill, *out;
        uint8_t *packed; /* instead of out: the accessor's elements copied as they are (read_packed) */
        orr_packing packing;
        bool normalize; /* normals: made unit length (glTF requires it; some exporters are sloppy) */
        float unit_tol; /* normals: the distance from unit length they are warned about past (unit_tolerance) */
        bool box;       /* positions the data scan found no box for: theirs found too, while they are in cache */
        const float *center; /* positions: their largest orri_dist2 from it found too (NULL: not) */
    } jobs[8];
    uint32_t job_count;
    orr_packed_stream packed[2]; /* positions and normals kept packed (read_packed) */
    uint32_t packed_lent[2];     /* 1 + the view whose decoded block such a stream is (lent); 0: copied */
    int32_t idx_view; /* with ORR_OWN_INDICES: the view whose decoded block the indices are */
    size_t idx_bytes; /* indices converted into the asset library's memory (orr_assets_stream_alloc): its size */
    uint32_t far_at; /* the first normal read far from unit length (unit_tolerance), before normalizing; UINT32_MAX = none */
    float far_len;
    bool box_known; /* the positions' box, from the data scan or found while converting them */
    orr_aabbf box;
    bool max_known; /* the indices' largest, from the data scan */
    uint32_t max_index;
    const float *center; /* the mesh's sphere center, when its radius is found while converting (sphere_known) */
    float r2;            /* and the positions' largest orri_dist2 from it */
    orr_morph_target_desc *targets; /* their streams read into scratch */
    uint32_t target_count;
} prim_scratch;

/* The ORR_OWN_* bit of each stream slot (pos, nrm, tan, uv0, uv1, col, wgt, jnt) and its bytes a vertex. */
static const uint32_t own_bit[8] = {ORR_OWN_POSITIONS,  ORR_OWN_NORMALS, ORR_OWN_TANGENTS, ORR_OWN_TEXCOORDS0,
                                    ORR_OWN_TEXCOORDS1, ORR_OWN_COLORS,  ORR_OWN_WEIGHTS,  ORR_OWN_JOINTS};
static const uint32_t own_bytes[8] = {12, 12, 16, 8, 8, 16, 16, 8};

static bool is_borrowed(const prim_scratch *s, const void *p)
{
    for (int i = 0; i < 9; i++)
        if (p && s->borrowed[i] == p) return true;
    return false;
}

/* After a successful add: the scratch lets go of the streams the library took over. */
static void handed_over(prim_scratch *s)
{
    void **all[8] = {(void **)&s->pos, (void **)&s->nrm, (void **)&s->tan, (void **)&s->uv0,
                     (void **)&s->uv1, (void **)&s->col, (void **)&s->wgt, (void **)&s->jnt};
    for (int i = 0; i < 8; i++)
        if (s->owned & own_bit[i]) *all[i] = NULL;
    if (s->owned & ORR_OWN_INDICES) s->idx = NULL, s->idx_bytes = 0;
    for (int i = 0; i < 2; i++)
        if (s->owned & own_bit[i]) s->packed[i].data = NULL, s->packed_lent[i] = 0;
    s->owned = 0;
}

static void scratch_free(bctx *b, prim_scratch *s)
{
    void *all[9] = {s->pos, s->nrm, s->tan, s->uv0, s->uv1, s->col, s->wgt, s->jnt, s->idx};
    for (int i = 0; i < 2; i++) {
        if (s->packed[i].data) all[i] = (void *)s->packed[i].data;
        if ((s->owned & own_bit[i]) && s->packed_lent[i]) { /* lent, and the add failed: the doc's again */
            orri_gltf_unlend_block((orri_gltf_doc *)b->doc, (int32_t)s->packed_lent[i] - 1);
            all[i] = NULL;
        }
    }
    for (int i = 0; i < 9; i++) {
        uint32_t per = i < 2 && s->packed[i].data ? orr_packing_bytes(s->packed[i].packing) : i < 8 ? own_bytes[i] : 0;
        if (i < 8 && (s->owned & own_bit[i])) orr_assets_stream_free(b->assets, all[i], (size_t)s->vertex_count * per);
        else if (i == 8 && s->idx_bytes) orr_assets_stream_free(b->assets, all[i], s->idx_bytes);
        else if (!is_borrowed(s, all[i])) bfree(b, all[i]);
    }
    if ((s->owned & ORR_OWN_INDICES) && !s->idx_bytes) /* lent, and the add failed */
        orri_gltf_unlend_block((orri_gltf_doc *)b->doc, s->idx_view);
    for (uint32_t t = 0; s->targets && t < s->target_count; t++) {
        bfree(b, (void *)s->targets[t].positions);
        bfree(b, (void *)s->targets[t].normals);
        bfree(b, (void *)s->targets[t].tangents);
    }
    bfree(b, s->targets);
    memset(s, 0, sizeof *s);
}

/* Where the accessor already holds exactly the tightly packed data wanted (float x comps, or uint32
 * indices), the buffer itself: the asset library copies it once, with no scratch copy in between. */
static const void *direct(const orri_gltf_doc *d, int32_t acc, uint32_t comp_type, uint32_t comps)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    if (a->view < 0 || a->sparse_count || a->component_type != comp_type || a->components != comps ||
        a->columns != 1 || a->stride != comps * 4)
        return NULL;
    const orri_gltf_view *v = &d->views[a->view];
    const uint8_t *p = v->data + a->offset;
    return ((uintptr_t)p % 4) ? NULL : p;
}

/* How far from unit length a normal or tangent of the accessor may be before it is warned about: float
 * rounding (1e-3), and for normalized integers (KHR_mesh_quantization: what gltfpack and other
 * quantizing tools write) also the rounding of each component to its grid, half a step each, so
 * sqrt(3)/2 of a step for the vector (8-bit normals are up to 0.7% off unit length by construction). */
static float unit_tolerance(const orri_gltf_doc *d, int32_t acc)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    float steps = !a->normalized                                  ? 0.0f
                  : a->component_type == ORRI_GLTF_BYTE           ? 127.0f
                  : a->component_type == ORRI_GLTF_UNSIGNED_BYTE  ? 255.0f
                  : a->component_type == ORRI_GLTF_SHORT          ? 32767.0f
                  : a->component_type == ORRI_GLTF_UNSIGNED_SHORT ? 65535.0f
                                                                  : 0.0f; /* (floats are never normalized) */
    return steps > 0.0f ? 1e-3f + 0.8660254f / steps : 1e-3f;
}

/* A vertex stream converted into memory of the asset library, which the mesh then takes over (no copy
 * of it, and no second set of fresh pages): slot is its place in own_bit. */
static float *read_owned(bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok, prim_scratch *s, int slot)
{
    const orri_gltf_accessor *a = &b->doc->accessors[acc]; /* count = the primitive's vertices, > 0 */
    float *out = orr_assets_stream_alloc(b->assets, (size_t)a->count * own_bytes[slot]);
    if (!out) {
        *ok = false;
        return NULL;
    }
    s->jobs[s->job_count++] = (struct convert_job){b->doc, (uint32_t)acc, comps, fill, out, NULL, ORR_PACKING_NONE, slot == 1,
                                                   slot == 1 ? unit_tolerance(b->doc, acc) : 0.0f,
                                                   slot == 0 && !s->box_known, slot == 0 ? s->center : NULL};
    s->owned |= own_bit[slot];
    return out;
}

/* How the accessor's elements can be kept as they are, as a packed stream of the asset library
 * (orr_packed_stream: four integer components a vertex, the fourth padding), or ORR_PACKING_NONE:
 * quantized positions and normals (KHR_mesh_quantization) as gltfpack and most quantizing tools lay
 * them out, each in a view of its own or interleaved on a 4-component stride. */
static orr_packing packing_of(const orri_gltf_doc *d, int32_t acc)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    if (a->view < 0 || a->sparse_count || a->columns != 1 || a->components != 3) return ORR_PACKING_NONE;
    bool n = a->normalized;
    orr_packing p = a->component_type == ORRI_GLTF_BYTE             ? (n ? ORR_PACKING_I8_NORM : ORR_PACKING_I8)
                    : a->component_type == ORRI_GLTF_UNSIGNED_BYTE  ? (n ? ORR_PACKING_U8_NORM : ORR_PACKING_U8)
                    : a->component_type == ORRI_GLTF_SHORT          ? (n ? ORR_PACKING_I16_NORM : ORR_PACKING_I16)
                    : a->component_type == ORRI_GLTF_UNSIGNED_SHORT ? (n ? ORR_PACKING_U16_NORM : ORR_PACKING_U16)
                                                                    : ORR_PACKING_NONE;
    return a->stride == orr_packing_bytes(p) ? p : ORR_PACKING_NONE; /* (0 for none) */
}

/* A quantized stream (packing_of) kept as it is for the asset library, which the mesh takes over: no
 * conversion to floats, a third or a sixth of their bytes. A decoded view that the stream alone reads is
 * lent as it is; else the elements are copied into the library's memory, by a job of convert_streams,
 * which measures the stream as read_owned's conversions do (the positions' box and sphere, the first
 * normal far from unit length). Slot 0 (positions) or 1 (normals). */
static bool sole_user(bctx *b, int32_t acc);

static void read_packed(bctx *b, int32_t acc, orr_packing packing, bool *ok, prim_scratch *s, int slot)
{
    const orri_gltf_accessor *a = &b->doc->accessors[acc]; /* count = the primitive's vertices, > 0 */
    size_t bytes = (size_t)a->count * orr_packing_bytes(packing);
    uint8_t *out = (uint8_t *)b->doc->views[a->view].data + a->offset; /* a decoded block of its own: lent */
    if (sole_user(b, acc) && orri_gltf_lend_block((orri_gltf_doc *)b->doc, a->view, out, bytes)) {
        s->packed_lent[slot] = (uint32_t)a->view + 1;
    } else if (!(out = orr_assets_stream_alloc(b->assets, bytes))) { /* else copied */
        *ok = false;
        return;
    }
    s->jobs[s->job_count++] = (struct convert_job){b->doc, (uint32_t)acc, 3, 0, NULL, out, packing, slot == 1,
                                                   slot == 1 ? unit_tolerance(b->doc, acc) : 0.0f,
                                                   slot == 0 && !s->box_known, slot == 0 ? s->center : NULL};
    s->packed[slot] = (orr_packed_stream){out, packing};
    s->owned |= own_bit[slot];
}

/* One range of one stream to convert: a job of the worker pool, writing only its own elements. */
typedef struct convert_range {
    const struct convert_job *stream;
    uint32_t first, count;
    uint32_t far_at; /* normals: the range's first element far from unit length; UINT32_MAX = none */
    float far_len;
    orr_aabbf box; /* positions: the range's, by the comparisons of the asset library's position_box */
    float r2;      /* positions with a center: the range's largest orri_dist2 from it */
} convert_range;

#define ORRI_CONVERT_RANGE (1u << 14) /* elements of a job */
#define ORRI_CONVERT_FROM (1u << 17)  /* values from which a primitive's streams convert on the pool */
#define ORRI_CONVERT_BLOCK 4096u      /* elements converted, then normalized while still in cache */

/* The largest of r2 and the positions' orri_dist2 from c, as a running maximum finds it: the distances
 * of 256 at a time, then their maximum in 8 lanes, both loops vectorized (one running maximum is a
 * chain of dependent comparisons, 4 cycles a vertex). The same float: a maximum does not depend on the
 * order, and no NaN (never kept) or -0 (a sum of squares is +0 at least) can make it. */
ORRI_WIDE static float max_dist2(const float *p, uint32_t n, const float c[3], float r2)
{
    float m[8], d2[256];
    for (int l = 0; l < 8; l++) m[l] = r2;
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t b = n - at < 256 ? n - at : 256, k = 0;
        for (uint32_t i = 0; i < b; i++) d2[i] = orri_dist2(p + (size_t)(at + i) * 3, c);
        for (; k + 8 <= b; k += 8)
            for (uint32_t l = 0; l < 8; l++) m[l] = d2[k + l] > m[l] ? d2[k + l] : m[l];
        for (; k < b; k++) m[0] = d2[k] > m[0] ? d2[k] : m[0];
    }
    for (int l = 1; l < 8; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}

static float norm3(const float *v) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The first of n normals further than tol from unit length, or UINT32_MAX: their lengths 256 at a time
 * in a loop that vectorizes (the same floats as one at a time), then the first far one among them. */
ORRI_WIDE static uint32_t first_far(const float *v, uint32_t n, float tol)
{
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t m = n - at < 256 ? n - at : 256;
        uint8_t far[256];
        for (uint32_t k = 0; k < m; k++) far[k] = !(fabsf(norm3(v + (size_t)(at + k) * 3) - 1.0f) <= tol);
        for (uint32_t k = 0; k < m; k++)
            if (far[k]) return at + k;
    }
    return UINT32_MAX;
}

/* The first of n packed 8-bit normals (orr_packing I8_NORM: a 32-bit word a vertex) further than tol
 * from unit length, or UINT32_MAX, without converting them: a component's float is c/127 to within
 * 2^-24, so the length of the floats (norm3 of orr_packed_read's) and the exact sqrt(x^2+y^2+z^2)/127 of
 * the integers differ by far less than 1e-5; only a vertex whose integer length is not clearly within
 * tol is measured as floats, and the floats decide. Whole blocks of 256 (a count the compiler knows,
 * so that the loop vectorizes at -O2 too), then the rest. */
static inline uint8_t maybe_far_i8(const uint8_t *src, int32_t near_lo, int32_t near_hi)
{
    uint32_t w;
    memcpy(&w, src, 4);
    int32_t x = (int8_t)(w & 255), y = (int8_t)((w >> 8) & 255), z = (int8_t)((w >> 16) & 255);
    x = x < -127 ? -127 : x, y = y < -127 ? -127 : y, z = z < -127 ? -127 : z;
    int32_t l2 = x * x + y * y + z * z;
    return (uint8_t)((l2 < near_lo) | (l2 > near_hi));
}

ORRI_WIDE static uint32_t first_far_i8(const uint8_t *src, uint32_t n, float tol)
{
    double lo = 127.0 * (1.0 - tol + 1e-5), hi = 127.0 * (1.0 + tol - 1e-5);
    int32_t near_lo = (int32_t)ceil(lo * lo), near_hi = (int32_t)floor(hi * hi);
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t m = n - at < 256 ? n - at : 256;
        uint8_t maybe[256], any = 0;
        if (m == 256)
            for (uint32_t k = 0; k < 256; k++) maybe[k] = maybe_far_i8(src + (size_t)(at + k) * 4, near_lo, near_hi), any |= maybe[k];
        else
            for (uint32_t k = 0; k < m; k++) maybe[k] = maybe_far_i8(src + (size_t)(at + k) * 4, near_lo, near_hi), any |= maybe[k];
        for (uint32_t k = 0; any && k < m; k++) {
            if (!maybe[k]) continue;
            float v[3];
            orr_packed_read(&(orr_packed_stream){src, ORR_PACKING_I8_NORM}, at + k, 1, v);
            if (!(fabsf(norm3(v) - 1.0f) <= tol)) return at + k;
        }
    }
    return UINT32_MAX;
}

/* max_dist2 of n packed 16-bit integer positions (orr_packing U16 or I16: two 32-bit words a vertex),
 * converted as they are measured: an integer of 16 bits is its float exactly, so these are the
 * distances of orr_packed_read's floats, the same bits. */
#define ORRI_DIST2_16(T)                                                                                 \
    do {                                                                                                 \
        uint32_t w0, w1;                                                                                 \
        memcpy(&w0, src + (size_t)(at + i) * 8, 4), memcpy(&w1, src + (size_t)(at + i) * 8 + 4, 4);     \
        float q[3] = {(float)(T)(w0 & 0xffff), (float)(T)(w0 >> 16), (float)(T)(w1 & 0xffff)};           \
        d2[i] = orri_dist2(q, c);                                                                        \
    } while (0)

ORRI_WIDE static float max_dist2_16(const uint8_t *src, bool is_signed, uint32_t n, const float c[3], float r2)
{
    float m[8], d2[256];
    for (int l = 0; l < 8; l++) m[l] = r2;
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t b = n - at < 256 ? n - at : 256, k = 0;
        if (b == 256 && is_signed)
            for (uint32_t i = 0; i < 256; i++) ORRI_DIST2_16(int16_t);
        else if (b == 256)
            for (uint32_t i = 0; i < 256; i++) ORRI_DIST2_16(uint16_t);
        else if (is_signed)
            for (uint32_t i = 0; i < b; i++) ORRI_DIST2_16(int16_t);
        else
            for (uint32_t i = 0; i < b; i++) ORRI_DIST2_16(uint16_t);
        for (; k + 8 <= b; k += 8)
            for (uint32_t l = 0; l < 8; l++) m[l] = d2[k + l] > m[l] ? d2[k + l] : m[l];
        for (; k < b; k++) m[0] = d2[k] > m[0] ? d2[k] : m[0];
    }
    for (int l = 1; l < 8; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}
#undef ORRI_DIST2_16

static void convert_range_run(void *ctx, uint32_t i)
{
    convert_range *r = &((convert_range *)ctx)[i];
    const struct convert_job *j = r->stream;
    r->far_at = UINT32_MAX;
    orr_aabbf bx = orr_aabbf_empty();
    float r2 = 0.0f;
    float measured[ORRI_CONVERT_BLOCK * 3]; /* a packed block's floats, to measure (48 KB) */
    /* packed: gltfpack's 8-bit normals and 16-bit integer positions are measured without converting them */
    bool fast_far = j->packed && j->normalize && j->packing == ORR_PACKING_I8_NORM,
         fast_r2 = j->packed && j->center && (j->packing == ORR_PACKING_U16 || j->packing == ORR_PACKING_I16);
    bool far = j->normalize && !fast_far, dist = j->center && !fast_r2; /* measured as floats */
    for (uint64_t at = r->first, end = (uint64_t)r->first + r->count; at < end; at += ORRI_CONVERT_BLOCK) {
        uint32_t n = (uint32_t)(end - at < ORRI_CONVERT_BLOCK ? end - at : ORRI_CONVERT_BLOCK);
        float *o = j->packed ? measured : j->out + (size_t)at * j->components;
        if (j->packed) {
            const orri_gltf_accessor *a = &j->doc->accessors[j->accessor];
            const uint8_t *from = j->doc->views[a->view].data + a->offset + (size_t)at * a->stride;
            uint8_t *src = j->packed + (size_t)at * a->stride;
            if (src != from) memcpy(src, from, (size_t)n * a->stride); /* (a lent block is the view itself) */
            uint32_t k = fast_far && r->far_at == UINT32_MAX ? first_far_i8(src, n, j->unit_tol) : UINT32_MAX;
            if (k != UINT32_MAX) {
                float v[3];
                orr_packed_read(&(orr_packed_stream){j->packed, j->packing}, (uint32_t)at + k, 1, v);
                r->far_at = (uint32_t)at + k, r->far_len = norm3(v);
            }
            if (fast_r2) r2 = max_dist2_16(src, j->packing == ORR_PACKING_I16, n, j->center, r2);
            if (!j->box && !dist && !far) continue;
            /* the rest as floats: the asset library's conversion, from the copy while it is in cache */
            orr_packed_read(&(orr_packed_stream){j->packed, j->packing}, (uint32_t)at, n, o);
        } else {
            orri_gltf_read_floats_range(j->doc, j->accessor, (uint32_t)at, n, j->components, j->fill, o);
        }
        if (j->box) bx = orr_aabbf_grow(bx, o, n); /* while the block is in cache, as position_box does */
        if (dist) r2 = max_dist2(o, n, j->center, r2); /* likewise, as the asset library's position_r2 */
        if (far && r->far_at == UINT32_MAX) { /* the first far from unit length, before normalizing */
            uint32_t k = first_far(o, n, j->unit_tol);
            if (k != UINT32_MAX) r->far_at = (uint32_t)at + k, r->far_len = norm3(o + (size_t)k * 3);
        }
        if (j->normalize && !j->packed) orri_normalize3(o, n); /* (packed ones are, as they are read) */
    }
    r->box = bx;
    r->r2 = r2;
}

/* The primitive's streams read_owned allocated, converted (normals normalized), in ranges on the worker
 * pool when there is enough to share; each range writes only its own elements and the first normal far
 * from unit length is the first range's that has one, so the result is the same at any thread count.
 * The positions' box is the ranges' combined in order, as the asset library combines its own ranges:
 * the same bits as one pass (of equal values, -0 and +0, the first one found stays). */
static bool convert_streams(bctx *b, prim_scratch *s)
{
    uint64_t values = 0;
    uint32_t ranges = 0, per = (uint32_t)(((uint64_t)s->vertex_count + ORRI_CONVERT_RANGE - 1) / ORRI_CONVERT_RANGE);
    for (uint32_t i = 0; i < s->job_count; i++) values += (uint64_t)s->vertex_count * s->jobs[i].components;
    convert_range *rs = balloc(b, (size_t)s->job_count * per, sizeof *rs);
    if (s->job_count && !rs) return false;
    for (uint32_t i = 0; i < s->job_count; i++)
        for (uint64_t first = 0; first < s->vertex_count; first += ORRI_CONVERT_RANGE) {
            uint64_t left = s->vertex_count - first;
            rs[ranges++] = (convert_range){&s->jobs[i], (uint32_t)first,
                                           (uint32_t)(left < ORRI_CONVERT_RANGE ? left : ORRI_CONVERT_RANGE), 0, 0};
        }
    uint32_t threads = values >= ORRI_CONVERT_FROM ? orri_gltf_threads(b->options ? b->options->threads : 0) : 1;
    orri_gltf_run(b->doc->pool, threads, ranges, convert_range_run, rs);
    s->far_at = UINT32_MAX;
    for (uint32_t k = 0; k < ranges && s->far_at == UINT32_MAX; k++)
        if (rs[k].far_at != UINT32_MAX) s->far_at = rs[k].far_at, s->far_len = rs[k].far_len;
    for (uint32_t k = 0; k < ranges; k++)
        if (rs[k].stream->box) s->box = s->box_known ? orr_aabbf_merge(s->box, rs[k].box) : rs[k].box, s->box_known = true;
    s->r2 = 0.0f;
    for (uint32_t k = 0; k < ranges; k++) s->r2 = rs[k].r2 > s->r2 ? rs[k].r2 : s->r2; /* (0 in the others) */
    bfree(b, rs);
    s->job_count = 0;
    return true;
}

/* Indices widened to 32 bits in ranges on the pool (16-bit ones above all: every mesh of fewer than
 * 65536 vertices), each range into its own part of `out`. */
typedef struct widen_job {
    const orri_gltf_doc *doc;
    uint32_t accessor, count;
    uint32_t *out;
} widen_job;

#define ORRI_WIDEN_RANGE (1u << 15)

static void widen_range_run(void *ctx, uint32_t i)
{
    const widen_job *w = ctx;
    uint32_t first = i * ORRI_WIDEN_RANGE, n = w->count - first < ORRI_WIDEN_RANGE ? w->count - first : ORRI_WIDEN_RANGE;
    orri_gltf_read_uints_range(w->doc, w->accessor, first, n, 1, w->out + first);
}

static void read_indices(bctx *b, int32_t acc, uint32_t *out)
{
    const orri_gltf_doc *d = b->doc;
    uint32_t count = d->accessors[acc].count, threads = orri_gltf_threads(b->options ? b->options->threads : 0);
    /* (a range of none says whether the accessor reads in pieces at all) */
    if (count < ORRI_CONVERT_FROM || threads < 2 || !orri_gltf_read_uints_range(d, (uint32_t)acc, 0, 0, 1, out)) {
        orri_gltf_read_uints(d, (uint32_t)acc, 1, out); /* small, or sparse */
        return;
    }
    widen_job w = {d, (uint32_t)acc, count, out};
    orri_gltf_run(d->pool, threads, (count + ORRI_WIDEN_RANGE - 1) / ORRI_WIDEN_RANGE, widen_range_run, &w);
}

static float *read_stream_borrow(bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok, prim_scratch *s, int slot)
{
    if (acc < 0) return NULL;
    const void *p = direct(b->doc, acc, ORRI_GLTF_FLOAT, comps);
    if (p) {
        s->borrowed[slot] = p;
        return (float *)p;
    }
    return read_owned(b, acc, comps, fill, ok, s, slot);
}

static float *read_stream(bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok)
{
    if (acc < 0) return NULL;
    const orri_gltf_accessor *a = &b->doc->accessors[acc];
    float *out = balloc(b, (size_t)a->count * comps, sizeof(float));
    if (!out) {
        *ok = false;
        return NULL;
    }
    orri_gltf_read_floats(b->doc, (uint32_t)acc, comps, fill, out);
    return out;
}

/* Whether accessor `acc` is read by nothing but the one primitive (its indices, or one of its streams),
 * and its bufferView by nothing but it: then the view's decoded block can become that primitive's
 * indices (or packed stream), which the asset library may rewrite (meshlet order) or free, with nothing
 * else reading them later. */
static bool sole_user(bctx *b, int32_t acc)
{
    const orri_gltf_doc *d = b->doc;
    if (!b->view_users) {
        uint32_t vu_n = d->view_count + d->view_extra, au_n = d->accessor_count;
        uint32_t *vu = balloc(b, (size_t)vu_n + 1, sizeof(uint32_t)), *au = balloc(b, (size_t)au_n + 1, sizeof(uint32_t));
        if (!vu || !au) { /* copied instead */
            bfree(b, vu), bfree(b, au);
            return false;
        }
        b->view_users = vu, b->accessor_users = au; /* freed with the bctx */
#define USE(ARR, I) ((I) >= 0 && (uint32_t)(I) < ARR##_n ? (void)ARR[(I)]++ : (void)0)
        for (uint32_t i = 0; i < d->accessor_count; i++) {
            const orri_gltf_accessor *a = &d->accessors[i];
            USE(vu, a->view);
            if (a->sparse_count) USE(vu, a->sparse_indices_view), USE(vu, a->sparse_values_view);
        }
        for (uint32_t i = 0; i < d->image_count; i++) USE(vu, d->images[i].view);
        for (uint32_t m = 0; m < d->mesh_count; m++)
            for (uint32_t k = 0; k < d->meshes[m].primitive_count; k++) {
                const orri_gltf_primitive *p = &d->meshes[m].primitives[k];
                for (const cJSON *a = p->attributes ? p->attributes->child : NULL; a; a = a->next)
                    if (cJSON_IsNumber(a)) USE(au, (int32_t)a->valueint); /* every set, named or not */
                for (const cJSON *t = p->targets ? p->targets->child : NULL; t; t = t->next)
                    for (const cJSON *a = t->child; a; a = a->next)
                        if (cJSON_IsNumber(a)) USE(au, (int32_t)a->valueint);
                USE(au, p->indices);
            }
        for (uint32_t i = 0; i < d->skin_count; i++) USE(au, d->skins[i].inverse_bind);
        for (uint32_t i = 0; i < d->node_count; i++)
            USE(au, d->nodes[i].inst_t), USE(au, d->nodes[i].inst_r), USE(au, d->nodes[i].inst_s);
        for (uint32_t i = 0; i < d->animation_count; i++)
            for (uint32_t k = 0; k < d->animations[i].sampler_count; k++)
                USE(au, d->animations[i].samplers[k].input), USE(au, d->animations[i].samplers[k].output);
#undef USE
    }
    const orri_gltf_accessor *a = &d->accessors[acc];
    return a->view >= 0 && b->accessor_users[acc] == 1 && b->view_users[a->view] == 1;
}

/* glTF requires unit normals and tangents with w = +-1. Normals are normalized anyway; one far from unit
 * length (not rounding: unit_tolerance) or a tangent that breaks either rule is warned about, once per
 * primitive and attribute, naming the first element (the normals' found while converting them). */
static void warn_tangent_space(bctx *b, uint32_t mi, uint32_t pi, const prim_scratch *s, const float *tan, uint32_t vc)
{
    float tol = tan ? unit_tolerance(b->doc, b->doc->meshes[mi].primitives[pi].tangent) : 0.0f;
    if ((s->nrm || s->packed[1].data) && !s->borrowed[1] && s->far_at != UINT32_MAX)
        bviolation(b, "meshes[%u].primitives[%u].attributes.NORMAL: element %u has length %g, not 1; normalized", mi, pi,
              s->far_at, s->far_len);
    for (uint32_t k = 0; tan && k < vc; k++) {
        const float *v = tan + (size_t)k * 4;
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (fabsf(len - 1.0f) <= tol && (v[3] == 1.0f || v[3] == -1.0f)) continue;
        bviolation(b, "meshes[%u].primitives[%u].attributes.TANGENT: element %u has length %g and w %g (needs 1 and +-1); used as given",
              mi, pi, k, len, v[3]);
        break;
    }
}

/* glTF: a vertex's skin weights sum to 1. Where they do not (beyond 1e-6: the rounding of four binary32
 * weights, or of normalized integers that sum exactly to their maximum, stays well inside it; an integer
 * sum one unit off does not), each weight is divided by the sum, as other viewers do: a vertex drawn
 * with its raw weights would land at its sum times its skinned position. A vertex whose weights sum to
 * 0 keeps them (it is drawn in its bind pose). One warning per primitive names the accessor, how many
 * vertices and the worst sum. A borrowed stream is copied first (the file's bytes are not written).
 * false when out of memory. */
static bool normalize_weights(bctx *b, uint32_t mi, uint32_t pi, prim_scratch *s, uint32_t vc)
{
    uint32_t bad = 0, worst_at = 0;
    double worst = 1.0;
    for (uint32_t k = 0; k < vc; k++) {
        const float *w = s->wgt + (size_t)k * 4;
        double sum = (double)w[0] + w[1] + w[2] + w[3];
        if (!(sum > 0.0) || fabs(sum - 1.0) <= 1e-6) continue;
        if (fabs(sum - 1.0) > fabs(worst - 1.0)) worst = sum, worst_at = k;
        bad++;
    }
    if (!bad) return true;
    if (s->borrowed[6] == s->wgt) {
        float *copy = orr_assets_stream_alloc(b->assets, (size_t)vc * 16);
        if (!copy) return false;
        memcpy(copy, s->wgt, (size_t)vc * 16);
        s->borrowed[6] = NULL;
        s->wgt = copy;
        s->owned |= ORR_OWN_WEIGHTS;
    }
    for (uint32_t k = 0; k < vc; k++) {
        float *w = s->wgt + (size_t)k * 4;
        double sum = (double)w[0] + w[1] + w[2] + w[3];
        if (!(sum > 0.0) || fabs(sum - 1.0) <= 1e-6) continue;
        for (int c = 0; c < 4; c++) w[c] = (float)(w[c] / sum);
    }
    bwarn(b, "meshes[%u].primitives[%u].attributes.WEIGHTS_0: accessor %d: the weights of %u of %u vertices do not sum to 1 "
          "(worst: element %u, %.9g); normalized", mi, pi, b->doc->meshes[mi].primitives[pi].weights, bad, vc, worst_at,
          worst);
    return true;
}

/* Whether the mesh's bounding sphere radius can be found while its positions are converted
 * (orr_mesh_desc.sphere_r2): every primitive the library gets has its box from the data scan before
 * any is converted, converted positions (not borrowed), no morph targets and its own normals (not
 * rebuilt flat); then `c` is the sphere's center as the library finds it from those boxes. */
static bool sphere_known(const orri_gltf_doc *d, const orri_gltf_mesh *m, float c[3])
{
    orr_aabbd u = orr_aabbd_empty();
    for (uint32_t pi = 0; pi < m->primitive_count; pi++) {
        const orri_gltf_primitive *p = &m->primitives[pi];
        if (p->position < 0 || p->vertex_count == 0) continue; /* not given to the library */
        orr_aabbf box;
        if (p->target_count || (p->normal < 0 && p->mode >= 4) || direct(d, p->position, ORRI_GLTF_FLOAT, 3) ||
            !orri_gltf_scanned_box(d, p->position, &box))
            return false;
        u = orr_aabbd_union(u, (orr_aabbd){{box.min.x, box.min.y, box.min.z}, {box.max.x, box.max.y, box.max.z}});
    }
    if (orr_aabbd_is_empty(u)) return false;
    orri_sphere_center(u, c);
    return true;
}

static orr_result build_mesh(bctx *b, uint32_t mi)
{
    const orri_gltf_doc *d = b->doc;
    const orri_gltf_mesh *m = &d->meshes[mi];
    orr_primitive_desc *descs = balloc(b, m->primitive_count, sizeof *descs);
    prim_scratch *sc = balloc(b, m->primitive_count, sizeof *sc);
    if (!descs || !sc) {
        bfree(b, descs), bfree(b, sc);
        return oom_at(b, "meshes", mi);
    }
    orr_result r = ORR_OK;
    uint32_t n = 0;
    float center[3], r2 = 0.0f;
    bool sphere = sphere_known(d, m, center);
    for (uint32_t pi = 0; pi < m->primitive_count && r == ORR_OK; pi++) {
        const orri_gltf_primitive *p = &m->primitives[pi];
        if (p->position < 0 || p->vertex_count == 0) continue; /* warned while parsing */
        prim_scratch *s = &sc[n];
        orr_primitive_desc *pd = &descs[n];
        bool ok = true;
        { /* what the library will hold for it: positions and normals always, other streams when given */
            uint64_t per = 24 + (p->tangent >= 0 && p->normal >= 0 ? 16 : 0) + (p->texcoord[0] >= 0 ? 8 : 0) +
                           (p->texcoord[1] >= 0 ? 8 : 0) +
                           (p->color >= 0 ? 16 : 0) + (p->weights >= 0 ? 16 : 0) + (p->joints >= 0 ? 8 : 0) +
                           36 * (uint64_t)p->target_count;
            uint64_t idx = p->indices >= 0 ? d->accessors[p->indices].count : p->vertex_count;
            char what[64];
            snprintf(what, sizeof what, "meshes[%u].primitives[%u]", mi, pi);
            if (p->mode == 6 || p->mode == 2) { /* fans and loops become lists: refused before decoding when too long */
                uint64_t list = p->mode == 6 ? (idx >= 3 ? (idx - 2) * 3 : 0) : idx * 2;
                if (list > UINT32_MAX) {
                    r = orri_error(b->err, ORR_ERROR_CAPACITY,
                                   "%s: a %s of %llu indices expands to %llu list indices, more than %u", what, p->mode == 6 ? "triangle fan" : "line loop", (unsigned long long)idx,
                                   (unsigned long long)list, UINT32_MAX);
                    break;
                }
                idx = list;
            }
            uint64_t verts = p->vertex_count;
            if (p->normal < 0 && p->mode >= 4) { /* flat normals: one vertex per triangle corner */
                uint64_t in = p->indices >= 0 ? d->accessors[p->indices].count : p->vertex_count;
                verts = p->mode == 4 ? in / 3 * 3 : (in >= 3 ? (in - 2) * 3 : 0);
                idx = verts;
            }
            r = spend(b, verts * per + idx * 4, what);
            if (r != ORR_OK) break;
        }
        s->vertex_count = p->vertex_count;
        s->box_known = orri_gltf_scanned_box(d, p->position, &s->box); /* (then not found again) */
        s->center = sphere ? center : NULL;
        /* quantized positions and normals stay packed: not with morph targets (their bounds and deltas
         * are floats), and positions only beside normals on triangles (flat ones are made from floats) */
        orr_packing ppos = p->target_count || (p->normal < 0 && p->mode >= 4) ? ORR_PACKING_NONE : packing_of(d, p->position);
        orr_packing pnrm = p->target_count || p->normal < 0 ? ORR_PACKING_NONE : packing_of(d, p->normal);
        s->pos = NULL;
        if (ppos) read_packed(b, p->position, ppos, &ok, s, 0);
        else s->pos = read_stream_borrow(b, p->position, 3, 0, &ok, s, 0);
        s->nrm = NULL;
        if (pnrm) {
            read_packed(b, p->normal, pnrm, &ok, s, 1);
        } else if (p->normal >= 0) { /* borrowed only when every normal is already unit length */
            const float *dn = direct(d, p->normal, ORRI_GLTF_FLOAT, 3);
            bool unit = dn != NULL;
            for (size_t k = 0; unit && k < p->vertex_count; k++) {
                float x = dn[k * 3], y = dn[k * 3 + 1], z = dn[k * 3 + 2];
                unit = fabsf(x * x + y * y + z * z - 1.0f) <= 2e-6f;
            }
            if (unit) s->nrm = (float *)dn, s->borrowed[1] = dn;
            else s->nrm = read_owned(b, p->normal, 3, 0, &ok, s, 1);
        }
        /* tangents belong to the normals they were made for: without normals (generated flat) they are dropped */
        s->tan = p->normal >= 0 ? read_stream_borrow(b, p->tangent, 4, 1, &ok, s, 2) : NULL;
        s->uv0 = read_stream_borrow(b, p->texcoord[0], 2, 0, &ok, s, 3);
        s->uv1 = read_stream_borrow(b, p->texcoord[1], 2, 0, &ok, s, 4);
        s->col = read_stream_borrow(b, p->color, 4, 1, &ok, s, 5);
        s->wgt = read_stream_borrow(b, p->weights, 4, 0, &ok, s, 6);
        if (ok) ok = convert_streams(b, s);
        r2 = s->r2 > r2 ? s->r2 : r2;
        uint32_t vc = p->vertex_count;
        if (ok && p->joints >= 0) {
            uint32_t *tmp = balloc(b, (size_t)vc * 4, sizeof(uint32_t));
            s->jnt = orr_assets_stream_alloc(b->assets, (size_t)vc * own_bytes[7]); /* vc > 0 here */
            if (s->jnt) s->owned |= ORR_OWN_JOINTS;
            if (tmp && s->jnt) {
                orri_gltf_read_uints(d, (uint32_t)p->joints, 4, tmp);
                for (size_t k = 0; k < (size_t)vc * 4; k++) s->jnt[k] = (uint16_t)tmp[k];
            } else {
                ok = false;
            }
            bfree(b, tmp);
        }
        uint32_t ic = 0;
        if (ok && orri_gltf_late(d, p->indices)) { /* its indices were decoding beside the streams above */
            r = orri_gltf_finish((orri_gltf_doc *)d, b->name, b->options ? b->options->threads : 0, b->err);
            if (r != ORR_OK) {
                n++;
                break;
            }
        }
        if (ok && p->indices >= 0) {
            ic = d->accessors[p->indices].count;
            s->max_known = d->accessors[p->indices].max_known, s->max_index = d->accessors[p->indices].max_uint;
            const void *di = direct(d, p->indices, ORRI_GLTF_UNSIGNED_INT, 1);
            if (di) {
                s->idx = (uint32_t *)di;
                s->borrowed[8] = di;
            } else { /* widened straight into the library's memory, to be handed over */
                s->idx = orr_assets_stream_alloc(b->assets, (size_t)ic * 4);
                s->idx_bytes = s->idx ? (size_t)ic * 4 : 0;
                if (s->idx) read_indices(b, p->indices, s->idx);
                else ok = false;
            }
        }
        if (ok && p->target_count) { /* morph targets: POSITION, NORMAL and TANGENT displacements */
            s->targets = balloc(b, p->target_count, sizeof *s->targets);
            ok = s->targets != NULL;
            if (ok) s->target_count = p->target_count;
            uint32_t t = 0;
            for (const cJSON *tj = p->targets ? p->targets->child : NULL; ok && tj && t < p->target_count; tj = tj->next, t++) {
                static const char *const names[3] = {"POSITION", "NORMAL", "TANGENT"};
                float **dst[3] = {(float **)&s->targets[t].positions, (float **)&s->targets[t].normals,
                                  (float **)&s->targets[t].tangents};
                for (int k = 0; k < 3 && ok; k++) {
                    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(tj, names[k]);
                    /* without the base stream the delta has nothing to move (normals generated flat) */
                    bool base = k == 0 || (k == 1 && p->normal >= 0) || (k == 2 && p->tangent >= 0 && p->normal >= 0);
                    if (acc && cJSON_IsNumber(acc) && base) *dst[k] = read_stream(b, (int32_t)acc->valueint, 3, 0, &ok);
                }
            }
        }
        if (!ok) {
            r = oom_at(b, "meshes", mi);
            n++;
            break;
        }
        warn_tangent_space(b, mi, pi, s, s->tan, vc);
        if (s->wgt && !normalize_weights(b, mi, pi, s, vc)) {
            r = oom_at(b, "meshes", mi);
            n++;
            break;
        }
        orr_topology topo = topology_of_mode[p->mode];
        uint32_t prim_n = p->indices >= 0 ? ic : vc;
        uint32_t whole = prim_n;
        if (topo == ORR_TOPOLOGY_TRIANGLES) whole = prim_n / 3 * 3;
        else if (topo == ORR_TOPOLOGY_LINES) whole = prim_n / 2 * 2;
        if (whole != prim_n) {
            bwarn(b, "meshes[%u].primitives[%u]: %u vertices/indices do not make whole primitives; the rest is dropped",
                  mi, pi, prim_n);
            if (p->indices >= 0) {
                ic = whole, s->max_known = false; /* (the dropped ones' may have been the largest) */
            } else if (!s->idx) { /* non-indexed: generate indices for the whole ones */
                s->idx = balloc(b, whole ? whole : 1, sizeof(uint32_t));
                if (!s->idx) {
                    r = oom_at(b, "meshes", mi);
                    n++;
                    break;
                }
                for (uint32_t k = 0; k < whole; k++) s->idx[k] = k;
                ic = whole;
            }
        }
        /* indices decoded into a block of their own, read by this primitive alone and kept by it (not
         * rebuilt for flat normals, fans or loops): handed over instead of copied */
        bool kept = !(p->normal < 0 && p->mode >= 4) && p->mode != 2 && p->mode != 6;
        if (s->idx && s->idx == s->borrowed[8] && kept && sole_user(b, p->indices) &&
            orri_gltf_lend_block((orri_gltf_doc *)d, d->accessors[p->indices].view, s->idx, (size_t)ic * 4))
            s->owned |= ORR_OWN_INDICES, s->idx_view = d->accessors[p->indices].view;
        if (s->idx_bytes && s->idx_bytes == (size_t)ic * 4) s->owned |= ORR_OWN_INDICES; /* (not when trimmed) */
        *pd = (orr_primitive_desc){
            .vertex_count = vc,
            .positions = s->pos,
            .normals = s->nrm,
            .packed_positions = s->packed[0],
            .packed_normals = s->packed[1],
            .tangents = s->tan,
            .texcoords0 = s->uv0,
            .texcoords1 = s->uv1,
            .colors = s->col,
            .joints = s->jnt,
            .weights = s->wgt,
            .index_count = s->idx ? ic : 0,
            .indices = s->idx,
            .topology = topo,
            .target_count = s->target_count,
            .targets = s->targets,
            .owned = s->owned,
            .box = s->box_known ? &s->box : NULL,
            .max_index = s->max_known && s->idx ? &s->max_index : NULL,
        };
        if (p->material >= 0) pd->material = b->materials[p->material];
        n++;
    }
    if (r == ORR_OK && n > 0) {
        /* only a large primitive's passes are shared out: only then are workers needed */
        bool large = false;
        for (uint32_t i = 0; i < n; i++)
            large |= descs[i].vertex_count >= ORRI_RANGES_FROM || descs[i].index_count >= ORRI_RANGES_FROM;
        uint32_t threads = orri_gltf_threads(b->options ? b->options->threads : 0);
        orr_mesh_desc md = {.name = m->name, .primitive_count = n, .primitives = descs,
                            .build_meshlets = b->options && b->options->build_meshlets, .threads = threads,
                            .workers = large && threads > 1 ? orri_gltf_pool_get(b->doc->pool) : NULL,
                            .sphere_r2 = sphere ? &r2 : NULL};
        float *weights = NULL;
        uint32_t wn = m->weights ? (uint32_t)cJSON_GetArraySize(m->weights) : 0;
        if (wn) { /* numbers, checked by the parser */
            weights = balloc(b, wn, sizeof *weights);
            if (!weights) r = oom_at(b, "meshes", mi);
            uint32_t w = 0;
            for (const cJSON *e = m->weights->child; weights && e && w < wn; e = e->next, w++) weights[w] = (float)e->valuedouble;
            md.weight_count = weights ? wn : 0;
            md.weights = weights;
        }
        if (r == ORR_OK) {
            r = orr_assets_add_mesh(b->assets, &md, &b->meshes[mi]);
            if (r == ORR_OK) /* the streams handed over are the library's now */
                for (uint32_t k = 0; k < n; k++) handed_over(&sc[k]);
            if (r != ORR_OK) {
                char what[64];
                snprintf(what, sizeof what, "meshes[%u]", mi);
                r = from_assets(b, r, what);
            }
        }
        bfree(b, weights);
    } else if (r == ORR_OK) {
        bwarn(b, "meshes[%u]: no primitive with positions; nodes using it draw nothing", mi);
    }
    for (uint32_t k = 0; k < n; k++) scratch_free(b, &sc[k]);
    bfree(b, descs), bfree(b, sc);
    return r;
}

/* ---- skins and clips ---------------------------------------------------------------------------- */

static orr_result build_skins(bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < d->skin_count; i++) {
        const orri_gltf_skin *s = &d->skins[i];
        char what[48];
        snprintf(what, sizeof what, "skins[%u]", i);
        orr_result br = spend(b, (uint64_t)s->joint_count * sizeof(orr_mat4d), what);
        if (br != ORR_OK) return br;
        orr_mat4d *ibm = NULL;
        if (s->inverse_bind >= 0) {
            float *f = balloc(b, (size_t)s->joint_count * 16, sizeof(float)); /* only the matrices used */
            ibm = balloc(b, s->joint_count, sizeof *ibm);
            if (!f || !ibm) {
                bfree(b, f), bfree(b, ibm);
                return oom_at(b, "skins", i);
            }
            orri_gltf_read_floats_range(d, (uint32_t)s->inverse_bind, 0, s->joint_count, 16, 0, f);
            for (uint32_t j = 0; j < s->joint_count; j++)
                for (int k = 0; k < 16; k++) ibm[j].m[k] = f[(size_t)j * 16 + k];
            for (uint32_t j = 0; j < s->joint_count; j++) { /* glTF: the last row is (0, 0, 0, 1) */
                const double *m = ibm[j].m;
                if (m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1) continue;
                bviolation(b, "skins[%u].inverseBindMatrices: matrix %u is not affine (last row %g %g %g %g); used as given", i,
                      j, m[3], m[7], m[11], m[15]);
                break;
            }
            bfree(b, f);
        }
        orr_skin_desc sd = {.name = s->name, .joint_count = s->joint_count, .inverse_bind = ibm};
        orr_result r = orr_assets_add_skin(b->assets, &sd, &b->skins[i]);
        bfree(b, ibm);
        if (r != ORR_OK) return from_assets(b, r, what);
    }
    return ORR_OK;
}

static orr_result build_clips(bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < d->animation_count; i++) {
        const orri_gltf_animation *an = &d->animations[i];
        orr_anim_channel *ch = balloc(b, an->channel_count, sizeof *ch);
        if (!ch) return oom_at(b, "animations", i);
        uint32_t n = 0;
        orr_result r = ORR_OK;
        for (uint32_t k = 0; k < an->channel_count; k++) {
            const orri_gltf_channel *c = &an->channels[k];
            if (c->node < 0) continue; /* warned while parsing */
            const orri_gltf_sampler *s = &an->samplers[c->sampler];
            const orri_gltf_accessor *in = &d->accessors[s->input], *out = &d->accessors[s->output];
            uint32_t comps = c->path == ORR_ANIM_ROTATION ? 4 : c->path == ORR_ANIM_WEIGHTS ? 0 : 3;
            if (c->path == ORR_ANIM_WEIGHTS) comps = d->meshes[d->nodes[c->node].mesh].weight_count;
            char what[64];
            snprintf(what, sizeof what, "animations[%u].channels[%u]", i, k);
            r = spend(b, ((uint64_t)in->count + (uint64_t)out->count * out->components) * sizeof(float), what);
            if (r != ORR_OK) break;
            float *times = balloc(b, in->count, sizeof(float));
            float *values = balloc(b, out->count, (size_t)out->components * sizeof(float));
            if (!times || !values) {
                bfree(b, times), bfree(b, values);
                r = oom_at(b, "animations", i);
                break;
            }
            orri_gltf_read_floats(d, (uint32_t)s->input, 1, 0, times);
            orri_gltf_read_floats(d, (uint32_t)s->output, out->components, 0, values);
            ch[n++] = (orr_anim_channel){.target = (uint32_t)c->node, .path = c->path, .interpolation = s->interpolation,
                                         .key_count = in->count, .components = comps, .times = times, .values = values};
        }
        if (r == ORR_OK && n) {
            orr_clip_desc cd = {.name = an->name, .channel_count = n, .channels = ch};
            r = orr_assets_add_clip(b->assets, &cd, &b->clips[i]);
            if (r != ORR_OK) {
                char what[64];
                snprintf(what, sizeof what, "animations[%u]", i);
                r = from_assets(b, r, what);
            }
        }
        for (uint32_t k = 0; k < n; k++) bfree(b, (void *)ch[k].times), bfree(b, (void *)ch[k].values);
        bfree(b, ch);
        if (r != ORR_OK) return r;
    }
    return ORR_OK;
}

/* ---- the template world ------------------------------------------------------------------------- */

static orr_transform node_transform(const orri_gltf_node *n)
{
    orr_transform t = orr_transform_identity();
    if (n->has_matrix) {
        orr_vec3d tt, ss;
        orr_quatd rr;
        if (orr_mat4d_decompose(&n->matrix, &tt, &rr, &ss)) {
            t.translation = tt, t.rotation = rr, t.scale = ss;
        } else {
            t.has_matrix = true;
            t.matrix = n->matrix;
        }
    } else {
        t.translation = n->t, t.rotation = n->r, t.scale = n->s;
    }
    return t;
}

static orr_result world_err(bctx *b, orr_world *w, orr_result r, const char *what)
{
    const orr_error *e = orr_world_last_error(w);
    return orri_error(b->err, r, "%s: %s", what, e && e->message[0] ? e->message : orr_result_name(r));
}

static orr_result add_renderer(bctx *b, orr_world *w, orr_entity e, orr_mesh_id mesh, uint32_t layers)
{
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    mr.layers = layers;
    orr_result r = orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
    return r == ORR_OK ? r : world_err(b, w, r, "prefab");
}

/* Instances of EXT_mesh_gpu_instancing: children of the node, each with the instance's TRS. */
static orr_result add_instances(bctx *b, orr_world *w, orr_entity parent, const orri_gltf_node *n, uint32_t layers)
{
    uint32_t count = n->instance_count;
    float *t = NULL, *r = NULL, *s = NULL;
    bool ok = true;
    t = read_stream(b, n->inst_t, 3, 0, &ok);
    r = read_stream(b, n->inst_r, 4, 0, &ok);
    s = read_stream(b, n->inst_s, 3, 1, &ok);
    orr_result res = ok ? ORR_OK : oom_at(b, "nodes", (uint32_t)(n - b->doc->nodes));
    for (size_t i = 0; i < count && res == ORR_OK; i++) {
        orr_transform lt = orr_transform_identity();
        if (t) lt.translation = (orr_vec3d){t[i * 3], t[i * 3 + 1], t[i * 3 + 2]};
        if (r) lt.rotation = orr_quatd_normalize((orr_quatd){r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3]});
        if (s) lt.scale = (orr_vec3d){s[i * 3], s[i * 3 + 1], s[i * 3 + 2]};
        orr_entity_desc ed = {.name = NULL, .parent = parent, .local = &lt};
        orr_entity e;
        res = orr_entity_create(w, &ed, &e);
        if (res != ORR_OK) res = world_err(b, w, res, "prefab");
        else res = add_renderer(b, w, e, b->meshes[n->mesh], layers);
    }
    bfree(b, t), bfree(b, r), bfree(b, s);
    return res;
}

/* A node whose mesh has morph targets gets its weights as a MorphWeights component (what animation
 * channels of path weights write): the node's `weights` where it has them, the mesh's past their end. */
static orr_result add_morph_weights(bctx *b, orr_world *w, orr_entity e, const orri_gltf_node *n)
{
    const orr_mesh *mesh = orr_assets_try_get_mesh(b->assets, b->meshes[n->mesh]);
    if (!mesh || !mesh->weight_count) return ORR_OK;
    float *weights = balloc(b, mesh->weight_count, sizeof *weights);
    if (!weights) return oom_at(b, "nodes", (uint32_t)(n - b->doc->nodes));
    memcpy(weights, mesh->weights, (size_t)mesh->weight_count * sizeof *weights);
    uint32_t k = 0;
    for (const cJSON *v = n->weights ? n->weights->child : NULL; v && k < mesh->weight_count; v = v->next, k++)
        weights[k] = (float)v->valuedouble;
    orr_result r = orr_morph_weights_set(w, e, weights, mesh->weight_count);
    bfree(b, weights);
    return r == ORR_OK ? r : world_err(b, w, r, "prefab");
}

static orr_result build_node(bctx *b, orr_world *w, uint32_t ni, orr_entity parent, uint32_t layers, orr_entity *out)
{
    const orri_gltf_doc *d = b->doc;
    const orri_gltf_node *n = &d->nodes[ni];
    orr_transform local = node_transform(n);
    orr_entity_desc ed = {.name = n->name, .parent = parent, .local = &local};
    orr_result r = orr_entity_create(w, &ed, out);
    if (r != ORR_OK) return world_err(b, w, r, "prefab");
    orr_entity e = *out;
    if (n->mesh >= 0 && !orr_id_is_none(b->meshes[n->mesh])) {
        if (n->instance_count) r = add_instances(b, w, e, n, layers);
        else r = add_renderer(b, w, e, b->meshes[n->mesh], layers);
        if (r == ORR_OK && !n->instance_count) r = add_morph_weights(b, w, e, n);
        if (r != ORR_OK) return r;
    }
    if (n->camera >= 0) {
        const orri_gltf_camera *gc = &d->cameras[n->camera];
        orr_camera cam = orr_camera_default();
        cam.projection = gc->projection;
        cam.yfov = gc->projection == ORR_PERSPECTIVE ? gc->yfov : cam.yfov;
        cam.aspect = gc->aspect;
        cam.xmag = gc->xmag;
        cam.ymag = gc->ymag;
        cam.znear = gc->znear;
        cam.zfar = gc->zfar;
        r = orr_component_add(w, e, ORR_COMPONENT_CAMERA, &cam, NULL);
        if (r != ORR_OK) return world_err(b, w, r, "prefab");
    }
    if (n->light >= 0) {
        orr_light l = d->lights[n->light].value;
        r = orr_component_add(w, e, ORR_COMPONENT_LIGHT, &l, NULL);
        if (r != ORR_OK) return world_err(b, w, r, "prefab");
    }
    return ORR_OK;
}

/* One scene's copy of its node trees under `scene_root`. map[node] receives the entity (none for
 * nodes outside the scene). Iterative, so deep hierarchies cannot overflow the stack. */
/* One scene's copy of its node trees under `scene_root`. map[node] receives the entity; visited
 * lists the nodes copied (map is reset from it, so many scenes cost their own size, not the file's).
 * Iterative, so deep hierarchies cannot overflow the stack. */
static orr_result build_scene(bctx *b, orr_world *w, const uint32_t *roots, uint32_t root_count, orr_entity scene_root,
                              uint32_t layers, orr_entity *map, uint32_t *stack, uint32_t *visited, uint32_t *visited_n)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < *visited_n; i++) map[visited[i]] = ORR_ENTITY_NONE;
    uint32_t nv = 0;
    *visited_n = 0;
    for (uint32_t ri = 0; ri < root_count; ri++) {
        /* pre-order with an explicit stack; children are pushed in reverse to keep their order */
        uint32_t sp = 0;
        stack[sp++] = roots[ri];
        while (sp) {
            uint32_t ni = stack[--sp];
            const orri_gltf_node *n = &d->nodes[ni];
            orr_entity parent = n->parent >= 0 ? map[n->parent] : scene_root;
            orr_result r = build_node(b, w, ni, parent, layers, &map[ni]);
            visited[nv++] = ni;
            *visited_n = nv;
            if (r != ORR_OK) return r;
            for (uint32_t k = n->child_count; k-- > 0;) stack[sp++] = n->children[k];
        }
    }
    /* skins: joints resolve to this scene's copies */
    for (uint32_t vi = 0; vi < nv; vi++) {
        uint32_t i = visited[vi];
        const orri_gltf_node *n = &d->nodes[i];
        /* an instanced node's renderers are its instance children: the skin is not applied to them */
        if (n->skin < 0 || n->mesh < 0 || n->instance_count || orr_id_is_none(b->meshes[n->mesh])) continue;
        const orri_gltf_skin *s = &d->skins[n->skin];
        orr_entity *joints = balloc(b, s->joint_count, sizeof *joints);
        if (!joints) return oom_at(b, "nodes", i);
        for (uint32_t j = 0; j < s->joint_count; j++) joints[j] = map[s->joints[j]];
        for (uint32_t j = 0; j < s->joint_count; j++) {
            if (!orr_entity_eq(joints[j], ORR_ENTITY_NONE)) continue;
            bviolation(b, "nodes[%u]: joint %u of skin %d (node %u) is not in the node's scene; it holds the bind pose", i, j,
                  n->skin, s->joints[j]);
            break;
        }
        orr_skinned_mesh sm = {.skin = b->skins[n->skin]};
        orr_result r = orr_component_add(w, map[i], ORR_COMPONENT_SKINNED_MESH, &sm, NULL);
        if (r == ORR_OK) r = orr_skinned_mesh_set_joints(w, map[i], joints, s->joint_count);
        bfree(b, joints);
        if (r != ORR_OK) return world_err(b, w, r, "prefab");
    }
    return ORR_OK;
}

/* Saturating: a file naming one large subtree from many scenes must not wrap the count. */
static uint64_t sat_add(uint64_t x, uint64_t y) { return x > UINT64_MAX - y ? UINT64_MAX : x + y; }
static uint64_t sat_mul(uint64_t x, uint64_t y) { return y && x > UINT64_MAX / y ? UINT64_MAX : x * y; }

/* What the prefab will hold, counted before anything is created, so that a small file cannot demand
 * millions of entities or gigabytes of lists: its entities (the root, one per scene, and per scene its
 * node trees, a node in several scenes counting in each, with their EXT_mesh_gpu_instancing instances)
 * and the bytes of their variable-length data (names, each skinned entity's joint list, the animation
 * player's targets), which world.h stores per entity (a tail block: an 8-byte head and the elements).
 * A node's copies: how many times its tree's root is instantiated (scene references, or once for the
 * implicit scene). O(nodes + scene roots). */
typedef struct prefab_count {
    uint64_t entities;
    uint64_t list_bytes;
    uint64_t worst_skin_refs; /* the joint references of the skin that holds most of them */
    uint64_t worst_skin_users;
    int32_t worst_skin;       /* -1 = none */
} prefab_count;

#define ORRI_GLTF_BLOCK_HEAD 8u /* world.h: the head of a tail block */

static void count_prefab(const orri_gltf_doc *d, uint64_t *copies, uint64_t *skin_refs, uint32_t *stack, uint32_t *order,
                         prefab_count *pc)
{
    *pc = (prefab_count){.entities = 1, .worst_skin = -1};
    for (uint32_t i = 0; i < d->node_count; i++) copies[i] = 0;
    if (d->scene_count) {
        for (uint32_t s = 0; s < d->scene_count; s++) {
            pc->entities = sat_add(pc->entities, 1);
            if (d->scenes[s].name)
                pc->list_bytes = sat_add(pc->list_bytes, strlen(d->scenes[s].name) + 1 + ORRI_GLTF_BLOCK_HEAD);
            for (uint32_t k = 0; k < d->scenes[s].node_count; k++)
                copies[d->scenes[s].nodes[k]] = sat_add(copies[d->scenes[s].nodes[k]], 1);
        }
    } else {
        bool any = false;
        for (uint32_t i = 0; i < d->node_count; i++)
            if (d->nodes[i].parent < 0) copies[i] = 1, any = true;
        if (any) pc->entities = sat_add(pc->entities, 1);
    }
    uint32_t no = 0;
    for (uint32_t r = 0; r < d->node_count; r++) { /* pre-order of every tree: parents before children */
        if (d->nodes[r].parent >= 0) continue;
        uint32_t sp = 0;
        stack[sp++] = r;
        while (sp) {
            uint32_t ni = stack[--sp];
            order[no++] = ni;
            for (uint32_t k = 0; k < d->nodes[ni].child_count; k++) stack[sp++] = d->nodes[ni].children[k];
        }
    }
    for (uint32_t i = 0; i < d->skin_count; i++) skin_refs[i] = 0;
    for (uint32_t k = 0; k < no; k++) {
        uint32_t ni = order[k];
        const orri_gltf_node *n = &d->nodes[ni];
        if (n->parent >= 0) copies[ni] = copies[n->parent];
        uint64_t c = copies[ni];
        if (!c) continue;
        uint64_t inst = n->mesh >= 0 ? n->instance_count : 0;
        pc->entities = sat_add(pc->entities, sat_mul(c, 1 + inst));
        if (n->name) pc->list_bytes = sat_add(pc->list_bytes, sat_mul(c, strlen(n->name) + 1 + ORRI_GLTF_BLOCK_HEAD));
        if (n->skin >= 0 && n->mesh >= 0 && !n->instance_count) {
            uint64_t joints = d->skins[n->skin].joint_count;
            pc->list_bytes = sat_add(pc->list_bytes, sat_mul(c, joints * sizeof(orr_entity) + ORRI_GLTF_BLOCK_HEAD));
            skin_refs[n->skin] = sat_add(skin_refs[n->skin], sat_mul(c, joints));
        }
    }
    if (d->animation_count)
        pc->list_bytes = sat_add(pc->list_bytes, (uint64_t)d->node_count * sizeof(orr_entity) + ORRI_GLTF_BLOCK_HEAD);
    for (uint32_t i = 0; i < d->skin_count; i++) {
        if (skin_refs[i] <= pc->worst_skin_refs) continue;
        pc->worst_skin_refs = skin_refs[i];
        pc->worst_skin_users = d->skins[i].joint_count ? skin_refs[i] / d->skins[i].joint_count : 0;
        pc->worst_skin = (int32_t)i;
    }
}

orr_result orri_gltf_entity_budget(const orri_gltf_doc *d, uint32_t max_entities, uint64_t *entities, orr_error *err)
{
    const orr_allocator *al = &d->allocator;
    uint64_t limit = max_entities ? max_entities : ORRI_GLTF_DEFAULT_MAX_ENTITIES;
    prefab_count pc = {.entities = 1 + d->scene_count, .worst_skin = -1};
    if (d->node_count) {
        size_t n = d->node_count;
        uint64_t *copies = orri_gltf_alloc(al, n * sizeof *copies);
        uint64_t *refs = d->skin_count ? orri_gltf_alloc(al, d->skin_count * sizeof *refs) : NULL;
        uint32_t *stack = orri_gltf_alloc(al, n * sizeof *stack), *order = orri_gltf_alloc(al, n * sizeof *order);
        bool ok = copies && stack && order && (refs || !d->skin_count);
        if (ok) count_prefab(d, copies, refs, stack, order, &pc);
        orri_gltf_dealloc(al, copies, 0), orri_gltf_dealloc(al, refs, 0);
        orri_gltf_dealloc(al, stack, 0), orri_gltf_dealloc(al, order, 0);
        if (!ok) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "scenes: out of memory counting entities");
    }
    *entities = pc.entities;
    uint64_t units = sat_add(pc.entities, pc.list_bytes / ORRI_GLTF_LIST_UNIT);
    if (units <= limit) return ORR_OK;
    if (pc.entities > limit)
        return orri_error(err, ORR_ERROR_CAPACITY,
                          "scenes: the prefab would hold %llu entities, the limit is %llu (orr_gltf_options.max_entities)",
                          (unsigned long long)pc.entities, (unsigned long long)limit);
    uint64_t skin_bytes = sat_mul(pc.worst_skin_refs, sizeof(orr_entity));
    if (pc.worst_skin >= 0 && skin_bytes * 2 >= pc.list_bytes) /* the skin is most of it: name it */
        return orri_error(err, ORR_ERROR_CAPACITY,
                          "skins[%d]: %u joints on %llu skinned entities would hold %llu joint references (%llu MiB) in "
                          "the prefab, which with its %llu entities counts as %llu entities (each %u bytes of names, "
                          "joints and animation targets as one); the limit is %llu (orr_gltf_options.max_entities)",
                          pc.worst_skin, d->skins[pc.worst_skin].joint_count, (unsigned long long)pc.worst_skin_users,
                          (unsigned long long)pc.worst_skin_refs, (unsigned long long)(skin_bytes >> 20),
                          (unsigned long long)pc.entities, (unsigned long long)units, ORRI_GLTF_LIST_UNIT,
                          (unsigned long long)limit);
    return orri_error(err, ORR_ERROR_CAPACITY,
                      "scenes: the prefab would hold %llu entities and %llu bytes of names, joints and animation "
                      "targets, which count as %llu entities (each %u bytes as one); the limit is %llu "
                      "(orr_gltf_options.max_entities)",
                      (unsigned long long)pc.entities, (unsigned long long)pc.list_bytes, (unsigned long long)units,
                      ORRI_GLTF_LIST_UNIT, (unsigned long long)limit);
}

/* Refuses, before anything is added to the library, a file whose prefab would exceed the limit. */
static orr_result check_entity_budget(bctx *b)
{
    return orri_gltf_entity_budget(b->doc, b->options ? b->options->max_entities : 0, &b->entities, b->err);
}

static const char *base_name(const char *path)
{
    if (!path) return "prefab";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static orr_result build_world(bctx *b, orri_prefab *pf)
{
    const orri_gltf_doc *d = b->doc;
    /* exactly the room the template needs, so building it grows no table */
    orr_world_desc wd = {.allocator = b->alloc, .logger = b->logger, .reserve = (uint32_t)b->entities};
    orr_result r = orr_world_create(&wd, &pf->world);
    if (r != ORR_OK) return orri_error(b->err, r, "prefab: cannot create its world: %s", orr_result_name(r));
    orr_world *w = pf->world;
    report(b->options, ORR_GLTF_PHASE_WORLD, 0, b->entities);
    orr_entity_desc rd = {.name = base_name(b->name)};
    r = orr_entity_create(w, &rd, &pf->root);
    if (r != ORR_OK) return world_err(b, w, r, "prefab");

    orr_entity *map = d->node_count ? balloc(b, d->node_count, sizeof *map) : NULL;
    orr_entity *anim_map = d->node_count ? balloc(b, d->node_count, sizeof *anim_map) : NULL;
    uint32_t *stack = d->node_count ? balloc(b, d->node_count, sizeof *stack) : NULL;
    uint32_t *visited = d->node_count ? balloc(b, d->node_count, sizeof *visited) : NULL;
    uint32_t *implicit = NULL, visited_n = 0;
    if (d->node_count && (!map || !anim_map || !stack || !visited)) {
        r = oom(b, "prefab");
        goto out;
    }
    for (uint32_t i = 0; i < d->node_count; i++) map[i] = ORR_ENTITY_NONE;
    for (uint32_t i = 0; i < d->node_count; i++) anim_map[i] = ORR_ENTITY_NONE;
    /* No scenes declared: one implicit scene of every root node, so the file still shows something. */
    uint32_t scene_count = d->scene_count;
    uint32_t implicit_n = 0;
    if (!scene_count && d->node_count) {
        implicit = balloc(b, d->node_count, sizeof *implicit);
        if (!implicit) {
            r = oom(b, "prefab");
            goto out;
        }
        for (uint32_t i = 0; i < d->node_count; i++)
            if (d->nodes[i].parent < 0) implicit[implicit_n++] = i;
        scene_count = 1;
    }
    pf->scene_count = scene_count;
    pf->default_scene = d->default_scene >= 0 ? (uint32_t)d->default_scene : 0;
    for (uint32_t si = 0; si < scene_count; si++) {
        const char *sname = d->scene_count ? d->scenes[si].name : NULL;
        char fallback[32];
        if (!sname) {
            snprintf(fallback, sizeof fallback, "scene%u", si);
            sname = fallback;
        }
        orr_entity_desc sd = {.name = sname, .parent = pf->root};
        orr_entity scene_root;
        r = orr_entity_create(w, &sd, &scene_root);
        if (r != ORR_OK) {
            r = world_err(b, w, r, "prefab");
            goto out;
        }
        uint32_t layers = (b->options && b->options->single_layer) ? 1u : (si < 32 ? 1u << si : 1u << 31);
        const uint32_t *roots = d->scene_count ? d->scenes[si].nodes : implicit;
        uint32_t root_n = d->scene_count ? d->scenes[si].node_count : implicit_n;
        if (d->node_count) {
            r = build_scene(b, w, roots, root_n, scene_root, layers, map, stack, visited, &visited_n);
            if (r != ORR_OK) goto out;
            bool prefer = si == pf->default_scene;
            for (uint32_t k = 0; k < visited_n; k++) {
                uint32_t i = visited[k];
                if (prefer || orr_entity_eq(anim_map[i], ORR_ENTITY_NONE)) anim_map[i] = map[i];
            }
        }
    }
    /* the player of animation 0 on the root; targets are glTF node indices. It exists whenever the
     * file has animations, so a host can switch it to another clip (a none clip plays nothing). */
    if (d->animation_count) {
        orr_animation_player ap = orr_animation_player_default();
        ap.clip = b->clips[0];
        r = orr_component_add(w, pf->root, ORR_COMPONENT_ANIMATION_PLAYER, &ap, NULL);
        if (r == ORR_OK) r = orr_animation_player_set_targets(w, pf->root, anim_map, d->node_count);
        if (r != ORR_OK) {
            r = world_err(b, w, r, "prefab");
            goto out;
        }
    }
    orr_world_update_transforms(w);
out:
    bfree(b, map), bfree(b, anim_map), bfree(b, stack), bfree(b, implicit), bfree(b, visited);
    return r;
}

/* ---- entry -------------------------------------------------------------------------------------- */

static void prefab_destroy(void *payload)
{
    orri_prefab *pf = payload;
    if (!pf) return;
    orr_allocator a = pf->allocator;
    orr_world_destroy(pf->world);
    orri_gltf_dealloc(&a, pf->clips, 0);
    orri_gltf_dealloc(&a, pf, 0);
}

static orr_result load_doc(orr_assets *assets, const orri_gltf_doc *d, uint64_t input_bytes, const char *key,
                           const char *name, const orr_gltf_options *options, orr_prefab_id *out, orr_error *err,
                           uint64_t *image_ns)
{
    bctx b = {.assets = assets, .doc = d, .options = options, .alloc = orr_assets_allocator(assets),
              .logger = orr_assets_logger(assets), .err = err, .name = name};
    orr_result r = ORR_OK;
    orri_prefab *pf = orri_gltf_alloc(&b.alloc, sizeof *pf);
    if (!pf) return oom(&b, "prefab");
    pf->allocator = b.alloc;
    b.textures = balloc(&b, d->texture_count, sizeof *b.textures);
    b.textures_linear = balloc(&b, d->texture_count, sizeof *b.textures_linear);
    b.texture_fallback = balloc(&b, d->texture_count, 1);
    b.materials = balloc(&b, d->material_count, sizeof *b.materials);
    b.meshes = balloc(&b, d->mesh_count, sizeof *b.meshes);
    b.skins = balloc(&b, d->skin_count, sizeof *b.skins);
    b.clips = balloc(&b, d->animation_count, sizeof *b.clips);
    if ((d->texture_count && (!b.textures || !b.textures_linear || !b.texture_fallback)) || (d->material_count && !b.materials) || (d->mesh_count && !b.meshes) ||
        (d->skin_count && !b.skins) || (d->animation_count && !b.clips)) {
        r = oom(&b, "load");
        goto out;
    }
    /* the decoded-data budget: by default the larger of 1 GiB and 4 times what was read (the file and
     * its external buffers), so that a large honest file loads and a small hostile one cannot ask for
     * gigabytes by naming one accessor, image or key set many times */
    uint64_t input = input_bytes;
    for (uint32_t i = 0; i < d->source_count; i++)
        if (d->sources[i].ok) input += d->sources[i].file.size;
    b.budget = options && options->max_decoded_bytes ? options->max_decoded_bytes
                                                      : (input > ORRI_GLTF_DEFAULT_BUDGET / 4 ? input * 4 : ORRI_GLTF_DEFAULT_BUDGET);
    r = check_entity_budget(&b);
    if (r == ORR_OK) r = build_textures(&b);
    if (r == ORR_OK) r = check_unused_images(&b);
    if (r == ORR_OK) r = build_materials(&b);
    for (uint32_t i = 0; i < d->mesh_count && r == ORR_OK; i++) {
        report(options, ORR_GLTF_PHASE_MESHES, i, d->mesh_count);
        r = build_mesh(&b, i);
    }
    /* what the meshes did not wait for (a primitive without positions) is checked all the same */
    if (r == ORR_OK) r = orri_gltf_finish((orri_gltf_doc *)d, b.name, options ? options->threads : 0, b.err);
    if (r == ORR_OK && d->mesh_count) report(options, ORR_GLTF_PHASE_MESHES, d->mesh_count, d->mesh_count);
    if (r == ORR_OK) r = build_skins(&b);
    if (r == ORR_OK) r = build_clips(&b);
    if (r == ORR_OK) r = build_world(&b, pf);
    if (r == ORR_OK) {
        pf->clip_count = d->animation_count;
        pf->clips = b.clips;
        r = orr_assets_add_prefab(assets, key, pf, prefab_destroy, out);
        if (r != ORR_OK) {
            pf->clips = NULL, pf->clip_count = 0; /* still b's, taken back below */
            r = from_assets(&b, r, "prefab");
        } else {
            b.clips = NULL;
            pf = NULL;
        }
    }
out:
    if (r != ORR_OK && d->late_n && !d->late_checked) {
        /* refused before the late index views were checked: a problem in them is what one thread (which
         * checks them while parsing) reports, so it comes first (the warnings and progress the build gave
         * before it, one thread would not have given) */
        orr_error late = {0};
        if (orri_gltf_finish((orri_gltf_doc *)d, b.name, options ? options->threads : 0, &late) != ORR_OK) {
            r = late.code;
            if (b.err) *b.err = late;
        }
    }
    if (r != ORR_OK) take_back(&b);
    if (pf) prefab_destroy(pf);
    bfree(&b, b.view_users), bfree(&b, b.accessor_users);
    bfree(&b, b.textures), bfree(&b, b.textures_linear), bfree(&b, b.texture_fallback), bfree(&b, b.materials), bfree(&b, b.meshes), bfree(&b, b.skins), bfree(&b, b.clips);
    *image_ns = b.image_ns;
    return r;
}

static orr_result load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir, const char *key,
                              const orr_gltf_options *options, orr_prefab_id *out, orr_error *err, uint64_t read_ns);

orr_result orr_gltf_load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir,
                                const char *key, const orr_gltf_options *options, orr_prefab_id *out, orr_error *err)
{
    return load_memory(assets, data, size, base_dir, key, options, out, err, 0);
}

static orr_result load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir, const char *key,
                              const orr_gltf_options *options, orr_prefab_id *out, orr_error *err, uint64_t read_ns)
{
    ORRI_REQUIRE(assets && out, err, "orr_gltf_load_memory: assets and out are required");
    ORRI_REQUIRE(data || size == 0, err, "orr_gltf_load_memory: data is NULL (%zu bytes)", size);
    *out = (orr_prefab_id){0, 0};
    if (err) err->code = ORR_OK, err->message[0] = 0;
    if (key) {
        orr_prefab_id found = orr_assets_find_prefab(assets, key);
        if (!orr_id_is_none(found)) {
            *out = found;
            return ORR_OK;
        }
    }
    uint64_t t0 = orri_gltf_now_ns();
    orr_gltf_stats *st = options ? options->stats : NULL;
    if (st) *st = (orr_gltf_stats){.read_ns = read_ns};
    uint32_t threads = orri_gltf_threads(options ? options->threads : 0);
    orri_gltf_pool pool = {.given = options ? options->workers : NULL, .threads = threads,
                           .allocator = orr_assets_allocator(assets)};
    orri_gltf_parse_desc pd = {.data = data, .size = size, .base_dir = base_dir, .name = key,
                               .allocator = orr_assets_allocator(assets), .logger = orr_assets_logger(assets),
                               .allow_outside_uris = options && options->allow_outside_uris,
                               .files = options && options->require_files ? ORRI_GLTF_FILES_REQUIRE : ORRI_GLTF_FILES_LAZY,
                               .threads = threads, .pool = &pool, .stats = st, .defer = true};
    orri_gltf_doc *doc;
    report(options, ORR_GLTF_PHASE_PARSE, 0, size);
    orr_result r = orri_gltf_parse(&pd, &doc, err);
    if (r == ORR_OK) {
        uint64_t t1 = orri_gltf_now_ns(), image_ns = 0;
        r = load_doc(assets, doc, size, key, key, options, out, err, &image_ns);
        if (st) { /* index views decoded beside the build: their time is decoding, its wait for them too */
            uint64_t spent = orri_gltf_now_ns() - t1, other = image_ns + doc->late_wait_ns;
            st->image_ns = image_ns;
            if (doc->late_checked) st->decode_ns += doc->late_ns; /* (else still running: a refusal came first) */
            st->split_views = doc->split_views;
            st->build_ns = spent > other ? spent - other : 0;
        }
        orri_gltf_free(doc);
    }
    orri_gltf_pool_fini(&pool); /* after the doc: its late views decode on them */
    if (st) st->total_ns = st->read_ns + (orri_gltf_now_ns() - t0);
    if (r != ORR_OK && err) orri_gltf_escape(err->message, sizeof err->message); /* names from the file */
    return r;
}

orr_result orr_gltf_load(orr_assets *assets, const char *path, const orr_gltf_options *options, orr_prefab_id *out,
                         orr_error *err)
{
    ORRI_REQUIRE(assets && path && out, err, "orr_gltf_load: assets, path and out are required");
    *out = (orr_prefab_id){0, 0};
    if (err) err->code = ORR_OK, err->message[0] = 0;
    char key[4096];
    if (!realpath(path, key)) snprintf(key, sizeof key, "%s", path);
    orr_prefab_id found = orr_assets_find_prefab(assets, key);
    if (!orr_id_is_none(found)) {
        *out = found;
        return ORR_OK;
    }
    orr_allocator alloc = orr_assets_allocator(assets);
    orri_gltf_file file;
    uint64_t t0 = orri_gltf_now_ns();
    orr_result r = orri_gltf_model_open(&alloc, path, &file, err);
    uint64_t read_ns = orri_gltf_now_ns() - t0;
    if (options && options->stats) *options->stats = (orr_gltf_stats){.read_ns = read_ns, .total_ns = read_ns};
    if (r != ORR_OK) return r;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", key);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    r = load_memory(assets, file.data, file.size, dir, key, options, out, err, read_ns);
    orri_gltf_file_close(&alloc, &file);
    return r;
}
