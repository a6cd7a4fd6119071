/* gpu shading: textures sampled exactly (a checker at one texel per pixel; no seams along triangle
 * edges in an oblique, mip-mapped view), and metamorphic checks of the lighting where no reference
 * image exists (a light twice as bright, a point light twice as far, a normal map taken away, emission
 * without lights, rough dielectric against smooth metal, spot cones and range windows, double-sided
 * faces, morph weights 0 and 1, texcoord set 1 and texture transforms), multisampling, and the two
 * texture paths giving the same bytes. Scenes are built by hand (no glTF), lit and seen as each test
 * says; tone mapping is off where a test compares amounts of light. */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "gpu/gpu_state.h" /* which texture path the device took */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stb/stb_image.h>

static orr_vec3d origin3(void) { return (orr_vec3d){0, 0, 0}; }

/* A fixture with no instances, lights or cameras: each test adds its own. */
static void empty_scene(fixture *f)
{
    fix_init(f, origin3());
    f->snapshot.instance_count = 0;
    f->snapshot.material_binding_count = 0;
    f->snapshot.light_count = 0;
    f->snapshot.camera_count = 0;
}

/* Renders the fixture's snapshot into a new w x h target of `samples` through the given views (their
 * target and slot filled in here) and returns the pixels (caller frees). */
static uint8_t *render_views(orr_renderer *r, fixture *f, uint32_t w, uint32_t h, uint32_t samples,
                             const orr_view_desc *views, uint32_t n, orr_render_stats *stats)
{
    orr_target_desc td = {.width = w, .height = h, .readback = true, .samples = samples};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    if (orr_renderer_create_target(r, &td, &target) != ORR_OK) fail_msg("target: %s", orr_renderer_last_error(r)->message);
    for (uint32_t i = 0; i < n; i++) {
        orr_view_desc vd = views[i];
        vd.target = target;
        vd.slot = i;
        orr_view_id id;
        assert_int_equal(orr_renderer_create_view(r, &vd, &id), ORR_OK);
    }
    orr_render_desc desc = fix_desc(r, f, target);
    if (orr_renderer_render(r, &desc, stats) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    size_t size = (size_t)w * h * 4;
    uint8_t *px = malloc(size);
    assert_non_null(px);
    if (orr_renderer_read_target(r, target, px, size) != ORR_OK)
        fail_msg("read_target: %s", orr_renderer_last_error(r)->message);
    if (stats) assert_int_equal(orr_renderer_finish(r, stats), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    return px;
}

/* One view of the whole target from `pose`, lit only by the snapshot's lights (no default light, no
 * ambient), tone mapping off (so light adds up), exposure 1. */
static orr_view_desc plain_view(orr_mat4d pose)
{
    return (orr_view_desc){.pose = pose, .yfov = 0.8, .layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH,
                           .lighting = {.tone_mapping = ORR_TONE_MAPPING_NONE, .custom_ambient = true,
                                        .no_default_light = true}};
}

static double to_linear(uint8_t v)
{
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static const uint8_t *px_at(const uint8_t *px, uint32_t w, uint32_t x, uint32_t y) { return px + ((size_t)y * w + x) * 4; }

/* A unit quad in the XY plane facing +Z, with texcoords (glTF: v down, so uv (0, 0) at the top left)
 * and optional texcoord set 1. */
static orr_mesh_id add_uv_quad(orr_assets *a, orr_material_id m, const float *uv1)
{
    float pos[12] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc p = {.vertex_count = 4, .positions = pos, .normals = nrm, .texcoords0 = uv, .texcoords1 = uv1,
                            .index_count = 6, .indices = idx, .material = m};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &id), ORR_OK);
    return id;
}

/* A UV sphere of radius 0.5 (smooth normals, tangents left to the renderer). */
static orr_mesh_id add_sphere(orr_assets *a, orr_material_id m, uint32_t rings, uint32_t segments)
{
    uint32_t vn = (rings + 1) * (segments + 1), in = rings * segments * 6;
    float *pos = calloc(vn * 3, sizeof *pos), *nrm = calloc(vn * 3, sizeof *nrm), *uv = calloc(vn * 2, sizeof *uv);
    uint32_t *idx = calloc(in, sizeof *idx);
    assert_true(pos && nrm && uv && idx);
    for (uint32_t i = 0; i <= rings; i++)
        for (uint32_t j = 0; j <= segments; j++) {
            double th = ORR_PI * i / rings, ph = 2 * ORR_PI * j / segments;
            uint32_t k = i * (segments + 1) + j;
            double n[3] = {sin(th) * cos(ph), cos(th), -sin(th) * sin(ph)};
            for (int c = 0; c < 3; c++) {
                nrm[k * 3 + c] = (float)n[c];
                pos[k * 3 + c] = (float)(0.5 * n[c]);
            }
            uv[k * 2] = (float)j / segments;
            uv[k * 2 + 1] = (float)i / rings;
        }
    uint32_t *t = idx;
    for (uint32_t i = 0; i < rings; i++)
        for (uint32_t j = 0; j < segments; j++) {
            uint32_t a0 = i * (segments + 1) + j, b0 = a0 + segments + 1;
            uint32_t q[6] = {a0, b0, a0 + 1, a0 + 1, b0, b0 + 1};
            memcpy(t, q, sizeof q);
            t += 6;
        }
    orr_primitive_desc p = {.vertex_count = vn, .positions = pos, .normals = nrm, .texcoords0 = uv, .index_count = in,
                            .indices = idx, .material = m};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &id), ORR_OK);
    free(pos), free(nrm), free(uv), free(idx);
    return id;
}

static orr_material_id add_material(orr_assets *a, const orr_material *m)
{
    orr_material_id id;
    assert_int_equal(orr_assets_add_material(a, m, &id), ORR_OK);
    return id;
}

static orr_mat4d placed(orr_vec3d t, orr_quatd q, orr_vec3d s)
{
    orr_mat4d m;
    orr_mat4d_from_trs(t, q, s, &m);
    return m;
}

static orr_render_light light_of(orr_light_type type, orr_vec3d at, orr_vec3d shine, float intensity)
{
    orr_render_light l = {.type = type, .intensity = intensity, .color = {1, 1, 1}};
    orr_mat4d m = placed(at, orr_quatd_look_rotation(shine, fabs(shine.y) > 0.9 ? (orr_vec3d){1, 0, 0} : (orr_vec3d){0, 1, 0}),
                         ORR_VEC3_ONE);
    orr_affine3d_from_mat4d(&m, &l.world);
    return l;
}

/* ---- textures --------------------------------------------------------------------------------- */

/* A texture of w x h texels: a one-texel checker of black and white (checker) or a smooth gradient. */
static orr_texture_id add_pattern(orr_assets *a, uint32_t w, uint32_t h, bool checker, orr_sampler sampler)
{
    uint8_t *t = malloc((size_t)w * h * 4);
    assert_non_null(t);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = t + ((size_t)y * w + x) * 4;
            if (checker) {
                uint8_t v = ((x + y) % 2) ? 255 : 0;
                p[0] = p[1] = p[2] = v;
            } else {
                p[0] = (uint8_t)(255 * x / (w - 1));
                p[1] = (uint8_t)(255 * y / (h - 1));
                p[2] = (uint8_t)(255 - 255 * x / (w - 1));
            }
            p[3] = 255;
        }
    orr_texture_desc td = {.width = w, .height = h, .rgba8 = t, .color_space = ORR_COLOR_SPACE_SRGB, .sampler = sampler};
    orr_texture_id id;
    assert_int_equal(orr_assets_add_texture(a, &td, &id), ORR_OK);
    free(t);
    return id;
}

/* A 64 x 64 one-texel checker (mip-mapped, so a wrong level would show as grey) on an unlit quad seen
 * head-on through an orthographic snapshot camera that maps one texel to one pixel: every pixel is its
 * texel, within 2 levels (the diagonal that splits the quad into triangles included; a flipped or
 * turned image would be off by 255). */
void test_checker_exact(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_texture_id tex = add_pattern(f.assets, 64, 64, true, (orr_sampler){.mipmaps = true});
    orr_material mat = orr_material_default();
    mat.unlit = true;
    mat.base_color_texture.texture = tex;
    orr_material_id m = add_material(f.assets, &mat);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL);
    fix_add(&f, 1, quad, m, placed(origin3(), ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    orr_render_camera cam = {.entity = {900, 1}, .projection = ORR_ORTHOGRAPHIC, .xmag = 0.5, .ymag = 0.5, .znear = 0.1,
                             .zfar = 10};
    orr_mat4d cam_pose = placed((orr_vec3d){0, 0, 2}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_affine3d_from_mat4d(&cam_pose, &cam.world);
    f.snapshot.cameras = &cam;
    f.snapshot.camera_count = 1;

    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_view_desc v = plain_view(cam_pose);
    v.camera = cam.entity;
    uint8_t *px = render_views(r, &f, 64, 64, 1, &v, 1, NULL);
    uint32_t worst = 0, wx = 0, wy = 0;
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            uint8_t want = ((x + y) % 2) ? 255 : 0;
            const uint8_t *p = px_at(px, 64, x, y);
            for (int c = 0; c < 3; c++) {
                uint32_t d = (uint32_t)abs((int)p[c] - (int)want);
                if (d > worst) worst = d, wx = x, wy = y;
            }
        }
    char path[1024];
    snprintf(path, sizeof path, "%s/gpu_checker.png", orrt_binary_dir());
    assert_int_equal(orr_gpu_write_png(path, 64, 64, px, NULL), ORR_OK);
    print_message("checker at one texel per pixel: largest difference %u levels (at %u, %u); image %s\n", worst, wx, wy,
                  path);
    if (worst > 2) fail_msg("pixel %u,%u is %u levels from its texel (see %s)", wx, wy, worst, path);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Mip chains built on the renderer's threads (orr_renderer_desc.threads, .workers): a 1024 x 1024 sRGB
 * texture (enough to share the building out) minified on an oblique quad renders the same bytes built
 * on the frame's thread alone, on workers kept by the caller and on threads started for the frame. */
void test_mips_alike_at_any_thread_count(void **state)
{
    (void)state;
    enum { S = 1024, W = 128, H = 96 };
    fixture f;
    empty_scene(&f);
    uint8_t *t = malloc((size_t)S * S * 4);
    assert_non_null(t);
    for (uint32_t i = 0; i < S * S; i++) {
        uint32_t x = i % S, y = i / S, h = i * 2654435761u;
        t[i * 4] = (uint8_t)(x / 4 + (h >> 29)), t[i * 4 + 1] = (uint8_t)(y / 4), t[i * 4 + 2] = (uint8_t)(h >> 24);
        t[i * 4 + 3] = 255;
    }
    orr_texture_id tex;
    assert_int_equal(orr_assets_add_texture(f.assets, &(orr_texture_desc){.width = S, .height = S, .rgba8 = t,
                                                                            .color_space = ORR_COLOR_SPACE_SRGB,
                                                                            .sampler = {.mipmaps = true}}, &tex), ORR_OK);
    free(t);
    orr_material mat = orr_material_default();
    mat.unlit = true;
    mat.base_color_texture.texture = tex;
    orr_material_id m = add_material(f.assets, &mat);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL);
    fix_add(&f, 1, quad, m, placed(origin3(), orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -1.25), (orr_vec3d){4, 4, 1}));
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0.3, 0.9, 2.2}, (orr_vec3d){0, 0, -0.5}));
    orr_workers *kept;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 4}, &kept, NULL), ORR_OK);
    struct {
        uint32_t threads;
        orr_workers *workers;
    } ways[] = {{1, NULL}, {4, kept}, {0, NULL}};
    uint8_t *first = NULL;
    for (size_t k = 0; k < sizeof ways / sizeof *ways; k++) {
        fix_log logged;
        orr_renderer *r = fix_renderer_threads(&logged, ways[k].threads, ways[k].workers);
        uint8_t *img = render_views(r, &f, W, H, 1, &v, 1, NULL);
        fix_renderer_done(r, &logged);
        if (!first) first = img;
        else if (memcmp(first, img, (size_t)W * H * 4)) fail_msg("mip chains on %u threads (way %zu) render other bytes", ways[k].threads, k);
        else free(img);
    }
    uint32_t textured = 0; /* the quad is there, and not one colour */
    for (uint32_t i = 0; i < W * H; i++) textured += memcmp(first + (size_t)i * 4, FIX_CLEAR, 3) != 0;
    assert_true(textured > W * H / 8);
    free(first);
    orr_workers_destroy(kept);
    fix_fini(&f);
}

/* A mip-mapped gradient on a quad seen obliquely (minified, so several levels are in use): along the
 * diagonal between the quad's two triangles, no pixel differs from both its neighbours across the edge
 * by more than a small bound. (A level chosen wrongly at triangle edges shows as a line of the
 * texture's mean colour there.) The edge is found from the same quad drawn with its two triangles in
 * two colours. Direct, batched and indirect draw the textured view with the same bytes. */
void test_mip_edges_oblique(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_texture_id tex = add_pattern(f.assets, 256, 256, false, (orr_sampler){.mipmaps = true});
    orr_material mat = orr_material_default();
    mat.unlit = true;
    mat.base_color_texture.texture = tex;
    orr_material_id textured = add_material(f.assets, &mat);
    orr_mesh_id quad = add_uv_quad(f.assets, textured, NULL);
    /* the same two triangles as two primitives, red and green */
    orr_material red = orr_material_default(), green = orr_material_default();
    red.unlit = green.unlit = true;
    red.base_color[1] = red.base_color[2] = 0;
    green.base_color[0] = green.base_color[2] = 0;
    orr_material_id mr = add_material(f.assets, &red), mg = add_material(f.assets, &green);
    float pos[12] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint32_t i0[3] = {0, 1, 2}, i1[3] = {0, 2, 3};
    orr_primitive_desc two[2] = {
        {.vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 3, .indices = i0, .material = mr},
        {.vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 3, .indices = i1, .material = mg}};
    orr_mesh_id split;
    assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 2, .primitives = two}, &split),
                     ORR_OK);
    orr_mat4d world = placed(origin3(), orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -1.25), (orr_vec3d){4, 4, 1});
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0.3, 0.9, 2.2}, (orr_vec3d){0, 0, -0.5}));
    enum { W = 256, H = 160 };
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_add(&f, 1, quad, textured, world);
    uint8_t *img = render_views(r, &f, W, H, 1, &v, 1, NULL);
    for (int strategy = ORR_STRATEGY_BATCHED; strategy <= ORR_STRATEGY_INDIRECT; strategy++) {
        orr_view_desc vs = v;
        vs.strategy = (orr_strategy)strategy;
        uint8_t *other = render_views(r, &f, W, H, 1, &vs, 1, NULL);
        assert_memory_equal(img, other, (size_t)W * H * 4);
        free(other);
    }
    f.snapshot.instance_count = 0;
    f.snapshot.material_binding_count = 0;
    orr_render_instance *in = fix_add(&f, 2, split, mr, world);
    in->material_count = 0; /* each primitive its own material */
    uint8_t *mask = render_views(r, &f, W, H, 1, &v, 1, NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/gpu_mip_edges.png", orrt_binary_dir());
    assert_int_equal(orr_gpu_write_png(path, W, H, img, NULL), ORR_OK);
    /* edge pixels: red ones with green below or above them (the diagonal runs across the image) */
    uint32_t edges = 0, bad = 0, worst = 0;
    for (uint32_t y = 2; y + 2 < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *c = px_at(mask, W, x, y), *up = px_at(mask, W, x, y - 1), *dn = px_at(mask, W, x, y + 1);
            bool red_here = c[0] > 128 && c[1] < 64;
            bool green_near = (up[1] > 128 && up[0] < 64) || (dn[1] > 128 && dn[0] < 64);
            if (!red_here || !green_near) continue;
            /* neighbours two pixels away on either side, both inside the quad */
            const uint8_t *a = px_at(img, W, x, y - 2), *b = px_at(img, W, x, y + 2), *p = px_at(img, W, x, y);
            if (!memcmp(px_at(mask, W, x, y - 2), FIX_CLEAR, 3) || !memcmp(px_at(mask, W, x, y + 2), FIX_CLEAR, 3)) continue;
            uint32_t da = 0, db = 0;
            for (int k = 0; k < 3; k++) {
                uint32_t ea = (uint32_t)abs((int)p[k] - (int)a[k]), eb = (uint32_t)abs((int)p[k] - (int)b[k]);
                da = ea > da ? ea : da;
                db = eb > db ? eb : db;
            }
            uint32_t d = da < db ? da : db;
            if (d > worst) worst = d;
            if (d > 24) bad++;
            edges++;
        }
    print_message("triangle edge: %u pixels, %u differ from both neighbours by more than 24 levels (largest %u); %s\n",
                  edges, bad, worst, path);
    assert_true(edges > 60);
    assert_int_equal(bad, 0);
    free(img);
    free(mask);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Texcoord set 1 and KHR_texture_transform: a base colour texture read from set 1 through a scale and
 * an offset draws the same bytes as the same texture read from set 0 whose coordinates were scaled and
 * offset on the CPU (both exact binary fractions). */
void test_texcoord1_and_transform(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_texture_id tex = add_pattern(f.assets, 64, 64, false, (orr_sampler){.mipmaps = true, .wrap_s = ORR_WRAP_MIRROR});
    orr_material plain = orr_material_default();
    plain.unlit = true;
    plain.base_color_texture.texture = tex;
    orr_material_id m0 = add_material(f.assets, &plain);
    orr_material moved = plain;
    moved.base_color_texture.texcoord = 1;
    moved.base_color_texture.uv_scale[0] = 2.0f;
    moved.base_color_texture.uv_scale[1] = 0.5f;
    moved.base_color_texture.offset[0] = 0.25f;
    moved.base_color_texture.offset[1] = 0.125f;
    orr_material_id m1 = add_material(f.assets, &moved);
    /* set 1 holds the plain coordinates; the reference quad carries the transformed ones in set 0 */
    float uv1[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    orr_mesh_id q1 = add_uv_quad(f.assets, m1, uv1);
    float pos[12] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float uvt[8];
    for (int k = 0; k < 4; k++) {
        uvt[k * 2] = uv1[k * 2] * 2.0f + 0.25f;
        uvt[k * 2 + 1] = uv1[k * 2 + 1] * 0.5f + 0.125f;
    }
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc p = {.vertex_count = 4, .positions = pos, .normals = nrm, .texcoords0 = uvt, .index_count = 6,
                            .indices = idx, .material = m0};
    orr_mesh_id q0;
    assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &q0), ORR_OK);
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0.2, 0.3, 1.4}, origin3()));
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_add(&f, 1, q1, m1, placed(origin3(), ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    uint8_t *a = render_views(r, &f, 96, 96, 1, &v, 1, NULL);
    f.snapshot.instance_count = f.snapshot.material_binding_count = 0;
    fix_add(&f, 1, q0, m0, placed(origin3(), ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    uint8_t *b = render_views(r, &f, 96, 96, 1, &v, 1, NULL);
    assert_true(fix_count_drawn(a, 96, 0, 0, 96, 96) > 96 * 96 / 4);
    assert_memory_equal(a, b, 96 * 96 * 4);
    free(a), free(b);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* ---- lights ----------------------------------------------------------------------------------- */

static double luminance(const uint8_t *p) { return 0.2126 * to_linear(p[0]) + 0.7152 * to_linear(p[1]) + 0.0722 * to_linear(p[2]); }

/* Every pixel a light reaches gets brighter when the light is twice as bright (PBR Neutral tone
 * mapping on: it is monotonic), the rest stays as it was. The fixture's scene (cubes, a ground, a glass
 * and a cut-out quad) under its directional light, with the default sky. */
void test_light_intensity_doubles(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, origin3());
    f.light.intensity = 1.0f;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_view_desc v = {.pose = fix_look((orr_vec3d){2.5, 2.0, 4.5}, (orr_vec3d){0, 0.25, 0}), .layer_mask = ORR_LAYERS_ALL};
    uint8_t *a = render_views(r, &f, 160, 120, 1, &v, 1, NULL);
    f.light.intensity = 2.0f;
    uint8_t *b = render_views(r, &f, 160, 120, 1, &v, 1, NULL);
    /* the same view without the light: which pixels it reaches */
    f.snapshot.light_count = 0;
    v.lighting.no_default_light = true;
    uint8_t *dark = render_views(r, &f, 160, 120, 1, &v, 1, NULL);
    uint32_t lit = 0, brighter = 0;
    for (uint32_t i = 0; i < 160 * 120; i++) {
        const uint8_t *pa = a + i * 4, *pb = b + i * 4, *pd = dark + i * 4;
        for (int c = 0; c < 3; c++)
            if (pb[c] < pa[c]) fail_msg("pixel %u channel %d darkened from %u to %u", i, c, pa[c], pb[c]);
        if (luminance(pa) > luminance(pd) + 0.01) {
            lit++;
            if (luminance(pb) > luminance(pa)) brighter++;
            else fail_msg("lit pixel %u (%u %u %u) is no brighter under twice the light", i, pa[0], pa[1], pa[2]);
        } else if (memcmp(pb, pd, 3) == 0 && memcmp(pa, pd, 3) != 0) {
            fail_msg("pixel %u: twice the light adds nothing, the light itself did", i);
        }
    }
    print_message("light x2: %u lit pixels, all brighter\n", lit);
    assert_true(lit > 160 * 120 / 5);
    free(a), free(b), free(dark);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Mean linear value of the red channel in a square around the image centre. */
static double centre_linear(const uint8_t *px, uint32_t w, uint32_t h, uint32_t half)
{
    double s = 0;
    uint32_t n = 0;
    for (uint32_t y = h / 2 - half; y < h / 2 + half; y++)
        for (uint32_t x = w / 2 - half; x < w / 2 + half; x++, n++) s += to_linear(px_at(px, w, x, y)[0]);
    return s / n;
}

/* A fully rough white quad facing a point light on its axis: moved from 2 m to 4 m, the light's
 * contribution (tone mapping off) falls to a quarter within 3%; with a range of 3 m it does not reach
 * the quad at 4 m at all, and at 2 m the range window dims it by (1 - (2/3)^4) (KHR_lights_punctual). */
void test_point_light_inverse_square(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material white = orr_material_default();
    white.metallic = 0.0f;
    white.roughness = 1.0f;
    white.base_color[0] = white.base_color[1] = white.base_color[2] = 0.8f;
    orr_material_id m = add_material(f.assets, &white);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL);
    fix_add(&f, 1, quad, m, placed(origin3(), ORR_QUAT_IDENTITY, (orr_vec3d){4, 4, 1}));
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0, 0, 1.5}, origin3()));
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    double got[2];
    for (int k = 0; k < 2; k++) {
        f.light = light_of(ORR_LIGHT_POINT, (orr_vec3d){0, 0, k ? 4.0 : 2.0}, (orr_vec3d){0, 0, -1}, 8.0f);
        f.snapshot.lights = &f.light;
        f.snapshot.light_count = 1;
        uint8_t *px = render_views(r, &f, 64, 64, 1, &v, 1, NULL);
        got[k] = centre_linear(px, 64, 64, 3);
        free(px);
    }
    double ratio = got[0] / got[1];
    print_message("point light at 2 m: %.4f, at 4 m: %.4f (ratio %.3f, inverse square: 4)\n", got[0], got[1], ratio);
    assert_true(got[0] > 0.2 && got[0] < 0.95); /* measurable, not clamped */
    assert_true(fabs(ratio - 4.0) < 0.12);
    /* the range window */
    f.light.range = 3.0f;
    uint8_t *px = render_views(r, &f, 64, 64, 1, &v, 1, NULL);
    assert_true(centre_linear(px, 64, 64, 3) < 1e-3);
    free(px);
    f.light = light_of(ORR_LIGHT_POINT, (orr_vec3d){0, 0, 2.0}, (orr_vec3d){0, 0, -1}, 8.0f);
    f.light.range = 3.0f;
    px = render_views(r, &f, 64, 64, 1, &v, 1, NULL);
    double windowed = centre_linear(px, 64, 64, 3), want = got[0] * (1.0 - pow(2.0 / 3.0, 4.0));
    print_message("range 3 m, light at 2 m: %.4f, expected %.4f\n", windowed, want);
    assert_true(fabs(windowed - want) < 0.03 * want);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* A spot light pointing at the middle of a large quad: bright inside its inner cone, nothing outside
 * its outer cone; every light of the snapshot counts (a second, directional light brightens the dark
 * part); and a directional light's lux: a white fully rough quad facing it shows albedo x E / pi. */
void test_spot_cone_and_every_light(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material white = orr_material_default();
    white.metallic = 0.0f;
    white.roughness = 1.0f;
    orr_material_id m = add_material(f.assets, &white);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL);
    fix_add(&f, 1, quad, m, placed(origin3(), ORR_QUAT_IDENTITY, (orr_vec3d){6, 6, 1}));
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0, 0, 3}, origin3()));
    v.yfov = 1.2;
    orr_render_light lights[2];
    lights[0] = light_of(ORR_LIGHT_SPOT, (orr_vec3d){0, 0, 1}, (orr_vec3d){0, 0, -1}, 0.5f);
    lights[0].cos_inner = (float)cos(0.3);
    lights[0].cos_outer = (float)cos(0.5);
    f.snapshot.lights = lights;
    f.snapshot.light_count = 1;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    enum { S = 128 };
    uint8_t *px = render_views(r, &f, S, S, 1, &v, 1, NULL);
    /* on the quad (z = 0) the inner cone reaches tan(0.3) = 0.31 m, the outer tan(0.5) = 0.55 m */
    double centre = centre_linear(px, S, S, 2);
    double outside = to_linear(px_at(px, S, S / 2 + 40, S / 2)[0]); /* about 1.1 m from the middle */
    print_message("spot: centre %.4f, outside the cone %.4f\n", centre, outside);
    assert_true(centre > 0.05);
    assert_true(outside == 0.0);
    free(px);
    lights[1] = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){0, 0, -1}, 1.0f);
    f.snapshot.light_count = 2;
    px = render_views(r, &f, S, S, 1, &v, 1, NULL);
    double lit_outside = to_linear(px_at(px, S, S / 2 + 40, S / 2)[0]);
    print_message("with a directional light of 1 lux too: outside the cone %.4f (albedo x E / pi = %.4f)\n", lit_outside,
                  1.0 / ORR_PI);
    /* a fully rough dielectric facing the light: the diffuse lobe, less what Fresnel reflects (F0 = 0.04) */
    assert_true(fabs(lit_outside - (1.0 - 0.04) / ORR_PI) < 0.03);
    assert_true(centre_linear(px, S, S, 2) > centre);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* A double-sided quad seen from behind shades as its own front (the normal turned over): lit by a light
 * on the viewer's side, dark under one on the far side; a single-sided one is not drawn from behind. */
void test_double_sided_lighting(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material two = orr_material_default();
    two.double_sided = true;
    two.metallic = 0.0f;
    orr_material_id m = add_material(f.assets, &two);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL);
    fix_add(&f, 1, quad, m, placed(origin3(), ORR_QUAT_IDENTITY, (orr_vec3d){2, 2, 1}));
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0, 0, -2}, origin3())); /* from behind (-Z) */
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    f.light = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){0, 0, 1}, 2.0f); /* shines at the back face */
    f.snapshot.lights = &f.light;
    f.snapshot.light_count = 1;
    uint8_t *lit = render_views(r, &f, 48, 48, 1, &v, 1, NULL);
    f.light = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){0, 0, -1}, 2.0f); /* at the front face */
    uint8_t *unlit = render_views(r, &f, 48, 48, 1, &v, 1, NULL);
    double a = centre_linear(lit, 48, 48, 4), b = centre_linear(unlit, 48, 48, 4);
    print_message("double-sided quad from behind: lit from behind %.4f, lit from the front %.4f\n", a, b);
    assert_true(a > 0.3);
    assert_true(b < 1e-3);
    assert_true(fix_count_drawn(unlit, 48, 0, 0, 48, 48) == 0); /* no ambient, no light: black as the clear */
    orr_assets_try_edit_material(f.assets, m)->double_sided = false;
    uint8_t *culled = render_views(r, &f, 48, 48, 1, &v, 1, NULL);
    f.light = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){0, 0, 1}, 2.0f);
    uint8_t *culled_lit = render_views(r, &f, 48, 48, 1, &v, 1, NULL);
    assert_int_equal(fix_count_drawn(culled, 48, 0, 0, 48, 48) + fix_count_drawn(culled_lit, 48, 0, 0, 48, 48), 0);
    free(lit), free(unlit), free(culled), free(culled_lit);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* ---- materials -------------------------------------------------------------------------------- */

/* A tangent-space normal map of bumps: 64 x 64, linear, a dome in each 16 x 16 cell. */
static orr_texture_id add_bumps(orr_assets *a)
{
    uint8_t t[64 * 64 * 4];
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            double u = (x % 16 - 7.5) / 8.0, w = (y % 16 - 7.5) / 8.0; /* -1..1 in each cell */
            /* a dome: its normals lean away from the cell's middle; +Y is up the image (v runs down) */
            double nx = u * 0.8, ny = -w * 0.8, nz = 1.0;
            double len = sqrt(nx * nx + ny * ny + nz * nz);
            uint8_t *p = t + (y * 64 + x) * 4;
            p[0] = (uint8_t)lround((nx / len * 0.5 + 0.5) * 255);
            p[1] = (uint8_t)lround((ny / len * 0.5 + 0.5) * 255);
            p[2] = (uint8_t)lround((nz / len * 0.5 + 0.5) * 255);
            p[3] = 255;
        }
    orr_texture_desc td = {.width = 64, .height = 64, .rgba8 = t, .color_space = ORR_COLOR_SPACE_LINEAR,
                           .sampler = {.mipmaps = true}};
    orr_texture_id id;
    assert_int_equal(orr_assets_add_texture(a, &td, &id), ORR_OK);
    return id;
}

/* Compares with the golden `name` in tests/golden (byte for byte on the device named beside it, a mean
 * difference below 2 levels on another); ORRERY_UPDATE_GOLDEN=1 writes it (look at it, and say what
 * you checked in `name`.txt, which must be there). */
static void check_golden(orr_renderer *r, const char *name, const uint8_t *px, uint32_t w, uint32_t h)
{
    char golden[1024], device_file[1024], actual[1024];
    snprintf(golden, sizeof golden, "%s/tests/golden/%s.png", orrt_source_dir(), name);
    snprintf(device_file, sizeof device_file, "%s/tests/golden/%s.device.txt", orrt_source_dir(), name);
    snprintf(actual, sizeof actual, "%s/%s.actual.png", orrt_binary_dir(), name);
    char note[1024];
    snprintf(note, sizeof note, "%s/tests/golden/%s.txt", orrt_source_dir(), name);
    FILE *nf = fopen(note, "r");
    if (!nf) fail_msg("%s: no note beside the golden saying what a person checked in it", note);
    fclose(nf);
    const char *device = orrt_golden_device(orr_renderer_device_name(r));
    const char *update = getenv("ORRERY_UPDATE_GOLDEN");
    if (update && *update && strcmp(update, "0") != 0) {
        assert_int_equal(orr_gpu_write_png(golden, w, h, px, NULL), ORR_OK);
        FILE *fp = fopen(device_file, "w");
        assert_non_null(fp);
        fprintf(fp, "%s\n", device);
        fclose(fp);
        print_message("golden image written: %s (%s)\n", golden, device);
    }
    assert_int_equal(orr_gpu_write_png(actual, w, h, px, NULL), ORR_OK);
    int gw = 0, gh = 0, gc = 0;
    uint8_t *g = stbi_load(golden, &gw, &gh, &gc, 4);
    if (!g) fail_msg("golden image %s is missing (ORRERY_UPDATE_GOLDEN=1 writes it)", golden);
    assert_int_equal(gw, (int)w);
    assert_int_equal(gh, (int)h);
    char recorded[256] = "";
    FILE *fp = fopen(device_file, "r");
    if (fp) {
        if (!fgets(recorded, sizeof recorded, fp)) recorded[0] = 0;
        fclose(fp);
        recorded[strcspn(recorded, "\n")] = 0;
    }
    if (strcmp(recorded, device) == 0) {
        if (memcmp(g, px, (size_t)w * h * 4) != 0) fail_msg("image differs from the golden %s (actual: %s)", golden, actual);
    } else {
        uint64_t sum = 0;
        for (size_t k = 0; k < (size_t)w * h * 4; k++) sum += (uint64_t)abs((int)g[k] - (int)px[k]);
        double mean = (double)sum / ((double)w * h * 4);
        print_message("golden %s made on '%s', this is '%s': mean difference %.3f (bound 2)\n", name, recorded, device,
                      mean);
        assert_true(mean < 2.0);
    }
    stbi_image_free(g);
}

/* A normal-mapped sphere and quad under a low directional light: without the normal map the image
 * changes (and the bumps are gone: the mapped quad varies from cell to cell where the plain one is
 * smooth); the mapped render is the golden gpu_normal_map. */
void test_normal_map(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material mat = orr_material_default();
    mat.metallic = 0.0f;
    mat.roughness = 0.45f;
    mat.base_color[0] = 0.75f, mat.base_color[1] = 0.6f, mat.base_color[2] = 0.45f;
    mat.normal_texture.texture = add_bumps(f.assets);
    mat.normal_texture.scale = 1.0f;
    orr_material_id m = add_material(f.assets, &mat);
    orr_material round = mat; /* around the sphere: the map repeated, through KHR_texture_transform */
    round.normal_texture.uv_scale[0] = 4.0f;
    round.normal_texture.uv_scale[1] = 2.0f;
    orr_material_id ms = add_material(f.assets, &round);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL), sphere = add_sphere(f.assets, ms, 24, 48);
    fix_add(&f, 1, quad, m, placed((orr_vec3d){-0.6, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    fix_add(&f, 2, sphere, ms, placed((orr_vec3d){0.6, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    f.light = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){0.6, -0.5, -0.6}, 3.0f);
    f.snapshot.lights = &f.light;
    f.snapshot.light_count = 1;
    orr_view_desc v = {.pose = fix_look((orr_vec3d){0, 0, 2.2}, origin3()), .yfov = 0.7, .layer_mask = ORR_LAYERS_ALL};
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    enum { W = 384, H = 192 };
    uint8_t *mapped = render_views(r, &f, W, H, 4, &v, 1, NULL);
    check_golden(r, "gpu_normal_map", mapped, W, H);
    orr_assets_try_edit_material(f.assets, m)->normal_texture.texture = (orr_texture_id){0, 0};
    orr_assets_try_edit_material(f.assets, ms)->normal_texture.texture = (orr_texture_id){0, 0};
    uint8_t *flat = render_views(r, &f, W, H, 4, &v, 1, NULL);
    uint32_t differ = 0;
    for (uint32_t i = 0; i < W * H; i++)
        if (abs((int)mapped[i * 4] - (int)flat[i * 4]) > 8) differ++;
    /* the flat quad is one shade (a directional light, a rough surface: it varies slowly); the mapped
     * one varies within each bump */
    uint32_t qx = W / 2 - (uint32_t)(0.6 / (2.2 * tan(0.35)) * (H / 2)), qy = H / 2; /* the quad's middle */
    int spread_mapped = 0, spread_flat = 0;
    for (int dx = -8; dx <= 8; dx++) {
        int a = px_at(mapped, W, (uint32_t)((int)qx + dx), qy)[0] - px_at(mapped, W, qx, qy)[0];
        int b = px_at(flat, W, (uint32_t)((int)qx + dx), qy)[0] - px_at(flat, W, qx, qy)[0];
        spread_mapped = abs(a) > spread_mapped ? abs(a) : spread_mapped;
        spread_flat = abs(b) > spread_flat ? abs(b) : spread_flat;
    }
    print_message("normal map: %u of %u pixels change without it; across a bump %d levels, flat %d\n", differ, W * H,
                  spread_mapped, spread_flat);
    assert_true(differ > W * H / 20);
    assert_true(spread_mapped > 4 * spread_flat + 10);
    free(mapped), free(flat);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* An emissive material with no light and no ambient is bright (its emission, tone mapped), where the
 * same material without emission is black (the clear colour); KHR_materials_emissive_strength scales
 * it. */
void test_emissive_without_lights(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material mat = orr_material_default();
    mat.base_color[0] = mat.base_color[1] = mat.base_color[2] = 0.0f;
    mat.emissive[0] = 0.6f, mat.emissive[1] = 0.3f, mat.emissive[2] = 0.1f;
    orr_material_id m = add_material(f.assets, &mat);
    orr_mesh_id quad = add_uv_quad(f.assets, m, NULL);
    fix_add(&f, 1, quad, m, placed(origin3(), ORR_QUAT_IDENTITY, (orr_vec3d){2, 2, 1}));
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0, 0, 2}, origin3()));
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *glow = render_views(r, &f, 32, 32, 1, &v, 1, NULL);
    double e = centre_linear(glow, 32, 32, 4);
    orr_assets_try_edit_material(f.assets, m)->emissive_strength = 1.5f;
    uint8_t *stronger = render_views(r, &f, 32, 32, 1, &v, 1, NULL);
    double e2 = centre_linear(stronger, 32, 32, 4);
    orr_material *edit = orr_assets_try_edit_material(f.assets, m);
    edit->emissive[0] = edit->emissive[1] = edit->emissive[2] = 0.0f;
    uint8_t *off = render_views(r, &f, 32, 32, 1, &v, 1, NULL);
    print_message("emission 0.6 with no lights: %.3f; at strength 1.5: %.3f\n", e, e2);
    assert_true(fabs(e - 0.6) < 0.02); /* tone mapping off: the emission itself */
    assert_true(fabs(e2 - 0.9) < 0.03);
    assert_int_equal(fix_count_drawn(off, 32, 0, 0, 32, 32), 0);
    free(glow), free(stronger), free(off);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Two spheres of the same colour under the same light: a fully rough dielectric and a smooth metal.
 * The metal's highlight is small and bright (few pixels near its peak), the dielectric's light broad
 * and soft; their images differ. */
void test_rough_dielectric_and_smooth_metal(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material rough = orr_material_default(), metal = orr_material_default();
    for (int c = 0; c < 3; c++) rough.base_color[c] = metal.base_color[c] = c == 0 ? 0.9f : 0.6f;
    rough.metallic = 0.0f, rough.roughness = 1.0f;
    metal.metallic = 1.0f, metal.roughness = 0.15f;
    orr_material_id mr = add_material(f.assets, &rough), mm = add_material(f.assets, &metal);
    orr_mesh_id sphere = add_sphere(f.assets, mr, 32, 64);
    f.light = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){-0.3, -0.4, -1.0}, 3.0f);
    f.snapshot.lights = &f.light;
    f.snapshot.light_count = 1;
    orr_view_desc v = plain_view(fix_look((orr_vec3d){0, 0, 1.6}, origin3()));
    v.lighting.tone_mapping = ORR_TONE_MAPPING_PBR_NEUTRAL;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *img[2];
    double peak[2] = {0, 0};
    uint32_t near_peak[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        f.snapshot.instance_count = f.snapshot.material_binding_count = 0;
        fix_add(&f, 1, sphere, k ? mm : mr, placed(origin3(), ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
        img[k] = render_views(r, &f, 96, 96, 1, &v, 1, NULL);
        for (uint32_t i = 0; i < 96 * 96; i++) peak[k] = fmax(peak[k], luminance(img[k] + i * 4));
        for (uint32_t i = 0; i < 96 * 96; i++)
            if (luminance(img[k] + i * 4) > 0.7 * peak[k]) near_peak[k]++;
    }
    print_message("rough dielectric: peak %.3f, %u pixels above 70%% of it; smooth metal: peak %.3f, %u pixels\n", peak[0],
                  near_peak[0], peak[1], near_peak[1]);
    assert_true(memcmp(img[0], img[1], 96 * 96 * 4) != 0);
    assert_true(peak[1] > peak[0]);
    assert_true(near_peak[1] * 8 < near_peak[0]);
    free(img[0]), free(img[1]);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* ---- morph targets ---------------------------------------------------------------------------- */

/* A grid with two morph targets (a bulge and a shear, with normal deltas): with weights 0 it draws the
 * bytes of the grid without targets; with weights (1, 0) and (0, 1) the bytes of a grid built from each
 * target (base + delta on the CPU); (0.5, 0.5) differs from all of those. */
void test_morph_weights(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_material mat = orr_material_default();
    mat.metallic = 0.0f;
    mat.double_sided = true;
    orr_material_id m = add_material(f.assets, &mat);
    enum { N = 12 };
    float pos[N * N * 3], nrm[N * N * 3], d[2][N * N * 3], dn[2][N * N * 3];
    uint32_t idx[(N - 1) * (N - 1) * 6], *t = idx;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int k = y * N + x;
            float u = (float)x / (N - 1) - 0.5f, w = (float)y / (N - 1) - 0.5f;
            float bump = 0.3f * (1.0f - 4.0f * (u * u + w * w));
            float base[3] = {u, w, 0}, n0[3] = {0, 0, 1};
            float d0[3] = {0, 0, bump > 0 ? bump : 0}, d1[3] = {0.25f * w, 0, 0};
            float nd0[3] = {0.5f * u, 0.5f * w, 0}, nd1[3] = {0, 0.25f, 0};
            memcpy(pos + k * 3, base, 12), memcpy(nrm + k * 3, n0, 12);
            memcpy(d[0] + k * 3, d0, 12), memcpy(d[1] + k * 3, d1, 12);
            memcpy(dn[0] + k * 3, nd0, 12), memcpy(dn[1] + k * 3, nd1, 12);
        }
    for (int y = 0; y + 1 < N; y++)
        for (int x = 0; x + 1 < N; x++) {
            uint32_t k = (uint32_t)(y * N + x), q[6] = {k, k + 1, k + N + 1, k, k + N + 1, k + N};
            memcpy(t, q, sizeof q);
            t += 6;
        }
    orr_morph_target_desc targets[2] = {{.positions = d[0], .normals = dn[0]}, {.positions = d[1], .normals = dn[1]}};
    orr_primitive_desc pd = {.vertex_count = N * N, .positions = pos, .normals = nrm, .index_count = (N - 1) * (N - 1) * 6,
                             .indices = idx, .material = m, .target_count = 2, .targets = targets};
    static const float weight_sets[4][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5f, 0.5f}};
    orr_mesh_id morphed[4], built[3];
    for (int s = 0; s < 4; s++)
        assert_int_equal(orr_assets_add_mesh(f.assets,
                                             &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd, .weight_count = 2,
                                                              .weights = weight_sets[s]},
                                             &morphed[s]),
                         ORR_OK);
    for (int s = 0; s < 3; s++) { /* the base, and the base plus each target, on the CPU */
        float p2[N * N * 3], n2[N * N * 3];
        for (int k = 0; k < N * N * 3; k++) {
            p2[k] = pos[k] + (s ? d[s - 1][k] : 0.0f);
            n2[k] = nrm[k] + (s ? dn[s - 1][k] : 0.0f);
        }
        orr_primitive_desc plain = {.vertex_count = N * N, .positions = p2, .normals = n2,
                                    .index_count = (N - 1) * (N - 1) * 6, .indices = idx, .material = m};
        assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &plain}, &built[s]),
                         ORR_OK);
    }
    f.light = light_of(ORR_LIGHT_DIRECTIONAL, origin3(), (orr_vec3d){-0.5, -0.3, -1}, 3.0f);
    f.snapshot.lights = &f.light;
    f.snapshot.light_count = 1;
    orr_view_desc v = {.pose = fix_look((orr_vec3d){0.6, -0.4, 1.6}, origin3()), .layer_mask = ORR_LAYERS_ALL};
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *img[7];
    for (int s = 0; s < 7; s++) {
        f.snapshot.instance_count = f.snapshot.material_binding_count = 0;
        fix_add(&f, 1, s < 4 ? morphed[s] : built[s - 4], m, placed(origin3(), ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
        img[s] = render_views(r, &f, 96, 96, 1, &v, 1, NULL);
    }
    size_t size = 96 * 96 * 4;
    assert_true(fix_count_drawn(img[0], 96, 0, 0, 96, 96) > 96 * 96 / 6);
    assert_memory_equal(img[0], img[4], size); /* weights 0: the base mesh */
    assert_memory_equal(img[1], img[5], size); /* weight 1 on target 0: the mesh built from it */
    assert_memory_equal(img[2], img[6], size); /* weight 1 on target 1 */
    for (int s = 0; s < 3; s++) assert_true(memcmp(img[3], img[s], size) != 0);
    assert_true(memcmp(img[1], img[0], size) != 0);
    for (int s = 0; s < 7; s++) free(img[s]);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* ---- multisampling and the texture paths ------------------------------------------------------ */

/* At every sample count the device has, direct, batched and indirect draw the same bytes; with more
 * than one sample, edges are smoothed (pixels between the clear colour and the surface appear). */
void test_msaa_strategies_identical(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, origin3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint32_t counts = orr_renderer_sample_counts(r);
    assert_true(counts & 1u);
    uint32_t tested = 0;
    uint8_t *single = NULL; /* the 1-sample render, which the loop makes first */
    for (uint32_t samples = 1; samples <= 8; samples *= 2) {
        if (!(counts & samples)) {
            orr_target_desc td = {.width = 8, .height = 8, .samples = samples};
            orr_target_id t;
            assert_int_equal(orr_renderer_create_target(r, &td, &t), ORR_ERROR_UNSUPPORTED);
            logged.errors = 0;
            continue;
        }
        uint8_t *img[3];
        for (int s = 0; s < 3; s++) {
            fix_view views[2];
            fix_two_views(origin3(), 200, 100, (orr_strategy)s, ORR_ORDER_MESH, views);
            orr_view_desc vd[2];
            for (int k = 0; k < 2; k++)
                vd[k] = (orr_view_desc){.viewport = views[k].viewport, .pose = views[k].pose, .layer_mask = ORR_LAYERS_ALL,
                                        .order = ORR_ORDER_MESH, .strategy = (orr_strategy)s};
            img[s] = render_views(r, &f, 200, 100, samples, vd, 2, NULL);
        }
        assert_memory_equal(img[0], img[1], 200 * 100 * 4);
        assert_memory_equal(img[0], img[2], 200 * 100 * 4);
        /* Edges are smoothed: pixels differ from the single-sample render only on an edge of it (its
         * 3x3 neighbourhood there is not one colour: a silhouette against the clear colour, or two
         * surfaces meeting), where partial coverage mixes colours, and more than a few silhouette
         * pixels do; the insides of surfaces are the same bytes. */
        if (samples == 1) {
            single = img[0];
            img[0] = NULL;
        } else {
            uint32_t smoothed = 0;
            for (uint32_t y = 0; y < 100; y++)
                for (uint32_t x = 0; x < 200; x++) {
                    if (!memcmp(px_at(img[0], 200, x, y), px_at(single, 200, x, y), 4)) continue;
                    bool clear = false, covered = false;
                    int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int xx = (int)x + dx, yy = (int)y + dy;
                            if (xx < 0 || yy < 0 || xx >= 200 || yy >= 100) continue;
                            const uint8_t *q = px_at(single, 200, (uint32_t)xx, (uint32_t)yy);
                            bool c = !memcmp(q, FIX_CLEAR, 3);
                            clear |= c;
                            covered |= !c;
                            for (int k = 0; k < 3; k++) lo[k] = q[k] < lo[k] ? q[k] : lo[k], hi[k] = q[k] > hi[k] ? q[k] : hi[k];
                        }
                    bool edge = hi[0] - lo[0] > 8 || hi[1] - lo[1] > 8 || hi[2] - lo[2] > 8;
                    const uint8_t *a = px_at(img[0], 200, x, y), *b = px_at(single, 200, x, y);
                    int diff = 0;
                    for (int k = 0; k < 3; k++) diff = abs(a[k] - b[k]) > diff ? abs(a[k] - b[k]) : diff;
                    /* inside a surface, a pixel on a triangle edge within it resolves both triangles'
                     * shading: a level or two */
                    if (!edge && diff > 2)
                        fail_msg("%u samples: pixel %u,%u differs from the single-sample render by %d levels away "
                                 "from any edge", samples, x, y, diff);
                    smoothed += clear && covered;
                }
            print_message("%u samples: strategies identical; %u silhouette pixels smoothed\n", samples, smoothed);
            assert_true(smoothed > 5);
        }
        for (int s = 0; s < 3; s++) free(img[s]);
        tested++;
    }
    free(single);
    assert_true(tested >= 1);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Twelve quads, each with its own texture, one pipeline state: with the texture array (where the device
 * indexes one) the indirect view is one multi-draw per pass however many textures; with a set per
 * material its runs split by texture. Both paths draw the same bytes (on a device without the array,
 * both renderers take the sets: the comparison then says so). */
void test_texture_paths(void **state)
{
    (void)state;
    fixture f;
    empty_scene(&f);
    orr_mesh_id quad = add_uv_quad(f.assets, orr_assets_default_material(f.assets), NULL);
    for (uint32_t i = 0; i < 12; i++) {
        uint8_t texel[4 * 4 * 4];
        for (int k = 0; k < 16; k++) {
            texel[k * 4] = (uint8_t)(20 * i), texel[k * 4 + 1] = (uint8_t)(k * 16), texel[k * 4 + 2] = (uint8_t)(255 - 20 * i);
            texel[k * 4 + 3] = 255;
        }
        orr_texture_desc td = {.width = 4, .height = 4, .rgba8 = texel, .color_space = ORR_COLOR_SPACE_SRGB,
                               .sampler = {.mipmaps = true}};
        orr_texture_id tex;
        assert_int_equal(orr_assets_add_texture(f.assets, &td, &tex), ORR_OK);
        orr_material mat = orr_material_default();
        mat.base_color_texture.texture = tex;
        mat.metallic = 0.0f;
        orr_material_id m = add_material(f.assets, &mat);
        fix_add(&f, 1 + i, quad, m, placed((orr_vec3d){-1.65 + 0.3 * i, 0.1 * (i % 3), 0}, ORR_QUAT_IDENTITY,
                                           (orr_vec3d){0.28, 0.28, 1}));
    }
    orr_view_desc v = {.pose = fix_look((orr_vec3d){0, 0, 2.5}, origin3()), .layer_mask = ORR_LAYERS_ALL,
                       .order = ORR_ORDER_MESH, .strategy = ORR_STRATEGY_INDIRECT};
    uint8_t *img[2];
    bool array[2];
    uint32_t calls[2];
    for (int k = 0; k < 2; k++) {
        fix_log logged;
        orr_renderer *r = k == 0 ? fix_renderer(&logged) : fix_renderer_sets(&logged);
        orr_render_stats st;
        img[k] = render_views(r, &f, 192, 96, 1, &v, 1, &st);
        calls[k] = st.draws.calls;
        array[k] = r->textures.array;
        fix_renderer_done(r, &logged);
    }
    print_message("textures: %s (%u indirect draw calls) against %s (%u)\n", array[0] ? "one array" : "a set per material",
                  calls[0], array[1] ? "one array" : "a set per material", calls[1]);
    assert_false(array[1]);
    assert_true(fix_count_drawn(img[0], 192, 0, 0, 192, 96) > 192 * 96 / 10);
    assert_memory_equal(img[0], img[1], 192 * 96 * 4);
    if (array[0]) assert_int_equal(calls[0], 1); /* one pass, one state: one multi-draw */
    assert_int_equal(calls[1], 12);             /* a run per texture */
    free(img[0]), free(img[1]);
    fix_fini(&f);
}
