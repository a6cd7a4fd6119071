/* MSFT_lod on a real sample's geometry: a .gltf written here names the Box sample's buffer twice, as a
 * fine mesh (its 12 triangles) and a coarse one (the first 6 of them), the coarse one the fine node's
 * MSFT_lod level. The node then draws one mesh with both levels: level 0's vertices and indices, level
 * 1's vertices after them; errors from MSFT_screencoverage where given (the mapping of
 * gltf_build_lods.c), else measured from the geometry. Levels that cannot be one mesh's fall back to
 * the node's own mesh with a warning naming the node and why. */
#include "scene_tests.h"

#include <math.h>
#include <orrery/world.h>
#include <stdio.h>
#include <string.h>

typedef struct lod_log {
    int n;
    char all[4096];
} lod_log;

static void lod_warning(void *user, orr_log_level level, const char *msg)
{
    lod_log *w = user;
    if (level != ORR_LOG_WARNING) return;
    w->n++;
    size_t n = strlen(w->all);
    snprintf(w->all + n, sizeof w->all - n, "%s\n", msg);
}

/* The Box sample's buffer as a fine and a coarse mesh; `coarse_material` the coarse primitive's material
 * (0 as the fine one's, 1 another), `extras` the fine node's extras (with its leading comma), `coarse_node`
 * more members of the coarse node (with their leading comma). */
static void box_lod_json(char *out, size_t size, int coarse_material, const char *extras, const char *coarse_node)
{
    snprintf(out, size,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"MSFT_lod\"],"
             "\"buffers\":[{\"byteLength\":648,\"uri\":\"Box0.bin\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":576,\"byteLength\":72,\"target\":34963},"
             "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":576,\"byteStride\":12,\"target\":34962}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\",\"max\":[1,1,1],\"min\":[-1,-1,-1]},"
             "{\"bufferView\":1,\"byteOffset\":288,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\","
             "\"max\":[0.5,0.5,0.5],\"min\":[-0.5,-0.5,-0.5]},"
             "{\"bufferView\":0,\"componentType\":5123,\"count\":18,\"type\":\"SCALAR\"}],"
             "\"materials\":[{\"name\":\"Red\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.8,0,0,1],\"metallicFactor\":0}},"
             "{\"name\":\"Green\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0.8,0,1],\"metallicFactor\":0}}],"
             "\"meshes\":[{\"name\":\"fine\",\"primitives\":[{\"attributes\":{\"NORMAL\":1,\"POSITION\":2},\"indices\":0,\"material\":0}]},"
             "{\"name\":\"coarse\",\"primitives\":[{\"attributes\":{\"NORMAL\":1,\"POSITION\":2},\"indices\":3,\"material\":%d}]}],"
             "\"nodes\":[{\"name\":\"box\",\"mesh\":0,\"extensions\":{\"MSFT_lod\":{\"ids\":[1]}}%s},"
             "{\"name\":\"box_coarse\",\"mesh\":1%s},{\"name\":\"box_again\",\"mesh\":0,\"translation\":[3,0,0],"
             "\"extensions\":{\"MSFT_lod\":{\"ids\":[1]}}%s}],"
             "\"scenes\":[{\"nodes\":[0,2]}]}",
             coarse_material, extras, coarse_node, extras);
}

/* Loads `json` with the Box sample's folder `dir` as its base; the mesh node 0 ("box") draws, and the
 * warnings. */
static const orr_mesh *load_box(orr_assets **a, const char *dir, const char *json, lod_log *log, orr_mesh_id *node0,
                                orr_mesh_id *node2)
{
    orr_assets_desc d = {.logger = {lod_warning, log}};
    assert_int_equal(orr_assets_create(&d, a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    if (orr_gltf_load_memory(*a, json, strlen(json), dir, NULL, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    const orr_world *w = orr_prefab_world(*a, p);
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    *node0 = *node2 = (orr_mesh_id){0, 0};
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        const orr_mesh_renderer *mr = orr_component_try_get(w, e, ORR_COMPONENT_MESH_RENDERER);
        const char *name = orr_entity_name(w, e);
        if (mr && name && !strcmp(name, "box")) *node0 = mr->mesh;
        if (mr && name && !strcmp(name, "box_again")) *node2 = mr->mesh;
    }
    orr_subtree_end(&it);
    return orr_assets_try_get_mesh(*a, *node0);
}

/* Coverages given: one mesh of two levels (12 and 6 triangles), level 1's vertices after level 0's, its
 * error D / (c x 1080) with D the bounding sphere's diameter; both nodes share it; the coarse node, in
 * no scene, draws nothing of its own. */
static void test_msft_lod_levels_from_coverage(void **state)
{
    (void)state;
    char dir[1024]; /* (the skip, without the samples, names this test) */
    snprintf(dir, sizeof dir, "%s", orrt_asset("gltf/Box"));
    char json[4096];
    box_lod_json(json, sizeof json, 0, ",\"extras\":{\"MSFT_screencoverage\":[0.25]}", "");
    lod_log log = {0};
    orr_assets *a;
    orr_mesh_id m0, m2;
    const orr_mesh *m = load_box(&a, dir, json, &log, &m0, &m2);
    assert_non_null(m);
    if (log.n) fail_msg("warnings: %s", log.all);
    assert_int_equal(m->lod_count, 2);
    assert_int_equal(m->lod_triangles[0], 12);
    assert_int_equal(m->lod_triangles[1], 6);
    assert_int_equal(m->primitive_count, 1);
    const orr_primitive *p = &m->primitives[0];
    assert_int_equal(p->vertex_count, 48);
    assert_int_equal(p->lods[0].index_count, 36);
    assert_int_equal(p->lods[1].first_index, 36);
    assert_int_equal(p->lods[1].index_count, 18);
    assert_int_equal(p->lod_index_count, 18);
    for (uint32_t k = 0; k < 18; k++) {
        assert_true(p->lod_indices[k] >= 24 && p->lod_indices[k] < 48); /* level 1's own vertices */
        assert_int_equal(p->lod_indices[k] - 24, p->indices[k]); /* the same corners as level 0's first 18 */
    }
    double want = 2.0 * m->sphere_radius / (0.25 * 1080.0);
    print_message("level 1 error %.6g (sphere diameter %.4g, coverage 0.25)\n", (double)m->lod_error[1], 2.0 * m->sphere_radius);
    assert_true(fabs(m->lod_error[1] - want) <= 1e-6 * want);
    assert_float_equal(m->lod_error[0], 0.0f, 0.0f);
    assert_true(orr_id_eq(m0, m2)); /* the same levels: one mesh */
    assert_int_equal(orr_assets_mesh_count(a), 3); /* fine, coarse and their merge */
    orr_assets_destroy(a);
}

/* No coverages: the error measured from the geometry (above 0: half the box is gone), a last coverage
 * past the levels warned about (not honoured), and too few coverages fall back to the geometry. */
static void test_msft_lod_levels_measured(void **state)
{
    (void)state;
    char dir[1024]; /* (the skip, without the samples, names this test) */
    snprintf(dir, sizeof dir, "%s", orrt_asset("gltf/Box"));
    char json[4096];
    box_lod_json(json, sizeof json, 0, "", "");
    lod_log log = {0};
    orr_assets *a;
    orr_mesh_id m0, m2;
    const orr_mesh *m = load_box(&a, dir, json, &log, &m0, &m2);
    if (log.n) fail_msg("warnings: %s", log.all);
    assert_int_equal(m->lod_count, 2);
    print_message("level 1 error measured: %.6g\n", (double)m->lod_error[1]);
    assert_true(m->lod_error[1] > 0.0f && m->lod_error[1] <= 2.0f * (float)m->sphere_radius);
    orr_assets_destroy(a);

    box_lod_json(json, sizeof json, 0, ",\"extras\":{\"MSFT_screencoverage\":[0.25,0.01]}", "");
    memset(&log, 0, sizeof log);
    m = load_box(&a, dir, json, &log, &m0, &m2);
    assert_int_equal(m->lod_count, 2);
    if (!strstr(log.all, "nodes[0].extras.MSFT_screencoverage[1]: nothing is drawn below 0.01 of the screen: not honoured"))
        fail_msg("warnings: %s", log.all);
    orr_assets_destroy(a);
}

/* Levels that cannot be one mesh's: the node draws its own mesh (one level), and a warning names the
 * node, the level and why. */
static void test_msft_lod_fallbacks(void **state)
{
    (void)state;
    char dir[1024]; /* (the skip, without the samples, names this test) */
    snprintf(dir, sizeof dir, "%s", orrt_asset("gltf/Box"));
    static const struct {
        int material;
        const char *coarse_node, *want;
    } cases[] = {
        {1, "", "nodes[0].extensions.MSFT_lod: meshes[1].primitives[0] (level 1) has another material than level 0's"},
        {0, ",\"translation\":[0,1,0]", "nodes[0].extensions.MSFT_lod: level 1 (nodes[1]) has another transform than the node"},
        {0, ",\"children\":[3]", "nodes[0].extensions.MSFT_lod: level 1 (nodes[1]) has children"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char json[4096];
        box_lod_json(json, sizeof json, cases[c].material, "", cases[c].coarse_node);
        if (strstr(cases[c].coarse_node, "children")) { /* the child node it names */
            char *end = strstr(json, "],\"scenes\"");
            assert_non_null(end);
            char tail[256];
            snprintf(tail, sizeof tail, "%s", end);
            snprintf(end, sizeof json - (size_t)(end - json), ",{\"name\":\"leaf\"}%s", tail);
        }
        lod_log log = {0};
        orr_assets *a;
        orr_mesh_id m0, m2;
        const orr_mesh *m = load_box(&a, dir, json, &log, &m0, &m2);
        if (!strstr(log.all, cases[c].want)) fail_msg("case %zu: warnings: %s", c, log.all);
        assert_non_null(strstr(log.all, "the node draws its own mesh"));
        assert_int_equal(m->lod_count, 1);
        assert_int_equal(m->lod_triangles[0], 12);
        orr_assets_destroy(a);
    }
}

int orrt_scene_lod(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msft_lod_levels_from_coverage),
        cmocka_unit_test(test_msft_lod_levels_measured),
        cmocka_unit_test(test_msft_lod_fallbacks),
    };
    return cmocka_run_group_tests_name("scene_lod", tests, NULL, NULL);
}
