/* World components: built-ins and their defaults, add/remove/has/get/try_get/edit, dirty marks, user
 * types with hooks, queries in ascending entity order, find in subtree. */
#include "testutil.h"

#include <orrery/world.h>
#include <stdlib.h>
#include <string.h>

static orr_entity make(orr_world *w, orr_entity parent)
{
    orr_entity e;
    orr_entity_desc d = {.parent = parent};
    assert_int_equal(orr_entity_create(w, &d, &e), ORR_OK);
    return e;
}

static void test_builtins(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity e = make(w, ORR_ENTITY_NONE);
    orr_mesh_renderer *mr;
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, NULL, (void **)&mr), ORR_OK);
    assert_true(mr->visible && mr->casts_shadows);
    assert_int_equal(mr->layers, 1);
    assert_true(orr_id_is_none(mr->mesh));
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, NULL, NULL), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_world_last_error(w)->message, "MeshRenderer"));
    assert_true(orr_component_has(w, e, ORR_COMPONENT_MESH_RENDERER));
    assert_false(orr_component_has(w, e, ORR_COMPONENT_LIGHT));
    assert_null(orr_component_try_get(w, e, ORR_COMPONENT_LIGHT));
    assert_null(orr_component_edit(w, e, ORR_COMPONENT_LIGHT));
    orr_light l = orr_light_default();
    l.type = ORR_LIGHT_SPOT;
    l.intensity = 500;
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_LIGHT, &l, NULL), ORR_OK);
    const orr_light *gl = orr_light_try_get(w, e);
    assert_int_equal(gl->type, ORR_LIGHT_SPOT);
    assert_true(gl->intensity == 500 && gl->enabled);
    orr_camera *cam;
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_CAMERA, NULL, (void **)&cam), ORR_OK);
    assert_true(cam->yfov == 0.8 && cam->znear == 0.05 && cam->zfar == 0);
    orr_animation_player *ap;
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_ANIMATION_PLAYER, NULL, (void **)&ap), ORR_OK);
    assert_true(ap->loop && ap->speed == 1);
    orr_component_type t;
    assert_int_equal(orr_world_find_component(w, "SkinnedMesh", &t), ORR_OK);
    assert_int_equal(t, ORR_COMPONENT_SKINNED_MESH);
    assert_string_equal(orr_world_component_name(w, ORR_COMPONENT_CAMERA), "Camera");
    /* the typed getters: the same component as the untyped ones, NULL when absent or stale; edit marks
     * it dirty */
    assert_ptr_equal(orr_camera_try_get(w, e), cam);
    assert_ptr_equal(orr_animation_player_try_get(w, e), ap);
    assert_null(orr_skinned_mesh_try_get(w, e));
    assert_null(orr_fur_instance_edit(w, e));
    orr_component_clear_dirty(w, ORR_COMPONENT_MESH_RENDERER);
    orr_mesh_renderer_edit(w, e)->mesh = (orr_mesh_id){3, 1};
    assert_true(orr_component_is_dirty(w, e, ORR_COMPONENT_MESH_RENDERER));
    assert_int_equal(orr_mesh_renderer_try_get(w, e)->mesh.index, 3);
    assert_int_equal(orr_component_remove(w, e, ORR_COMPONENT_MESH_RENDERER), ORR_OK);
    assert_int_equal(orr_component_remove(w, e, ORR_COMPONENT_MESH_RENDERER), ORR_ERROR_NOT_FOUND);
    assert_false(orr_component_has(w, e, ORR_COMPONENT_MESH_RENDERER));
    assert_int_equal(orr_component_add(w, e, 99, NULL, NULL), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(orr_entity_destroy(w, e), ORR_OK);
    assert_null(orr_light_try_get(w, e)); /* stale */
    assert_null(orr_camera_edit(w, e));
    orr_world_destroy(w);
}

static void test_dirty_marks(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity a = make(w, ORR_ENTITY_NONE), b = make(w, ORR_ENTITY_NONE);
    orr_component_add(w, a, ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
    orr_component_add(w, b, ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
    assert_true(orr_component_is_dirty(w, a, ORR_COMPONENT_MESH_RENDERER));
    orr_component_clear_dirty(w, ORR_COMPONENT_MESH_RENDERER);
    assert_false(orr_component_is_dirty(w, a, ORR_COMPONENT_MESH_RENDERER));
    /* const get does not mark; edit does */
    (void)orr_component_get(w, a, ORR_COMPONENT_MESH_RENDERER);
    assert_false(orr_component_is_dirty(w, a, ORR_COMPONENT_MESH_RENDERER));
    orr_component_edit(w, b, ORR_COMPONENT_MESH_RENDERER);
    assert_false(orr_component_is_dirty(w, a, ORR_COMPONENT_MESH_RENDERER));
    assert_true(orr_component_is_dirty(w, b, ORR_COMPONENT_MESH_RENDERER));
    orr_world_destroy(w);
}

typedef struct blob {
    char *text; /* owned */
    orr_entity other;
} blob;

static int blob_destroyed;
static void blob_copy(void *dst, const void *src, void *user)
{
    (void)user;
    const blob *s = src;
    blob *d = dst;
    d->text = strdup(s->text ? s->text : "");
    d->other = s->other;
}
static void blob_destroy(void *c, void *user)
{
    (void)user;
    free(((blob *)c)->text);
    blob_destroyed++;
}

static void test_user_types(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_component_desc d = {.name = "Blob", .size = sizeof(blob), .alignment = 8, .copy = blob_copy,
                            .destroy = blob_destroy};
    orr_component_type bt;
    assert_int_equal(orr_world_register_component(w, &d, &bt), ORR_OK);
    assert_true(bt >= ORR_COMPONENT_BUILTIN_COUNT);
    assert_int_equal(orr_world_register_component(w, &d, NULL), ORR_ERROR_INVALID_ARGUMENT); /* same name */
    orr_component_desc bad = {.name = "Bad", .size = 4, .alignment = 3};
    assert_int_equal(orr_world_register_component(w, &bad, NULL), ORR_ERROR_INVALID_ARGUMENT);
    orr_component_desc zero = {.name = "Zero"};
    assert_int_equal(orr_world_register_component(w, &zero, NULL), ORR_ERROR_INVALID_ARGUMENT);
    blob_destroyed = 0;
    orr_entity a = make(w, ORR_ENTITY_NONE), b = make(w, a), c = make(w, ORR_ENTITY_NONE);
    blob init = {.text = "hello"};
    blob *p;
    assert_int_equal(orr_component_add(w, a, bt, &init, (void **)&p), ORR_OK);
    assert_true(p->text != init.text); /* deep-copied by the hook */
    assert_string_equal(p->text, "hello");
    assert_int_equal(orr_component_add(w, b, bt, &init, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, c, bt, &init, NULL), ORR_OK);
    assert_int_equal(orr_component_remove(w, c, bt), ORR_OK);
    assert_int_equal(blob_destroyed, 1);
    assert_int_equal(orr_entity_destroy(w, a), ORR_OK); /* a and b */
    assert_int_equal(blob_destroyed, 3);
    orr_entity e = make(w, ORR_ENTITY_NONE);
    assert_int_equal(orr_component_add(w, e, bt, &init, NULL), ORR_OK);
    orr_world_destroy(w); /* the world's destroy runs the hooks of what is left */
    assert_int_equal(blob_destroyed, 4);
}

static void test_queries(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    enum { N = 300 };
    orr_entity e[N];
    for (int i = 0; i < N; i++) e[i] = make(w, ORR_ENTITY_NONE);
    /* add in a scrambled order: iteration is still by ascending entity index */
    for (int k = 0; k < N; k++) {
        int i = (k * 37) % N;
        if (i % 2 == 0) orr_component_add(w, e[i], ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
        if (i % 3 == 0) orr_component_add(w, e[i], ORR_COMPONENT_LIGHT, NULL, NULL);
    }
    orr_component_remove(w, e[6], ORR_COMPONENT_LIGHT);
    orr_component_type both[2] = {ORR_COMPONENT_LIGHT, ORR_COMPONENT_MESH_RENDERER};
    orr_query q;
    orr_query_begin(w, both, 2, &q);
    int expect = 0, count = 0;
    while (orr_query_next(&q)) {
        if (expect == 6) expect += 6;
        assert_int_equal(q.entity.index, e[expect].index);
        assert_ptr_equal(q.components[0], orr_component_try_get(w, q.entity, ORR_COMPONENT_LIGHT));
        assert_ptr_equal(q.components[1], orr_component_try_get(w, q.entity, ORR_COMPONENT_MESH_RENDERER));
        expect += 6;
        count++;
    }
    orr_query_end(&q);
    assert_int_equal(count, 49); /* multiples of 6 below 300, without 6 */
    orr_component_type one = ORR_COMPONENT_MESH_RENDERER;
    orr_query_begin(w, &one, 1, &q);
    uint32_t prev = 0;
    count = 0;
    while (orr_query_next(&q)) {
        if (count) assert_true(q.entity.index > prev);
        prev = q.entity.index;
        count++;
    }
    assert_int_equal(count, N / 2);
    assert_int_equal(orr_world_component_count(w, ORR_COMPONENT_MESH_RENDERER), N / 2);
    /* an empty pool */
    one = ORR_COMPONENT_CAMERA;
    orr_query_begin(w, &one, 1, &q);
    assert_false(orr_query_next(&q));
    orr_query_end(&q);
    orr_world_destroy(w);
}

static void test_pool_churn(void **state)
{
    (void)state;
    /* Many removes and out-of-order adds: the pool is put back in entity order now and then; values,
     * lookups and query order must not notice. */
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    enum { N = 6000 };
    static orr_entity e[N];
    static bool has[N];
    for (int i = 0; i < N; i++) e[i] = make(w, ORR_ENTITY_NONE);
    for (int round = 0; round < 4; round++) {
        for (int k = 0; k < N; k++) {
            int i = (int)(((uint64_t)k * 7919u + (uint64_t)round * 104729u) % N);
            if (has[i]) {
                assert_int_equal(orr_component_remove(w, e[i], ORR_COMPONENT_MESH_RENDERER), ORR_OK);
                has[i] = false;
            } else if ((k + round) % 3) {
                orr_mesh_renderer mr = orr_mesh_renderer_default();
                mr.mesh = (orr_mesh_id){(uint32_t)i, 1};
                assert_int_equal(orr_component_add(w, e[i], ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
                has[i] = true;
            }
        }
        orr_component_type t = ORR_COMPONENT_MESH_RENDERER;
        orr_query q;
        orr_query_begin(w, &t, 1, &q);
        int next = 0, count = 0;
        while (orr_query_next(&q)) {
            while (!has[next]) next++;
            assert_int_equal(q.entity.index, e[next].index);
            assert_int_equal(((const orr_mesh_renderer *)q.components[0])->mesh.index, (uint32_t)next);
            next++;
            count++;
        }
        for (int i = 0; i < N; i++) {
            assert_int_equal(orr_component_has(w, e[i], ORR_COMPONENT_MESH_RENDERER), has[i]);
            if (has[i]) assert_int_equal(orr_mesh_renderer_try_get(w, e[i])->mesh.index, (uint32_t)i);
        }
        assert_int_equal((uint32_t)count, orr_world_component_count(w, ORR_COMPONENT_MESH_RENDERER));
    }
    orr_world_destroy(w);
}

static void test_find_in_subtree(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity r = make(w, ORR_ENTITY_NONE), a = make(w, r), a1 = make(w, a), b = make(w, r);
    orr_component_add(w, b, ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
    orr_component_add(w, a1, ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
    assert_true(orr_entity_eq(orr_world_find_in_subtree(w, r, ORR_COMPONENT_MESH_RENDERER), a1)); /* pre-order */
    assert_true(orr_entity_eq(orr_world_find_in_subtree(w, b, ORR_COMPONENT_MESH_RENDERER), b));  /* root included */
    assert_int_equal(orr_world_find_in_subtree(w, r, ORR_COMPONENT_LIGHT).generation, 0);
    assert_true(orr_entity_eq(orr_world_find_in_subtree(w, ORR_ENTITY_NONE, ORR_COMPONENT_MESH_RENDERER), a1));
    orr_world_destroy(w);
}

typedef struct counting {
    size_t live, peak;
} counting;
static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counting *c = user;
    c->live -= ptr ? old_size : 0;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (p) c->live += new_size;
    else c->live += ptr ? old_size : 0;
    if (c->live > c->peak) c->peak = c->live;
    return p;
}

static void test_allocator_hooks(void **state)
{
    (void)state;
    /* every byte goes through the world's allocator and comes back; memory_bytes accounts for it */
    counting c = {0};
    orr_world_desc d = {.allocator = {.realloc = count_realloc, .user = &c}};
    orr_world *w;
    assert_int_equal(orr_world_create(&d, &w, NULL), ORR_OK);
    orr_entity prev = ORR_ENTITY_NONE;
    for (int i = 0; i < 2000; i++) {
        orr_entity e = make(w, i % 3 ? prev : ORR_ENTITY_NONE);
        orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
        if (i % 5 == 0) orr_entity_set_name(w, e, i % 10 ? "n" : "a name longer than the sixty-three bytes a name used to hold");
        if (i % 7 == 0) {
            orr_component_add(w, e, ORR_COMPONENT_SKINNED_MESH, NULL, NULL);
            orr_skinned_mesh_set_joints(w, e, &prev, 1);
            orr_mesh_renderer_set_material(w, e, (uint32_t)i % 13, (orr_material_id){1, 1});
        }
        prev = e;
    }
    orr_world_update_transforms(w);
    assert_true(c.live > 0);
    assert_int_equal(orr_world_memory_bytes(w), c.live);
    orr_world_destroy(w);
    assert_int_equal(c.live, 0);
}

/* What variable-length data costs: a SkinnedMesh's joint list is its joints x 8 bytes and an 8-byte
 * head, nothing per joint beyond that; the component itself is 16 bytes in its pool (the 2 KiB array
 * of 256 joints is gone); a MeshRenderer without overrides holds no list at all. */
static void test_list_memory(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(&(orr_world_desc){.reserve = 4096}, &w, NULL), ORR_OK);
    assert_int_equal(orr_component_reserve(w, ORR_COMPONENT_SKINNED_MESH, 1024), ORR_OK);
    assert_int_equal(orr_component_reserve(w, ORR_COMPONENT_MESH_RENDERER, 1024), ORR_OK);
    orr_entity e;
    assert_int_equal(orr_entity_create(w, NULL, &e), ORR_OK);
    orr_entity *joints = calloc(1000, sizeof *joints);
    assert_non_null(joints);
    size_t before = orr_world_memory_bytes(w);
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_SKINNED_MESH, NULL, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, NULL, NULL), ORR_OK);
    assert_int_equal(orr_world_memory_bytes(w), before); /* into reserved room, no list yet */
    assert_int_equal(orr_skinned_mesh_set_joints(w, e, joints, 1000), ORR_OK);
    assert_int_equal(orr_world_memory_bytes(w), before + 1000 * 8 + 8);
    assert_int_equal(orr_skinned_mesh_set_joints(w, e, joints, 10), ORR_OK); /* replaced: the old list freed */
    assert_int_equal(orr_world_memory_bytes(w), before + 10 * 8 + 8);
    assert_int_equal(orr_skinned_mesh_set_joints(w, e, NULL, 0), ORR_OK);
    assert_int_equal(orr_world_memory_bytes(w), before);
    assert_int_equal(orr_entity_set_name(w, e, "twelve bytes"), ORR_OK); /* its Name, then its text */
    size_t named = orr_world_memory_bytes(w);
    assert_int_equal(orr_entity_set_name(w, e, "thirteen byte"), ORR_OK);
    assert_int_equal(orr_world_memory_bytes(w), named + 1);
    /* the pools: 16-byte components (and their entity index), where a SkinnedMesh took 2 KiB */
    orr_world *fresh;
    assert_int_equal(orr_world_create(NULL, &fresh, NULL), ORR_OK);
    size_t empty = orr_world_memory_bytes(fresh);
    assert_int_equal(orr_component_reserve(fresh, ORR_COMPONENT_SKINNED_MESH, 1024), ORR_OK);
    size_t per = (orr_world_memory_bytes(fresh) - empty) / 1024;
    print_message("SkinnedMesh pool: %zu bytes per component reserved (joints aside)\n", per);
    assert_true(per <= 32);
    free(joints);
    orr_world_destroy(fresh);
    orr_world_destroy(w);
}

/* MorphWeights: set adds the component (structural) and copies the list; write grows it with zeros
 * and logs an edit only when a value changed; clone copies the list; the component is found by name. */
static void test_morph_weights(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity e = make(w, ORR_ENTITY_NONE);
    uint32_t n = 7;
    assert_null(orr_morph_weights(w, e, &n));
    assert_int_equal(n, 0);
    assert_int_equal(orr_morph_weights_write(w, e, 0, (float[]){1}, 1), ORR_ERROR_NOT_FOUND);
    uint64_t structure = orr_world_structure_version(w);
    assert_int_equal(orr_morph_weights_set(w, e, (float[]){0.25f, 0.5f}, 2), ORR_OK);
    assert_true(orr_world_structure_version(w) > structure);
    assert_true(orr_component_has(w, e, ORR_COMPONENT_MORPH_WEIGHTS));
    const float *v = orr_morph_weights(w, e, &n);
    assert_int_equal(n, 2);
    assert_true(v[0] == 0.25f && v[1] == 0.5f);
    orr_component_type found;
    assert_int_equal(orr_world_find_component(w, "MorphWeights", &found), ORR_OK);
    assert_int_equal(found, ORR_COMPONENT_MORPH_WEIGHTS);

    orr_world_update_transforms(w);
    orr_world_clear_changes(w);
    uint64_t revision = orr_world_revision(w);
    assert_int_equal(orr_morph_weights_write(w, e, 1, (float[]){0.5f}, 1), ORR_OK); /* the same value */
    assert_int_equal(orr_world_get_changes(w).edited_count, 0);
    assert_true(orr_world_revision(w) == revision);
    assert_int_equal(orr_morph_weights_write(w, e, 3, (float[]){2.0f}, 1), ORR_OK); /* grows: 0.25 0.5 0 2 */
    assert_int_equal(orr_world_get_changes(w).edited_count, 1);
    assert_true(orr_world_revision(w) > revision);
    v = orr_morph_weights(w, e, &n);
    assert_int_equal(n, 4);
    assert_true(v[0] == 0.25f && v[1] == 0.5f && v[2] == 0.0f && v[3] == 2.0f);

    orr_entity copy;
    assert_int_equal(orr_world_clone(w, w, e, ORR_ENTITY_NONE, NULL, &copy), ORR_OK);
    const float *c = orr_morph_weights(w, copy, &n);
    assert_int_equal(n, 4);
    assert_true(c != v && c[3] == 2.0f);
    assert_int_equal(orr_morph_weights_set(w, e, NULL, 0), ORR_OK); /* empty: the mesh's defaults */
    assert_null(orr_morph_weights(w, e, &n));
    assert_int_equal(orr_component_remove(w, e, ORR_COMPONENT_MORPH_WEIGHTS), ORR_OK);
    orr_world_destroy(w);
}

const struct CMUnitTest orrt_world_component_tests[] = {
    cmocka_unit_test(test_morph_weights),
    cmocka_unit_test(test_builtins),
    cmocka_unit_test(test_dirty_marks),
    cmocka_unit_test(test_user_types),
    cmocka_unit_test(test_queries),
    cmocka_unit_test(test_pool_churn),
    cmocka_unit_test(test_find_in_subtree),
    cmocka_unit_test(test_allocator_hooks),
    cmocka_unit_test(test_list_memory),
};
const size_t orrt_world_component_count = sizeof orrt_world_component_tests / sizeof orrt_world_component_tests[0];
