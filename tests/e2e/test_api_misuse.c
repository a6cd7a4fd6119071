/* API misuse from C (issue 31): every public call that returns orr_result, given NULL for its
 * context or for a pointer it cannot do without, returns ORR_ERROR_INVALID_ARGUMENT in a release
 * build (with its message where the call has an error to set), and in a debug build stops with an
 * "API misuse" message (abort); never a crash. Each call runs in a child process of its own. */
#include "e2e_tests.h"

#include <orrery/anim.h>
#include <orrery/draw.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/gpu_vulkan.h>
#include <orrery/scene.h>
#include <orrery/snapshot.h>
#include <orrery/world.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the calls are given where a pointer is valid. */
typedef struct fixture {
    orr_world *w;
    orr_entity e;
    orr_assets *a;
    orr_session *s;
    orr_renderer *r; /* NULL without a device: the cases that need one then pass NULL alike */
    orr_target_id t;
    orr_view_id v;
    orr_mesh_id mesh;
    orr_material_id material;
    orr_prefab_id prefab;
    orr_snapshot snap;
    orr_draw_list list;
    orr_draw_scene scene;
    orr_draw_visible visible;
    orr_draw_view view;
    orr_handle_pool pool;
    orr_extractor *x;
    orr_error err;
    /* outputs */
    orr_entity eo;
    orr_mat4d m;
    orr_transform tr;
    orr_affine3d pose;
    uint32_t u;
} fixture;

static const uint8_t bytes[100];

/* Each case: a call with one required pointer NULL. */
#define MISUSE_CASES(X)                                                                                               \
    /* the twelve of the issue */                                                                                   \
    X(orr_entity_create(NULL, NULL, &f->eo))                                                                        \
    X(orr_entity_world_matrix(NULL, f->e, &f->m))                                                                   \
    X(orr_prefab_instantiate(NULL, f->a, f->prefab, ORR_ENTITY_NONE, NULL, &f->eo))                                 \
    X(orr_gltf_load(NULL, "x.gltf", NULL, &f->prefab, &f->err))                                                     \
    X(orr_gltf_load(f->a, "x.gltf", NULL, NULL, &f->err))                                                           \
    X(orr_gltf_load(f->a, NULL, NULL, &f->prefab, &f->err))                                                         \
    X(orr_gltf_load_memory(f->a, NULL, 100, NULL, NULL, NULL, &f->prefab, &f->err))                                 \
    X(orr_entity_set_translations(f->w, NULL, NULL, 5))                                                             \
    X(orr_entity_create(f->w, NULL, NULL))                                                                          \
    /* world */                                                                                                     \
    X(orr_world_create(NULL, NULL, NULL))                                                                           \
    X(orr_world_reserve(NULL, 10))                                                                                  \
    X(orr_entity_destroy(NULL, f->e))                                                                               \
    X(orr_entity_set_parent(NULL, f->e, ORR_ENTITY_NONE, ORR_KEEP_WORLD))                                           \
    X(orr_entity_set_sibling_index(NULL, f->e, 0))                                                                  \
    X(orr_entity_get_local(NULL, f->e, &f->tr))                                                                     \
    X(orr_entity_get_local(f->w, f->e, NULL))                                                                       \
    X(orr_entity_set_local(NULL, f->e, &f->tr))                                                                     \
    X(orr_entity_set_local(f->w, f->e, NULL))                                                                       \
    X(orr_entity_set_translation(NULL, f->e, (orr_vec3d){0, 0, 0}))                                                 \
    X(orr_entity_set_rotation(NULL, f->e, ORR_QUAT_IDENTITY))                                                       \
    X(orr_entity_set_scale(NULL, f->e, ORR_VEC3_ONE))                                                               \
    X(orr_entity_world_matrix(f->w, f->e, NULL))                                                                    \
    X(orr_entity_set_world_matrix(NULL, f->e, &f->m))                                                               \
    X(orr_entity_set_world_matrix(f->w, f->e, NULL))                                                                \
    X(orr_entity_cached_world(NULL, f->e, &f->m))                                                                   \
    X(orr_entity_cached_world(f->w, f->e, NULL))                                                                    \
    X(orr_entity_cached_pose(NULL, f->e, &f->pose))                                                                 \
    X(orr_entity_cached_pose(f->w, f->e, NULL))                                                                     \
    X(orr_entity_set_translations(NULL, &f->e, (const orr_vec3d *)&f->m, 1))                                        \
    X(orr_entity_cached_poses(NULL, &f->e, 1, &f->pose))                                                            \
    X(orr_entity_cached_poses(f->w, NULL, 3, NULL))                                                                 \
    X(orr_mesh_renderer_set_materials(NULL, f->e, &f->material, 1))                                                 \
    X(orr_mesh_renderer_set_materials(f->w, f->e, NULL, 3))                                                         \
    X(orr_mesh_renderer_set_material(NULL, f->e, 0, f->material))                                                   \
    X(orr_skinned_mesh_set_joints(NULL, f->e, &f->e, 1))                                                            \
    X(orr_skinned_mesh_set_joints(f->w, f->e, NULL, 2))                                                             \
    X(orr_animation_player_set_targets(NULL, f->e, &f->e, 1))                                                       \
    X(orr_animation_player_set_targets(f->w, f->e, NULL, 2))                                                        \
    X(orr_world_register_component(NULL, NULL, &f->u))                                                              \
    X(orr_world_find_component(NULL, "x", &f->u))                                                                   \
    X(orr_component_reserve(NULL, ORR_COMPONENT_MESH_RENDERER, 1))                                                  \
    X(orr_component_add(NULL, f->e, ORR_COMPONENT_MESH_RENDERER, NULL, NULL))                                       \
    X(orr_component_remove(NULL, f->e, ORR_COMPONENT_MESH_RENDERER))                                                \
    X(orr_entity_set_name(NULL, f->e, "x"))                                                                         \
    X(orr_world_clone(NULL, f->w, f->e, ORR_ENTITY_NONE, NULL, &f->eo))                                             \
    X(orr_morph_weights_set(NULL, f->e, (const float *)&f->m, 1))                                                   \
    X(orr_morph_weights_set(f->w, f->e, NULL, 2))                                                                   \
    X(orr_morph_weights_write(NULL, f->e, 0, (const float *)&f->m, 1))                                              \
    X(orr_morph_weights_write(f->w, f->e, 0, NULL, 2))                                                              \
    /* assets */                                                                                                    \
    X(orr_assets_create(NULL, NULL, NULL))                                                                          \
    X(orr_assets_add_mesh(NULL, &(orr_mesh_desc){0}, &f->mesh))                                                     \
    X(orr_assets_add_mesh(f->a, NULL, &f->mesh))                                                                    \
    X(orr_assets_add_mesh(f->a, &(orr_mesh_desc){0}, NULL))                                                         \
    X(orr_assets_add_texture(NULL, &(orr_texture_desc){0}, (orr_texture_id *)&f->u))                                \
    X(orr_assets_add_texture(f->a, NULL, (orr_texture_id *)&f->m))                                                  \
    X(orr_assets_add_target_texture(NULL, &(orr_target_texture_desc){.target_key = 1}, (orr_texture_id *)&f->m))    \
    X(orr_assets_add_target_texture(f->a, NULL, (orr_texture_id *)&f->m))                                           \
    X(orr_assets_add_fur_noise(NULL, NULL, (orr_texture_id *)&f->m))                                                \
    X(orr_assets_add_fur_noise(f->a, NULL, NULL))                                                                   \
    X(orr_assets_add_material(NULL, &(orr_material){0}, &f->material))                                              \
    X(orr_assets_add_material(f->a, NULL, &f->material))                                                            \
    X(orr_assets_add_material(f->a, &(orr_material){0}, NULL))                                                      \
    X(orr_assets_clone_material(NULL, f->material, &f->material))                                                   \
    X(orr_assets_clone_material(f->a, f->material, NULL))                                                           \
    X(orr_assets_add_skin(NULL, &(orr_skin_desc){0}, (orr_skin_id *)&f->m))                                         \
    X(orr_assets_add_skin(f->a, NULL, (orr_skin_id *)&f->m))                                                        \
    X(orr_assets_add_clip(NULL, &(orr_clip_desc){0}, (orr_clip_id *)&f->m))                                         \
    X(orr_assets_add_clip(f->a, NULL, (orr_clip_id *)&f->m))                                                        \
    X(orr_assets_remove_mesh(NULL, f->mesh))                                                                        \
    X(orr_assets_remove_material(NULL, f->material))                                                                \
    X(orr_assets_remove_texture(NULL, (orr_texture_id){1, 1}))                                                      \
    X(orr_assets_remove_skin(NULL, (orr_skin_id){1, 1}))                                                            \
    X(orr_assets_remove_clip(NULL, (orr_clip_id){1, 1}))                                                            \
    X(orr_assets_add_prefab(NULL, "x", NULL, NULL, &f->prefab))                                                     \
    X(orr_assets_add_prefab(f->a, "x", NULL, NULL, NULL))                                                           \
    /* core */                                                                                                      \
    X(orr_workers_create(NULL, NULL, NULL))                                                                         \
    X(orr_handle_pool_alloc(NULL, (orr_handle *)&f->m))                                                             \
    X(orr_handle_pool_alloc(&f->pool, NULL))                                                                        \
    X(orr_handle_pool_free(NULL, (orr_handle){1, 1}))                                                               \
    /* draw */                                                                                                      \
    X(orr_draw_prepare(NULL, &f->snap, f->a, &f->view))                                                             \
    X(orr_draw_prepare(&f->list, NULL, f->a, &f->view))                                                             \
    X(orr_draw_prepare(&f->list, &f->snap, NULL, &f->view))                                                         \
    X(orr_draw_prepare(&f->list, &f->snap, f->a, NULL))                                                             \
    X(orr_draw_scene_build(NULL, &f->snap, f->a, ORR_ORDER_MESH))                                                   \
    X(orr_draw_scene_build(&f->scene, NULL, f->a, ORR_ORDER_MESH))                                                  \
    X(orr_draw_scene_cull(&f->scene, &f->snap, NULL, &f->visible))                                                  \
    X(orr_draw_scene_cull(&f->scene, &f->snap, &f->view, NULL))                                                     \
    X(orr_draw_scene_cull_transparent(NULL, &f->snap, &f->view, &f->visible))                                       \
    X(orr_draw_scene_cull_payloads(&f->scene, NULL, &f->view, &f->visible))                                         \
    X(orr_draw_fur_collect(NULL, &f->list, &f->snap, f->a))                                                         \
    X(orr_draw_fur_collect_visible(NULL, &f->scene, &f->visible, &f->snap, f->a))                                   \
    X(orr_draw_meshlet_cull_list(NULL, &f->list, &f->snap, f->a, &f->view, 0))                                      \
    X(orr_draw_meshlet_cull_visible(NULL, &f->scene, &f->visible, &f->snap, f->a, &f->view, 0))                     \
    /* frame */                                                                                                     \
    X(orr_session_create(NULL, NULL, NULL))                                                                         \
    X(orr_session_add_system(NULL, &(orr_system_desc){0}))                                                          \
    X(orr_session_add_system(f->s, NULL))                                                                           \
    X(orr_session_run_frame(NULL, 0.0))                                                                             \
    X(orr_session_run_ticks(NULL, 1))                                                                               \
    X(orr_session_skip_ticks(NULL, 1))                                                                              \
    X(orr_frame_extract(NULL, f->a, 1, 0, NULL, &f->snap))                                                          \
    X(orr_frame_extract(f->w, NULL, 1, 0, NULL, &f->snap))                                                          \
    X(orr_frame_extract(f->w, f->a, 1, 0, NULL, NULL))                                                              \
    X(orr_extractor_create(NULL, NULL, NULL))                                                                       \
    X(orr_extractor_update(NULL, f->w, f->a, 1, 0, &f->snap))                                                       \
    X(orr_extractor_update(f->x, NULL, f->a, 1, 0, &f->snap))                                                       \
    /* snapshot */                                                                                                  \
    X(orr_snapshot_copy(NULL, &f->snap))                                                                            \
    X(orr_snapshot_copy(&f->snap, NULL))                                                                            \
    X(orr_snapshot_diff(NULL, NULL, NULL))                                                                          \
    /* scene */                                                                                                     \
    X(orr_gltf_load_memory(NULL, bytes, sizeof bytes, NULL, NULL, NULL, &f->prefab, &f->err))                       \
    X(orr_gltf_load_memory(f->a, bytes, sizeof bytes, NULL, NULL, NULL, NULL, &f->err))                             \
    X(orr_gltf_info_file(NULL, NULL, NULL, (orr_gltf_info *)&f->m, &f->err))                                        \
    X(orr_gltf_info_file("x.gltf", NULL, NULL, NULL, &f->err))                                                      \
    X(orr_prefab_instantiate(f->w, NULL, f->prefab, ORR_ENTITY_NONE, NULL, &f->eo))                                 \
    X(orr_prefab_instantiate(f->w, f->a, f->prefab, ORR_ENTITY_NONE, NULL, NULL))                                   \
    X(orr_scene_bounds(NULL, f->a, ORR_ENTITY_NONE, (orr_aabbd *)&f->m))                                            \
    X(orr_scene_bounds(f->w, f->a, ORR_ENTITY_NONE, NULL))                                                          \
    /* gpu */                                                                                                       \
    X(orr_renderer_create(NULL, NULL, &f->err))                                                                     \
    X(orr_renderer_bind_library(NULL, f->a, (orr_library_id *)&f->m))                                               \
    X(orr_renderer_bind_library(f->r, NULL, (orr_library_id *)&f->m))                                               \
    X(orr_renderer_unbind_library(NULL, (orr_library_id){1, 1}))                                                    \
    X(orr_renderer_create_target(NULL, &(orr_target_desc){.width = 8, .height = 8, .samples = 1}, &f->t))           \
    X(orr_renderer_create_target(f->r, NULL, &f->t))                                                                \
    X(orr_renderer_create_target(f->r, &(orr_target_desc){.width = 8, .height = 8, .samples = 1}, NULL))            \
    X(orr_renderer_create_surface_target(NULL, &(orr_surface_target_desc){0}, &f->t))                               \
    X(orr_renderer_create_surface_target(f->r, NULL, &f->t))                                                        \
    X(orr_renderer_destroy_target(NULL, f->t))                                                                      \
    X(orr_renderer_resize_target(NULL, f->t, 8, 8))                                                                 \
    X(orr_renderer_target_size(NULL, f->t, &f->u, &f->u))                                                           \
    X(orr_renderer_target_size(f->r, f->t, NULL, NULL))                                                             \
    X(orr_renderer_create_view(NULL, &(orr_view_desc){0}, &f->v))                                                   \
    X(orr_renderer_create_view(f->r, NULL, &f->v))                                                                  \
    X(orr_renderer_create_view(f->r, &(orr_view_desc){.target = f->t}, NULL))                                       \
    X(orr_renderer_update_view(NULL, f->v, &(orr_view_desc){0}))                                                    \
    X(orr_renderer_update_view(f->r, f->v, NULL))                                                                   \
    X(orr_renderer_destroy_view(NULL, f->v))                                                                        \
    X(orr_renderer_render(NULL, &(orr_render_desc){.snapshot = &f->snap}, NULL))                                    \
    X(orr_renderer_render(f->r, NULL, NULL))                                                                        \
    X(orr_renderer_render(f->r, &(orr_render_desc){.target = f->t}, NULL))                                          \
    X(orr_renderer_finish(NULL, NULL))                                                                              \
    X(orr_renderer_read_target(NULL, f->t, (uint8_t *)&f->m, sizeof f->m))                                          \
    X(orr_gpu_write_png(NULL, 1, 1, bytes, &f->err))

static orr_result run_case(int k, fixture *f)
{
    int i = 0;
#define X(call)                                                                                                       \
    if (k == i++) return call;
    MISUSE_CASES(X)
#undef X
    return ORR_OK;
}

static const char *const case_names[] = {
#define X(call) #call,
    MISUSE_CASES(X)
#undef X
};

/* The case in a child process, its stderr in `err_text`; the child's status. */
static int run_child(int k, fixture *f, char *err_text, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/orrery_misuse_%d.txt", (int)getpid());
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* cmocka's handlers would report a crash as a failed test inside the child: the default
         * actions, so that the parent sees the signal */
        signal(SIGSEGV, SIG_DFL), signal(SIGBUS, SIG_DFL), signal(SIGILL, SIG_DFL), signal(SIGFPE, SIG_DFL);
        if (!freopen(path, "w", stderr)) _exit(90);
        setvbuf(stderr, NULL, _IONBF, 0); /* the message of a call that aborts reaches the file */
        orr_result r = run_case(k, f);
        fflush(stderr);
        _exit(r == ORR_ERROR_INVALID_ARGUMENT ? 0 : 100 + (int)r);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    FILE *e = fopen(path, "rb");
    size_t n = e ? fread(err_text, 1, cap - 1, e) : 0;
    err_text[n] = 0;
    if (e) fclose(e);
    remove(path);
    return status;
}

void test_api_misuse(void **state)
{
    (void)state;
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(orr_world_create(NULL, &f->w, NULL), ORR_OK);
    assert_int_equal(orr_entity_create(f->w, NULL, &f->e), ORR_OK);
    assert_int_equal(orr_assets_create(NULL, &f->a, NULL), ORR_OK);
    assert_int_equal(orr_session_create(NULL, &f->s, NULL), ORR_OK);
    assert_int_equal(orr_extractor_create(NULL, &f->x, NULL), ORR_OK);
    f->material = orr_assets_default_material(f->a);
    orr_snapshot_init(&f->snap, NULL);
    orr_draw_list_init(&f->list, NULL);
    orr_draw_scene_init(&f->scene, NULL);
    orr_draw_visible_init(&f->visible, NULL);
    orr_handle_pool_init(&f->pool, NULL, 0);
    orr_error err;
    if (orr_renderer_create(NULL, &f->r, &err) == ORR_OK)
        assert_int_equal(orr_renderer_create_target(f->r, &(orr_target_desc){.width = 8, .height = 8, .samples = 1}, &f->t), ORR_OK);
    else
        print_message("no device (%s): the renderer's cases get a NULL renderer\n", err.message);
    size_t count = sizeof case_names / sizeof case_names[0];
    unsigned failed = 0;
    static char text[1 << 14];
    for (size_t k = 0; k < count; k++) {
        int status = run_child((int)k, f, text, sizeof text);
        bool returned = WIFEXITED(status) && WEXITSTATUS(status) == 0;
#ifdef NDEBUG
        bool ok = returned; /* release: the call returns ORR_ERROR_INVALID_ARGUMENT */
#else
        /* debug: the call stops with the misuse message (or returns the error, for the calls that
         * always did) */
        bool ok = returned || (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strstr(text, "API misuse"));
#endif
        if (!ok) {
            failed++;
            if (WIFSIGNALED(status))
                print_error("%s: killed by signal %d %s\n", case_names[k], WTERMSIG(status), text);
            else
                print_error("%s: exit %d (100 + the result it returned) %s\n", case_names[k], WEXITSTATUS(status), text);
        }
    }
    print_message("%zu misuse cases, %u failed\n", count, failed);
    assert_int_equal(failed, 0);
#ifdef NDEBUG
    /* the message, where the call has an error to set */
    assert_int_equal(orr_entity_create(f->w, NULL, NULL), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_world_last_error(f->w)->message, "orr_entity_create: out is required"));
    assert_int_equal(orr_entity_set_translations(f->w, NULL, NULL, 5), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_world_last_error(f->w)->message, "count 5"));
    orr_error e = {0};
    assert_int_equal(orr_gltf_load_memory(f->a, NULL, 100, NULL, NULL, NULL, &f->prefab, &e), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(e.message, "data is NULL"));
    /* the calls that return no orr_result: a NULL world counts nothing and updates nothing */
    assert_int_equal(orr_world_entity_count(NULL), 0);
    orr_world_update_transforms(NULL);
#endif
    orr_renderer_destroy(f->r);
    orr_extractor_destroy(f->x);
    orr_handle_pool_fini(&f->pool);
    orr_draw_visible_fini(&f->visible);
    orr_draw_scene_fini(&f->scene);
    orr_draw_list_fini(&f->list);
    orr_snapshot_fini(&f->snap);
    orr_session_destroy(f->s);
    orr_assets_destroy(f->a);
    orr_world_destroy(f->w);
    free(f);
}

#ifndef NDEBUG
/* Destroying a context twice is undefined; a debug build stops at the second destroy (a sanitizer
 * build reports the use after free). Registered in debug builds only. */
void test_double_destroy_caught_in_debug(void **state)
{
    (void)state;
    for (int kind = 0; kind < 3; kind++) {
        char path[128];
        snprintf(path, sizeof path, "/tmp/orrery_destroy_%d.txt", (int)getpid());
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            if (!freopen(path, "w", stderr)) _exit(90);
            setvbuf(stderr, NULL, _IONBF, 0);
            if (kind == 0) {
                orr_world *w;
                if (orr_world_create(NULL, &w, NULL) != ORR_OK) _exit(91);
                orr_world_destroy(w);
                orr_world_destroy(w);
            } else if (kind == 1) {
                orr_assets *a;
                if (orr_assets_create(NULL, &a, NULL) != ORR_OK) _exit(91);
                orr_assets_destroy(a);
                orr_assets_destroy(a);
            } else {
                orr_session *s;
                if (orr_session_create(NULL, &s, NULL) != ORR_OK) _exit(91);
                orr_session_destroy(s);
                orr_session_destroy(s);
            }
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        static char text[1 << 14];
        FILE *e = fopen(path, "rb");
        size_t n = e ? fread(text, 1, sizeof text - 1, e) : 0;
        text[n] = 0;
        if (e) fclose(e);
        remove(path);
        bool caught = (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strstr(text, "destroyed already")) ||
                      strstr(text, "AddressSanitizer");
        if (!caught) fail_msg("context %d destroyed twice: status %d, '%s'", kind, status, text);
    }
}
#endif

/* Poses enter finite: NaN and infinities are refused, naming the value, and change nothing. */
void test_non_finite_poses_refused(void **state)
{
    (void)state;
    orr_world *w;
    orr_entity e, made;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    assert_int_equal(orr_entity_create(w, NULL, &e), ORR_OK);
    assert_int_equal(orr_entity_set_translation(w, e, (orr_vec3d){1, 2, 3}), ORR_OK);
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(orr_entity_set_translation(w, e, (orr_vec3d){0, bad[k], 0}), ORR_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(orr_world_last_error(w)->message, "translation"));
        assert_non_null(strstr(orr_world_last_error(w)->message, "is not finite"));
        assert_int_equal(orr_entity_set_rotation(w, e, (orr_quatd){bad[k], 0, 0, 1}), ORR_ERROR_INVALID_ARGUMENT);
        assert_int_equal(orr_entity_set_scale(w, e, (orr_vec3d){1, 1, bad[k]}), ORR_ERROR_INVALID_ARGUMENT);
        orr_transform t = orr_transform_identity();
        t.scale.x = bad[k];
        assert_int_equal(orr_entity_set_local(w, e, &t), ORR_ERROR_INVALID_ARGUMENT);
        assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.local = &t}, &made), ORR_ERROR_INVALID_ARGUMENT);
        t = orr_transform_identity();
        t.has_matrix = true;
        t.matrix.m[13] = bad[k];
        assert_int_equal(orr_entity_set_local(w, e, &t), ORR_ERROR_INVALID_ARGUMENT);
        orr_mat4d m;
        orr_mat4d_identity(&m);
        m.m[0] = bad[k];
        assert_int_equal(orr_entity_set_world_matrix(w, e, &m), ORR_ERROR_INVALID_ARGUMENT);
        orr_vec3d ts[2] = {{5, 5, 5}, {bad[k], 0, 0}};
        orr_entity es[2] = {e, e};
        assert_int_equal(orr_entity_set_translations(w, es, ts, 2), ORR_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(orr_world_last_error(w)->message, "translation 1"));
    }
    assert_int_equal(orr_world_entity_count(w), 1); /* no entity made by a refused create */
    orr_mat4d m;
    assert_int_equal(orr_entity_world_matrix(w, e, &m), ORR_OK);
    assert_true(m.m[12] == 1 && m.m[13] == 2 && m.m[14] == 3 && m.m[0] == 1); /* the pose as it was */
    /* the largest finite values are poses like any other */
    assert_int_equal(orr_entity_set_translation(w, e, (orr_vec3d){1.7e308, -1.7e308, 0}), ORR_OK);
    orr_world_destroy(w);
}
