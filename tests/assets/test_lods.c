/* Levels of detail (orr_mesh_desc.lod_levels): fewer triangles level after level, errors that start at 0,
 * never decrease and bound how far a level's surface strays (measured on a sphere, whose true surface is
 * known), indices that stay within the vertices, meshlets per level that cover exactly its triangles,
 * the same levels every time, and bad settings refused. */
#include "assets_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct lod_geometry {
    float *pos, *nrm;
    uint32_t *idx;
    uint32_t vertex_count, index_count;
} lod_geometry;

/* A unit UV sphere of stacks x slices quads (2 x stacks x slices triangles). */
static lod_geometry uv_sphere(uint32_t stacks, uint32_t slices)
{
    lod_geometry g = {.vertex_count = (stacks + 1) * (slices + 1), .index_count = stacks * slices * 6};
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
            g.idx[k++] = a, g.idx[k++] = d, g.idx[k++] = b, g.idx[k++] = a, g.idx[k++] = c, g.idx[k++] = d;
        }
    return g;
}

static void lod_geometry_free(lod_geometry *g)
{
    free(g->pos);
    free(g->nrm);
    free(g->idx);
}

static const uint32_t *level_indices(const orr_primitive *p, uint32_t l)
{
    uint32_t f = p->lods[l].first_index;
    return f < p->index_count ? p->indices + f : p->lod_indices + (f - p->index_count);
}

/* The farthest any point of level l's triangles lies from the unit sphere (corners, edge midpoints and
 * centroids: the sag of a flat triangle is largest inside it). */
static double sphere_deviation(const orr_primitive *p, uint32_t l)
{
    const uint32_t *ix = level_indices(p, l);
    double worst = 0.0;
    for (uint32_t t = 0; t + 2 < p->lods[l].index_count; t += 3) {
        const float *c[3] = {p->positions + ix[t] * 3, p->positions + ix[t + 1] * 3, p->positions + ix[t + 2] * 3};
        static const double w[7][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {.5, .5, 0}, {0, .5, .5}, {.5, 0, .5}, {1 / 3., 1 / 3., 1 / 3.}};
        for (int s = 0; s < 7; s++) {
            double q[3] = {0, 0, 0};
            for (int k = 0; k < 3; k++)
                for (int d = 0; d < 3; d++) q[d] += w[s][k] * c[k][d];
            double dev = fabs(1.0 - sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
            worst = dev > worst ? dev : worst;
        }
    }
    return worst;
}

static void test_lod_levels_of_a_sphere(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    lod_geometry g = uv_sphere(50, 100); /* 10,000 triangles */
    orr_primitive_desc pd = {.vertex_count = g.vertex_count, .positions = g.pos, .normals = g.nrm,
                             .index_count = g.index_count, .indices = g.idx};
    orr_mesh_id id, again, plain;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd, .lod_levels = 4,
                                                             .build_meshlets = true}, &id), ORR_OK);
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd, .lod_levels = 4,
                                                             .build_meshlets = true}, &again), ORR_OK);
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd}, &plain), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id), *m2 = orr_assets_try_get_mesh(a, again),
                   *m0 = orr_assets_try_get_mesh(a, plain);
    assert_int_equal(m0->lod_count, 1);
    assert_int_equal(m0->lod_triangles[0], 10000);
    assert_null(m0->primitives[0].lod_indices);
    assert_int_equal(m->lod_count, 5);
    const orr_primitive *p = &m->primitives[0];
    assert_int_equal(m->lod_triangles[0], 10000);
    assert_true(m->lod_error[0] == 0.0f);
    double level0 = sphere_deviation(p, 0);
    for (uint32_t l = 1; l < m->lod_count; l++) {
        /* about a quarter of the last level each time, never more than 0.9 of it */
        assert_true(m->lod_triangles[l] * 10 <= m->lod_triangles[l - 1] * 9);
        assert_true(m->lod_error[l] >= m->lod_error[l - 1]);
        assert_true(m->lod_error[l] > 0.0f && m->lod_error[l] < 2.0f); /* below the diameter */
        assert_int_equal(p->lods[l].index_count, m->lod_triangles[l] * 3);
        const uint32_t *ix = level_indices(p, l);
        for (uint32_t k = 0; k < p->lods[l].index_count; k++) assert_true(ix[k] < p->vertex_count);
        /* the error is meshoptimizer's estimate (a quadric measure), not a strict bound: the surface's
         * departure measured here is at most 2.4 times it */
        double dev = sphere_deviation(p, l);
        print_message("level %u: %u triangles, error %.5f, deviation from the sphere %.5f\n", l, m->lod_triangles[l],
                      (double)m->lod_error[l], dev);
        assert_true(dev <= 3.0 * m->lod_error[l] + level0 + 1e-6);
    }
    assert_true(m->lod_triangles[m->lod_count - 1] * 50 <= m->lod_triangles[0]); /* the coarsest: 2% or less */
    /* meshlets per level: exactly the level's triangles, as consecutive index ranges of it */
    for (uint32_t l = 0; l < m->lod_count; l++) {
        const orr_primitive_lod *lv = &p->lods[l];
        assert_true(lv->meshlet_count > 0);
        uint32_t at = lv->first_index;
        for (uint32_t k = 0; k < lv->meshlet_count; k++) {
            const orr_meshlet *ml = &m->meshlets[lv->meshlet_offset + k];
            assert_int_equal(ml->first_index, at);
            at += ml->triangle_count * 3;
        }
        assert_int_equal(at, lv->first_index + lv->index_count);
    }
    assert_int_equal(p->meshlet_offset, p->lods[0].meshlet_offset);
    assert_int_equal(p->meshlet_count, p->lods[0].meshlet_count);
    /* the same levels every time */
    assert_int_equal(m2->lod_count, m->lod_count);
    assert_memory_equal(m2->lod_error, m->lod_error, sizeof m->lod_error);
    assert_int_equal(m2->primitives[0].lod_index_count, p->lod_index_count);
    assert_memory_equal(m2->primitives[0].lod_indices, p->lod_indices, (size_t)p->lod_index_count * 4);
    lod_geometry_free(&g);
    orr_assets_destroy(a);
}

/* A flat grid (welded: its normals given, so that its vertices are shared) simplifies with no error; a
 * line primitive beside it repeats level 0. */
static void test_lod_flat_and_lines(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    enum { N = 30 };
    float pos[(N + 1) * (N + 1) * 3], nrm[(N + 1) * (N + 1) * 3];
    uint32_t idx[N * N * 6], k = 0;
    for (uint32_t y = 0, v = 0; y <= N; y++)
        for (uint32_t x = 0; x <= N; x++, v++) {
            pos[v * 3] = (float)x, pos[v * 3 + 1] = (float)y, pos[v * 3 + 2] = 0.0f;
            nrm[v * 3] = 0.0f, nrm[v * 3 + 1] = 0.0f, nrm[v * 3 + 2] = 1.0f;
        }
    for (uint32_t y = 0; y < N; y++)
        for (uint32_t x = 0; x < N; x++) {
            uint32_t i0 = y * (N + 1) + x, i1 = i0 + 1, i2 = i0 + N + 1, i3 = i2 + 1;
            idx[k++] = i0, idx[k++] = i1, idx[k++] = i3, idx[k++] = i0, idx[k++] = i3, idx[k++] = i2;
        }
    static const float line[6] = {0, 0, 0, 1, 0, 0};
    orr_primitive_desc pd[2] = {{.vertex_count = (N + 1) * (N + 1), .positions = pos, .normals = nrm, .index_count = N * N * 6, .indices = idx},
                                {.vertex_count = 2, .positions = line, .topology = ORR_TOPOLOGY_LINES}};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 2, .primitives = pd, .lod_levels = 3}, &id), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, id);
    assert_true(m->lod_count >= 2);
    for (uint32_t l = 1; l < m->lod_count; l++) {
        assert_true(m->lod_error[l] < 1e-3f * N);
        assert_true(m->lod_triangles[l] < m->lod_triangles[l - 1]);
        assert_int_equal(m->primitives[1].lods[l].index_count, m->primitives[1].index_count);
        assert_int_equal(m->primitives[1].lods[l].first_index, 0);
    }
    orr_assets_destroy(a);
}

static void test_lod_settings_refused(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    orr_primitive_desc pd = {.vertex_count = 3, .positions = tri};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "m", .primitive_count = 1, .primitives = &pd,
                                                             .lod_levels = ORR_MESH_MAX_LODS}, &id),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "lod_levels"));
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd, .lod_levels = 2,
                                                             .lod_ratio = 1.5f}, &id),
                     ORR_ERROR_INVALID_ARGUMENT);
    /* a single triangle cannot be reduced: one level */
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd, .lod_levels = 2}, &id), ORR_OK);
    assert_int_equal(orr_assets_try_get_mesh(a, id)->lod_count, 1);
    orr_assets_destroy(a);
}

/* The caller's own levels (orr_mesh_desc.lod_given): a fine sphere's indices as level 0 and a coarse
 * sphere's vertices appended, its indices moved to them, as level 1: kept as given (ranges, errors given
 * or measured: the coarse sphere strays from the fine one, so its measured error is above 0 and within
 * a few times its true departure), meshlets per level, and misuse refused with what is wrong. */
static void test_lod_given_levels(void **state)
{
    (void)state;
    lod_geometry fine = uv_sphere(24, 48), coarse = uv_sphere(6, 12);
    uint32_t vc = fine.vertex_count + coarse.vertex_count;
    float *pos = malloc((size_t)vc * 12), *nrm = malloc((size_t)vc * 12);
    uint32_t *lod = malloc((size_t)coarse.index_count * 4);
    assert_true(pos && nrm && lod);
    memcpy(pos, fine.pos, (size_t)fine.vertex_count * 12), memcpy(pos + fine.vertex_count * 3, coarse.pos, (size_t)coarse.vertex_count * 12);
    memcpy(nrm, fine.nrm, (size_t)fine.vertex_count * 12), memcpy(nrm + fine.vertex_count * 3, coarse.nrm, (size_t)coarse.vertex_count * 12);
    for (uint32_t k = 0; k < coarse.index_count; k++) lod[k] = coarse.idx[k] + fine.vertex_count;
    orr_primitive_desc pd = {.vertex_count = vc, .positions = pos, .normals = nrm, .index_count = fine.index_count,
                             .indices = fine.idx, .lod_indices = lod};
    pd.lod_index_counts[1] = coarse.index_count;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    for (int measured = 0; measured < 2; measured++) {
        static const float given[2] = {0.0f, 0.05f};
        orr_mesh_id id;
        orr_mesh_desc md = {.name = "given", .primitive_count = 1, .primitives = &pd, .lod_given = 2,
                            .lod_errors = measured ? NULL : given, .build_meshlets = true};
        if (orr_assets_add_mesh(a, &md, &id) != ORR_OK) fail_msg("%s", orr_assets_last_error(a)->message);
        const orr_mesh *m = orr_assets_try_get_mesh(a, id);
        const orr_primitive *p = &m->primitives[0];
        assert_int_equal(m->lod_count, 2);
        assert_int_equal(m->lod_triangles[0], fine.index_count / 3);
        assert_int_equal(m->lod_triangles[1], coarse.index_count / 3);
        assert_int_equal(p->lods[1].first_index, p->index_count);
        assert_int_equal(p->lods[1].index_count, coarse.index_count);
        for (uint32_t l = 2; l < ORR_MESH_MAX_LODS; l++) /* past lod_count: the last level's range repeated */
            assert_true(p->lods[l].first_index == p->lods[1].first_index && p->lods[l].index_count == p->lods[1].index_count);
        double dev = sphere_deviation(p, 1);
        print_message("level 1: error %.4g (%s), its surface strays %.4g from the unit sphere\n", (double)m->lod_error[1],
                      measured ? "measured" : "given", dev);
        if (!measured) assert_true(m->lod_error[1] == 0.05f);
        else assert_true(m->lod_error[1] > 0.0f && m->lod_error[1] < 4.0 * dev + 0.01);
        for (uint32_t l = 0; l < 2; l++) { /* meshlets per level, covering its triangles */
            uint32_t tris = 0;
            for (uint32_t k = 0; k < p->lods[l].meshlet_count; k++) tris += m->meshlets[p->lods[l].meshlet_offset + k].triangle_count;
            assert_int_equal(tris, m->lod_triangles[l]);
        }
    }
    /* misuse, named */
    static const struct {
        uint32_t given, levels, count;
        float err1;
        const char *want;
    } bad[] = {
        {ORR_MESH_MAX_LODS + 1, 0, 0, 0.1f, "lod_given is above"},
        {2, 2, 0, 0.1f, "lod_given and lod_levels both set"},
        {2, 0, 0, -1.0f, "lod_errors must be finite"},
        {2, 0, 4, 0.1f, "not a multiple of 3"},
        {1, 0, 0, 0.1f, "lod_indices without lod_given"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        orr_primitive_desc q = pd;
        if (bad[c].count) q.lod_index_counts[1] = bad[c].count;
        float errs[2] = {0.0f, bad[c].err1};
        orr_mesh_id id;
        orr_mesh_desc md = {.name = "bad", .primitive_count = 1, .primitives = &q, .lod_given = bad[c].given,
                            .lod_levels = bad[c].levels, .lod_errors = errs};
        assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_ERROR_INVALID_ARGUMENT);
        if (!strstr(orr_assets_last_error(a)->message, bad[c].want))
            fail_msg("case %zu: '%s', expected '%s'", c, orr_assets_last_error(a)->message, bad[c].want);
    }
    lod[0] = vc; /* past the vertices */
    orr_mesh_id id;
    orr_mesh_desc md = {.name = "bad", .primitive_count = 1, .primitives = &pd, .lod_given = 2};
    assert_int_equal(orr_assets_add_mesh(a, &md, &id), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "primitive 0: a level's index is past the primitive's vertices"));
    orr_assets_destroy(a);
    free(pos), free(nrm), free(lod);
    lod_geometry_free(&fine), lod_geometry_free(&coarse);
}

int orrt_assets_lods(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lod_levels_of_a_sphere),
        cmocka_unit_test(test_lod_flat_and_lines),
        cmocka_unit_test(test_lod_settings_refused),
        cmocka_unit_test(test_lod_given_levels),
    };
    return cmocka_run_group_tests_name("assets: levels of detail", tests, NULL, NULL);
}
