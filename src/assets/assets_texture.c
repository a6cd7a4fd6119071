/* The asset library's textures: decoded images, render targets, and the fur noise texture. */
#include "core/internal.h"
#include "assets/assets_internal.h"

#include <string.h>

/* ---- textures ---------------------------------------------------------------------------- */

void orri_assets_texture_release(orr_assets *a, orr_texture *t)
{
    orri_free(&a->allocator, t->rgba8, (size_t)t->width * t->height * 4);
    orri_strfree(&a->allocator, t->name);
}

orr_result orr_assets_add_texture(orr_assets *a, const orr_texture_desc *desc, orr_texture_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_texture: assets is NULL");
    ORRI_REQUIRE(desc && out, &a->error, "orr_assets_add_texture: desc and out are required");
    if (!desc->width || !desc->height || !desc->rgba8 || desc->width > 16384 || desc->height > 16384)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "texture '%s': bad size %ux%u or no pixels",
                          desc->name ? desc->name : "", desc->width, desc->height);
    orr_handle h = {0, 0};
    orr_texture *t = NULL;
    orr_result r = orri_assets_pool_add(a, &a->textures, &h, (void **)&t);
    if (r != ORR_OK) return r;
    size_t bytes = (size_t)desc->width * desc->height * 4;
    t->name = orri_strdup(&a->allocator, desc->name ? desc->name : "");
    t->rgba8 = desc->owned ? (uint8_t *)desc->rgba8 : alloc_raw(a, bytes);
    if (!t->name || !t->rgba8) {
        orri_strfree(&a->allocator, t->name);
        if (!desc->owned) orri_free(&a->allocator, t->rgba8, bytes);
        orr_handle_pool_free(&a->textures.handles, h);
        return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "texture: out of memory");
    }
    if (!desc->owned) memcpy(t->rgba8, desc->rgba8, bytes);
    t->width = desc->width;
    t->height = desc->height;
    t->color_space = desc->color_space;
    t->sampler = desc->sampler;
    *out = (orr_texture_id){h.index, h.generation};
    return ORR_OK;
}

orr_result orr_assets_add_target_texture(orr_assets *a, const orr_target_texture_desc *desc, orr_texture_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_target_texture: assets is NULL");
    ORRI_REQUIRE(desc && out, &a->error, "orr_assets_add_target_texture: desc and out are required");
    if (!desc->target_key)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "target texture '%s': target_key is 0 (it must name "
                          "a texture target's key)", desc->name ? desc->name : "");
    orr_handle h = {0, 0};
    orr_texture *t = NULL;
    orr_result r = orri_assets_pool_add(a, &a->textures, &h, (void **)&t);
    if (r != ORR_OK) return r;
    t->name = orri_strdup(&a->allocator, desc->name ? desc->name : "");
    if (!t->name) {
        orr_handle_pool_free(&a->textures.handles, h);
        return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "target texture: out of memory");
    }
    t->color_space = ORR_COLOR_SPACE_SRGB;
    t->sampler = desc->sampler;
    t->sampler.mipmaps = false;
    t->target_key = desc->target_key;
    *out = (orr_texture_id){h.index, h.generation};
    return ORR_OK;
}

const orr_texture *orr_assets_try_get_texture(const orr_assets *a, orr_texture_id id)
{
    return pool_item(&a->textures, AS_HANDLE(id));
}

/* Fur noise: a lattice of hashed values, blended with a smoothstep, all in integers so that the bytes
 * are the same everywhere. The lattice wraps at `cells`, so the texture tiles. */
static uint32_t noise_hash(uint32_t x, uint32_t y, uint32_t seed)
{
    uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16; /* a murmur3-style finaliser */
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

orr_result orr_assets_add_fur_noise(orr_assets *a, const orr_fur_noise_desc *desc, orr_texture_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_fur_noise: assets is NULL");
    ORRI_REQUIRE(out, &a->error, "orr_assets_add_fur_noise: out is required");
    orr_fur_noise_desc d = desc ? *desc : (orr_fur_noise_desc){0};
    if (!d.size) d.size = 64;
    if (!d.cells) d.cells = d.size;
    if (!is_pow2(d.size) || d.size > 4096)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "fur noise: size %u is not a power of two in 1..4096", d.size);
    if (!is_pow2(d.cells) || d.cells > d.size)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "fur noise: cells %u is not a power of two in 1..%u (size)",
                          d.cells, d.size);
    size_t n = (size_t)d.size * d.size;
    uint8_t *px = orri_alloc(&a->allocator, n * 4);
    if (!px) return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "fur noise: out of memory");
    /* texel centre x + 1/2 in lattice units is (2x + 1) cells / (2 size): cell and 16-bit fraction */
    uint32_t step = d.size / d.cells; /* texels per cell */
    for (uint32_t y = 0; y < d.size; y++) {
        uint64_t fy_num = (uint64_t)(2 * (y % step) + 1) << 16;
        uint32_t cy = y / step, ty = (uint32_t)(fy_num / (2 * step)); /* 0..65535 */
        uint64_t sy = (uint64_t)ty * ty * (3u * 65536u - 2u * ty) >> 32; /* smoothstep, 16-bit */
        for (uint32_t x = 0; x < d.size; x++) {
            uint64_t fx_num = (uint64_t)(2 * (x % step) + 1) << 16;
            uint32_t cx = x / step, tx = (uint32_t)(fx_num / (2 * step));
            uint64_t sx = (uint64_t)tx * tx * (3u * 65536u - 2u * tx) >> 32;
            uint32_t x0 = cx % d.cells, x1 = (cx + 1) % d.cells, y0 = cy % d.cells, y1 = (cy + 1) % d.cells;
            uint64_t v00 = noise_hash(x0, y0, d.seed) >> 24, v10 = noise_hash(x1, y0, d.seed) >> 24,
                     v01 = noise_hash(x0, y1, d.seed) >> 24, v11 = noise_hash(x1, y1, d.seed) >> 24;
            uint64_t top = v00 * (65536 - sx) + v10 * sx, bottom = v01 * (65536 - sx) + v11 * sx; /* x 2^16 */
            uint64_t v = (top * (65536 - sy) + bottom * sy + (1ull << 31)) >> 32;                  /* rounded */
            if (step == 1) v = v00; /* one texel per cell: the lattice value itself (white noise) */
            uint8_t *t = px + ((size_t)y * d.size + x) * 4;
            t[0] = t[1] = t[2] = (uint8_t)(v > 255 ? 255 : v);
            t[3] = 255;
        }
    }
    orr_texture_desc td = {
        .name = d.name ? d.name : "fur noise",
        .width = d.size,
        .height = d.size,
        .rgba8 = px,
        .color_space = ORR_COLOR_SPACE_LINEAR,
        .sampler = {.mag_filter = ORR_FILTER_NEAREST, .min_filter = ORR_FILTER_LINEAR, .mipmaps = true,
                    .wrap_s = ORR_WRAP_REPEAT, .wrap_t = ORR_WRAP_REPEAT},
    };
    orr_result r = orr_assets_add_texture(a, &td, out);
    orri_free(&a->allocator, px, n * 4);
    return r;
}
