/* gpu texture targets: a target that materials sample (orr_target_desc.texture_key, read through the
 * library's target textures). A "screen" quad fills the main target's view exactly (an orthographic
 * camera, one texel per pixel or an exact magnification, nearest sampling), so that its pixels must be
 * the bytes of the texture target's own render, read back from the same frame: through the base
 * colour slot unlit, and through the emissive slot lit by nothing. Then: the drawing order whatever the
 * order the targets were made in (a chain of two), self-reads and cycles refused with the names, and a
 * destroyed target falling back to white, counted, with later targets of the same key picked up. Every
 * renderer runs with validation and synchronization validation; both texture paths (the array and the
 * per-material sets) are run where the device has both. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SCENE_LAYER = 1u << 0,  /* the fixture's cubes, ground, glass */
    SCREEN_LAYER = 1u << 1, /* the quad the main target looks at */
    SCREEN2_LAYER = 1u << 2, /* a second quad (chains and cycles) */
};

/* A unit quad in the XY plane facing +Z, texcoords 0,0 at its top left. */
static orr_mesh_id add_screen_mesh(orr_assets *a, orr_material_id m)
{
    float pos[12] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc p = {.vertex_count = 4, .positions = pos, .normals = nrm, .texcoords0 = uv, .index_count = 6,
                            .indices = idx, .material = m};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &id), ORR_OK);
    return id;
}

static orr_texture_id add_target_texture(fixture *f, uint64_t key, const char *name)
{
    orr_texture_id id;
    orr_target_texture_desc d = {.name = name, .target_key = key,
                                 .sampler = {.mag_filter = ORR_FILTER_NEAREST, .min_filter = ORR_FILTER_NEAREST,
                                             .wrap_s = ORR_WRAP_CLAMP, .wrap_t = ORR_WRAP_CLAMP}};
    assert_int_equal(orr_assets_add_target_texture(f->assets, &d, &id), ORR_OK);
    return id;
}

/* A material that shows `tex` as it is: unlit base colour, or (emissive) black, lit, emitting it. */
static orr_material_id screen_material(fixture *f, orr_texture_id tex, bool emissive)
{
    orr_material m = orr_material_default();
    if (emissive) {
        m.base_color[0] = m.base_color[1] = m.base_color[2] = 0.0f;
        m.metallic = 0.0f;
        m.emissive[0] = m.emissive[1] = m.emissive[2] = 1.0f;
        m.emissive_texture.texture = tex;
    } else {
        m.unlit = true;
        m.base_color_texture.texture = tex;
    }
    orr_material_id id;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &id), ORR_OK);
    return id;
}

/* The fixture's scene (layer 1) plus the screens and their orthographic cameras, which look at them
 * from 2 m in front: screen k at x = 100 k (far from the scene and each other). */
typedef struct screens {
    fixture f;
    orr_render_camera cameras[2];
    orr_material_id material[2];
    orr_texture_id texture[2];
} screens;

/* The fixture's scene without its light: the texture targets' views get the default key light, the
 * screens' views none (so that emission is exact). */
static void screens_init(screens *sc)
{
    fix_init(&sc->f, (orr_vec3d){0, 0, 0});
    sc->f.snapshot.light_count = 0;
}

static void add_screen(screens *sc, uint32_t k, uint64_t key, const char *texture_name, bool emissive, uint32_t layer)
{
    fixture *f = &sc->f;
    sc->texture[k] = add_target_texture(f, key, texture_name);
    sc->material[k] = screen_material(f, sc->texture[k], emissive);
    orr_mesh_id quad = add_screen_mesh(f->assets, sc->material[k]);
    orr_mat4d world;
    orr_mat4d_from_trs((orr_vec3d){100.0 * (k + 1), 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &world);
    orr_render_instance *in = fix_add(f, 900 + k, quad, sc->material[k], world);
    in->layers = layer;
    orr_render_camera *cam = &sc->cameras[k];
    *cam = (orr_render_camera){.entity = {800 + k, 1}, .projection = ORR_ORTHOGRAPHIC, .xmag = 0.5, .ymag = 0.5,
                               .znear = 0.1, .zfar = 10};
    orr_mat4d pose;
    orr_mat4d_from_trs((orr_vec3d){100.0 * (k + 1), 0, 2}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &pose);
    orr_affine3d_from_mat4d(&pose, &cam->world);
    f->snapshot.cameras = sc->cameras;
    f->snapshot.camera_count = k + 1;
}

/* A view of the whole target, exposure 1, no tone mapping, no ambient, no default light: an unlit
 * texel and an emitted one come out as they went in. */
static orr_view_desc view_of(orr_target_id target, uint32_t layers)
{
    return (orr_view_desc){.target = target, .layer_mask = layers, .order = ORR_ORDER_MESH,
                           .pose = fix_look((orr_vec3d){2.5, 2.0, 4.5}, (orr_vec3d){0, 0.25, 0}),
                           .lighting = {.tone_mapping = ORR_TONE_MAPPING_NONE, .custom_ambient = true,
                                        .no_default_light = true}};
}

static orr_view_id add_view(orr_renderer *r, const orr_view_desc *d)
{
    orr_view_id id;
    if (orr_renderer_create_view(r, d, &id) != ORR_OK) fail_msg("view: %s", orr_renderer_last_error(r)->message);
    return id;
}

/* The view through screen k's camera, showing only `layers`. */
static orr_view_desc screen_view(const screens *sc, orr_target_id target, uint32_t k, uint32_t layers, orr_strategy s)
{
    orr_view_desc d = view_of(target, layers);
    d.camera = sc->cameras[k].entity;
    d.strategy = s;
    return d;
}

static orr_target_id add_target(orr_renderer *r, uint32_t w, uint32_t h, uint32_t samples, uint64_t key, const char *name,
                                float tint)
{
    orr_target_desc td = {.width = w, .height = h, .samples = samples, .readback = true, .texture_key = key,
                          .name = name, .clear_color = {0.05f, 0.1f * tint, 0.2f, 1.0f}};
    orr_target_id id;
    if (orr_renderer_create_target(r, &td, &id) != ORR_OK) fail_msg("target: %s", orr_renderer_last_error(r)->message);
    return id;
}

static uint8_t *read_back(orr_renderer *r, orr_target_id t, uint32_t w, uint32_t h)
{
    uint8_t *px = malloc((size_t)w * h * 4);
    assert_non_null(px);
    if (orr_renderer_read_target(r, t, px, (size_t)w * h * 4) != ORR_OK)
        fail_msg("read_target: %s", orr_renderer_last_error(r)->message);
    return px;
}

static void render_ok(orr_renderer *r, fixture *f, orr_target_id target, orr_render_stats *st)
{
    orr_render_desc d = fix_desc(r, f, target);
    if (orr_renderer_render(r, &d, st) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
}

/* Every pixel of `shown` (sw x sh, the main target) is the texel of `source` (tw x th) its centre falls
 * on, in red, green and blue; and `source` is not one flat colour (the test would prove nothing). */
static void assert_shows(const uint8_t *shown, uint32_t sw, uint32_t sh, const uint8_t *source, uint32_t tw, uint32_t th,
                         const char *what)
{
    uint32_t bad = 0, bx = 0, by = 0, distinct = 0;
    for (uint32_t y = 0; y < sh; y++)
        for (uint32_t x = 0; x < sw; x++) {
            const uint8_t *a = shown + ((size_t)y * sw + x) * 4;
            const uint8_t *b = source + ((size_t)(y * th / sh) * tw + x * tw / sw) * 4;
            if (memcmp(a, b, 3) != 0 && !bad++) bx = x, by = y;
            if (memcmp(b, source, 3) != 0) distinct++;
        }
    if (bad)
        fail_msg("%s: %u of %ux%u pixels differ from the texture target's texels; first at %u,%u", what, bad, sw, sh, bx,
                 by);
    if (distinct < sw * sh / 8) fail_msg("%s: the texture target's render is nearly flat (%u pixels differ)", what, distinct);
}

/* Both texture paths where the device has the array (else the sets twice: the same path). */
static orr_renderer *renderer_of(fix_log *log, int path) { return path ? fix_renderer_sets(log) : fix_renderer(log); }

/* ---- sampled exactly ----------------------------------------------------------------------------- */

void test_texture_target_exact(void **state)
{
    (void)state;
    static const struct {
        uint32_t tw, th, tsamples, mw, mh, msamples;
        bool emissive;
    } cases[] = {
        {64, 64, 1, 64, 64, 1, false}, /* one texel per pixel */
        {64, 64, 4, 64, 64, 4, true},  /* both multisampled (resolved), through the emissive slot */
        {32, 32, 4, 64, 64, 1, false}, /* its own size: 2 x 2 pixels per texel */
    };
    for (int path = 0; path < 2; path++) {
        fix_log logged;
        orr_renderer *r = renderer_of(&logged, path);
        uint32_t counts = orr_renderer_sample_counts(r);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            if (!(counts & cases[c].tsamples) || !(counts & cases[c].msamples)) continue;
            screens sc;
            screens_init(&sc);
            add_screen(&sc, 0, 7, "screen", cases[c].emissive, SCREEN_LAYER);
            /* the main target first, the texture target after it */
            orr_target_id main = add_target(r, cases[c].mw, cases[c].mh, cases[c].msamples, 0, "main", 1.0f);
            orr_view_desc mv = screen_view(&sc, main, 0, SCREEN_LAYER, ORR_STRATEGY_BATCHED);
            add_view(r, &mv);
            orr_target_id tex = add_target(r, cases[c].tw, cases[c].th, cases[c].tsamples, 7, "tv", 1.0f);
            orr_view_desc tv = view_of(tex, SCENE_LAYER);
            tv.lighting = (orr_view_lighting){0}; /* the scene lit as usual */
            add_view(r, &tv);
            orr_render_stats st;
            render_ok(r, &sc.f, main, &st);
            assert_int_equal(st.views.count, 1);
            assert_int_equal(st.views.texture_targets, 1);
            assert_int_equal(st.views.texture_views, 1);
            assert_int_equal(st.views.texture_target_fallbacks, 0);
            uint8_t *shown = read_back(r, main, cases[c].mw, cases[c].mh);
            uint8_t *source = read_back(r, tex, cases[c].tw, cases[c].th); /* the same frame's */
            char what[128];
            snprintf(what, sizeof what, "%s path, case %zu (%ux%u x%u on %ux%u x%u, %s)", path ? "sets" : "default", c,
                     cases[c].tw, cases[c].th, cases[c].tsamples, cases[c].mw, cases[c].mh, cases[c].msamples,
                     cases[c].emissive ? "emissive" : "base colour");
            assert_shows(shown, cases[c].mw, cases[c].mh, source, cases[c].tw, cases[c].th, what);
            /* drawn as a target of its own it gives the same bytes */
            render_ok(r, &sc.f, tex, NULL);
            uint8_t *alone = read_back(r, tex, cases[c].tw, cases[c].th);
            assert_memory_equal(alone, source, (size_t)cases[c].tw * cases[c].th * 4);
            /* and a second frame (the image sampled last frame, drawn again) shows it again */
            render_ok(r, &sc.f, main, NULL);
            free(shown);
            shown = read_back(r, main, cases[c].mw, cases[c].mh);
            assert_shows(shown, cases[c].mw, cases[c].mh, source, cases[c].tw, cases[c].th, what);
            print_message("%s: the screen shows the texture target's bytes\n", what);
            free(shown), free(source), free(alone);
            assert_int_equal(orr_renderer_destroy_target(r, tex), ORR_OK);
            assert_int_equal(orr_renderer_destroy_target(r, main), ORR_OK);
            fix_fini(&sc.f);
        }
        fix_renderer_done(r, &logged);
    }
}

/* ---- order --------------------------------------------------------------------------------------- */

/* main samples A (screen 0), A's view looks at screen 1, which samples B, B's view the scene. Made in
 * the order main, A, B: B must be drawn first, then A, then main. */
void test_texture_target_chain_order(void **state)
{
    (void)state;
    screens sc;
    screens_init(&sc);
    add_screen(&sc, 0, 1, "shows a", false, SCREEN_LAYER);
    add_screen(&sc, 1, 2, "shows b", false, SCREEN2_LAYER);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    enum { W = 48, H = 48 };
    orr_target_id main = add_target(r, W, H, 1, 0, "main", 1.0f);
    orr_view_desc mv = screen_view(&sc, main, 0, SCREEN_LAYER, ORR_STRATEGY_DIRECT);
    add_view(r, &mv);
    orr_target_id a = add_target(r, W, H, 1, 1, "a", 2.0f);
    orr_view_desc av = screen_view(&sc, a, 1, SCREEN2_LAYER, ORR_STRATEGY_INDIRECT); /* culled on the GPU */
    add_view(r, &av);
    orr_target_id b = add_target(r, W, H, 1, 2, "b", 3.0f);
    orr_view_desc bv = view_of(b, SCENE_LAYER);
    bv.strategy = ORR_STRATEGY_INDIRECT;
    add_view(r, &bv);
    for (int frame = 0; frame < 3; frame++) { /* frames in flight: each draws the chain again */
        orr_render_stats st;
        render_ok(r, &sc.f, main, &st);
        assert_int_equal(st.views.texture_targets, 2);
        assert_int_equal(st.views.texture_views, 2);
        uint8_t *pm = read_back(r, main, W, H), *pa = read_back(r, a, W, H), *pb = read_back(r, b, W, H);
        assert_shows(pa, W, H, pb, W, H, "a shows b");
        assert_shows(pm, W, H, pa, W, H, "main shows a");
        free(pm), free(pa), free(pb);
        fix_delta(&sc.f, NULL, 0, NULL, 0, false);
    }
    /* the screen's material edited to sample b itself: main shows b, and a is no longer drawn */
    orr_material *m = orr_assets_try_edit_material(sc.f.assets, sc.material[0]);
    m->base_color_texture.texture = sc.texture[1];
    orr_render_stats st;
    render_ok(r, &sc.f, main, &st);
    assert_int_equal(st.views.texture_targets, 1);
    uint8_t *pm = read_back(r, main, W, H), *pb = read_back(r, b, W, H);
    assert_shows(pm, W, H, pb, W, H, "main shows b");
    free(pm), free(pb);
    /* hidden, the screen samples nothing: no texture target is drawn */
    sc.f.instances[sc.f.snapshot.instance_count - 2].visible = false;
    uint32_t changed = 900;
    fix_delta(&sc.f, &changed, 1, NULL, 0, false);
    render_ok(r, &sc.f, main, &st);
    assert_int_equal(st.views.texture_targets, 0);
    assert_int_equal(st.views.texture_target_fallbacks, 0);
    fix_renderer_done(r, &logged);
    fix_fini(&sc.f);
}

/* ---- refusals ------------------------------------------------------------------------------------ */

static void assert_refused(orr_renderer *r, fixture *f, orr_target_id target, const char *const *parts)
{
    orr_render_desc d = fix_desc(r, f, target);
    orr_render_stats st;
    assert_int_equal(orr_renderer_render(r, &d, &st), ORR_ERROR_INVALID_ARGUMENT);
    const char *msg = orr_renderer_last_error(r)->message;
    print_message("refused: %s\n", msg);
    for (const char *const *p = parts; *p; p++)
        if (!strstr(msg, *p)) fail_msg("the message does not name '%s': %s", *p, msg);
}

void test_texture_target_cycles_refused(void **state)
{
    (void)state;
    screens sc;
    screens_init(&sc);
    add_screen(&sc, 0, 5, "mirror screen", false, SCREEN_LAYER);
    add_screen(&sc, 1, 6, "other screen", true, SCREEN2_LAYER);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_id main = add_target(r, 32, 32, 1, 0, "main", 1.0f);
    orr_view_desc mv = screen_view(&sc, main, 0, SCREEN_LAYER, ORR_STRATEGY_BATCHED);
    add_view(r, &mv);
    /* a texture target whose view shows the screen that samples it */
    orr_target_id mirror = add_target(r, 32, 32, 1, 5, "mirror", 1.0f);
    orr_view_desc tv = view_of(mirror, SCENE_LAYER | SCREEN_LAYER);
    tv.slot = 3;
    orr_view_id tview = add_view(r, &tv);
    char material[64];
    snprintf(material, sizeof material, "material %u", sc.material[0].index);
    const char *self[] = {"'mirror' (key 5)", "reads itself", "view in slot 3", material, "base colour texture 'mirror screen'",
                          NULL};
    assert_refused(r, &sc.f, main, self);
    assert_refused(r, &sc.f, mirror, self); /* drawn as the target itself: the same */
    /* the key is the target's */
    orr_target_id twin;
    orr_target_desc twin_desc = {.width = 8, .height = 8, .texture_key = 5, .samples = 1};
    assert_int_equal(orr_renderer_create_target(r, &twin_desc, &twin), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "texture key 5 is taken by target"));
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "'mirror'"));

    /* mirror shows the other screen (which samples `other`), other shows mirror's: a cycle */
    tv.layer_mask = SCENE_LAYER | SCREEN2_LAYER;
    assert_int_equal(orr_renderer_update_view(r, tview, &tv), ORR_OK);
    orr_target_id other = add_target(r, 32, 32, 1, 6, NULL, 1.0f);
    orr_view_desc ov = screen_view(&sc, other, 0, SCREEN_LAYER, ORR_STRATEGY_INDIRECT);
    orr_view_id oview = add_view(r, &ov);
    char material2[64];
    snprintf(material2, sizeof material2, "material %u", sc.material[1].index);
    const char *cycle[] = {"cycle", "'mirror' (key 5)", "key 6", material, material2, "emissive texture 'other screen'",
                           NULL};
    assert_refused(r, &sc.f, main, cycle);
    /* nothing of the refused frames stays: the cycle broken, the frame is drawn, exactly */
    ov.layer_mask = SCENE_LAYER;
    assert_int_equal(orr_renderer_update_view(r, oview, &ov), ORR_OK);
    orr_render_stats st;
    render_ok(r, &sc.f, main, &st);
    assert_int_equal(st.views.texture_targets, 2);
    uint8_t *pm = read_back(r, main, 32, 32), *pt = read_back(r, mirror, 32, 32);
    assert_shows(pm, 32, 32, pt, 32, 32, "after the refusals");
    free(pm), free(pt);
    fix_renderer_done(r, &logged);
    fix_fini(&sc.f);
}

/* ---- destroyed ----------------------------------------------------------------------------------- */

static void assert_white(const uint8_t *px, uint32_t w, uint32_t h, const char *what)
{
    for (uint32_t i = 0; i < w * h; i++)
        if (px[i * 4] != 255 || px[i * 4 + 1] != 255 || px[i * 4 + 2] != 255)
            fail_msg("%s: pixel %u,%u is %u,%u,%u, not white", what, i % w, i / w, px[i * 4], px[i * 4 + 1], px[i * 4 + 2]);
}

void test_texture_target_destroyed_white(void **state)
{
    (void)state;
    for (int path = 0; path < 2; path++) {
        screens sc;
        screens_init(&sc);
        add_screen(&sc, 0, 9, "screen", path == 1, SCREEN_LAYER);
        fix_log logged;
        orr_renderer *r = renderer_of(&logged, path);
        enum { W = 32, H = 32 };
        orr_target_id main = add_target(r, W, H, 1, 0, "main", 1.0f);
        orr_view_desc mv = screen_view(&sc, main, 0, SCREEN_LAYER, ORR_STRATEGY_INDIRECT);
        add_view(r, &mv);
        orr_render_stats st;
        /* before any target has the key: white, counted */
        render_ok(r, &sc.f, main, &st);
        assert_int_equal(st.views.texture_target_fallbacks, 1);
        assert_int_equal(st.views.texture_targets, 0);
        uint8_t *px = read_back(r, main, W, H);
        assert_white(px, W, H, "no target yet");
        free(px);
        orr_target_id tex = add_target(r, W, H, 1, 9, "tex", 1.0f);
        orr_view_desc tv = view_of(tex, SCENE_LAYER);
        add_view(r, &tv);
        render_ok(r, &sc.f, main, &st);
        assert_int_equal(st.views.texture_target_fallbacks, 0);
        uint8_t *shown = read_back(r, main, W, H), *source = read_back(r, tex, W, H);
        assert_shows(shown, W, H, source, W, H, "made later");
        free(shown), free(source);
        /* destroyed with frames in flight: white from the next frame on, every frame after */
        assert_int_equal(orr_renderer_destroy_target(r, tex), ORR_OK);
        for (int frame = 0; frame < 3; frame++) {
            render_ok(r, &sc.f, main, &st);
            assert_int_equal(st.views.texture_target_fallbacks, 1);
            assert_int_equal(st.views.texture_targets, 0);
            px = read_back(r, main, W, H);
            assert_white(px, W, H, "destroyed");
            free(px);
        }
        /* the key again, another size: the screen shows the new one, magnified */
        tex = add_target(r, W / 2, H / 2, 1, 9, "tex again", 2.0f);
        tv.target = tex;
        orr_view_id view = add_view(r, &tv);
        render_ok(r, &sc.f, main, &st);
        assert_int_equal(st.views.texture_target_fallbacks, 0);
        shown = read_back(r, main, W, H);
        source = read_back(r, tex, W / 2, H / 2);
        assert_shows(shown, W, H, source, W / 2, H / 2, "the key again");
        free(shown), free(source);
        /* resized: its image remade, the screen follows */
        assert_int_equal(orr_renderer_resize_target(r, tex, W, H), ORR_OK);
        tv.viewport = (orr_viewport){0, 0, 0, 0};
        assert_int_equal(orr_renderer_update_view(r, view, &tv), ORR_OK);
        render_ok(r, &sc.f, main, &st);
        shown = read_back(r, main, W, H);
        source = read_back(r, tex, W, H);
        assert_shows(shown, W, H, source, W, H, "resized");
        free(shown), free(source);
        print_message("%s path: white when absent or destroyed (counted), the key taken up again, resized\n",
                      path ? "sets" : "default");
        fix_renderer_done(r, &logged); /* tex and main still alive: destroyed with the renderer */
        fix_fini(&sc.f);
    }
}
