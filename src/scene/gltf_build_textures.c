/* glTF 2.0 build: textures (each image read and decoded once, when a texture first uses it, the
 * decoding on the worker pool; a texture read both as color and as data made twice, sRGB and linear)
 * and materials. */
#include "core/internal.h"
#include "scene/gltf_build_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Decoded images larger than this fall back (a hostile header must not make us allocate gigabytes). */
#define ORRI_GLTF_MAX_IMAGE_PIXELS (16384u * 4096u)

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

/* An image's pixels: memory of the asset library's streams, so that the last texture made from them
 * takes them over (orr_texture_desc.owned) instead of copying them. */
static void pixels_free(orri_gltf_bctx *b, const orri_gltf_image_job *j, uint8_t *rgba)
{
    if (rgba) orr_assets_stream_free(b->assets, rgba, (size_t)j->width * j->height * 4);
}

/* Every image a texture uses, decoded once into its own slot (jobs[image]): headers and output
 * buffers on the caller's thread in texture order (the budget is checked there, before anything is
 * decoded), the pixels on the worker pool, the warnings afterwards in image order. So the library
 * receives the same bytes in the same order whatever the thread count. */
static orr_result decode_images(orri_gltf_bctx *b, orri_gltf_image_job *jobs, uint8_t **pixels)
{
    const orri_gltf_doc *d = b->doc;
    uint8_t *queued = orri_gltf_balloc(b, d->image_count + 1, 1);
    uint32_t *first_use = orri_gltf_balloc(b, d->image_count + 1, sizeof *first_use);
    orri_gltf_image_job **queue = orri_gltf_balloc(b, d->image_count + 1, sizeof *queue);
    orr_result r = ORR_OK;
    if (!queued || !first_use || !queue) {
        r = orri_gltf_oom(b, "images");
        goto out;
    }
    uint64_t t0 = orri_gltf_now_ns();
    uint32_t qn = 0;
    uint64_t pending = 0; /* pixel bytes of the images queued so far */
    for (uint32_t t = 0; t < d->texture_count && r == ORR_OK; t++) {
        int32_t src = d->textures[t].source;
        if (src < 0) {
            if (!queued[d->image_count]) orri_gltf_bwarn(b, "textures[%u]: no source image; falls back to white", t);
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
            if (why) orri_gltf_bwarn(b, "images[%u]: %s; textures[%u] falls back to white", s, why, t);
            else orri_gltf_bwarn(b, "textures[%u]: image %u has no data; falls back to white", t, s);
            continue;
        }
        if (!orri_gltf_image_header(j)) { /* not a PNG, JPEG or WebP, or its header is damaged */
            orri_gltf_bviolation(b, "images[%u]: %s; textures[%u] falls back to white", s, j->why, t);
            continue;
        }
        if (j->width > 16384 || j->height > 16384 || (uint64_t)j->width * j->height > ORRI_GLTF_MAX_IMAGE_PIXELS) {
            orri_gltf_bwarn(b, "images[%u]: %ux%u is too large; textures[%u] falls back to white", s, j->width, j->height, t);
            continue;
        }
        uint64_t bytes = (uint64_t)j->width * j->height * 4;
        char what[48];
        snprintf(what, sizeof what, "images[%u]", s);
        /* refused before decoding; the pixels are counted per library texture made, later */
        r = orri_gltf_affordable(b, pending + bytes, what);
        if (r != ORR_OK) break;
        j->rgba = orr_assets_stream_alloc(b->assets, (size_t)bytes); /* every pixel is written, or it is freed */
        if (!j->rgba) {
            r = orri_gltf_oom(b, what);
            break;
        }
        pending += bytes;
        queue[qn++] = j;
    }
    if (r == ORR_OK && qn) {
        qsort(queue, qn, sizeof *queue, job_cmp);
        b->image_threads = orri_gltf_threads(b->options ? b->options->threads : 0);
        orri_gltf_progress(b->options, ORR_GLTF_PHASE_IMAGES, 0, qn);
        orri_gltf_run(d->pool, b->image_threads, qn, image_job, queue);
        orri_gltf_progress(b->options, ORR_GLTF_PHASE_IMAGES, qn, qn);
        for (uint32_t s = 0; s < d->image_count; s++) {
            orri_gltf_image_job *j = &jobs[s];
            if (!j->rgba) continue;
            if (j->ok) {
                if (j->why[0]) orri_gltf_bviolation(b, "images[%u]: %s; drawn as far as it decodes", s, j->why);
                pixels[s] = j->rgba;
            } else {
                (j->unsupported ? orri_gltf_bwarn : orri_gltf_bviolation)(b, "images[%u]: %s; textures[%u] falls back to white", s, j->why,
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
    orri_gltf_bfree(b, queued), orri_gltf_bfree(b, first_use), orri_gltf_bfree(b, queue);
    return r;
}

/* orr_gltf_options.check_images: each image no texture uses, decoded on this thread one at a time
 * only to check it (its pixels are freed at once): one whose data is damaged is a violation, as it
 * is for a used image. */
orr_result orri_gltf_check_unused_images(orri_gltf_bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    if (!b->options || !b->options->check_images || !d->image_count) return ORR_OK;
    uint8_t *used = orri_gltf_balloc(b, d->image_count, 1);
    if (!used) return orri_gltf_oom(b, "images");
    for (uint32_t t = 0; t < d->texture_count; t++)
        if (d->textures[t].source >= 0) used[d->textures[t].source] = 1;
    orr_result r = ORR_OK;
    uint64_t t0 = orri_gltf_now_ns();
    for (uint32_t s = 0; s < d->image_count && r == ORR_OK; s++) {
        if (used[s]) continue;
        orri_gltf_image_job j = {0};
        const char *why = NULL;
        if (!orri_gltf_image_data(d, s, &j.bytes, &j.size, &why)) {
            if (why) orri_gltf_bwarn(b, "images[%u]: %s; no texture uses it", s, why);
            continue;
        }
        if (!orri_gltf_image_header(&j)) {
            orri_gltf_bviolation(b, "images[%u]: %s; no texture uses it", s, j.why);
            continue;
        }
        if (j.width > 16384 || j.height > 16384 || (uint64_t)j.width * j.height > ORRI_GLTF_MAX_IMAGE_PIXELS) {
            orri_gltf_bwarn(b, "images[%u]: %ux%u is too large to check; no texture uses it", s, j.width, j.height);
            continue;
        }
        size_t bytes = (size_t)j.width * j.height * 4;
        j.rgba = orri_gltf_alloc_uninit(&b->alloc, bytes);
        if (!j.rgba) {
            r = orri_gltf_oom(b, "images");
            break;
        }
        orri_gltf_image_decode(&j);
        if (!j.ok) (j.unsupported ? orri_gltf_bwarn : orri_gltf_bviolation)(b, "images[%u]: %s; no texture uses it", s, j.why);
        else if (j.why[0]) orri_gltf_bviolation(b, "images[%u]: %s; no texture uses it", s, j.why);
        orri_gltf_dealloc(&b->alloc, j.rgba, bytes);
    }
    b->image_ns += orri_gltf_now_ns() - t0;
    orri_gltf_bfree(b, used);
    return r;
}

orr_result orri_gltf_build_textures(orri_gltf_bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    if (!d->texture_count) return ORR_OK;
    uint32_t nimg = d->image_count + 1; /* the last slot: textures without a source (white) */
    /* color space by use: base color and emissive are sRGB */
    uint8_t *srgb = orri_gltf_balloc(b, d->texture_count, 1);
    uint8_t **pixels = orri_gltf_balloc(b, nimg, sizeof *pixels);
    orri_gltf_image_job *jobs = orri_gltf_balloc(b, nimg, sizeof *jobs);
    uint32_t *last_use = orri_gltf_balloc(b, nimg, sizeof *last_use);
    int32_t *head = orri_gltf_balloc(b, nimg, sizeof *head);
    tex_made *made = orri_gltf_balloc(b, (size_t)d->texture_count * 2, sizeof *made);
    uint32_t made_n = 0;
    orr_result r = ORR_OK;
    if (!srgb || !pixels || !jobs || !last_use || !head || !made) {
        r = orri_gltf_oom(b, "textures");
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
            r = orri_gltf_spend(b, (uint64_t)td.width * td.height * 4, what);
            if (r != ORR_OK) break;
            r = orr_assets_add_texture(b->assets, &td, dst);
            if (r != ORR_OK) {
                r = orri_gltf_from_assets(b, r, what);
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
    orri_gltf_bfree(b, srgb), orri_gltf_bfree(b, pixels), orri_gltf_bfree(b, jobs), orri_gltf_bfree(b, last_use), orri_gltf_bfree(b, head), orri_gltf_bfree(b, made);
    return r;
}

/* ---- materials ---------------------------------------------------------------------------------- */

static orr_texture_ref texref(const orri_gltf_bctx *b, const orri_gltf_texref *t, bool color)
{
    orr_texture_ref r = {.scale = t->scale, .uv_scale = {t->uv_scale[0], t->uv_scale[1]}};
    if (t->texture >= 0) r.texture = color ? b->textures[t->texture] : b->textures_linear[t->texture];
    r.texcoord = t->texcoord;
    r.offset[0] = t->offset[0], r.offset[1] = t->offset[1];
    r.rotation = t->rotation;
    return r;
}

orr_result orri_gltf_build_materials(orri_gltf_bctx *b)
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
            orri_gltf_bwarn(b, "materials[%u].normalTexture: texture %d has no usable image; the material has no normal map", i,
                            m->normal.texture);
        }
        v.occlusion_texture = texref(b, &m->occlusion, false);
        v.emissive_texture = texref(b, &m->emissive, true);
        orr_result r = orr_assets_add_material(b->assets, &v, &b->materials[i]);
        if (r != ORR_OK) {
            char what[48];
            snprintf(what, sizeof what, "materials[%u]", i);
            return orri_gltf_from_assets(b, r, what);
        }
    }
    return ORR_OK;
}
