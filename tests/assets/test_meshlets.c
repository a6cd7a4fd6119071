/* Meshlets: each mesh's meshlets stored once (K primitives hold exactly K times one primitive's meshlets,
 * bytes linear in the triangles), the index buffer rewritten into meshlet order (the same triangles and
 * windings, each meshlet an index range), and culling bounds that hold: every vertex inside the sphere,
 * every triangle back-facing from wherever the cone test says so. Out of memory on the way leaks nothing. */
#include "assets_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct geometry {
    float *pos, *nrm;
    uint32_t *idx;
    uint32_t vertex_count, index_count;
} geometry;

static void geometry_free(geometry *g)
{
    free(g->pos);
    free(g->nrm);
    free(g->idx);
}

/* An n x n grid of quads in the z = 0 plane, facing +Z. */
static geometry grid(uint32_t n)
{
    geometry g = {.vertex_count = (n + 1) * (n + 1), .index_count = n * n * 6};
    g.pos = malloc(g.vertex_count * 3 * sizeof(float));
    g.nrm = malloc(g.vertex_count * 3 * sizeof(float));
    g.idx = malloc(g.index_count * sizeof(uint32_t));
    for (uint32_t y = 0, v = 0; y <= n; y++)
        for (uint32_t x = 0; x <= n; x++, v++) {
            g.pos[v * 3] = (float)x, g.pos[v * 3 + 1] = (float)y, g.pos[v * 3 + 2] = 0.0f;
            g.nrm[v * 3] = 0.0f, g.nrm[v * 3 + 1] = 0.0f, g.nrm[v * 3 + 2] = 1.0f;
        }
    uint32_t k = 0;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t i0 = y * (n + 1) + x, i1 = i0 + 1, i2 = i0 + n + 1, i3 = i2 + 1;
            g.idx[k++] = i0, g.idx[k++] = i1, g.idx[k++] = i3, g.idx[k++] = i0, g.idx[k++] = i3, g.idx[k++] = i2;
        }
    return g;
}

/* A unit UV sphere, counter-clockwise seen from outside. */
static geometry sphere(uint32_t stacks, uint32_t slices)
{
    geometry g = {.vertex_count = (stacks + 1) * (slices + 1), .index_count = stacks * slices * 6};
    g.pos = malloc(g.vertex_count * 3 * sizeof(float));
    g.nrm = malloc(g.vertex_count * 3 * sizeof(float));
    g.idx = malloc(g.index_count * sizeof(uint32_t));
    for (uint32_t i = 0, v = 0; i <= stacks; i++)
        for (uint32_t j = 0; j <= slices; j++, v++) {
            double th = ORR_PI * i / stacks, ph = 2.0 * ORR_PI * j / slices;
            float p[3] = {(float)(sin(th) * cos(ph)), (float)cos(th), (float)(sin(th) * sin(ph))};
            memcpy(g.pos + v * 3, p, sizeof p);
            memcpy(g.nrm + v * 3, p, sizeof p);
        }
    uint32_t k = 0;
    for (uint32_t i = 0; i < stacks; i++)
        for (uint32_t j = 0; j < slices; j++) {
            uint32_t a = i * (slices + 1) + j, b = a + 1, c = a + slices + 1, d = c + 1;
            uint32_t t[2][3] = {{a, b, d}, {a, d, c}};
            for (int q = 0; q < 2; q++) {
                const float *pa = g.pos + t[q][0] * 3, *pb = g.pos + t[q][1] * 3, *pc = g.pos + t[q][2] * 3;
                float e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}, e2[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
                float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
                float out = n[0] * (pa[0] + pb[0] + pc[0]) + n[1] * (pa[1] + pb[1] + pc[1]) + n[2] * (pa[2] + pb[2] + pc[2]);
                if (out < 0.0f) { /* make it face outwards */
                    uint32_t s = t[q][1];
                    t[q][1] = t[q][2];
                    t[q][2] = s;
                }
                g.idx[k++] = t[q][0], g.idx[k++] = t[q][1], g.idx[k++] = t[q][2];
            }
        }
    return g;
}

static orr_primitive_desc prim_of(const geometry *g)
{
    return (orr_primitive_desc){.vertex_count = g->vertex_count, .positions = g->pos, .normals = g->nrm,
                                .index_count = g->index_count, .indices = g->idx};
}

static uint64_t meshlet_bytes(const orr_mesh *m)
{
    return (uint64_t)m->meshlet_count * (sizeof(orr_meshlet) + sizeof(orr_meshlet_bounds)) +
           (uint64_t)m->meshlet_vertex_count * 4 + m->meshlet_triangle_bytes;
}

/* Seed 004's pool grew with every meshlet primitive appended; here a mesh of K copies of one primitive
 * holds exactly K copies of that primitive's meshlets, bytes K times one primitive's. */
static void test_meshlets_stored_once(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    geometry g = grid(40); /* 3200 triangles: 26 meshlets or more */
    orr_primitive_desc one = prim_of(&g);
    orr_mesh_id single_id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &one, .build_meshlets = true},
                                         &single_id), ORR_OK);
    const orr_mesh *s = orr_assets_try_get_mesh(a, single_id);
    assert_true(s->meshlet_count >= 3200 / ORR_MESHLET_MAX_TRIANGLES);
    uint64_t one_bytes = meshlet_bytes(s);
    static const float line_pos[6] = {0, 0, 0, 1, 0, 0};
    const uint32_t ks[] = {1, 2, 3, 5, 8};
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        uint32_t k = ks[ki];
        /* K grid primitives with a line primitive (no meshlets) after the first */
        orr_primitive_desc prims[9];
        uint32_t n = 0;
        for (uint32_t i = 0; i < k; i++) {
            prims[n++] = one;
            if (i == 0) prims[n++] = (orr_primitive_desc){.vertex_count = 2, .positions = line_pos, .topology = ORR_TOPOLOGY_LINES};
        }
        orr_mesh_id id;
        assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = n, .primitives = prims, .build_meshlets = true},
                                             &id), ORR_OK);
        const orr_mesh *m = orr_assets_try_get_mesh(a, id);
        s = orr_assets_try_get_mesh(a, single_id);
        assert_int_equal(m->meshlet_count, k * s->meshlet_count);
        assert_int_equal(m->meshlet_vertex_count, k * s->meshlet_vertex_count);
        assert_int_equal(m->meshlet_triangle_bytes, k * s->meshlet_triangle_bytes);
        assert_true(meshlet_bytes(m) == k * one_bytes);
        assert_int_equal(m->primitives[1].meshlet_count, 0);
        for (uint32_t p = 0, copy = 0; p < n; p++) {
            const orr_primitive *pr = &m->primitives[p];
            if (pr->topology != ORR_TOPOLOGY_TRIANGLES) continue;
            assert_int_equal(pr->meshlet_offset, copy * s->meshlet_count);
            assert_int_equal(pr->meshlet_count, s->meshlet_count);
            assert_memory_equal(pr->indices, s->primitives[0].indices, (size_t)pr->index_count * 4);
            for (uint32_t i = 0; i < s->meshlet_count; i++) {
                const orr_meshlet *x = &m->meshlets[pr->meshlet_offset + i], *y = &s->meshlets[i];
                assert_int_equal(x->vertex_offset, y->vertex_offset + copy * s->meshlet_vertex_count);
                assert_int_equal(x->triangle_offset, y->triangle_offset + copy * s->meshlet_triangle_bytes);
                assert_int_equal(x->vertex_count, y->vertex_count);
                assert_int_equal(x->triangle_count, y->triangle_count);
                assert_int_equal(x->first_index, y->first_index);
                assert_memory_equal(&m->meshlet_bounds[pr->meshlet_offset + i], &s->meshlet_bounds[i], sizeof(orr_meshlet_bounds));
                assert_memory_equal(m->meshlet_vertices + x->vertex_offset, s->meshlet_vertices + y->vertex_offset, y->vertex_count * 4);
                assert_memory_equal(m->meshlet_triangles + x->triangle_offset, s->meshlet_triangles + y->triangle_offset,
                                    y->triangle_count * 3);
            }
            copy++;
        }
    }
    print_message("meshlets: one 3200-triangle primitive = %u meshlets, %llu bytes; K primitives = K times that\n",
                  s->meshlet_count, (unsigned long long)one_bytes);
    geometry_free(&g);
    orr_assets_destroy(a);
}

static int cmp_tri(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The rewritten indices hold the same triangles with the same corner order, and meshlet k is the index
 * range [first_index, + 3 x triangle_count) of its primitive. */
static void test_meshlet_index_order(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    geometry g = sphere(24, 48);
    /* one more index than whole triangles: the incomplete triangle stays last */
    uint32_t *idx = malloc((g.index_count + 1) * 4);
    memcpy(idx, g.idx, g.index_count * 4);
    idx[g.index_count] = 5;
    orr_primitive_desc p = prim_of(&g);
    p.indices = idx;
    p.index_count = g.index_count + 1;
    orr_mesh_id plain_id, ml_id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &plain_id), ORR_OK);
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p, .build_meshlets = true},
                                         &ml_id), ORR_OK);
    const orr_mesh *plain = orr_assets_try_get_mesh(a, plain_id), *m = orr_assets_try_get_mesh(a, ml_id);
    const orr_primitive *pp = &plain->primitives[0], *pm = &m->primitives[0];
    assert_int_equal(pm->index_count, pp->index_count);
    assert_int_equal(pm->indices[pm->index_count - 1], 5);
    assert_int_equal(plain->meshlet_count, 0);
    assert_null(plain->meshlet_bounds);
    uint32_t tris = g.index_count / 3;
    uint32_t *x = malloc(tris * 12), *y = malloc(tris * 12);
    memcpy(x, pp->indices, tris * 12);
    memcpy(y, pm->indices, tris * 12);
    assert_memory_not_equal(x, y, tris * 12); /* the order did change */
    qsort(x, tris, 12, cmp_tri);
    qsort(y, tris, 12, cmp_tri);
    assert_memory_equal(x, y, tris * 12); /* same triangles, each corner order kept */
    uint32_t next = 0;
    for (uint32_t k = 0; k < pm->meshlet_count; k++) {
        const orr_meshlet *ml = &m->meshlets[pm->meshlet_offset + k];
        assert_int_equal(ml->first_index, next);
        assert_true(ml->vertex_count <= ORR_MESHLET_MAX_VERTICES && ml->triangle_count <= ORR_MESHLET_MAX_TRIANGLES);
        for (uint32_t c = 0; c < ml->triangle_count * 3; c++)
            assert_int_equal(pm->indices[ml->first_index + c],
                             m->meshlet_vertices[ml->vertex_offset + m->meshlet_triangles[ml->triangle_offset + c]]);
        next += ml->triangle_count * 3;
    }
    assert_int_equal(next, tris * 3);
    free(x);
    free(y);
    free(idx);
    geometry_free(&g);
    orr_assets_destroy(a);
}

static uint32_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)*s;
}

/* The bounds hold: the sphere holds every vertex of its meshlet; wherever the perspective cone test says
 * "faces away", every triangle of the meshlet is seen from behind; a meshlet whose triangles face
 * opposite ways has no cone (axis 0, cutoff 1). */
static void test_meshlet_bounds_hold(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    geometry g = sphere(32, 64);
    orr_primitive_desc p = prim_of(&g);
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p, .build_meshlets = true}, &id),
                     ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id);
    const orr_primitive *pr = &m->primitives[0];
    uint32_t with_cone = 0, culled_tests = 0;
    uint64_t seed = 0x5eed1234ull;
    for (uint32_t k = 0; k < m->meshlet_count; k++) {
        const orr_meshlet *ml = &m->meshlets[k];
        const orr_meshlet_bounds *b = &m->meshlet_bounds[k];
        assert_true(b->reserved == 0.0f);
        for (uint32_t v = 0; v < ml->vertex_count; v++) {
            const float *q = pr->positions + (size_t)m->meshlet_vertices[ml->vertex_offset + v] * 3;
            double dx = q[0] - b->center[0], dy = q[1] - b->center[1], dz = q[2] - b->center[2];
            assert_true(sqrt(dx * dx + dy * dy + dz * dz) <= b->radius);
        }
        if (b->cone_cutoff >= 1.0f) continue;
        with_cone++;
        assert_true(fabs(sqrt(b->cone_axis[0] * b->cone_axis[0] + b->cone_axis[1] * b->cone_axis[1] +
                              b->cone_axis[2] * b->cone_axis[2]) - 1.0) < 1e-5);
        for (int t = 0; t < 400; t++) {
            double P[3] = {(rnd(&seed) % 6001) / 1000.0 - 3.0, (rnd(&seed) % 6001) / 1000.0 - 3.0,
                           (rnd(&seed) % 6001) / 1000.0 - 3.0};
            double d[3] = {b->cone_apex[0] - P[0], b->cone_apex[1] - P[1], b->cone_apex[2] - P[2]};
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (!(len > 0 && d[0] * b->cone_axis[0] + d[1] * b->cone_axis[1] + d[2] * b->cone_axis[2] >= b->cone_cutoff * len))
                continue;
            culled_tests++;
            for (uint32_t tri = 0; tri < ml->triangle_count; tri++) {
                const float *c[3];
                for (int q = 0; q < 3; q++)
                    c[q] = pr->positions +
                           (size_t)m->meshlet_vertices[ml->vertex_offset + m->meshlet_triangles[ml->triangle_offset + tri * 3 + q]] * 3;
                double e1[3] = {c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]};
                double e2[3] = {c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2]};
                double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
                double facing = n[0] * (P[0] - c[0][0]) + n[1] * (P[1] - c[0][1]) + n[2] * (P[2] - c[0][2]);
                if (facing > 1e-9) fail_msg("meshlet %u triangle %u faces a camera the cone test culls it for", k, tri);
            }
        }
    }
    print_message("meshlet bounds: %u of %u meshlets with a cone, %u culling camera positions checked\n", with_cone,
                  m->meshlet_count, culled_tests);
    assert_true(with_cone * 2 > m->meshlet_count);
    assert_true(culled_tests > 1000);

    /* two triangles back to back: no cone */
    static const float quad[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const float up[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const uint32_t both[6] = {0, 1, 2, 0, 2, 1};
    orr_primitive_desc bp = {.vertex_count = 4, .positions = quad, .normals = up, .index_count = 6, .indices = both};
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &bp, .build_meshlets = true}, &id),
                     ORR_OK);
    m = orr_assets_try_get_mesh(a, id);
    assert_int_equal(m->meshlet_count, 1);
    assert_true(m->meshlet_bounds[0].cone_cutoff == 1.0f);
    assert_true(m->meshlet_bounds[0].cone_axis[0] == 0.0f && m->meshlet_bounds[0].cone_axis[1] == 0.0f &&
                m->meshlet_bounds[0].cone_axis[2] == 0.0f);

    /* a finite but huge coordinate (a fuzzed file's): meshoptimizer's binary32 cone would be NaN (and a
     * build of it with asserts aborts); the meshlet gets no cone and a sphere that holds its vertices */
    static const float far_quad[12] = {0, 0, 0, -1.97e37f, 0, 0, 1, 1, 0, 0, 1, 0};
    static const uint32_t one_way[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc fp = {.vertex_count = 4, .positions = far_quad, .normals = up, .index_count = 6, .indices = one_way};
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &fp, .build_meshlets = true}, &id),
                     ORR_OK);
    m = orr_assets_try_get_mesh(a, id);
    assert_int_equal(m->meshlet_count, 1);
    const orr_meshlet_bounds *fb = &m->meshlet_bounds[0];
    assert_true(fb->cone_cutoff == 1.0f && fb->cone_axis[0] == 0.0f && fb->cone_axis[1] == 0.0f && fb->cone_axis[2] == 0.0f);
    for (int v = 0; v < 4; v++) {
        double dx = (double)far_quad[v * 3] - fb->center[0], dy = (double)far_quad[v * 3 + 1] - fb->center[1],
               dz = (double)far_quad[v * 3 + 2] - fb->center[2];
        assert_true(isfinite(fb->radius) && sqrt(dx * dx + dy * dy + dz * dz) <= fb->radius);
    }
    geometry_free(&g);
    orr_assets_destroy(a);
}

/* An allocator that fails after a set number of allocations, counting bytes. */
typedef struct failing {
    long long bytes;
    int left;
} failing;

static void *failing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    failing *f = user;
    if (new_size == 0) {
        if (ptr) f->bytes -= (long long)old_size;
        free(ptr);
        return NULL;
    }
    if (f->left-- <= 0) return NULL;
    void *p = realloc(ptr, new_size);
    if (p) f->bytes += (long long)new_size - (ptr ? (long long)old_size : 0);
    return p;
}

/* Running out of memory anywhere while meshlets are built fails the add and leaks nothing. */
static void test_meshlets_out_of_memory(void **state)
{
    (void)state;
    geometry g = grid(24);
    orr_primitive_desc prims[3] = {prim_of(&g), prim_of(&g), prim_of(&g)};
    int failures = 0;
    for (int budget = 0;; budget++) {
        failing f = {0, 1 << 30};
        orr_assets *a;
        assert_int_equal(orr_assets_create(&(orr_assets_desc){.allocator = {failing_realloc, &f}}, &a, NULL), ORR_OK);
        /* a mesh added and removed first, so that giving the id back on failure needs no allocation (the
         * handle pool's free list grows on free: a failure there would keep the id alive) */
        orr_mesh_id warm;
        assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = prims}, &warm), ORR_OK);
        assert_int_equal(orr_assets_remove_mesh(a, warm), ORR_OK);
        f.left = budget;
        orr_mesh_id id;
        orr_result r = orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 3, .primitives = prims, .build_meshlets = true}, &id);
        f.left = 1 << 30;
        if (r == ORR_OK) {
            const orr_mesh *m = orr_assets_try_get_mesh(a, id);
            assert_int_equal(m->meshlet_count, 3 * m->primitives[0].meshlet_count);
        } else {
            assert_int_equal(r, ORR_ERROR_OUT_OF_MEMORY);
            assert_int_equal(orr_assets_mesh_count(a), 0);
            failures++;
        }
        orr_assets_destroy(a);
        assert_int_equal(f.bytes, 0);
        if (r == ORR_OK) break;
    }
    assert_true(failures > 10);
    geometry_free(&g);
}

int orrt_assets_meshlets(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meshlets_stored_once),
        cmocka_unit_test(test_meshlet_index_order),
        cmocka_unit_test(test_meshlet_bounds_hold),
        cmocka_unit_test(test_meshlets_out_of_memory),
    };
    return cmocka_run_group_tests_name("assets: meshlets", tests, NULL, NULL);
}
