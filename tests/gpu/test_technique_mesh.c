/* gpu mesh techniques (technique.h, orr_technique_scene.mesh): a scene technique's task and mesh stages
 * in place of its vertex stage. Every device: the refusals, each with its message naming the technique
 * (the desc's shape, GLSL that does not compile with the compiler's line, interfaces that do not match,
 * and, after all of that passed, a renderer without mesh shaders), and a vertex technique's list left
 * drawing the same bytes. Group mesh_shaders (CTest gpu_mesh_shaders): the same markers, one point per
 * visible instance of a layer at its origin, drawn by a vertex technique (corners of its triangles,
 * every one at the origin), by a mesh technique (a workgroup per record) and by a task and mesh
 * technique give the same bytes; a hot reload of the fragment and mesh stages draws the new colour and
 * the new, larger points (more pixels); a refused reload is all or nothing. A device without
 * mesh shaders checks the refusal there instead (ORRERY_REQUIRE_MESH_SHADERS makes it a failure).
 * Validation and synchronization validation are on: any message fails. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/technique.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 96, H = 72 };
#define LAYER_X 2u /* the fixture's rotated green cube (instance 1) and small red one (instance 4) */

static const orr_technique_write WRITE_COLOR[] = {{.name = "color"}};

/* The host data of every marker shader: a colour and a point size (20 bytes; per record the library's
 * uint follows). */
typedef struct marker {
    float color[4];
    float size;
} marker;

static const char *MARK_FRAG = "#version 450\n"
                               "layout(push_constant) uniform Marker { vec4 color; float size; } pc;\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() { o = pc.color; }\n";

/* Each corner of the record's triangles at the instance's origin: one point per instance, drawn again
 * per corner. */
#define MARK_VERT_OF(SIZE)                                                                                   \
    "#version 450\n"                                                                                         \
    "#define ORR_SCENE_VERTEX\n"                                                                             \
    "#include \"orrery/scene.glsl\"\n"                                                                       \
    "layout(push_constant) uniform Marker { vec4 color; float size; } pc;\n"                                 \
    "void main()\n"                                                                                          \
    "{\n"                                                                                                    \
    "    orr_gpu_record rec = orr_scene_record();\n"                                                         \
    "    gl_PointSize = " SIZE ";\n"                                                                          \
    "    if (!orr_scene_layer_kept(rec.instance)) { gl_Position = ORR_SCENE_DROPPED; return; }\n"            \
    "    gl_Position = orr_scene_clip(orr_scene_place(rec.instance, vec3(0.0)));\n"                          \
    "}\n"
static const char *MARK_VERT = MARK_VERT_OF("pc.size");
static const char *MARK_VERT_BIG = MARK_VERT_OF("pc.size + 4.0"); /* larger points: another image */

/* A workgroup per record: its instance's origin as one point. */
#define MARK_MESH_OF(SIZE) \
    "#version 450\n" \
    "#extension GL_EXT_mesh_shader : require\n" \
    "#define ORR_SCENE_MESH\n" \
    "#include \"orrery/scene.glsl\"\n" \
    "layout(local_size_x = 1) in;\n" \
    "layout(points, max_vertices = 1, max_primitives = 1) out;\n" \
    "layout(push_constant) uniform Marker { vec4 color; float size; uint first; } pc;\n" \
    "void main()\n" \
    "{\n" \
    "    orr_gpu_record rec = orr_scene_group_record(pc.first);\n" \
    "    bool kept = orr_scene_layer_kept(rec.instance);\n" \
    "    SetMeshOutputsEXT(kept ? 1u : 0u, kept ? 1u : 0u);\n" \
    "    if (!kept) return;\n" \
    "    gl_MeshVerticesEXT[0].gl_Position = orr_scene_clip(orr_scene_place(rec.instance, vec3(0.0)));\n" \
    "    gl_MeshVerticesEXT[0].gl_PointSize = " SIZE ";\n" \
    "    gl_PrimitivePointIndicesEXT[0] = 0u;\n" \
    "}\n"
static const char *MARK_MESH = MARK_MESH_OF("pc.size");
static const char *MARK_MESH_BIG = MARK_MESH_OF("pc.size + 4.0");

/* A task workgroup per record, which launches the mesh workgroup of a kept instance. */
static const char *MARK_TASK = "#version 450\n"
                               "#extension GL_EXT_mesh_shader : require\n"
                               "#define ORR_SCENE_TASK\n"
                               "#include \"orrery/scene.glsl\"\n"
                               "layout(local_size_x = 1) in;\n"
                               "layout(push_constant) uniform Marker { vec4 color; float size; uint first; } pc;\n"
                               "struct Marked { uint instance; };\n"
                               "taskPayloadSharedEXT Marked marked;\n"
                               "void main()\n"
                               "{\n"
                               "    orr_gpu_record rec = orr_scene_group_record(pc.first);\n"
                               "    marked.instance = rec.instance;\n"
                               "    EmitMeshTasksEXT(orr_scene_layer_kept(rec.instance) ? 1u : 0u, 1u, 1u);\n"
                               "}\n";
#define MARK_MESH_OF_TASK_OF(SIZE) \
    "#version 450\n" \
    "#extension GL_EXT_mesh_shader : require\n" \
    "#define ORR_SCENE_MESH\n" \
    "#include \"orrery/scene.glsl\"\n" \
    "layout(local_size_x = 1) in;\n" \
    "layout(points, max_vertices = 1, max_primitives = 1) out;\n" \
    "layout(push_constant) uniform Marker { vec4 color; float size; } pc;\n" \
    "struct Marked { uint instance; };\n" \
    "taskPayloadSharedEXT Marked marked;\n" \
    "void main()\n" \
    "{\n" \
    "    SetMeshOutputsEXT(1u, 1u);\n" \
    "    gl_MeshVerticesEXT[0].gl_Position = orr_scene_clip(orr_scene_place(marked.instance, vec3(0.0)));\n" \
    "    gl_MeshVerticesEXT[0].gl_PointSize = " SIZE ";\n" \
    "    gl_PrimitivePointIndicesEXT[0] = 0u;\n" \
    "}\n"
static const char *MARK_MESH_OF_TASK = MARK_MESH_OF_TASK_OF("pc.size");
static const char *MARK_MESH_OF_TASK_BIG = MARK_MESH_OF_TASK_OF("pc.size + 4.0");

/* A fixed count of two workgroups, each a triangle: the two halves of the view's rectangle. */
static const char *COVER_MESH = "#version 450\n"
                                "#extension GL_EXT_mesh_shader : require\n"
                                "layout(local_size_x = 1) in;\n"
                                "layout(triangles, max_vertices = 3, max_primitives = 1) out;\n"
                                "void main()\n"
                                "{\n"
                                "    SetMeshOutputsEXT(3u, 1u);\n"
                                "    vec2 corner = gl_WorkGroupID.x == 0u ? vec2(-1.0, -1.0) : vec2(1.0, 1.0);\n"
                                "    gl_MeshVerticesEXT[0].gl_Position = vec4(corner, 0.5, 1.0);\n"
                                "    gl_MeshVerticesEXT[1].gl_Position = vec4(1.0, -1.0, 0.5, 1.0);\n"
                                "    gl_MeshVerticesEXT[2].gl_Position = vec4(-1.0, 1.0, 0.5, 1.0);\n"
                                "    gl_PrimitiveTriangleIndicesEXT[0] = uvec3(0u, 1u, 2u);\n"
                                "}\n";

static orr_technique_desc cover(orr_view_id view)
{
    orr_technique_desc d = {.name = "markers", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                            .fragment = {.glsl = MARK_FRAG, .name = "markers.frag"},
                            .writes = WRITE_COLOR, .write_count = 1, .push_constant_size = sizeof(marker),
                            .scene = {.mesh = {.glsl = COVER_MESH, .name = "cover.mesh"},
                                      .depth_test = ORR_DEPTH_ALWAYS, .mesh_dispatch = ORR_MESH_FIXED,
                                      .mesh_groups = {2, 1, 1}}};
    return d;
}

static const marker YELLOW = {{1.0f, 1.0f, 0.0f, 1.0f}, 5.0f};

static bool yellow(const uint8_t *p) { return p[0] == 255 && p[1] == 255 && p[2] == 0; }

/* The markers over the view's built-in passes: no depth test, the layer filter of layer X. */
static orr_technique_desc vertex_markers(orr_view_id view)
{
    return (orr_technique_desc){.name = "markers", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                .fragment = {.glsl = MARK_FRAG, .name = "markers.frag"},
                                .writes = WRITE_COLOR, .write_count = 1, .push_constant_size = sizeof(marker),
                                .scene = {.vertex = {.glsl = MARK_VERT, .name = "markers.vert"},
                                          .depth_test = ORR_DEPTH_ALWAYS, .topology = ORR_TECHNIQUE_CORNERS,
                                          .layer_mask = LAYER_X}};
}
static orr_technique_desc mesh_markers(orr_view_id view, bool task)
{
    orr_technique_desc d = vertex_markers(view);
    d.scene.vertex = (orr_shader_desc){0};
    d.scene.topology = ORR_TECHNIQUE_FILLED;
    d.scene.mesh = (orr_shader_desc){.glsl = task ? MARK_MESH_OF_TASK : MARK_MESH, .name = "markers.mesh"};
    if (task) d.scene.task = (orr_shader_desc){.glsl = MARK_TASK, .name = "markers.task"};
    return d;
}

static void refused(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, orr_result code,
                    const char *expect)
{
    orr_result rc = orr_renderer_set_techniques(r, target, d, 1, NULL);
    const char *msg = orr_renderer_last_error(r)->message;
    if (rc != code) fail_msg("expected %s, got %s: %s", orr_result_name(code), orr_result_name(rc), msg);
    if (!strstr(msg, expect)) fail_msg("the message does not say '%s': %s", expect, msg);
    if (!strstr(msg, "'markers'")) fail_msg("the message does not name the technique: %s", msg);
    print_message("refused: %s\n", msg);
}

static void fixture_with_layers(fixture *f)
{
    fix_init(f, (orr_vec3d){0, 0, 0});
    f->instances[1].layers = LAYER_X;
    f->instances[4].layers = LAYER_X;
}

/* The image with the technique `d` (its id into *id, NULL-able) and YELLOW as its host data. */
static uint8_t *with(orr_renderer *r, fixture *f, orr_target_id target, const orr_technique_desc *d,
                     orr_technique_id *id)
{
    orr_technique_id t;
    fix_set_techniques(r, target, d, 1, &t);
    if (orr_renderer_set_technique_data(r, t, &YELLOW, sizeof YELLOW) != ORR_OK)
        fail_msg("set_technique_data: %s", orr_renderer_last_error(r)->message);
    if (id) *id = t;
    return fix_frame(r, f, target, W, H);
}

/* Pixels that differ from `plain`: each yellow; their count. */
static uint32_t markers_over(const uint8_t *img, const uint8_t *plain, const char *what)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (!memcmp(img + 4 * i, plain + 4 * i, 4)) continue;
        if (!yellow(img + 4 * i))
            fail_msg("%s: pixel %u,%u changed to %u,%u,%u, not the markers' yellow", what, i % W, i / W,
                     img[4 * i], img[4 * i + 1], img[4 * i + 2]);
        n++;
    }
    return n;
}

void test_technique_mesh_refusals(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = fix_target(r, W, H, "mesh", NULL);
    orr_view_desc vd = {.target = target, .strategy = ORR_STRATEGY_BATCHED, .pose = fix_camera((orr_vec3d){0, 0, 0})};
    orr_view_id view = fix_add_view(r, &vd);
    orr_view_desc gd = vd;
    gd.strategy = ORR_STRATEGY_INDIRECT; /* culled on the GPU (ORR_CULL_AUTO) */
    gd.viewport = (orr_viewport){0, 0, W / 2, H / 2};
    orr_view_id gpu_view = fix_add_view(r, &gd);
    /* a vertex technique's list, drawn before and after every refusal */
    orr_technique_desc vertex = vertex_markers(view);
    uint8_t *plain = fix_frame(r, &f, target, W, H);
    uint8_t *before = with(r, &f, target, &vertex, NULL);
    uint32_t marked = markers_over(before, plain, "vertex markers");
    if (marked < 10) fail_msg("the vertex technique marked %u pixels", marked);
    bool mesh_shaders = orr_renderer_uses_mesh_shaders(r);
    char graph[2048]; /* the vertex technique's line (a mesh technique's adds its stages after the view) */
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    fix_assert_line(graph, "  pass markers ",
                    "  pass markers (scene, view 0, corners)  writes color  depth test depth@view0");
    /* the vertex technique sorted nearest first draws the same markers (its records, in another order) */
    orr_technique_desc near = vertex;
    near.scene.order = ORR_TECHNIQUE_ORDER_NEAR_FIRST;
    uint8_t *near_px = with(r, &f, target, &near, NULL);
    assert_memory_equal(near_px, before, (size_t)W * H * 4);
    free(near_px);

    /* the desc's shape */
    orr_technique_desc d = mesh_markers(view, false);
    d.scene.vertex = vertex.scene.vertex;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "both a vertex shader and a mesh shader");
    d = mesh_markers(view, true);
    d.scene.mesh = (orr_shader_desc){0};
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "a task shader without a mesh shader");
    d = mesh_markers(view, false);
    d.scene.topology = ORR_TECHNIQUE_EDGES;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "its topology stays ORR_TECHNIQUE_FILLED");
    d = mesh_markers(view, false);
    d.scene.strategy = ORR_TECHNIQUE_DIRECT;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "its strategy stays ORR_TECHNIQUE_STRATEGY_VIEW");
    d = mesh_markers(view, false);
    d.scene.mesh_dispatch = ORR_MESH_FIXED; /* groups left 0 */
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "mesh_groups[0] is 0, not in 1..65535");
    d = mesh_markers(view, false);
    d.scene.mesh_dispatch = ORR_MESH_FIXED;
    d.scene.mesh_groups[0] = d.scene.mesh_groups[2] = 1, d.scene.mesh_groups[1] = 65536;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "mesh_groups[1] is 65536, not in 1..65535");
    d = mesh_markers(gpu_view, false);
    refused(r, target, &d, ORR_ERROR_UNSUPPORTED, "is culled on the GPU");
    d = mesh_markers(view, false); /* per record: 128 + the record's uint is more than every device offers */
    d.push_constant_size = ORR_TECHNIQUE_MAX_PUSH;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT,
            "push_constant_size 128 leaves no room for the uint a dispatch per record adds (at most 124)");
    /* the task and mesh descs checked as the vertex one */
    static const uint32_t words[6] = {0x07230203u, 0x00010600u, 0, 8, 0, 0};
    d = mesh_markers(view, true);
    d.scene.task.spirv = words, d.scene.task.spirv_size = sizeof words;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "task has GLSL source and SPIR-V (one of the two, or none)");
    d = mesh_markers(view, false);
    d.scene.mesh = (orr_shader_desc){.spirv = words, .spirv_size = 0, .name = "markers.mesh"};
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "mesh.spirv_size 0 is not a whole number of SPIR-V words");
    d.scene.mesh.spirv_size = 22;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "mesh.spirv_size 22 is not a whole number of SPIR-V words");

    /* the shaders: compiled and reflected on any device */
    d = mesh_markers(view, false);
    d.scene.mesh.glsl = "#version 450\n#extension GL_EXT_mesh_shader : require\n"
                        "layout(local_size_x = 1) in;\nlayout(points, max_vertices = 1, max_primitives = 1) out;\n"
                        "void main() { SetMeshOutputsEXT(1u, 1u); gl_MeshVerticesEXT[0].gl_Position = nowhere; }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "markers.mesh:5:");
    d = mesh_markers(view, true);
    d.scene.task.glsl = "#version 450\n#extension GL_EXT_mesh_shader : require\nlayout(local_size_x = 1) in;\n"
                        "void main() { EmitMeshTasksEXT(count_of_nothing, 1u, 1u); }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "markers.task:4:");
    d = mesh_markers(view, false);
    d.scene.mesh.glsl = MARK_MESH_OF_TASK; /* per record without the record's uint (and a payload it has not) */
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "push constant block of 20 bytes; its mesh stage, dispatched per "
                                                       "record, declares 24");
    d = mesh_markers(view, false);
    d.fragment.glsl = "#version 450\nlayout(location = 3) in vec4 tint;\nlayout(location = 0) out vec4 o;\n"
                      "void main() { o = tint; }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "input 'tint' at location 3, which its mesh shader does not write");
    d = mesh_markers(view, false);
    d.scene.mesh.glsl = "#version 450\n#extension GL_EXT_mesh_shader : require\n"
                        "layout(local_size_x = 1) in;\nlayout(points, max_vertices = 1, max_primitives = 1) out;\n"
                        "layout(push_constant) uniform Marker { vec4 color; float size; uint first; } pc;\n"
                        "layout(set = 1, binding = 0) uniform sampler2D tex;\n"
                        "void main() { SetMeshOutputsEXT(1u, 1u); gl_MeshVerticesEXT[0].gl_Position = "
                        "textureLod(tex, vec2(0.5), 0.0); gl_MeshVerticesEXT[0].gl_PointSize = pc.size; "
                        "gl_PrimitivePointIndicesEXT[0] = pc.first; }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "a mesh shader samples nothing");
    d = mesh_markers(view, false);
    d.scene.mesh.glsl = "#version 450\n#extension GL_EXT_mesh_shader : require\n"
                        "layout(local_size_x = 1) in;\nlayout(points, max_vertices = 1, max_primitives = 1) out;\n"
                        "layout(push_constant) uniform Marker { vec4 color; float size; uint first; } pc;\n"
                        "void main() { SetMeshOutputsEXT(1u, 1u); gl_MeshVerticesEXT[0].gl_Position = vec4(0.0); "
                        "gl_MeshVerticesEXT[0].gl_PointSize = pc.size; gl_PrimitivePointIndicesEXT[0] = pc.first; }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "markers.mesh does not declare ORR_SCENE_LAYER_MASK");

    /* every refusal so far left the vertex technique's list drawing its bytes */
    uint8_t *kept = fix_frame(r, &f, target, W, H);
    assert_memory_equal(kept, before, (size_t)W * H * 4);
    free(kept);

    /* a fixed count of more workgroups in all than any device launches (about 2^48, over any uint32 limit):
     * the device's total where it has mesh shaders, else the renderer's refusal (the device check last) */
    d = cover(view);
    d.scene.mesh_groups[0] = d.scene.mesh_groups[1] = d.scene.mesh_groups[2] = 65535;
    if (mesh_shaders)
        refused(r, target, &d, ORR_ERROR_UNSUPPORTED, "mesh_groups 65535 x 65535 x 65535 is 281462092005375 mesh "
                                                      "workgroups; the device's draws launch at most");
    else
        refused(r, target, &d, ORR_ERROR_UNSUPPORTED, "a mesh technique needs mesh shaders");
    /* well-formed: the device decides, last */
    for (int task = 0; task < 3; task++) {
        d = task == 2 ? cover(view) : mesh_markers(view, task);
        if (mesh_shaders) {
            fix_set_techniques(r, target, &d, 1, NULL);
        } else {
            refused(r, target, &d, ORR_ERROR_UNSUPPORTED, "a mesh technique needs mesh shaders");
            assert_non_null(strstr(orr_renderer_last_error(r)->message, orr_renderer_device_name(r)));
        }
    }
    /* the mesh technique's reload call on a vertex technique, and the other way round */
    orr_technique_id id;
    uint8_t *again = with(r, &f, target, &vertex, &id);
    assert_memory_equal(again, before, (size_t)W * H * 4);
    orr_shader_desc mesh = {.glsl = MARK_MESH};
    assert_int_equal(orr_renderer_reload_technique_mesh(r, id, NULL, NULL, &mesh), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "has no mesh shader"));
    assert_int_equal(orr_renderer_reload_technique_mesh(r, id, NULL, &(orr_shader_desc){.glsl = MARK_TASK}, NULL),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "has no task shader"));
    /* a reload refused whole: its vertex stage (larger points, slot before the fragment's) is not left
     * pending for the next reload, which reloads the same fragment source */
    assert_int_equal(orr_renderer_reload_technique(r, id, &(orr_shader_desc){.spirv = words, .spirv_size = 6},
                                                   &(orr_shader_desc){.glsl = MARK_VERT_BIG}),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "spirv_size 6 is not a whole number"));
    assert_int_equal(orr_renderer_reload_technique(r, id, &(orr_shader_desc){.glsl = MARK_FRAG}, NULL), ORR_OK);
    /* the vertex technique still draws its bytes */
    uint8_t *after = fix_frame(r, &f, target, W, H);
    assert_int_equal(orr_renderer_technique_reload_state(r, id, NULL, 0), ORR_RELOAD_DONE);
    assert_memory_equal(after, before, (size_t)W * H * 4);
    /* and the larger points do draw another image (the check above could fail) */
    assert_int_equal(orr_renderer_reload_technique(r, id, NULL, &(orr_shader_desc){.glsl = MARK_VERT_BIG}), ORR_OK);
    uint8_t *big = fix_frame(r, &f, target, W, H);
    if (markers_over(big, plain, "larger vertex markers") <= marked) fail_msg("the larger points mark no more pixels");
    free(big);
    free(plain), free(before), free(again), free(after);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* (group mesh_shaders) The markers of a vertex technique, a mesh technique and a task and mesh
 * technique: the same bytes. */
void test_technique_mesh_equals_vertex(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = fix_target(r, W, H, "mesh", NULL);
    orr_view_desc vd = {.target = target, .strategy = ORR_STRATEGY_BATCHED, .pose = fix_camera((orr_vec3d){0, 0, 0})};
    orr_view_id view = fix_add_view(r, &vd);
    uint8_t *plain = fix_frame(r, &f, target, W, H);
    orr_technique_desc vertex = vertex_markers(view);
    uint8_t *want = with(r, &f, target, &vertex, NULL);
    uint32_t marked = markers_over(want, plain, "vertex markers");
    if (marked < 10) fail_msg("the vertex technique marked %u pixels", marked);
    if (!orr_renderer_uses_mesh_shaders(r)) {
        const char *require = getenv("ORRERY_REQUIRE_MESH_SHADERS");
        if (require && *require && strcmp(require, "0") != 0)
            fail_msg("the device '%s' has no VK_EXT_mesh_shader with task and mesh shaders, and "
                     "ORRERY_REQUIRE_MESH_SHADERS is set", orr_renderer_device_name(r));
        orr_technique_desc d = mesh_markers(view, true);
        refused(r, target, &d, ORR_ERROR_UNSUPPORTED, "a mesh technique needs mesh shaders");
        print_message("'%s' has no mesh shaders: the mesh technique was refused; the vertex markers cover %u "
                      "pixels; the comparison runs on devices that have them\n",
                      orr_renderer_device_name(r), marked);
        free(plain), free(want);
        fix_fini(&f);
        fix_renderer_done(r, &logged);
        return;
    }
    for (int task = 0; task < 2; task++) {
        orr_technique_desc d = mesh_markers(view, task);
        orr_technique_id id;
        uint8_t *got = with(r, &f, target, &d, &id);
        uint32_t differ = 0;
        for (uint32_t i = 0; i < W * H; i++) differ += memcmp(got + 4 * i, want + 4 * i, 4) != 0;
        print_message("%s markers: %u pixels differ from the vertex technique's (%u marker pixels)\n",
                      task ? "task+mesh" : "mesh", differ, marked);
        assert_memory_equal(got, want, (size_t)W * H * 4);
        char graph[2048];
        orr_renderer_describe_techniques(r, target, graph, sizeof graph);
        fix_assert_line(graph, "  pass markers ",
                        task ? "  pass markers (scene, view 0)  task+mesh per record  writes color  depth test "
                               "depth@view0"
                             : "  pass markers (scene, view 0)  mesh per record  writes color  depth test depth@view0");
        /* hot reload of the fragment stage (cyan) and of the mesh stage (larger points): from the next
         * frame on, every old marker pixel cyan and more pixels than before */
        static const char *CYAN = "#version 450\nlayout(location = 0) out vec4 o;\n"
                                  "void main() { o = vec4(0.0, 1.0, 1.0, 1.0); }\n";
        orr_shader_desc mesh = {.glsl = task ? MARK_MESH_OF_TASK_BIG : MARK_MESH_BIG, .name = "markers-v2.mesh"};
        assert_int_equal(orr_renderer_reload_technique_mesh(r, id, &(orr_shader_desc){.glsl = CYAN}, NULL, &mesh),
                         ORR_OK);
        uint8_t *cyan = fix_frame(r, &f, target, W, H);
        assert_int_equal(orr_renderer_technique_reload_state(r, id, NULL, 0), ORR_RELOAD_DONE);
        uint32_t cyan_count = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            const uint8_t *a = want + 4 * i, *b = cyan + 4 * i;
            bool is_cyan = b[0] == 0 && b[1] == 255 && b[2] == 255;
            cyan_count += is_cyan;
            if (memcmp(a, plain + 4 * i, 4) != 0 && !is_cyan)
                fail_msg("pixel %u,%u: a marker, not cyan after the reload", i % W, i / W);
            if (memcmp(b, plain + 4 * i, 4) != 0 && !is_cyan)
                fail_msg("pixel %u,%u changed with the reload to %u,%u,%u, not cyan", i % W, i / W, b[0], b[1], b[2]);
        }
        print_message("after the reload: %u cyan pixels (%u markers before)\n", cyan_count, marked);
        if (cyan_count <= marked) fail_msg("the reloaded mesh stage's larger points mark %u pixels, not more than "
                                           "the %u before: the mesh stage was not swapped", cyan_count, marked);
        /* a mesh stage that does not compile: the old one stays, and the reload says why */
        mesh.glsl = "#version 450\n#extension GL_EXT_mesh_shader : require\nvoid main() { oops(); }\n";
        assert_int_equal(orr_renderer_reload_technique_mesh(r, id, NULL, NULL, &mesh), ORR_OK);
        uint8_t *kept = fix_frame(r, &f, target, W, H);
        assert_memory_equal(kept, cyan, (size_t)W * H * 4);
        char why[512];
        assert_int_equal(orr_renderer_technique_reload_state(r, id, why, sizeof why), ORR_RELOAD_FAILED);
        if (!strstr(why, "markers-v2.mesh:3:")) fail_msg("the reload's message: %s", why);
        free(got), free(cyan), free(kept);
    }
    /* nearest first: the records sorted on the CPU, a dispatch per run (the vertex technique: a draw per
     * run). The sorted path dispatches the same records; the order itself shows in no pixel (one colour). */
    orr_technique_desc near_vertex = vertex_markers(view), near_mesh = mesh_markers(view, false);
    near_vertex.scene.order = near_mesh.scene.order = ORR_TECHNIQUE_ORDER_NEAR_FIRST;
    uint8_t *near_want = with(r, &f, target, &near_vertex, NULL);
    uint8_t *near_got = with(r, &f, target, &near_mesh, NULL);
    assert_memory_equal(near_want, want, (size_t)W * H * 4); /* one colour: the order shows in no pixel */
    assert_memory_equal(near_got, near_want, (size_t)W * H * 4);
    free(near_want), free(near_got);
    /* a fixed count: two workgroups, two triangles over the whole view */
    orr_technique_desc d = cover(view);
    uint8_t *covered = with(r, &f, target, &d, NULL);
    /* the view's rectangle: the yellow pixels' bounds, every pixel inside them yellow (no gap on the
     * shared diagonal) */
    uint32_t x0 = W, y0 = H, x1 = 0, y1 = 0;
    for (uint32_t i = 0; i < W * H; i++)
        if (yellow(covered + 4 * i)) {
            uint32_t x = i % W, y = i / W;
            x0 = x < x0 ? x : x0, y0 = y < y0 ? y : y0, x1 = x > x1 ? x : x1, y1 = y > y1 ? y : y1;
        }
    if (x0 > x1 || (x1 - x0 + 1) * (y1 - y0 + 1) < W * H / 2)
        fail_msg("the fixed count's triangles cover %u,%u..%u,%u", x0, y0, x1, y1);
    for (uint32_t y = y0; y <= y1; y++)
        for (uint32_t x = x0; x <= x1; x++)
            if (!yellow(covered + 4 * (y * W + x)))
                fail_msg("pixel %u,%u: not covered by the fixed count's triangles", x, y);
    print_message("fixed count: two triangles cover %u,%u..%u,%u\n", x0, y0, x1, y1);
    free(plain), free(want), free(covered);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}
