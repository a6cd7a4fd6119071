/* Image decoding for the glTF loader: PNG through libspng, JPEG through libjpeg-turbo, WebP
 * (EXT_texture_webp) through libwebp, anything else stb_image reads (BMP, GIF, TGA, ...) through stb.
 * The format is told by the bytes, not by the mimeType. orri_gltf_image_header runs on the caller's
 * thread (it sizes the output the caller allocates); orri_gltf_image_decode runs on a worker and
 * writes only its own job: the same bytes give the same pixels on any thread. */
#include "scene/gltf_internal.h"

#include <spng.h>
#include <stb/stb_image.h>
#include <stdio.h>
#include <string.h>
#include <turbojpeg.h>
#include <webp/decode.h>

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static void why(orri_gltf_image_job *j, const char *fmt, const char *detail)
{
    snprintf(j->why, sizeof j->why, fmt, detail ? detail : "");
}

bool orri_gltf_image_header(orri_gltf_image_job *j)
{
    const uint8_t *p = j->bytes;
    size_t n = j->size;
    j->width = j->height = 0;
    j->why[0] = 0;
    j->unsupported = false;
    if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) {
        j->format = ORRI_IMAGE_PNG;
        if (n < 24 || memcmp(p + 12, "IHDR", 4) != 0) {
            if (n < 24) snprintf(j->why, sizeof j->why, "PNG: the data ends inside its header (%zu bytes)", n);
            else why(j, "PNG: does not start with an IHDR chunk%s", NULL);
            return false;
        }
        j->width = be32(p + 16), j->height = be32(p + 20);
    } else if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff) {
        j->format = ORRI_IMAGE_JPEG;
        tjhandle h = tjInitDecompress();
        int w = 0, hh = 0, sub = 0, cs = 0;
        bool ok = h && n <= (size_t)0xffffffffu && tjDecompressHeader3(h, p, (unsigned long)n, &w, &hh, &sub, &cs) == 0;
        if (!ok) why(j, "not a readable JPEG (%s)", h ? tjGetErrorStr2(h) : "no decoder");
        if (h) tjDestroy(h);
        if (!ok) return false;
        j->width = (uint32_t)w, j->height = (uint32_t)hh;
    } else if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) {
        j->format = ORRI_IMAGE_WEBP;
        int w = 0, h = 0;
        if (!WebPGetInfo(p, n, &w, &h)) {
            why(j, "not a readable WebP%s", NULL);
            return false;
        }
        j->width = (uint32_t)w, j->height = (uint32_t)h;
    } else {
        j->format = ORRI_IMAGE_OTHER;
        int w = 0, h = 0, comp = 0;
        if (n > 0x7fffffff || !stbi_info_from_memory(p, (int)n, &w, &h, &comp)) {
            why(j, "cannot be decoded (not PNG, JPEG or WebP)%s", NULL);
            return false;
        }
        j->width = (uint32_t)w, j->height = (uint32_t)h;
    }
    if (j->width == 0 || j->height == 0) {
        static const char *const names[] = {"image", "PNG", "JPEG", "WebP"};
        why(j, "%s: declares an empty image (no width or height)", names[j->format]);
        return false;
    }
    return true;
}

/* spng's refusals that say the data is damaged (a chunk's CRC, the zlib stream or its Adler-32): no
 * other decoder is tried, since stb_image checks neither and would take the damage silently. */
static bool png_damaged(int rc)
{
    return rc == SPNG_ECHUNK_CRC || rc == SPNG_EIDAT_STREAM || rc == SPNG_EZLIB || rc == SPNG_EIDAT_TOO_SHORT;
}

static bool decode_png(orri_gltf_image_job *j, bool *damaged)
{
    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx) return j->unsupported = true, why(j, "out of memory%s", NULL), false;
    size_t need = 0;
    int rc = spng_set_crc_action(ctx, SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
    if (!rc) rc = spng_set_image_limits(ctx, j->width, j->height);
    if (!rc) rc = spng_set_chunk_limits(ctx, (size_t)1 << 26, (size_t)1 << 26);
    if (!rc) rc = spng_set_png_buffer(ctx, j->bytes, j->size);
    if (!rc) rc = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &need);
    if (!rc && need != (size_t)j->width * j->height * 4) rc = SPNG_EWIDTH;
    if (!rc) rc = spng_decode_image(ctx, j->rgba, need, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    spng_ctx_free(ctx);
    if (rc) why(j, "PNG: %s", spng_strerror(rc));
    *damaged = png_damaged(rc);
    return rc == 0;
}

static bool decode_jpeg(orri_gltf_image_job *j)
{
    tjhandle h = tjInitDecompress();
    if (!h) return j->unsupported = true, why(j, "out of memory%s", NULL), false;
    int rc = tjDecompress2(h, j->bytes, (unsigned long)j->size, j->rgba, (int)j->width, (int)j->width * 4, (int)j->height,
                           TJPF_RGBA, TJFLAG_LIMITSCANS);
    /* a warning (a truncated file) still leaves pixels; `why` says what was damaged */
    bool ok = rc == 0 || tjGetErrorCode(h) == TJERR_WARNING;
    if (rc != 0) why(j, "JPEG: %s", tjGetErrorStr2(h));
    tjDestroy(h);
    return ok;
}

static bool decode_stb(orri_gltf_image_job *j)
{
    int w = 0, h = 0, comp = 0;
    uint8_t *px = stbi_load_from_memory(j->bytes, (int)j->size, &w, &h, &comp, 4);
    bool ok = px && (uint32_t)w == j->width && (uint32_t)h == j->height;
    if (ok) memcpy(j->rgba, px, (size_t)j->width * j->height * 4);
    stbi_image_free(px);
    return ok;
}

void orri_gltf_image_decode(orri_gltf_image_job *j)
{
    bool ok, damaged = false;
    switch (j->format) {
    case ORRI_IMAGE_PNG: ok = decode_png(j, &damaged); break;
    case ORRI_IMAGE_JPEG: ok = decode_jpeg(j); break;
    case ORRI_IMAGE_WEBP: {
        WebPBitstreamFeatures f;
        if (WebPGetFeatures(j->bytes, j->size, &f) == VP8_STATUS_OK && f.has_animation) {
            why(j, "WebP: an animated WebP, which is not decoded%s", NULL);
            ok = false, j->unsupported = true;
            break;
        }
        ok = WebPDecodeRGBAInto(j->bytes, j->size, j->rgba, (size_t)j->width * j->height * 4, (int)j->width * 4) != NULL;
        if (!ok) why(j, "WebP: the data does not decode%s", NULL);
        break;
    }
    default: ok = false; break;
    }
    /* what the fast decoder refuses (a CMYK JPEG, an odd PNG) stb may still read */
    if (!ok && !damaged && !j->unsupported && j->size <= 0x7fffffff && decode_stb(j)) ok = true, j->why[0] = 0;
    if (!ok && !j->why[0]) why(j, "cannot be decoded%s", NULL);
    j->ok = ok;
}
