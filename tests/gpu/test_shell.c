/* The shell path (validation and synchronisation validation on, as every gpu test): the shell strategy
 * draws the same bytes as the batched one; fur drawn with one shell is the plain surface to the byte; the
 * shell index reaches the shader (a furry sphere's silhouette grows by exactly the height of the
 * outermost shell the noise keeps); the view's shell count wins over the sidecar's and the material's;
 * a fur surface without a sidecar entry is drawn plain and counted; a GPU-culled view draws the same fur
 * as a CPU-culled one; the library's noise thins the shells outwards; editing a material's fur shows at
 * the next frame. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 180
#define SW 256 /* the silhouette tests: an orthographic view 2 m wide, 128 pixels a metre */
#define SH 256

static orr_vec3d zero3(void) { return (orr_vec3d){0, 0, 0}; }

/* Renders the fixture's snapshot through views made from `descs` (their target filled in here). */
static uint8_t *render_descs(orr_renderer *r, fixture *f, uint32_t w, uint32_t h, const orr_view_desc *descs,
                             uint32_t count, orr_render_stats *stats)
{
    orr_target_desc td = {.width = w, .height = h, .readback = true, .samples = 1};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    for (uint32_t i = 0; i < count; i++) {
        orr_view_desc vd = descs[i];
        vd.target = target;
        vd.slot = i;
        orr_view_id view;
        if (orr_renderer_create_view(r, &vd, &view) != ORR_OK) fail_msg("view: %s", orr_renderer_last_error(r)->message);
    }
    orr_render_desc desc = fix_desc(r, f, target);
    if (orr_renderer_render(r, &desc, stats) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    size_t size = (size_t)w * h * 4;
    uint8_t *px = malloc(size);
    assert_non_null(px);
    assert_int_equal(orr_renderer_read_target(r, target, px, size), ORR_OK);
    if (stats) assert_int_equal(orr_renderer_finish(r, stats), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    return px;
}

/* The fixture's two views as descs, with a strategy, order and shell count. */
static void two_descs(orr_strategy strategy, orr_draw_order order, uint32_t shells, orr_view_desc out[2])
{
    fix_view fv[2];
    fix_two_views(zero3(), W, H, strategy, order, fv);
    for (int i = 0; i < 2; i++)
        out[i] = (orr_view_desc){.viewport = fv[i].viewport, .pose = fv[i].pose, .order = order, .strategy = strategy,
                                 .shells = shells};
}

/* A UV sphere of radius `radius` about the origin, normals outward, texcoords u around, v down,
 * counter-clockwise seen from outside. */
static orr_mesh_id add_sphere(orr_assets *a, float radius, orr_material_id material)
{
    enum { SLICES = 64, STACKS = 32, V = (SLICES + 1) * (STACKS + 1), I = SLICES * STACKS * 6 };
    float *pos = malloc(V * 3 * sizeof *pos), *nrm = malloc(V * 3 * sizeof *nrm), *uv = malloc(V * 2 * sizeof *uv);
    uint32_t *idx = malloc(I * sizeof *idx);
    assert_true(pos && nrm && uv && idx);
    for (int st = 0; st <= STACKS; st++)
        for (int sl = 0; sl <= SLICES; sl++) {
            int k = st * (SLICES + 1) + sl;
            double theta = ORR_PI * st / STACKS, phi = 2 * ORR_PI * sl / SLICES;
            double n[3] = {sin(theta) * cos(phi), cos(theta), -sin(theta) * sin(phi)};
            for (int j = 0; j < 3; j++) {
                nrm[k * 3 + j] = (float)n[j];
                pos[k * 3 + j] = (float)(n[j] * radius);
            }
            uv[k * 2 + 0] = (float)sl / SLICES;
            uv[k * 2 + 1] = (float)st / STACKS;
        }
    uint32_t n = 0;
    for (uint32_t st = 0; st < STACKS; st++)
        for (uint32_t sl = 0; sl < SLICES; sl++) {
            uint32_t a0 = st * (SLICES + 1) + sl, b0 = a0 + SLICES + 1;
            uint32_t quad[6] = {a0, b0, a0 + 1, a0 + 1, b0, b0 + 1};
            memcpy(idx + n, quad, sizeof quad);
            n += 6;
        }
    orr_primitive_desc p = {.vertex_count = V, .positions = pos, .normals = nrm, .texcoords0 = uv, .index_count = I,
                            .indices = idx, .material = material};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "sphere", .primitive_count = 1, .primitives = &p}, &id),
                     ORR_OK);
    free(pos), free(nrm), free(uv), free(idx);
    return id;
}

/* A texture of one value everywhere (linear): a noise whose value is known at every fragment. */
static orr_texture_id add_flat_noise(orr_assets *a, uint8_t value)
{
    uint8_t px[4 * 4 * 4];
    for (int i = 0; i < 16; i++) px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = value, px[i * 4 + 3] = 255;
    orr_texture_id id;
    orr_texture_desc d = {.name = "flat noise", .width = 4, .height = 4, .rgba8 = px, .color_space = ORR_COLOR_SPACE_LINEAR,
                          .sampler = {.mag_filter = ORR_FILTER_NEAREST, .min_filter = ORR_FILTER_NEAREST}};
    assert_int_equal(orr_assets_add_texture(a, &d, &id), ORR_OK);
    return id;
}

static orr_material_id add_fur_material(orr_assets *a, orr_fur fur, float r, float g, float b)
{
    orr_material m = orr_material_default();
    m.base_color[0] = r, m.base_color[1] = g, m.base_color[2] = b;
    m.metallic = 0.0f;
    m.roughness = 0.8f;
    m.shading = ORR_SHADING_FUR;
    m.fur = fur;
    orr_material_id id;
    assert_int_equal(orr_assets_add_material(a, &m, &id), ORR_OK);
    return id;
}

/* The fixture with its instances replaced by `count` spheres of one fur material on the ground. */
static void furry_scene(fixture *f, orr_material_id fur, uint32_t count)
{
    orr_mesh_id sphere = add_sphere(f->assets, 0.5f, fur);
    f->snapshot.instance_count = 0;
    f->snapshot.material_binding_count = 0;
    orr_mat4d ground;
    orr_mat4d_from_trs((orr_vec3d){0, -0.5, 0}, orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -ORR_PI / 2),
                       (orr_vec3d){6, 6, 1}, &ground);
    fix_add(f, 1, f->quad, f->ground, ground);
    for (uint32_t i = 0; i < count; i++) {
        orr_mat4d m;
        orr_mat4d_from_trs((orr_vec3d){-1.5 + 1.5 * (i % 3), 0.125 * (i / 3), -1.25 * (i / 3)}, ORR_QUAT_IDENTITY,
                           ORR_VEC3_ONE, &m);
        fix_add(f, 2 + i, sphere, fur, m);
    }
}

/* The shell strategy against the batched one: the fixture's scene (opaque, double-sided, cut-out and
 * blended surfaces), both orders, two views: the same bytes, one draw per record. */
void test_shell_equals_batched(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    for (int order = 0; order < 2; order++) {
        orr_view_desc b[2], s[2];
        two_descs(ORR_STRATEGY_BATCHED, (orr_draw_order)order, 0, b);
        two_descs(ORR_STRATEGY_SHELL, (orr_draw_order)order, 0, s);
        orr_render_stats sb, ss;
        uint8_t *pb = render_descs(r, &f, W, H, b, 2, &sb), *ps = render_descs(r, &f, W, H, s, 2, &ss);
        assert_true(fix_count_drawn(pb, W, 0, 0, W, H) > W * H / 4);
        assert_memory_equal(pb, ps, (size_t)W * H * 4);
        assert_int_equal(ss.draws.surfaces, sb.draws.surfaces);
        assert_int_equal(ss.draws.calls, ss.draws.surfaces); /* a record at a time */
        if (order == ORR_ORDER_MESH) assert_true(sb.draws.calls < sb.draws.surfaces); /* batches of several */
        assert_int_equal(ss.draws.fur_draws, 0);
        free(pb), free(ps);
    }
    /* a view shell count changes nothing without fur */
    orr_view_desc b[2], s[2];
    two_descs(ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, 0, b);
    two_descs(ORR_STRATEGY_SHELL, ORR_ORDER_MESH, 7, s);
    uint8_t *pb = render_descs(r, &f, W, H, b, 2, NULL), *ps = render_descs(r, &f, W, H, s, 2, NULL);
    assert_memory_equal(pb, ps, (size_t)W * H * 4);
    free(pb), free(ps);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Fur drawn with one shell is the surface itself: furry spheres with sidecar entries, the view's shell
 * count 1, give the bytes of the same spheres without entries (each fur surface then falls back to the
 * plain path, and is counted), whatever the strategy; the stats name the fur draws and shells. */
void test_one_shell_is_the_plain_surface(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    orr_texture_id noise;
    assert_int_equal(orr_assets_add_fur_noise(f.assets, NULL, &noise), ORR_OK);
    orr_fur fur = {.shell_count = 24, .shell_length = 0.1f, .density = 16.0f, .thinning = 0.8f, .noise = noise};
    furry_scene(&f, add_fur_material(f.assets, fur, 0.6f, 0.4f, 0.2f), 5);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    /* without sidecar entries: plain, counted */
    orr_view_desc plain[2];
    two_descs(ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, 0, plain);
    orr_render_stats sp;
    uint8_t *pp = render_descs(r, &f, W, H, plain, 2, &sp);
    assert_int_equal(sp.draws.fur_fallbacks, 2 * 5); /* per surface, summed over the views */
    assert_int_equal(sp.draws.fur_draws, 0);
    assert_true(fix_count_drawn(pp, W, 0, 0, W, H) > W * H / 4);
    /* with entries (one overriding the count, which the view's count beats) */
    orr_render_fur side[5];
    for (uint32_t i = 0; i < 5; i++) side[i] = (orr_render_fur){.instance = 1 + i};
    side[2].set = ORR_FUR_SET_SHELL_COUNT;
    side[2].shell_count = 40;
    f.snapshot.fur = side;
    f.snapshot.fur_count = 5;
    f.snapshot.layout_version++;
    static const orr_strategy strategies[] = {ORR_STRATEGY_SHELL, ORR_STRATEGY_BATCHED, ORR_STRATEGY_DIRECT,
                                              ORR_STRATEGY_INDIRECT};
    for (int k = 0; k < 4; k++) {
        orr_view_desc one[2];
        two_descs(strategies[k], ORR_ORDER_MESH, 1, one);
        orr_render_stats so;
        uint8_t *po = render_descs(r, &f, W, H, one, 2, &so);
        if (memcmp(pp, po, (size_t)W * H * 4) != 0) {
            uint32_t differ = 0;
            for (size_t i = 0; i < (size_t)W * H; i++) differ += memcmp(pp + i * 4, po + i * 4, 4) != 0;
            fail_msg("strategy %d: one shell of fur differs from the plain surface in %u pixels", (int)strategies[k], differ);
        }
        assert_int_equal(so.draws.fur_fallbacks, 0);
        assert_int_equal(so.draws.fur_draws, 2 * 5);
        assert_true(so.draws.shells == 2 * 5);
        free(po);
    }
    /* the view's count unset: each draw's own (the material's 24, the entry's 40) */
    orr_view_desc own[2];
    two_descs(ORR_STRATEGY_SHELL, ORR_ORDER_MESH, 0, own);
    orr_render_stats sown;
    uint8_t *pown = render_descs(r, &f, W, H, own, 2, &sown);
    assert_true(sown.draws.shells == 2 * (4 * 24 + 40));
    assert_true(memcmp(pp, pown, (size_t)W * H * 4) != 0); /* fur now */
    free(pown);
    free(pp);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* An orthographic camera looking down -Z at a sphere at the origin, 2 m across the view. */
static orr_render_camera ortho_camera(void)
{
    orr_render_camera cam = {.entity = {900, 1}, .projection = ORR_ORTHOGRAPHIC, .xmag = 1.0, .ymag = 1.0, .znear = 0.01,
                             .zfar = 100.0};
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 0, 10}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &cam.world);
    return cam;
}

/* The half-width in pixels of what is drawn along the middle row (the silhouette's radius). */
static double radius_px(const uint8_t *px)
{
    uint32_t y = SH / 2, first = SW, last = 0;
    for (uint32_t x = 0; x < SW; x++) {
        const uint8_t *p = px + ((size_t)y * SW + x) * 4;
        if (p[0] || p[1] || p[2]) {
            if (x < first) first = x;
            last = x;
        }
    }
    return first > last ? 0.0 : (last + 1 - first) / 2.0;
}

/* The shell index reaches the shader. A sphere of radius 0.5 m with fur 0.25 m long, seen orthographically
 * at 128 pixels a metre: its silhouette's radius is 0.5 + h x 0.25 m where h is the height of the
 * outermost shell drawn. One shell: 64 px. Two shells, no thinning: the outer one at h = 1, 96 px. A
 * noise of value 0.5 everywhere and thinning 1 keep the shells with h <= 0.5: with 3, 5 or 9 shells the
 * outermost kept is h = 0.5 (80 px); a noise of 0.25: h = 0.25 with 5 or 9 shells (72 px), none above the
 * surface with 3 (64 px). The view's count beats the sidecar's, which beats the material's. */
void test_shell_index_reaches_shader(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    orr_texture_id half = add_flat_noise(f.assets, 128), quarter = add_flat_noise(f.assets, 64);
    orr_fur solid = {.shell_count = 2, .shell_length = 0.25f, .density = 1.0f, .thinning = 0.0f};
    orr_material_id mat = add_fur_material(f.assets, solid, 0.8f, 0.8f, 0.8f);
    orr_mesh_id sphere = add_sphere(f.assets, 0.5f, mat);
    f.snapshot.instance_count = 0;
    f.snapshot.material_binding_count = 0;
    orr_mat4d at;
    orr_mat4d_identity(&at);
    fix_add(&f, 1, sphere, mat, at);
    orr_render_fur side = {.instance = 0};
    f.snapshot.fur = &side;
    f.snapshot.fur_count = 1;
    orr_render_camera cam = ortho_camera();
    f.snapshot.cameras = &cam;
    f.snapshot.camera_count = 1;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    struct {
        orr_texture_id noise;
        float thinning;
        uint32_t material_shells, side_shells, view_shells;
        double expect; /* pixels */
    } cases[] = {
        {{0, 0}, 0.0f, 2, 0, 1, 64},  /* the view's one shell */
        {{0, 0}, 0.0f, 2, 0, 0, 96},  /* the material's two */
        {{0, 0}, 0.0f, 1, 0, 0, 64},  /* the material's one */
        {{0, 0}, 0.0f, 1, 2, 0, 96},  /* the sidecar's two beat the material's one */
        {{0, 0}, 0.0f, 1, 2, 1, 64},  /* the view's one beats both */
        {half, 1.0f, 2, 0, 3, 80},    /* h 0, 0.5 kept of 0, 0.5, 1 */
        {half, 1.0f, 2, 0, 5, 80},
        {half, 1.0f, 2, 0, 9, 80},
        {half, 1.0f, 2, 0, 2, 64},    /* h 1 thinned away */
        {quarter, 1.0f, 2, 0, 5, 72}, /* h 0.25 */
        {quarter, 1.0f, 2, 0, 9, 72},
        {quarter, 1.0f, 2, 0, 3, 64},
        {half, 0.0f, 2, 0, 9, 96},    /* no thinning: the tip stands */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        orr_material *m = orr_assets_try_edit_material(f.assets, mat);
        m->fur.noise = cases[c].noise;
        m->fur.thinning = cases[c].thinning;
        m->fur.shell_count = cases[c].material_shells;
        side.set = cases[c].side_shells ? ORR_FUR_SET_SHELL_COUNT : 0;
        side.shell_count = cases[c].side_shells;
        orr_view_desc vd = {.camera = cam.entity, .strategy = ORR_STRATEGY_SHELL, .shells = cases[c].view_shells};
        orr_render_stats st;
        uint8_t *px = render_descs(r, &f, SW, SH, &vd, 1, &st);
        double got = radius_px(px);
        print_message("case %zu: shells material %u, sidecar %u, view %u, thinning %.1f: radius %.1f px (expected %.0f)\n",
                      c, cases[c].material_shells, cases[c].side_shells, cases[c].view_shells, cases[c].thinning, got,
                      cases[c].expect);
        if (fabs(got - cases[c].expect) > 1.0) fail_msg("case %zu: radius %.1f px, expected %.0f", c, got, cases[c].expect);
        assert_int_equal(st.draws.fur_draws, 1);
        free(px);
    }
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* A GPU-culled view (indirect: the GPU culls everything before the transparent pass) draws its fur from
 * a CPU cull of the payload items: the same bytes as CPU-culled batched and shell views, with shells. */
void test_fur_in_gpu_culled_view(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    orr_texture_id noise;
    assert_int_equal(orr_assets_add_fur_noise(f.assets, &(orr_fur_noise_desc){.size = 128, .seed = 3}, &noise), ORR_OK);
    orr_fur fur = {.shell_count = 12, .shell_length = 0.08f, .density = 24.0f, .thinning = 0.7f, .noise = noise};
    furry_scene(&f, add_fur_material(f.assets, fur, 0.7f, 0.5f, 0.3f), 6);
    orr_render_fur side[6];
    for (uint32_t i = 0; i < 6; i++) side[i] = (orr_render_fur){.instance = 1 + i};
    side[4].set = ORR_FUR_SET_SHELL_LENGTH;
    side[4].shell_length = 0.2f;
    f.snapshot.fur = side;
    f.snapshot.fur_count = 6;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_view_desc gpu[2], cpu[2], sh[2];
    two_descs(ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, 0, gpu);
    gpu[0].cull = gpu[1].cull = ORR_CULL_GPU;
    two_descs(ORR_STRATEGY_BATCHED, ORR_ORDER_HIERARCHY, 0, cpu);
    two_descs(ORR_STRATEGY_SHELL, ORR_ORDER_MESH, 0, sh);
    orr_render_stats sg, sc, ss;
    uint8_t *pg = render_descs(r, &f, W, H, gpu, 2, &sg), *pc = render_descs(r, &f, W, H, cpu, 2, &sc),
            *ps = render_descs(r, &f, W, H, sh, 2, &ss);
    assert_int_equal(sg.views.gpu_culled, 2);
    assert_true(sg.draws.fur_draws == sc.draws.fur_draws && sc.draws.fur_draws == ss.draws.fur_draws && sg.draws.fur_draws >= 2 * 5);
    assert_true(sg.draws.shells == sc.draws.shells && sg.draws.shells == ss.draws.shells);
    assert_memory_equal(pg, pc, (size_t)W * H * 4);
    assert_memory_equal(pg, ps, (size_t)W * H * 4);
    free(pg), free(pc), free(ps);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* The library's noise thins the shells: seen orthographically, the ring the fur adds around the sphere
 * is fully covered next to the surface and thins out towards the tips (thinning 0.9: a tenth of the
 * strands reaches the tip); with the texture-array path and the per-material sets alike. Editing the
 * material's fur length shows at the next frame (the ring moves out). */
void test_noise_thins_outwards(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    orr_texture_id noise;
    assert_int_equal(orr_assets_add_fur_noise(f.assets, &(orr_fur_noise_desc){.size = 64}, &noise), ORR_OK);
    orr_fur fur = {.shell_count = 32, .shell_length = 0.25f, .density = 8.0f, .thinning = 0.9f, .noise = noise};
    orr_material_id mat = add_fur_material(f.assets, fur, 0.9f, 0.7f, 0.4f);
    orr_mesh_id sphere = add_sphere(f.assets, 0.5f, mat);
    f.snapshot.instance_count = 0;
    f.snapshot.material_binding_count = 0;
    orr_mat4d at;
    orr_mat4d_identity(&at);
    fix_add(&f, 1, sphere, mat, at);
    orr_render_fur side = {.instance = 0};
    f.snapshot.fur = &side;
    f.snapshot.fur_count = 1;
    orr_render_camera cam = ortho_camera();
    f.snapshot.cameras = &cam;
    f.snapshot.camera_count = 1;
    for (int path = 0; path < 2; path++) {
        fix_log logged;
        orr_renderer *r = path ? fix_renderer_sets(&logged) : fix_renderer(&logged);
        orr_view_desc vd = {.camera = cam.entity, .strategy = ORR_STRATEGY_BATCHED};
        uint8_t *px = render_descs(r, &f, SW, SH, &vd, 1, NULL);
        /* coverage in rings of 4 px from the surface (64 px) out to the tips (96 px) */
        double cover[8] = {0};
        uint32_t total[8] = {0};
        for (uint32_t y = 0; y < SH; y++)
            for (uint32_t x = 0; x < SW; x++) {
                double d = hypot(x + 0.5 - SW / 2.0, y + 0.5 - SH / 2.0);
                int ring = (int)floor((d - 64.0) / 4.0);
                if (ring < 0 || ring >= 8) continue;
                const uint8_t *p = px + ((size_t)y * SW + x) * 4;
                total[ring]++;
                if (p[0] || p[1] || p[2]) cover[ring] += 1;
            }
        for (int k = 0; k < 8; k++) cover[k] /= total[k];
        print_message("%s: fur coverage from the surface out: %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n",
                      path ? "sets" : "default", cover[0], cover[1], cover[2], cover[3], cover[4], cover[5], cover[6],
                      cover[7]);
        assert_true(cover[0] > 0.9);
        assert_true(cover[7] < 0.35 && cover[7] > 0.0); /* the tips: thin, not gone */
        for (int k = 1; k < 8; k++) assert_true(cover[k] <= cover[k - 1] + 0.05);
        double r0 = radius_px(px);
        assert_true(r0 > 70.0 && r0 <= 97.0);
        free(px);
        /* longer fur, the next frame */
        orr_assets_try_edit_material(f.assets, mat)->fur.shell_length = 0.5f;
        px = render_descs(r, &f, SW, SH, &vd, 1, NULL);
        double r1 = radius_px(px);
        print_message("%s: silhouette radius %.1f px at 0.25 m of fur, %.1f px at 0.5 m\n", path ? "sets" : "default", r0, r1);
        assert_true(r1 > r0 + 16.0);
        orr_assets_try_edit_material(f.assets, mat)->fur.shell_length = 0.25f;
        free(px);
        fix_renderer_done(r, &logged);
    }
    fix_fini(&f);
}

/* Bad view descs are refused, naming the field. */
void test_shell_view_desc_checked(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &(orr_target_desc){.width = 16, .height = 16, .samples = 1}, &target), ORR_OK);
    orr_view_id v;
    orr_view_desc vd = {.target = target, .strategy = ORR_STRATEGY_SHELL, .shells = ORR_FUR_MAX_SHELLS + 1};
    assert_int_equal(orr_renderer_create_view(r, &vd, &v), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "desc.shells"));
    vd.shells = ORR_FUR_MAX_SHELLS;
    vd.cull = ORR_CULL_GPU;
    assert_int_equal(orr_renderer_create_view(r, &vd, &v), ORR_ERROR_INVALID_ARGUMENT); /* the GPU cull is indirect's */
    vd.cull = ORR_CULL_AUTO;
    assert_int_equal(orr_renderer_create_view(r, &vd, &v), ORR_OK);
    vd.strategy = (orr_strategy)99;
    assert_int_equal(orr_renderer_update_view(r, v, &vd), ORR_ERROR_INVALID_ARGUMENT);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}
