/* Resources as little-endian bytes and back (the resource payloads of a recording, docs/recording.md).
 * Every field is a 32-bit little-endian word (floats by their bits) unless said otherwise; a name is
 * its length and its bytes, padded with zeros to a multiple of 4, so that every stream after it starts
 * on a 4-byte boundary of the payload. Little-endian hosts only (the byte order is the host's). */
#include "core/internal.h"

#include <orrery/assets.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the resource payloads are the host's byte order");

/* ---- writing ------------------------------------------------------------------------------- */

typedef struct writer {
    uint8_t *out;
    size_t capacity, size; /* size counts past capacity: the encoding's whole size */
} writer;

static void put(writer *w, const void *bytes, size_t n)
{
    if (n && w->out && w->size + n <= w->capacity) memcpy(w->out + w->size, bytes, n);
    w->size += n;
}

static void put_u32(writer *w, uint32_t v) { put(w, &v, 4); }
static void put_f32(writer *w, float v) { put(w, &v, 4); }

static void put_name(writer *w, const char *name)
{
    uint32_t n = name ? (uint32_t)strlen(name) : 0;
    static const uint8_t zeros[4] = {0};
    put_u32(w, n);
    put(w, name, n);
    put(w, zeros, (4 - n % 4) % 4);
}

/* Stream bits of a primitive payload, in the order the streams follow. */
enum {
    S_POSITIONS = 1u << 0,
    S_NORMALS = 1u << 1,
    S_TANGENTS = 1u << 2,
    S_TEXCOORDS0 = 1u << 3,
    S_TEXCOORDS1 = 1u << 4,
    S_COLORS = 1u << 5,
    S_JOINTS = 1u << 6,
    S_WEIGHTS = 1u << 7,
    S_PACKED_POSITIONS = 1u << 8,
    S_PACKED_NORMALS = 1u << 9,
    S_ALL = (1u << 10) - 1,
};

size_t orr_assets_encode_mesh(const orr_assets *assets, orr_mesh_id id, void *out, size_t capacity)
{
    const orr_mesh *m = orr_assets_try_get_mesh(assets, id);
    if (!m) return 0;
    writer w = {out, capacity, 0};
    put_name(&w, m->name);
    put_u32(&w, m->primitive_count);
    put_u32(&w, m->meshlet_count ? 1u : 0u);
    put_u32(&w, m->weight_count);
    put(&w, m->weights, (size_t)m->weight_count * 4);
    for (uint32_t p = 0; p < m->primitive_count; p++) {
        const orr_primitive *pr = &m->primitives[p];
        uint32_t bits = (pr->positions ? S_POSITIONS : 0) | (pr->normals ? S_NORMALS : 0) | (pr->tangents ? S_TANGENTS : 0) |
                        (pr->texcoords0 ? S_TEXCOORDS0 : 0) | (pr->texcoords1 ? S_TEXCOORDS1 : 0) |
                        (pr->colors ? S_COLORS : 0) | (pr->joints ? S_JOINTS : 0) | (pr->weights ? S_WEIGHTS : 0) |
                        (pr->packed_positions.data ? S_PACKED_POSITIONS : 0) |
                        (pr->packed_normals.data ? S_PACKED_NORMALS : 0);
        size_t v = pr->vertex_count;
        put_u32(&w, pr->vertex_count);
        put_u32(&w, pr->index_count);
        put_u32(&w, (uint32_t)pr->topology);
        put_u32(&w, pr->material.index);
        put_u32(&w, pr->material.generation);
        put_u32(&w, pr->target_count);
        put_u32(&w, bits);
        put_u32(&w, (uint32_t)pr->packed_positions.packing);
        put_u32(&w, (uint32_t)pr->packed_normals.packing);
        put(&w, pr->positions, bits & S_POSITIONS ? v * 12 : 0);
        put(&w, pr->normals, bits & S_NORMALS ? v * 12 : 0);
        put(&w, pr->tangents, bits & S_TANGENTS ? v * 16 : 0);
        put(&w, pr->texcoords0, bits & S_TEXCOORDS0 ? v * 8 : 0);
        put(&w, pr->texcoords1, bits & S_TEXCOORDS1 ? v * 8 : 0);
        put(&w, pr->colors, bits & S_COLORS ? v * 16 : 0);
        put(&w, pr->joints, bits & S_JOINTS ? v * 8 : 0);
        put(&w, pr->weights, bits & S_WEIGHTS ? v * 16 : 0);
        put(&w, pr->packed_positions.data, bits & S_PACKED_POSITIONS ? v * orr_packing_bytes(pr->packed_positions.packing) : 0);
        put(&w, pr->packed_normals.data, bits & S_PACKED_NORMALS ? v * orr_packing_bytes(pr->packed_normals.packing) : 0);
        put(&w, pr->indices, (size_t)pr->index_count * 4);
        for (uint32_t t = 0; t < pr->target_count; t++) {
            put(&w, pr->targets[t].positions, v * 12);
            put(&w, pr->targets[t].normals, v * 12);
            put(&w, pr->targets[t].tangents, v * 12);
        }
    }
    return w.size;
}

static void put_ref(writer *w, const orr_texture_ref *r)
{
    put_u32(w, r->texture.index);
    put_u32(w, r->texture.generation);
    put_u32(w, r->texcoord);
    put_f32(w, r->scale);
    put_f32(w, r->offset[0]);
    put_f32(w, r->offset[1]);
    put_f32(w, r->rotation);
    put_f32(w, r->uv_scale[0]);
    put_f32(w, r->uv_scale[1]);
}

size_t orr_assets_encode_material(const orr_assets *assets, orr_material_id id, void *out, size_t capacity)
{
    const orr_material *m = orr_assets_try_get_material(assets, id);
    if (!m) return 0;
    writer w = {out, capacity, 0};
    for (int c = 0; c < 4; c++) put_f32(&w, m->base_color[c]);
    put_f32(&w, m->metallic);
    put_f32(&w, m->roughness);
    for (int c = 0; c < 3; c++) put_f32(&w, m->emissive[c]);
    put_f32(&w, m->emissive_strength);
    put_f32(&w, m->alpha_cutoff);
    put_u32(&w, (uint32_t)m->alpha_mode);
    put_u32(&w, m->double_sided);
    put_u32(&w, m->unlit);
    put_ref(&w, &m->base_color_texture);
    put_ref(&w, &m->metallic_roughness_texture);
    put_ref(&w, &m->normal_texture);
    put_ref(&w, &m->occlusion_texture);
    put_ref(&w, &m->emissive_texture);
    put_u32(&w, (uint32_t)m->shading);
    put_u32(&w, m->fur.shell_count);
    put_f32(&w, m->fur.shell_length);
    put_f32(&w, m->fur.density);
    put_f32(&w, m->fur.thinning);
    put_u32(&w, m->fur.noise.index);
    put_u32(&w, m->fur.noise.generation);
    return w.size;
}

size_t orr_assets_encode_texture(const orr_assets *assets, orr_texture_id id, void *out, size_t capacity)
{
    const orr_texture *t = orr_assets_try_get_texture(assets, id);
    if (!t) return 0;
    writer w = {out, capacity, 0};
    put_name(&w, t->name);
    put_u32(&w, t->width);
    put_u32(&w, t->height);
    put_u32(&w, (uint32_t)t->color_space);
    put_u32(&w, (uint32_t)t->sampler.mag_filter);
    put_u32(&w, (uint32_t)t->sampler.min_filter);
    put_u32(&w, t->sampler.mipmaps);
    put_u32(&w, (uint32_t)t->sampler.wrap_s);
    put_u32(&w, (uint32_t)t->sampler.wrap_t);
    put_u32(&w, (uint32_t)t->target_key);
    put_u32(&w, (uint32_t)(t->target_key >> 32));
    put(&w, t->rgba8, t->rgba8 ? (size_t)t->width * t->height * 4 : 0);
    return w.size;
}

/* ---- reading ------------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *data;
    size_t size, at;
    const char *what; /* "mesh", "material", "texture" */
    orr_error *err;
    orr_result failed;
} reader;

static bool fail(reader *r, const char *field)
{
    if (r->failed == ORR_OK)
        r->failed = orri_error(r->err, ORR_ERROR_PARSE, "%s payload: %s at byte %zu runs past its %zu bytes", r->what,
                               field, r->at, r->size);
    return false;
}

static bool bad(reader *r, const char *field, size_t at, const char *why)
{
    if (r->failed == ORR_OK)
        r->failed = orri_error(r->err, ORR_ERROR_PARSE, "%s payload: %s at byte %zu %s", r->what, field, at, why);
    return false;
}

/* n bytes at the cursor (NULL, failing, when fewer are left). */
static const uint8_t *take(reader *r, uint64_t n, const char *field)
{
    if (r->failed != ORR_OK) return NULL;
    if (n > r->size - r->at) return fail(r, field), NULL;
    const uint8_t *p = r->data + r->at;
    r->at += (size_t)n;
    return p;
}

static uint32_t get_u32(reader *r, const char *field)
{
    const uint8_t *p = take(r, 4, field);
    uint32_t v = 0;
    if (p) memcpy(&v, p, 4);
    return v;
}

static float get_f32(reader *r, const char *field)
{
    const uint8_t *p = take(r, 4, field);
    float v = 0;
    if (p) memcpy(&v, p, 4);
    return v;
}

/* A name, copied NUL-terminated into `buf` (names longer than it are cut; one holding a NUL is refused). */
static bool get_name(reader *r, char *buf, size_t cap)
{
    size_t at = r->at;
    uint32_t n = get_u32(r, "name length");
    const uint8_t *p = take(r, (uint64_t)n + (4 - n % 4) % 4, "name");
    if (!p) return false;
    if (memchr(p, 0, n)) return bad(r, "name", at, "holds a NUL byte");
    size_t keep = n < cap - 1 ? n : cap - 1;
    memcpy(buf, p, keep);
    buf[keep] = 0;
    return true;
}

/* A copy of `n` bytes at the cursor in the library's stream memory (4-byte aligned), or NULL. */
static void *take_stream(orr_assets *assets, reader *r, uint64_t n, const char *field)
{
    const uint8_t *p = take(r, n, field);
    if (!p || !n) return NULL;
    void *copy = orr_assets_stream_alloc(assets, (size_t)n);
    if (!copy) {
        r->failed = orri_error(r->err, ORR_ERROR_OUT_OF_MEMORY, "%s payload: out of memory for %s", r->what, field);
        return NULL;
    }
    memcpy(copy, p, (size_t)n);
    return copy;
}

static orr_material_id remap_material(const orr_resource_remap *m, orr_material_id id)
{
    return m && m->material && !orr_id_is_none(id) ? m->material(m->user, id) : id;
}

static orr_texture_id remap_texture(const orr_resource_remap *m, orr_texture_id id)
{
    return m && m->texture && !orr_id_is_none(id) ? m->texture(m->user, id) : id;
}

#define MAX_PRIMITIVES 65536u /* a payload's primitives (each at least 36 bytes of it anyway) */
#define MAX_TARGETS 4096u     /* a primitive's morph targets (their descriptions are allocated by count) */

/* The streams a primitive's payload hands over (owned) or lends (targets), released on failure. */
typedef struct primitive_streams {
    void *stream[11]; /* positions .. packed normals, indices */
    size_t bytes[11];
    float *targets;   /* 9 floats a vertex a target: positions, normals, tangents */
    size_t target_bytes;
    orr_morph_target_desc *target_descs;
    size_t target_desc_bytes;
} primitive_streams;

static void release_streams(orr_assets *assets, primitive_streams *ps, uint32_t n, uint32_t keep_owned)
{
    for (uint32_t p = 0; p < n; p++) {
        if (!keep_owned)
            for (int k = 0; k < 11; k++)
                if (ps[p].stream[k]) orr_assets_stream_free(assets, ps[p].stream[k], ps[p].bytes[k]);
        if (ps[p].targets) orr_assets_stream_free(assets, ps[p].targets, ps[p].target_bytes);
        if (ps[p].target_descs) orr_assets_stream_free(assets, ps[p].target_descs, ps[p].target_desc_bytes);
    }
}

orr_result orr_assets_decode_mesh(orr_assets *assets, const void *bytes, size_t size, const orr_resource_remap *remap,
                                  orr_mesh_id *out, orr_error *err)
{
    ORRI_ASSERT(assets && (bytes || !size) && out, "orr_assets_decode_mesh: assets, bytes and out");
    reader r = {bytes, size, 0, "mesh", err, ORR_OK};
    char name[256];
    get_name(&r, name, sizeof name);
    size_t at = r.at;
    uint32_t primitive_count = get_u32(&r, "primitive count");
    uint32_t meshlets = get_u32(&r, "meshlets");
    uint32_t weight_count = get_u32(&r, "weight count");
    if (r.failed != ORR_OK) return r.failed;
    if (primitive_count > MAX_PRIMITIVES || (uint64_t)primitive_count * 36 > size - r.at)
        return bad(&r, "primitive count", at, "is more than the payload holds"), r.failed;
    if (meshlets > 1) return bad(&r, "meshlets", at + 4, "is neither 0 nor 1"), r.failed;
    float *weights = take_stream(assets, &r, (uint64_t)weight_count * 4, "weights");
    if (r.failed != ORR_OK) return r.failed;
    orr_allocator alloc = orr_assets_allocator(assets);
    size_t list_bytes = (size_t)(primitive_count ? primitive_count : 1) * (sizeof(orr_primitive_desc) + sizeof(primitive_streams));
    uint8_t *lists = orri_alloc(&alloc, list_bytes);
    if (!lists) {
        if (weights) orr_assets_stream_free(assets, weights, (size_t)weight_count * 4);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "mesh payload: out of memory");
    }
    orr_primitive_desc *prims = (orr_primitive_desc *)lists;
    primitive_streams *ps = (primitive_streams *)(lists + (size_t)(primitive_count ? primitive_count : 1) * sizeof *prims);
    for (uint32_t p = 0; p < primitive_count && r.failed == ORR_OK; p++) {
        orr_primitive_desc *d = &prims[p];
        size_t start = r.at;
        d->vertex_count = get_u32(&r, "vertex count");
        d->index_count = get_u32(&r, "index count");
        uint32_t topology = get_u32(&r, "topology");
        orr_material_id material = {get_u32(&r, "material"), 0};
        material.generation = get_u32(&r, "material");
        d->target_count = get_u32(&r, "target count");
        uint32_t bits = get_u32(&r, "streams");
        uint32_t pp = get_u32(&r, "position packing"), pn = get_u32(&r, "normal packing");
        if (r.failed != ORR_OK) break;
        if (topology > ORR_TOPOLOGY_LINE_LOOP) { bad(&r, "topology", start + 8, "is not a topology"); break; }
        if (d->target_count > MAX_TARGETS || (d->target_count && !d->vertex_count)) {
            bad(&r, "target count", start + 20, "is more than 4096, or names targets of no vertices");
            break;
        }
        if (bits & ~(uint32_t)S_ALL) { bad(&r, "streams", start + 24, "has unknown bits"); break; }
        uint32_t ppb = orr_packing_bytes((orr_packing)pp), pnb = orr_packing_bytes((orr_packing)pn);
        if (!(bits & S_PACKED_POSITIONS) != !ppb || !(bits & S_PACKED_NORMALS) != !pnb) {
            bad(&r, "packing", start + 28, "does not match the packed streams");
            break;
        }
        uint64_t v = d->vertex_count;
        static const uint32_t per_vertex[8] = {12, 12, 16, 8, 8, 16, 8, 16};
        static const char *const names[11] = {"positions", "normals", "tangents", "texcoords0", "texcoords1", "colors",
                                               "joints", "weights", "packed positions", "packed normals", "indices"};
        for (int k = 0; k < 11 && r.failed == ORR_OK; k++) {
            uint64_t n = k < 8 ? (bits & (1u << k) ? v * per_vertex[k] : 0)
                         : k == 8 ? (bits & S_PACKED_POSITIONS ? v * ppb : 0)
                         : k == 9 ? (bits & S_PACKED_NORMALS ? v * pnb : 0)
                                  : (uint64_t)d->index_count * 4;
            ps[p].stream[k] = take_stream(assets, &r, n, names[k]);
            ps[p].bytes[k] = (size_t)n;
        }
        if (r.failed != ORR_OK) break;
        uint64_t tb = (uint64_t)d->target_count * v * 36;
        if (tb > size - r.at) { fail(&r, "morph targets"); break; }
        ps[p].targets = take_stream(assets, &r, tb, "morph targets");
        ps[p].target_bytes = (size_t)tb;
        if (d->target_count) {
            ps[p].target_desc_bytes = (size_t)d->target_count * sizeof(orr_morph_target_desc);
            ps[p].target_descs = orr_assets_stream_alloc(assets, ps[p].target_desc_bytes);
            if (!ps[p].target_descs) {
                r.failed = orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "mesh payload: out of memory");
                break;
            }
            for (uint32_t t = 0; t < d->target_count; t++) {
                const float *base = ps[p].targets + (size_t)t * v * 9;
                ps[p].target_descs[t] = (orr_morph_target_desc){base, base + v * 3, base + v * 6};
            }
        }
        d->topology = (orr_topology)topology;
        d->material = remap_material(remap, material);
        d->positions = ps[p].stream[0];
        d->normals = ps[p].stream[1];
        d->tangents = ps[p].stream[2];
        d->texcoords0 = ps[p].stream[3];
        d->texcoords1 = ps[p].stream[4];
        d->colors = ps[p].stream[5];
        d->joints = ps[p].stream[6];
        d->weights = ps[p].stream[7];
        d->packed_positions = (orr_packed_stream){ps[p].stream[8], bits & S_PACKED_POSITIONS ? (orr_packing)pp : ORR_PACKING_NONE};
        d->packed_normals = (orr_packed_stream){ps[p].stream[9], bits & S_PACKED_NORMALS ? (orr_packing)pn : ORR_PACKING_NONE};
        d->indices = ps[p].stream[10];
        d->targets = ps[p].target_descs;
        d->owned = (d->positions || d->packed_positions.data ? ORR_OWN_POSITIONS : 0) |
                   (d->normals || d->packed_normals.data ? ORR_OWN_NORMALS : 0) | (d->tangents ? ORR_OWN_TANGENTS : 0) |
                   (d->texcoords0 ? ORR_OWN_TEXCOORDS0 : 0) | (d->texcoords1 ? ORR_OWN_TEXCOORDS1 : 0) |
                   (d->colors ? ORR_OWN_COLORS : 0) | (d->joints ? ORR_OWN_JOINTS : 0) |
                   (d->weights ? ORR_OWN_WEIGHTS : 0) | (d->indices ? ORR_OWN_INDICES : 0);
    }
    if (r.failed == ORR_OK && r.at != size) bad(&r, "the end", r.at, "is followed by more bytes");
    orr_result result = r.failed;
    bool added = false;
    if (result == ORR_OK) {
        orr_mesh_desc md = {.name = name[0] ? name : NULL, .primitive_count = primitive_count, .primitives = prims,
                            .weight_count = weight_count, .weights = weights, .build_meshlets = meshlets == 1};
        result = orr_assets_add_mesh(assets, &md, out);
        if (result != ORR_OK) orri_error(err, result, "mesh payload: %s", orr_assets_last_error(assets)->message);
        added = result == ORR_OK;
    }
    release_streams(assets, ps, primitive_count, added);
    if (weights) orr_assets_stream_free(assets, weights, (size_t)weight_count * 4);
    orri_free(&alloc, lists, list_bytes);
    return result;
}

static orr_texture_ref get_ref(reader *r, const orr_resource_remap *remap)
{
    orr_texture_ref t;
    t.texture.index = get_u32(r, "texture");
    t.texture.generation = get_u32(r, "texture");
    t.texture = remap_texture(remap, t.texture);
    t.texcoord = get_u32(r, "texcoord");
    t.scale = get_f32(r, "scale");
    t.offset[0] = get_f32(r, "offset");
    t.offset[1] = get_f32(r, "offset");
    t.rotation = get_f32(r, "rotation");
    t.uv_scale[0] = get_f32(r, "uv scale");
    t.uv_scale[1] = get_f32(r, "uv scale");
    return t;
}

orr_result orr_assets_decode_material(orr_assets *assets, const void *bytes, size_t size,
                                      const orr_resource_remap *remap, orr_material_id *out, orr_error *err)
{
    ORRI_ASSERT(assets && (bytes || !size) && out, "orr_assets_decode_material: assets, bytes and out");
    reader r = {bytes, size, 0, "material", err, ORR_OK};
    orr_material m = orr_material_default();
    for (int c = 0; c < 4; c++) m.base_color[c] = get_f32(&r, "base color");
    m.metallic = get_f32(&r, "metallic");
    m.roughness = get_f32(&r, "roughness");
    for (int c = 0; c < 3; c++) m.emissive[c] = get_f32(&r, "emissive");
    m.emissive_strength = get_f32(&r, "emissive strength");
    m.alpha_cutoff = get_f32(&r, "alpha cutoff");
    size_t at = r.at;
    uint32_t mode = get_u32(&r, "alpha mode"), two = get_u32(&r, "double sided"), unlit = get_u32(&r, "unlit");
    m.base_color_texture = get_ref(&r, remap);
    m.metallic_roughness_texture = get_ref(&r, remap);
    m.normal_texture = get_ref(&r, remap);
    m.occlusion_texture = get_ref(&r, remap);
    m.emissive_texture = get_ref(&r, remap);
    size_t shading_at = r.at;
    uint32_t shading = get_u32(&r, "shading");
    m.fur.shell_count = get_u32(&r, "fur shell count");
    m.fur.shell_length = get_f32(&r, "fur shell length");
    m.fur.density = get_f32(&r, "fur density");
    m.fur.thinning = get_f32(&r, "fur thinning");
    m.fur.noise.index = get_u32(&r, "fur noise");
    m.fur.noise.generation = get_u32(&r, "fur noise");
    m.fur.noise = remap_texture(remap, m.fur.noise);
    if (r.failed != ORR_OK) return r.failed;
    if (mode > ORR_ALPHA_BLEND) return bad(&r, "alpha mode", at, "is not an alpha mode"), r.failed;
    if (two > 1 || unlit > 1) return bad(&r, "double sided or unlit", at + 4, "is neither 0 nor 1"), r.failed;
    if (shading > ORR_SHADING_FUR) return bad(&r, "shading", shading_at, "is not a shading mode"), r.failed;
    if (r.at != size) return bad(&r, "the end", r.at, "is followed by more bytes"), r.failed;
    m.alpha_mode = (orr_alpha_mode)mode;
    m.double_sided = two;
    m.unlit = unlit;
    m.shading = (orr_shading)shading;
    orr_result result = orr_assets_add_material(assets, &m, out);
    if (result != ORR_OK) orri_error(err, result, "material payload: %s", orr_assets_last_error(assets)->message);
    return result;
}

orr_result orr_assets_decode_texture(orr_assets *assets, const void *bytes, size_t size, orr_texture_id *out,
                                     orr_error *err)
{
    ORRI_ASSERT(assets && (bytes || !size) && out, "orr_assets_decode_texture: assets, bytes and out");
    reader r = {bytes, size, 0, "texture", err, ORR_OK};
    char name[256];
    get_name(&r, name, sizeof name);
    size_t at = r.at;
    uint32_t width = get_u32(&r, "width"), height = get_u32(&r, "height");
    uint32_t v[6];
    static const char *const fields[6] = {"color space", "mag filter", "min filter", "mipmaps", "wrap s", "wrap t"};
    static const uint32_t limit[6] = {1, 1, 1, 1, 2, 2};
    for (int k = 0; k < 6; k++) v[k] = get_u32(&r, fields[k]);
    uint64_t key = get_u32(&r, "target key");
    key |= (uint64_t)get_u32(&r, "target key") << 32;
    if (r.failed != ORR_OK) return r.failed;
    for (int k = 0; k < 6; k++)
        if (v[k] > limit[k]) return bad(&r, fields[k], at + 8 + 4 * (size_t)k, "is out of range"), r.failed;
    orr_sampler sampler = {(orr_filter)v[1], (orr_filter)v[2], v[3] != 0, (orr_wrap)v[4], (orr_wrap)v[5]};
    orr_result result;
    if (key) {
        if (width || height || r.at != size) return bad(&r, "target texture", at, "has pixels"), r.failed;
        result = orr_assets_add_target_texture(
            assets, &(orr_target_texture_desc){.name = name[0] ? name : NULL, .target_key = key, .sampler = sampler}, out);
    } else {
        uint64_t n = (uint64_t)width * height * 4;
        if (n != size - r.at) return bad(&r, "pixels", r.at, "are not width x height x 4 bytes to the end"), r.failed;
        result = orr_assets_add_texture(assets,
                                        &(orr_texture_desc){.name = name[0] ? name : NULL, .width = width, .height = height,
                                                            .rgba8 = r.data + r.at, .color_space = (orr_color_space)v[0],
                                                            .sampler = sampler},
                                        out);
    }
    if (result != ORR_OK) orri_error(err, result, "texture payload: %s", orr_assets_last_error(assets)->message);
    return result;
}
