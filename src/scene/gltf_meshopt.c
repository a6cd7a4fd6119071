/* EXT_meshopt_compression and KHR_meshopt_compression: one compressed buffer view decoded with
 * meshoptimizer's decoders and filters. The JSON and the spec's layout rules are checked while parsing
 * (gltf_views.c); this only runs the codec, so that it can run on a worker (no allocation, no log). A
 * large triangle or attribute view decodes on several threads itself (gltf_meshopt_tri.c,
 * gltf_meshopt_vtx.c). */
#include "scene/gltf_internal.h"

#include <meshoptimizer.h>
#include <stdio.h>

bool orri_gltf_meshopt_decode(orri_gltf_meshopt_view *v)
{
    /* the filters apply to attributes only (the index modes take none: parse_view_meshopt) */
    static void (*const filters[])(void *, size_t, size_t) = {
        [ORRI_MESHOPT_FILTER_OCTAHEDRAL] = meshopt_decodeFilterOct,
        [ORRI_MESHOPT_FILTER_QUATERNION] = meshopt_decodeFilterQuat,
        [ORRI_MESHOPT_FILTER_EXPONENTIAL] = meshopt_decodeFilterExp,
    };
    int rc;
    v->why = NULL;
    if (v->mode == ORRI_MESHOPT_ATTRIBUTES) {
        /* the stream's version byte: 0xa0 is version 0 (both extensions); the packaged meshoptimizer
         * decodes that one only, and says nothing better than -1 about another */
        if (v->src_size && (v->src[0] & 0xf0) == 0xa0 && (v->src[0] & 0x0f) > 0) {
            snprintf(v->why_buf, sizeof v->why_buf,
                     "attribute stream version %d (header 0x%02x), which meshoptimizer %d.%d cannot decode",
                     v->src[0] & 0x0f, v->src[0], MESHOPTIMIZER_VERSION / 1000, MESHOPTIMIZER_VERSION % 1000 / 10);
            v->why = v->why_buf;
            return false;
        }
        orri_meshopt_vtx_desc d = {.dst = v->dst, .vertex_count = v->count, .vertex_size = v->stride, .src = v->src,
                                   .size = v->src_size, .filter = filters[v->filter], .threads = v->threads,
                                   .workers = v->workers, .scratch = v->vtx};
        rc = orri_meshopt_decode_vertices(&d);
        v->split = d.split > 1;
    } else if (v->mode == ORRI_MESHOPT_TRIANGLES) {
        orri_meshopt_tri_desc d = {.dst = v->dst, .index_count = v->count, .index_size = v->stride, .src = v->src,
                                   .size = v->src_size, .threads = v->threads, .workers = v->workers,
                                   .scratch = v->tri, .scratch_chunks = v->tri_chunks};
        rc = orri_meshopt_decode_triangles(&d);
        v->split = d.split > 1;
        v->max_known = rc == 0 && d.max_known, v->max = d.max;
    } else {
        rc = meshopt_decodeIndexSequence(v->dst, v->count, v->stride, v->src, v->src_size);
    }
    if (rc != 0) {
        v->why = rc == -2 ? "the compressed data is too short for the declared count" : "the compressed data is malformed";
        return false;
    }
    return true;
}
