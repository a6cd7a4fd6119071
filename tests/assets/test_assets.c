/* The asset library: meshes (defaults, generated normals, topology conversion, bounds, meshlets,
 * shared default streams), materials (default, clone, edit revisions), textures, skins, clips,
 * prefabs, and that every allocation goes through the caller's allocator and is returned. */
#include "assets_tests.h"

#include <math.h>
#include <orrery/assets.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static orr_assets *make(orrt_counter *c) /* bytes outstanding must reach zero after destroy */
{
    orr_assets_desc d = {.allocator = {orrt_counting_realloc, c}};
    orr_assets *a;
    assert_int_equal(orr_assets_create(c ? &d : NULL, &a, NULL), ORR_OK);
    return a;
}

static const float quad_pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};

static void test_mesh_defaults_and_normals(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc p = {.vertex_count = 4, .positions = quad_pos, .index_count = 6, .indices = idx};
    orr_mesh_desc md = {.name = "quad", .primitive_count = 1, .primitives = &p};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id);
    assert_non_null(m);
    assert_string_equal(m->name, "quad");
    const orr_primitive *pr = &m->primitives[0];
    assert_true(orr_id_eq(pr->material, orr_assets_default_material(a)));
    for (int v = 0; v < 4; v++) assert_true(fabsf(pr->normals[v * 3 + 2] - 1.0f) < 1e-6f); /* flat: +Z */
    /* streams the desc did not give are absent, not zeros held per primitive */
    assert_true(!pr->tangents && !pr->texcoords0 && !pr->texcoords1 && !pr->colors && !pr->weights && !pr->joints);
    assert_true(pr->bounds.min.x == 0.0f && pr->bounds.max.y == 1.0f);
    assert_true(m->bounds.max.x == 1.0 && m->bounds.min.z == 0.0);
    assert_true(fabs(m->sphere_center.x - 0.5) < 1e-12 && fabs(m->sphere_radius - sqrt(0.5)) < 1e-6);
    assert_int_equal(orr_assets_mesh_count(a), 1);
    /* a second mesh holds streams of its own */
    orr_mesh_id id2;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id2), ORR_OK);
    const orr_mesh *m2 = orr_assets_try_get_mesh(a, id2);
    m = orr_assets_try_get_mesh(a, id);
    assert_ptr_not_equal(m->primitives[0].positions, m2->primitives[0].positions);
    assert_ptr_not_equal(m->primitives[0].normals, m2->primitives[0].normals);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

/* Streams handed over (orr_primitive_desc.owned) are kept, not copied, when the add succeeds; stay the
 * caller's when it fails; and one the primitive does not keep (flat normals make new streams, a fan new
 * indices) is released:
 * the counting allocator ends at zero, every block freed once at its size. */
static void test_streams_handed_over(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    float *pos = orr_assets_stream_alloc(a, sizeof quad_pos), *nrm = orr_assets_stream_alloc(a, 48);
    float *uv = orr_assets_stream_alloc(a, 32);
    assert_true(pos && nrm && uv);
    memcpy(pos, quad_pos, sizeof quad_pos);
    for (int v = 0; v < 4; v++) {
        nrm[v * 3] = nrm[v * 3 + 1] = 0.0f, nrm[v * 3 + 2] = 1.0f;
        uv[v * 2] = quad_pos[v * 3], uv[v * 2 + 1] = quad_pos[v * 3 + 1];
    }
    orr_primitive_desc p = {.vertex_count = 4, .positions = pos, .normals = nrm, .texcoords0 = uv, .index_count = 6,
                            .indices = idx, .owned = ORR_OWN_POSITIONS | ORR_OWN_NORMALS | ORR_OWN_TEXCOORDS0};
    orr_mesh_desc md = {.name = "quad", .primitive_count = 1, .primitives = &p};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_OK);
    const orr_primitive *pr = &orr_assets_try_get_mesh(a, id)->primitives[0];
    assert_ptr_equal(pr->positions, pos);
    assert_ptr_equal(pr->normals, nrm);
    assert_ptr_equal(pr->texcoords0, uv);
    assert_true(pr->bounds.max.x == 1.0f && pr->texcoords0[5] == 1.0f);

    /* refused (an index past the vertices): the stream is still the caller's to use and release */
    float *pos2 = orr_assets_stream_alloc(a, sizeof quad_pos);
    memcpy(pos2, quad_pos, sizeof quad_pos);
    uint32_t bad[3] = {0, 1, 9};
    orr_primitive_desc p2 = {.vertex_count = 4, .positions = pos2, .normals = quad_pos, .index_count = 3,
                             .indices = bad, .owned = ORR_OWN_POSITIONS};
    md.primitives = &p2;
    orr_mesh_id id2;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id2), ORR_ERROR_INVALID_ARGUMENT);
    pos2[0] = 2.0f;
    orr_assets_stream_free(a, pos2, sizeof quad_pos);

    /* flat normals: the primitive is unwelded into new streams, the handed-over positions released */
    float *pos3 = orr_assets_stream_alloc(a, sizeof quad_pos);
    memcpy(pos3, quad_pos, sizeof quad_pos);
    orr_primitive_desc p3 = {.vertex_count = 4, .positions = pos3, .index_count = 6, .indices = idx,
                             .owned = ORR_OWN_POSITIONS};
    md.primitives = &p3;
    orr_mesh_id id3;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id3), ORR_OK);
    const orr_primitive *flat = &orr_assets_try_get_mesh(a, id3)->primitives[0];
    assert_int_equal(flat->vertex_count, 6);
    assert_true(flat->positions != pos3 && flat->positions[5 * 3 + 1] == 1.0f);

    /* indices: kept as given for a list; a fan becomes a list of its own, the handed-over ones released */
    uint32_t *own_idx = orr_assets_stream_alloc(a, sizeof idx), *fan_idx = orr_assets_stream_alloc(a, 4 * 4);
    memcpy(own_idx, idx, sizeof idx);
    for (uint32_t k = 0; k < 4; k++) fan_idx[k] = k;
    orr_primitive_desc p4[2] = {
        {.vertex_count = 4, .positions = quad_pos, .normals = quad_pos, .index_count = 6, .indices = own_idx,
         .owned = ORR_OWN_INDICES},
        {.vertex_count = 4, .positions = quad_pos, .normals = quad_pos, .index_count = 4, .indices = fan_idx,
         .topology = ORR_TOPOLOGY_TRIANGLE_FAN, .owned = ORR_OWN_INDICES}};
    md.primitives = p4;
    md.primitive_count = 2;
    orr_mesh_id id4;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id4), ORR_OK);
    const orr_mesh *m4 = orr_assets_try_get_mesh(a, id4);
    assert_ptr_equal(m4->primitives[0].indices, own_idx);
    assert_int_equal(m4->primitives[1].index_count, 6);
    assert_true(m4->primitives[1].indices != fan_idx && m4->primitives[1].indices[5] == 0);

    assert_int_equal(orr_assets_remove_mesh(a, id), ORR_OK);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

/* Pixels handed over (orr_texture_desc.owned) are the texture's, not a copy, when the add succeeds, and
 * stay the caller's when it fails; a texture's pixels given the usual way are copied. The counting
 * allocator ends at zero, every block freed once at its size. */
static void test_texture_pixels_handed_over(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    enum { W = 3, H = 2 };
    uint8_t *px = orr_assets_stream_alloc(a, W * H * 4);
    assert_non_null(px);
    for (int k = 0; k < W * H * 4; k++) px[k] = (uint8_t)(k * 11);
    orr_texture_id id, copied;
    assert_int_equal(orr_assets_add_texture(a, &(orr_texture_desc){.name = "own", .width = W, .height = H, .rgba8 = px,
                                                                     .owned = true}, &id), ORR_OK);
    const orr_texture *t = orr_assets_try_get_texture(a, id);
    assert_ptr_equal(t->rgba8, px);
    assert_true(t->width == W && t->height == H && t->rgba8[23] == (uint8_t)(23 * 11));
    uint8_t mine[W * H * 4] = {7};
    assert_int_equal(orr_assets_add_texture(a, &(orr_texture_desc){.width = W, .height = H, .rgba8 = mine}, &copied), ORR_OK);
    t = orr_assets_try_get_texture(a, copied);
    assert_true(t->rgba8 != mine && t->rgba8[0] == 7);

    /* refused (too wide): the pixels are still the caller's to use and release */
    uint8_t *wide = orr_assets_stream_alloc(a, 4);
    assert_int_equal(orr_assets_add_texture(a, &(orr_texture_desc){.width = 16385, .height = 1, .rgba8 = wide, .owned = true}, &id),
                     ORR_ERROR_INVALID_ARGUMENT);
    wide[0] = 1;
    orr_assets_stream_free(a, wide, 4);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

/* A large primitive's index check, bounds and bounding sphere run in ranges on orr_mesh_desc.threads
 * threads: the same bits at any count (a -0 and a +0 among the extremes included), and the same bad
 * index named. */
static void test_threads_give_the_same_mesh(void **state)
{
    (void)state;
    enum { V = 300000, I = 600000 };
    float *pos = malloc((size_t)V * 12);
    uint32_t *idx = malloc((size_t)I * 4);
    uint64_t x = 88172645463325252u;
    for (size_t k = 0; k < (size_t)V * 3; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pos[k] = (float)(x % 200001) * 0.01f; /* 0 .. 2000 */
    }
    pos[5 * 3] = 0.0f, pos[200000 * 3] = -0.0f; /* the smallest x, as +0 first and -0 in a later range */
    for (size_t k = 0; k < I; k++) idx[k] = (uint32_t)((k * 7919) % V);
    orr_primitive_desc p = {.vertex_count = V, .positions = pos, .normals = pos, .index_count = I, .indices = idx};
    orr_mesh_desc md = {.primitive_count = 1, .primitives = &p};
    orr_assets *a = make(NULL);
    orr_aabbf first_box;
    double first_radius = 0;
    uint32_t counts[] = {1, 2, 3, 7};
    for (int c = 0; c < 4; c++) {
        md.threads = counts[c];
        orr_mesh_id id;
        assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_OK);
        const orr_mesh *m = orr_assets_try_get_mesh(a, id);
        orr_aabbf box = m->primitives[0].bounds;
        if (c == 0) {
            first_box = box, first_radius = m->sphere_radius;
            assert_true(box.min.x == 0.0f && !signbit(box.min.x) && box.max.x <= 2000.0f);
        } else {
            if (memcmp(&box, &first_box, sizeof box)) fail_msg("%u threads: other bounds", counts[c]);
            if (m->sphere_radius != first_radius) fail_msg("%u threads: radius %.17g, not %.17g", counts[c], m->sphere_radius, first_radius);
        }
        assert_int_equal(orr_assets_remove_mesh(a, id), ORR_OK);
    }
    idx[500000] = V; /* past the vertices: refused, naming it, at any count */
    for (int c = 0; c < 4; c++) {
        md.threads = counts[c];
        orr_mesh_id id;
        assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_ERROR_INVALID_ARGUMENT);
        if (!strstr(orr_assets_last_error(a)->message, "index 500000 is 300000"))
            fail_msg("%u threads: %s", counts[c], orr_assets_last_error(a)->message);
    }
    orr_assets_destroy(a);
    free(pos), free(idx);
}

static void test_topology_conversion(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    orr_primitive_desc fan = {.vertex_count = 4, .positions = quad_pos, .topology = ORR_TOPOLOGY_TRIANGLE_FAN};
    orr_primitive_desc loop = {.vertex_count = 4, .positions = quad_pos, .topology = ORR_TOPOLOGY_LINE_LOOP};
    orr_primitive_desc prims[2] = {fan, loop};
    orr_mesh_desc md = {.primitive_count = 2, .primitives = prims};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id);
    assert_int_equal(m->primitives[0].topology, ORR_TOPOLOGY_TRIANGLES);
    assert_int_equal(m->primitives[0].index_count, 6);
    assert_int_equal(m->primitives[1].topology, ORR_TOPOLOGY_LINES);
    assert_int_equal(m->primitives[1].index_count, 8);
    assert_int_equal(m->primitives[1].indices[7], 0); /* the loop closes */
    /* an index past the vertices is refused, with a message */
    uint32_t bad[3] = {0, 1, 9};
    orr_primitive_desc p = {.vertex_count = 4, .positions = quad_pos, .index_count = 3, .indices = bad};
    orr_mesh_desc md2 = {.name = "bad", .primitive_count = 1, .primitives = &p};
    assert_int_equal(orr_assets_add_mesh(a, &md2, &id), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "index 2 is 9"));
    orr_assets_destroy(a);
}

/* A fan or loop whose list would hold more than UINT32_MAX indices is refused (CAPACITY, named)
 * before a byte of it is read: 3(n-2) and 2n used to wrap in 32 bits and overflow the heap. The
 * indices are an untouched reservation, so the test costs no memory. */
static void test_topology_expansion_overflow(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    size_t n = 1431655768u; /* 3(n-2) = 2^32 + 2 */
    void *res = mmap(NULL, n * 4, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(res != MAP_FAILED);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    orr_primitive_desc fan = {.vertex_count = 4, .positions = quad_pos, .index_count = (uint32_t)n, .indices = res,
                              .topology = ORR_TOPOLOGY_TRIANGLE_FAN};
    orr_mesh_desc md = {.name = "fan", .primitive_count = 1, .primitives = &fan};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "triangle fan"));
    orr_primitive_desc loop = fan;
    loop.topology = ORR_TOPOLOGY_LINE_LOOP;
    loop.index_count = 0x80000001u; /* 2n = 2^32 + 2 */
    md.primitives = &loop;
    assert_true((size_t)loop.index_count * 4 <= n * 4 * 2);
    munmap(res, n * 4);
    res = mmap(NULL, (size_t)loop.index_count * 4, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(res != MAP_FAILED);
    loop.indices = res;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "line loop"));
    getrusage(RUSAGE_SELF, &after);
    assert_true(after.ru_maxrss - before.ru_maxrss < 64 * 1024); /* KiB: nothing was read or copied */
    munmap(res, (size_t)loop.index_count * 4);
    assert_int_equal(orr_assets_mesh_count(a), 0);
    orr_assets_destroy(a);
}

/* Missing normals are flat (glTF 3.7.2.1): the primitive is unwelded, each corner carries its face's
 * normal, strips and fans become lists in glTF's corner order, and given tangents are dropped. */
static void test_flat_normals_unweld(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    /* two triangles sharing the edge 1-2, one in z = 0, one folded up to (0,0,1) */
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const float tan[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    static const float uv[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    uint32_t list[6] = {0, 1, 2, 2, 1, 3}, strip[4] = {0, 1, 2, 3};
    orr_primitive_desc prims[2] = {
        {.vertex_count = 4, .positions = pos, .tangents = tan, .texcoords0 = uv, .index_count = 6, .indices = list},
        {.vertex_count = 4, .positions = pos, .texcoords0 = uv, .index_count = 4, .indices = strip,
         .topology = ORR_TOPOLOGY_TRIANGLE_STRIP},
    };
    orr_mesh_desc md = {.primitive_count = 2, .primitives = prims};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id);
    for (int pi = 0; pi < 2; pi++) {
        const orr_primitive *p = &m->primitives[pi];
        assert_int_equal(p->vertex_count, 6);
        assert_int_equal(p->index_count, 6);
        assert_int_equal(p->topology, ORR_TOPOLOGY_TRIANGLES);
        for (uint32_t t = 0; t < 2; t++) {
            const float *c0 = p->positions + (t * 3) * 3, *c1 = c0 + 3, *c2 = c0 + 6;
            float e1[3] = {c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]}, e2[3] = {c2[0] - c0[0], c2[1] - c0[1], c2[2] - c0[2]};
            float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int k = 0; k < 3; k++) {
                const float *nn = p->normals + (t * 3 + (uint32_t)k) * 3;
                for (int j = 0; j < 3; j++) assert_true(fabsf(nn[j] - n[j] / len) < 1e-6f);
                assert_int_equal(p->indices[t * 3 + (uint32_t)k], t * 3 + (uint32_t)k);
                assert_null(p->tangents); /* dropped */
            }
        }
        /* face 0 is z = 0 (+Z); face 1 is the fold, not the average of the two */
        assert_true(fabsf(p->normals[2] - 1.0f) < 1e-6f);
        assert_true(fabsf(p->normals[9 + 2] - 1.0f) > 0.1f);
        /* corners keep their vertex's other streams: corner 5 of the list is vertex 3 (uv 1,1) */
        if (pi == 0) assert_true(p->texcoords0[5 * 2] == 1.0f && p->texcoords0[5 * 2 + 1] == 1.0f);
    }
    /* strip order: triangle 1 is (v1, v3, v2), so corner 4 is vertex 3 */
    assert_true(m->primitives[1].positions[4 * 3 + 2] == 1.0f);
    /* too few vertices for a triangle: an empty primitive whose streams are the shared blocks (the
     * fuzzer found them freed twice when the shared block was empty) */
    orr_primitive_desc two = {.vertex_count = 2, .positions = pos};
    orr_mesh_desc md2 = {.primitive_count = 1, .primitives = &two};
    assert_int_equal(orr_assets_add_mesh(a, &md2, &id), ORR_OK);
    assert_int_equal(orr_assets_try_get_mesh(a, id)->primitives[0].vertex_count, 0);
    orr_assets_destroy(a);
    a = make(NULL);
    assert_int_equal(orr_assets_add_mesh(a, &md2, &id), ORR_OK); /* first: the shared blocks start empty */
    orr_assets_destroy(a);
}

/* A box the caller found (orr_primitive_desc.box) is the primitive's bounds, the same bits as the
 * library's own pass (debug builds check it against that pass); where the add rebuilds the positions
 * (flat normals: only the corners drawn) the box is the rebuilt ones', not the caller's. */
static void test_caller_box(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    static const float pos[15] = {-0.0f, 0, 0, 1, 0, 0, 0.0f, 1, 0, 0, 0, 1, 5, 5, 5};
    static const float nrm[15] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint32_t idx[6] = {0, 1, 2, 2, 1, 3};
    orr_aabbf box = {{-0.0f, 0, 0}, {5, 5, 5}}; /* x: -0 first, then +0 */
    orr_primitive_desc with = {.vertex_count = 5, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx, .box = &box};
    orr_primitive_desc without = with;
    without.box = NULL;
    orr_mesh_id id[2];
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &with}, &id[0]), ORR_OK);
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &without}, &id[1]), ORR_OK);
    const orr_mesh *m0 = orr_assets_try_get_mesh(a, id[0]), *m1 = orr_assets_try_get_mesh(a, id[1]);
    assert_memory_equal(&m0->primitives[0].bounds, &m1->primitives[0].bounds, sizeof(orr_aabbf));
    assert_true(signbit(m0->primitives[0].bounds.min.x) && m0->primitives[0].bounds.max.y == 5.0f);
    assert_true(m0->sphere_radius == m1->sphere_radius);
    /* flat normals: the unreferenced vertex (5, 5, 5) is not drawn, and not in the bounds */
    orr_primitive_desc flat = {.vertex_count = 5, .positions = pos, .index_count = 6, .indices = idx, .box = &box};
    orr_mesh_id fid;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &flat}, &fid), ORR_OK);
    const orr_primitive *fp = &orr_assets_try_get_mesh(a, fid)->primitives[0];
    assert_true(fp->bounds.max.x == 1.0f && fp->bounds.max.y == 1.0f && fp->bounds.max.z == 1.0f);
    orr_assets_destroy(a);
}

/* The indices' largest as the caller found it (orr_primitive_desc.max_index) spares the add its pass
 * over them (debug builds check it against that pass): an index past the vertices is still refused,
 * named as without it. */
static void test_caller_max_index(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint32_t idx[6] = {0, 1, 2, 2, 1, 3}, mx = 3;
    orr_primitive_desc d = {.vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx, .max_index = &mx};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "m", .primitive_count = 1, .primitives = &d}, &id), ORR_OK);
    assert_int_equal(orr_assets_try_get_mesh(a, id)->primitives[0].index_count, 6);
    idx[4] = 9, mx = 9;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "m", .primitive_count = 1, .primitives = &d}, &id),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "index 4 is 9, 4 vertices"));
    orr_assets_destroy(a);
}

/* A bounding sphere radius the caller found (orr_mesh_desc.sphere_r2) is the mesh's where every
 * primitive gives its box (debug builds check it against the library's pass); where one does not, the
 * library finds the radius itself and the caller's is not taken. */
static void test_caller_sphere(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    static const float pos[15] = {-1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0.5f, 0.25f, -4};
    static const float nrm[15] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint32_t idx[6] = {0, 1, 2, 2, 1, 3};
    orr_aabbf box = orr_aabbf_grow(orr_aabbf_empty(), pos, 5);
    /* the center of the box in binary64, rounded; the largest squared distance in binary32 */
    float c[3] = {(float)(((double)box.min.x + box.max.x) * 0.5), (float)(((double)box.min.y + box.max.y) * 0.5),
                  (float)(((double)box.min.z + box.max.z) * 0.5)};
    float r2 = 0.0f, bogus = 1e30f;
    for (int v = 0; v < 5; v++) {
        float dx = pos[v * 3] - c[0], dy = pos[v * 3 + 1] - c[1], dz = pos[v * 3 + 2] - c[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        r2 = d2 > r2 ? d2 : r2;
    }
    orr_primitive_desc with = {.vertex_count = 5, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx, .box = &box};
    orr_primitive_desc without = with;
    without.box = NULL;
    orr_mesh_id id[3];
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &with, .sphere_r2 = &r2}, &id[0]), ORR_OK);
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &without}, &id[1]), ORR_OK);
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &without, .sphere_r2 = &bogus}, &id[2]), ORR_OK);
    const orr_mesh *m0 = orr_assets_try_get_mesh(a, id[0]), *m1 = orr_assets_try_get_mesh(a, id[1]), *m2 = orr_assets_try_get_mesh(a, id[2]);
    assert_true(m0->sphere_radius == m1->sphere_radius && m2->sphere_radius == m1->sphere_radius);
    assert_memory_equal(&m0->sphere_center, &m1->sphere_center, sizeof m0->sphere_center);
    if (!(m1->sphere_radius > 2.872 && m1->sphere_radius < 2.873)) /* (0, 0, 1) from (1, 1, -1.5): sqrt(8.25) */
        fail_msg("radius %g", m1->sphere_radius);
    orr_assets_destroy(a);
}

/* Packed positions and normals (orr_primitive_desc.packed_positions, packed_normals): kept as given, a
 * fraction of the floats' bytes, read back as the glTF loader converts quantized values (every 8- and
 * 16-bit value, normalized or not, against its own formula in binary64), normals made unit length; the
 * mesh's bounds, sphere and meshlets are those of the same vertices given as floats; handed-over
 * streams are taken, refused ones stay the caller's; misuse is refused by name. */
static void test_packed_streams(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    /* every value of each packing, four components a vertex (the fourth padding, never read) */
    static const struct {
        orr_packing packing;
        double lo, d; /* max(v, lo) / d */
        bool is_signed, wide;
    } kinds[8] = {{ORR_PACKING_U8, 0, 1, false, false},       {ORR_PACKING_I8, -128, 1, true, false},
                  {ORR_PACKING_U16, 0, 1, false, true},       {ORR_PACKING_I16, -32768, 1, true, true},
                  {ORR_PACKING_U8_NORM, 0, 255, false, false}, {ORR_PACKING_I8_NORM, -127, 127, true, false},
                  {ORR_PACKING_U16_NORM, 0, 65535, false, true}, {ORR_PACKING_I16_NORM, -32767, 32767, true, true}};
    enum { V = 65536 / 3 + 1 };
    for (int k = 0; k < 8; k++) {
        assert_int_equal(orr_packing_bytes(kinds[k].packing), kinds[k].wide ? 8 : 4);
        uint8_t *data = malloc((size_t)V * 8);
        for (uint32_t i = 0; i < V * 4; i++) { /* component i % 4 of vertex i / 4: values run through every one */
            uint32_t v = (i / 4) * 3 + i % 4;
            if (kinds[k].wide) memcpy(data + (size_t)i * 2, &(uint16_t){(uint16_t)(i % 4 == 3 ? 0xdead : v)}, 2);
            else data[i] = (uint8_t)(i % 4 == 3 ? 0xee : v);
        }
        float *out = malloc((size_t)V * 12);
        orr_packed_stream_read(&(orr_packed_stream){data, kinds[k].packing}, 0, V, out);
        for (uint32_t i = 0; i < V * 3; i++) {
            uint32_t raw = (i / 3) * 3 + i % 3;
            double v = kinds[k].wide ? (kinds[k].is_signed ? (double)(int16_t)(uint16_t)raw : (double)(uint16_t)raw)
                                     : (kinds[k].is_signed ? (double)(int8_t)(uint8_t)raw : (double)(uint8_t)raw);
            float want = (float)(fmax(v, kinds[k].lo) / kinds[k].d);
            if (out[i] != want) fail_msg("packing %d: value %g became %.9g, not %.9g", k, v, out[i], want);
        }
        free(out);
        free(data);
    }

    /* a 40 x 40 grid in 16-bit integer positions and 8-bit normals, beside the same floats */
    enum { N = 41 };
    uint16_t *qp = orr_assets_stream_alloc(a, (size_t)N * N * 8);
    int8_t *qn = orr_assets_stream_alloc(a, (size_t)N * N * 4);
    float *pos = malloc(N * N * 12), *nrm = malloc(N * N * 12);
    uint32_t *idx = malloc((N - 1) * (N - 1) * 6 * sizeof(uint32_t)), k = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int v = y * N + x;
            uint16_t q[4] = {(uint16_t)(x * 100), (uint16_t)((x * y) % 700), (uint16_t)(y * 100), 0};
            int8_t n[4] = {(int8_t)(x - 20), 127, (int8_t)(20 - y), 0}; /* not unit length: made so when read */
            memcpy(qp + v * 4, q, 8), memcpy(qn + v * 4, n, 4);
            for (int j = 0; j < 3; j++) pos[v * 3 + j] = q[j], nrm[v * 3 + j] = fmaxf(n[j] / 127.0f, -1.0f);
        }
    for (int y = 0; y + 1 < N; y++)
        for (int x = 0; x + 1 < N; x++) {
            uint32_t i0 = (uint32_t)(y * N + x), i1 = i0 + 1, i2 = i0 + N, i3 = i2 + 1;
            idx[k++] = i0, idx[k++] = i1, idx[k++] = i3, idx[k++] = i0, idx[k++] = i3, idx[k++] = i2;
        }
    /* (the float normals normalized as the library normalizes packed ones as it reads them) */
    for (int v = 0; v < N * N; v++) {
        float *q = nrm + v * 3, l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        for (int j = 0; j < 3; j++) q[j] = q[j] / l;
    }
    orr_primitive_desc pd = {.vertex_count = N * N, .index_count = k, .indices = idx,
                             .packed_positions = {qp, ORR_PACKING_U16}, .packed_normals = {qn, ORR_PACKING_I8_NORM},
                             .owned = ORR_OWN_POSITIONS | ORR_OWN_NORMALS};
    orr_primitive_desc fd = {.vertex_count = N * N, .positions = pos, .normals = nrm, .index_count = k, .indices = idx};
    orr_mesh_desc md = {.primitive_count = 1, .primitives = &pd, .build_meshlets = true};
    orr_mesh_id pid, fid;
    assert_int_equal(orr_assets_add_mesh(a, &md, &pid), ORR_OK);
    md.primitives = &fd;
    assert_int_equal(orr_assets_add_mesh(a, &md, &fid), ORR_OK);
    const orr_mesh *pm = orr_assets_try_get_mesh(a, pid), *fm = orr_assets_try_get_mesh(a, fid);
    const orr_primitive *pp = &pm->primitives[0], *fp = &fm->primitives[0];
    assert_null(pp->positions);
    assert_null(pp->normals);
    assert_ptr_equal(pp->packed_positions.data, qp); /* taken over, not copied */
    assert_ptr_equal(pp->packed_normals.data, qn);
    assert_int_equal(pm->vertex_bytes, (uint64_t)N * N * 12); /* 8 + 4 a vertex, against 24 */
    assert_int_equal(fm->vertex_bytes, (uint64_t)N * N * 24);
    float *rp = malloc(N * N * 12), *rn = malloc(N * N * 12);
    orr_primitive_read_positions(pp, 0, N * N, rp);
    orr_primitive_read_normals(pp, 0, N * N, rn);
    assert_memory_equal(rp, pos, (size_t)N * N * 12);
    assert_memory_equal(rn, nrm, (size_t)N * N * 12);
    orr_primitive_read_normals(pp, 100, 7, rn); /* a range reads the same as the whole */
    assert_memory_equal(rn, nrm + 300, 7 * 12);
    orr_primitive_read_positions(fp, 5, 3, rp); /* floats read through too */
    assert_memory_equal(rp, pos + 15, 3 * 12);
    assert_memory_equal(&pp->bounds, &fp->bounds, sizeof pp->bounds);
    assert_true(pm->sphere_radius == fm->sphere_radius);
    assert_memory_equal(&pm->sphere_center, &fm->sphere_center, sizeof pm->sphere_center);
    assert_int_equal(pm->meshlet_count, fm->meshlet_count);
    assert_memory_equal(pm->meshlets, fm->meshlets, (size_t)pm->meshlet_count * sizeof *pm->meshlets);
    assert_memory_equal(pm->meshlet_bounds, fm->meshlet_bounds, (size_t)pm->meshlet_count * sizeof *pm->meshlet_bounds);
    assert_memory_equal(pp->indices, fp->indices, (size_t)k * 4); /* (rewritten into the same meshlet order) */

    /* misuse, refused by name; a packed stream handed over stays the caller's when the add fails */
    uint16_t *mine = orr_assets_stream_alloc(a, 4 * 8);
    memset(mine, 0, 4 * 8);
    orr_morph_target_desc target = {.positions = quad_pos};
    static const struct {
        orr_packed_stream pos, nrm;
        bool floats_too, targets, points;
        const char *says;
    } bad[] = {
        {{NULL, ORR_PACKING_U16}, {NULL, 0}, true, false, false, "packing but no data"},
        {{quad_pos, (orr_packing)99}, {NULL, 0}, false, false, false, "data but no packing"},
        {{quad_pos, ORR_PACKING_U16}, {NULL, 0}, true, false, false, "positions given twice"},
        {{quad_pos, ORR_PACKING_U16}, {NULL, 0}, false, false, false, "without normals"},
        {{quad_pos, ORR_PACKING_U16}, {quad_pos, ORR_PACKING_I8_NORM}, false, true, false, "with morph targets"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        orr_primitive_desc d = {.vertex_count = 4, .packed_positions = bad[b].pos, .packed_normals = bad[b].nrm,
                                .positions = bad[b].floats_too ? quad_pos : NULL, .target_count = bad[b].targets,
                                .targets = &target, .owned = ORR_OWN_POSITIONS};
        if (bad[b].pos.data == quad_pos) d.packed_positions.data = mine; /* (handed over: must stay mine) */
        md = (orr_mesh_desc){.name = "bad", .primitive_count = 1, .primitives = &d};
        orr_mesh_id none;
        assert_int_equal(orr_assets_add_mesh(a, &md, &none), ORR_ERROR_INVALID_ARGUMENT);
        if (!strstr(orr_assets_last_error(a)->message, bad[b].says))
            fail_msg("case %zu: '%s' does not say '%s'", b, orr_assets_last_error(a)->message, bad[b].says);
    }
    mine[0] = 1; /* still the caller's */
    orr_assets_stream_free(a, mine, 4 * 8);
    /* points may have packed positions without normals (+Z, as for floats) */
    orr_primitive_desc pts = {.vertex_count = 4, .packed_positions = {qp, ORR_PACKING_U16}, .topology = ORR_TOPOLOGY_POINTS};
    md = (orr_mesh_desc){.primitive_count = 1, .primitives = &pts};
    orr_mesh_id ptid;
    assert_int_equal(orr_assets_add_mesh(a, &md, &ptid), ORR_OK);
    const orr_primitive *pt = &orr_assets_try_get_mesh(a, ptid)->primitives[0];
    assert_true(pt->packed_positions.data != qp && pt->normals && pt->normals[2] == 1.0f); /* copied */

    free(rp), free(rn), free(pos), free(nrm), free(idx);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

static void test_meshlets(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    /* a 40 x 40 grid: 3200 triangles, more than one meshlet */
    enum { N = 41 };
    float *pos = malloc(N * N * 3 * sizeof(float));
    uint32_t *idx = malloc((N - 1) * (N - 1) * 6 * sizeof(uint32_t));
    uint32_t k = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) pos[(y * N + x) * 3] = (float)x, pos[(y * N + x) * 3 + 1] = (float)y, pos[(y * N + x) * 3 + 2] = 0;
    for (int y = 0; y + 1 < N; y++)
        for (int x = 0; x + 1 < N; x++) {
            uint32_t i0 = (uint32_t)(y * N + x), i1 = i0 + 1, i2 = i0 + N, i3 = i2 + 1;
            idx[k++] = i0, idx[k++] = i1, idx[k++] = i3, idx[k++] = i0, idx[k++] = i3, idx[k++] = i2;
        }
    orr_primitive_desc prims[3] = {
        {.vertex_count = N * N, .positions = pos, .index_count = k, .indices = idx},
        {.vertex_count = 4, .positions = quad_pos, .topology = ORR_TOPOLOGY_LINES},
        {.vertex_count = N * N, .positions = pos, .index_count = k, .indices = idx},
    };
    orr_mesh_desc md = {.primitive_count = 3, .primitives = prims, .build_meshlets = true};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id);
    const orr_primitive *p0 = &m->primitives[0], *p1 = &m->primitives[1], *p2 = &m->primitives[2];
    assert_true(p0->meshlet_count >= (k / 3 + 123) / 124);
    assert_int_equal(p1->meshlet_count, 0);
    assert_int_equal(p2->meshlet_offset, p0->meshlet_offset + p0->meshlet_count);
    assert_int_equal(m->meshlet_count, p0->meshlet_count + p2->meshlet_count);
    /* every meshlet triangle is one of the primitive's triangles, through the meshlet's vertices */
    for (uint32_t pi = 0; pi < 3; pi += 2) {
        const orr_primitive *p = &m->primitives[pi];
        uint32_t tris = 0;
        for (uint32_t i = 0; i < p->meshlet_count; i++) {
            const orr_meshlet *ml = &m->meshlets[p->meshlet_offset + i];
            assert_true(ml->vertex_count <= 64 && ml->triangle_count <= 124);
            assert_true(ml->vertex_offset + ml->vertex_count <= m->meshlet_vertex_count);
            assert_true(ml->triangle_offset + ml->triangle_count * 3 <= m->meshlet_triangle_bytes);
            for (uint32_t t = 0; t < ml->triangle_count * 3; t++) {
                uint8_t local = m->meshlet_triangles[ml->triangle_offset + t];
                assert_true(local < ml->vertex_count);
                assert_true(m->meshlet_vertices[ml->vertex_offset + local] < p->vertex_count);
            }
            tris += ml->triangle_count;
        }
        assert_int_equal(tris, k / 3);
    }
    free(pos);
    free(idx);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

static void test_materials(void **state)
{
    (void)state;
    orr_assets *a = make(NULL);
    orr_material_id def = orr_assets_default_material(a);
    const orr_material *dm = orr_assets_try_get_material(a, def);
    assert_non_null(dm);
    assert_true(dm->base_color[0] == 1.0f && dm->metallic == 1.0f && dm->roughness == 1.0f && dm->alpha_cutoff == 0.5f);
    assert_true(dm->emissive_strength == 1.0f && dm->normal_texture.scale == 1.0f && dm->base_color_texture.uv_scale[1] == 1.0f);
    orr_material m = orr_material_default();
    m.base_color[1] = 0.25f;
    m.alpha_mode = ORR_ALPHA_BLEND;
    orr_material_id id, inst;
    assert_int_equal(orr_assets_add_material(a, &m, &id), ORR_OK);
    assert_int_equal(orr_assets_clone_material(a, id, &inst), ORR_OK);
    assert_false(orr_id_eq(id, inst));
    uint64_t r0 = orr_assets_material_revision(a, inst);
    orr_material *e = orr_assets_try_edit_material(a, inst);
    e->base_color[1] = 0.75f;
    assert_true(orr_assets_material_revision(a, inst) > r0);
    assert_true(orr_assets_try_get_material(a, id)->base_color[1] == 0.25f); /* the source is untouched */
    assert_true(orr_assets_try_get_material(a, inst)->alpha_mode == ORR_ALPHA_BLEND);
    assert_null(orr_assets_try_get_material(a, (orr_material_id){99, 1}));
    assert_int_equal(orr_assets_material_revision(a, (orr_material_id){0, 0}), 0);
    orr_material odd = orr_material_default();
    odd.alpha_mode = (orr_alpha_mode)3; /* none of glTF's three */
    assert_int_equal(orr_assets_add_material(a, &odd, &inst), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "alpha_mode 3 is not OPAQUE (0), MASK (1) or BLEND (2)"));
    assert_int_equal(orr_assets_clone_material(a, (orr_material_id){99, 1}, &inst), ORR_ERROR_STALE_HANDLE);
    orr_assets_destroy(a);
}

static void test_textures_skins_clips(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    uint8_t px[2 * 2 * 4] = {255, 0, 0, 255};
    orr_texture_desc td = {.name = "t", .width = 2, .height = 2, .rgba8 = px, .color_space = ORR_COLOR_SPACE_SRGB,
                           .sampler = {.wrap_s = ORR_WRAP_CLAMP}};
    orr_texture_id tid;
    assert_int_equal(orr_assets_add_texture(a, &td, &tid), ORR_OK);
    const orr_texture *t = orr_assets_try_get_texture(a, tid);
    assert_int_equal(t->width, 2);
    assert_int_equal(t->rgba8[0], 255);
    assert_int_equal(t->color_space, ORR_COLOR_SPACE_SRGB);
    assert_int_equal(t->sampler.wrap_s, ORR_WRAP_CLAMP);
    td.width = 0;
    assert_int_equal(orr_assets_add_texture(a, &td, &tid), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(t->target_key, 0u);

    /* a target texture: the key and sampler only (one level), no pixels; sampled as sRGB colour */
    orr_target_texture_desc ttd = {.name = "screen", .target_key = 0x1234567890ull,
                                   .sampler = {.mag_filter = ORR_FILTER_NEAREST, .mipmaps = true}};
    orr_texture_id screen;
    assert_int_equal(orr_assets_add_target_texture(a, &ttd, &screen), ORR_OK);
    const orr_texture *st = orr_assets_try_get_texture(a, screen);
    assert_true(st->target_key == 0x1234567890ull);
    assert_null(st->rgba8);
    assert_int_equal(st->width, 0);
    assert_int_equal(st->color_space, ORR_COLOR_SPACE_SRGB);
    assert_int_equal(st->sampler.mag_filter, ORR_FILTER_NEAREST);
    assert_false(st->sampler.mipmaps);
    assert_string_equal(st->name, "screen");
    ttd.target_key = 0;
    assert_int_equal(orr_assets_add_target_texture(a, &ttd, &screen), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "target_key is 0"));
    assert_int_equal(orr_assets_texture_count(a), 2);

    orr_skin_desc sd = {.name = "s", .joint_count = 3};
    orr_skin_id sid;
    assert_int_equal(orr_assets_add_skin(a, &sd, &sid), ORR_OK);
    const orr_skin *s = orr_assets_try_get_skin(a, sid);
    assert_int_equal(s->joint_count, 3);
    assert_true(s->inverse_bind[2].m[0] == 1.0 && s->inverse_bind[2].m[15] == 1.0 && s->inverse_bind[2].m[1] == 0.0);

    float times[3] = {0, 0.5f, 2}, values[9] = {0};
    orr_anim_channel ch[2] = {
        {.target = 4, .path = ORR_ANIM_TRANSLATION, .key_count = 3, .components = 3, .times = times, .values = values},
        {.target = 1, .path = ORR_ANIM_SCALE, .interpolation = ORR_INTERP_STEP, .key_count = 2, .components = 3,
         .times = times, .values = values},
    };
    orr_clip_desc cd = {.name = "c", .channel_count = 2, .channels = ch};
    orr_clip_id cid;
    assert_int_equal(orr_assets_add_clip(a, &cd, &cid), ORR_OK);
    const orr_clip *clip = orr_assets_try_get_clip(a, cid);
    assert_int_equal(clip->target_count, 5);
    assert_true(clip->duration == 2.0);
    assert_ptr_not_equal(clip->channels[0].times, times);
    float bad_times[2] = {1, 1};
    ch[1].times = bad_times;
    assert_int_equal(orr_assets_add_clip(a, &cd, &cid), ORR_ERROR_INVALID_ARGUMENT);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

static int destroyed;
static void payload_destroy(void *p)
{
    destroyed += *(int *)p;
    free(p);
}

/* Removal releases a resource and its id: counts go back, the id goes stale and is never reused,
 * every byte is returned; the default material stays. */
static void test_remove(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets *a = make(&c);
    orr_primitive_desc p = {.vertex_count = 4, .positions = quad_pos};
    orr_mesh_desc md = {.name = "m", .primitive_count = 1, .primitives = &p};
    orr_mesh_id mid;
    assert_int_equal(orr_assets_add_mesh(a, &md, &mid), ORR_OK);
    uint8_t px[4] = {1, 2, 3, 4};
    orr_texture_desc td = {.name = "t", .width = 1, .height = 1, .rgba8 = px};
    orr_texture_id tid;
    assert_int_equal(orr_assets_add_texture(a, &td, &tid), ORR_OK);
    orr_material mat = orr_material_default();
    orr_material_id matid;
    assert_int_equal(orr_assets_add_material(a, &mat, &matid), ORR_OK);
    orr_skin_desc sd = {.name = "s", .joint_count = 2};
    orr_skin_id sid;
    assert_int_equal(orr_assets_add_skin(a, &sd, &sid), ORR_OK);
    float times[2] = {0, 1}, values[6] = {0};
    orr_anim_channel ch = {.key_count = 2, .components = 3, .times = times, .values = values};
    orr_clip_desc cd = {.name = "c", .channel_count = 1, .channels = &ch};
    orr_clip_id cid;
    assert_int_equal(orr_assets_add_clip(a, &cd, &cid), ORR_OK);

    assert_int_equal(orr_assets_remove_mesh(a, mid), ORR_OK);
    assert_int_equal(orr_assets_remove_texture(a, tid), ORR_OK);
    assert_int_equal(orr_assets_remove_material(a, matid), ORR_OK);
    assert_int_equal(orr_assets_remove_skin(a, sid), ORR_OK);
    assert_int_equal(orr_assets_remove_clip(a, cid), ORR_OK);
    assert_int_equal(orr_assets_mesh_count(a), 0);
    assert_int_equal(orr_assets_texture_count(a), 0);
    assert_int_equal(orr_assets_material_count(a), 1);
    assert_int_equal(orr_assets_skin_count(a), 0);
    assert_int_equal(orr_assets_clip_count(a), 0);
    assert_null(orr_assets_try_get_mesh(a, mid));
    assert_int_equal(orr_assets_remove_mesh(a, mid), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_assets_remove_clip(a, (orr_clip_id){0, 0}), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_assets_remove_material(a, orr_assets_default_material(a)), ORR_ERROR_INVALID_ARGUMENT);
    orr_mesh_id again;
    assert_int_equal(orr_assets_add_mesh(a, &md, &again), ORR_OK);
    assert_false(orr_id_eq(again, mid));
    assert_null(orr_assets_try_get_mesh(a, mid));
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
}

static void test_prefabs_by_path(void **state)
{
    (void)state;
    destroyed = 0;
    orr_assets *a = make(NULL);
    int *payload = malloc(sizeof *payload);
    *payload = 7;
    orr_prefab_id id;
    assert_int_equal(orr_assets_add_prefab(a, "/x/model.gltf", payload, payload_destroy, &id), ORR_OK);
    assert_true(orr_id_eq(orr_assets_find_prefab(a, "/x/model.gltf"), id));
    assert_true(orr_id_is_none(orr_assets_find_prefab(a, "/x/other.gltf")));
    assert_ptr_equal(orr_assets_try_get_prefab(a, id), payload);
    assert_int_equal(orr_assets_prefab_count(a), 1);
    assert_int_equal(orr_assets_material_count(a), 1); /* the default */
    assert_int_equal(orr_assets_texture_count(a) + orr_assets_skin_count(a) + orr_assets_clip_count(a), 0);
    assert_null(orr_assets_try_get_prefab(a, (orr_prefab_id){5, 1}));
    orr_assets_destroy(a);
    assert_int_equal(destroyed, 7);
}

static void log_line(void *user, orr_log_level level, const char *msg)
{
    (void)level, (void)msg;
    (*(int *)user)++;
}

static void test_hooks_are_kept(void **state)
{
    (void)state;
    orrt_counter c = {0};
    int lines = 0;
    orr_assets_desc d = {.allocator = {orrt_counting_realloc, &c}, .logger = {log_line, &lines}};
    orr_assets *a;
    assert_int_equal(orr_assets_create(&d, &a, NULL), ORR_OK);
    orr_allocator al = orr_assets_allocator(a);
    assert_ptr_equal(al.user, &c);
    orr_logger lg = orr_assets_logger(a);
    lg.log(lg.user, ORR_LOG_WARNING, "x");
    assert_int_equal(lines, 1);
    assert_true(c.calls > 0);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
    orr_assets_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_defaults_and_normals), cmocka_unit_test(test_topology_conversion),
        cmocka_unit_test(test_topology_expansion_overflow),
        cmocka_unit_test(test_flat_normals_unweld), cmocka_unit_test(test_caller_box),
        cmocka_unit_test(test_caller_max_index),
        cmocka_unit_test(test_caller_sphere),
        cmocka_unit_test(test_streams_handed_over),
        cmocka_unit_test(test_packed_streams),
        cmocka_unit_test(test_texture_pixels_handed_over),
        cmocka_unit_test(test_threads_give_the_same_mesh),
        cmocka_unit_test(test_meshlets),                  cmocka_unit_test(test_materials),
        cmocka_unit_test(test_textures_skins_clips),      cmocka_unit_test(test_prefabs_by_path),
        cmocka_unit_test(test_remove),
        cmocka_unit_test(test_hooks_are_kept),
    };
    int failed = cmocka_run_group_tests_name("assets", tests, NULL, NULL);
    failed += orrt_assets_meshlets();
    failed += orrt_assets_lods();
    failed += orrt_assets_fur();
    return orrt_exit_status(failed);
}
