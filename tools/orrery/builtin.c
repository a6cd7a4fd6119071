/* The built-in scene: an orrery at real distances, in metres. The sun is a root; each body hangs from
 * an orbit pivot that a system turns every tick, so moons inherit their planet's motion through the
 * hierarchy. Radii are real too, so the cameras sit close to what they look at, and the binary64
 * positions (up to ~8e11 m) only become floats after each view subtracts its own origin. */
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AU 1.495978707e11
#define DAY 86400.0
/* Simulated days per second of simulation time, so that one second of ticks shows visible motion. */
#define DAYS_PER_SECOND 2.0

typedef struct body {
    const char *name;
    int parent;           /* index into bodies, -1 = the sun itself */
    double radius;        /* m */
    double distance;      /* orbit radius, m */
    double period_days;   /* orbital period */
    double phase;         /* starting angle, radians */
    float color[3];       /* linear albedo */
} body;

static const body bodies[] = {
    {"sun", -1, 6.957e8, 0, 0, 0, {1.0f, 0.85f, 0.55f}},
    {"mercury", 0, 2.4397e6, 0.387 * AU, 87.97, 0.4, {0.45f, 0.42f, 0.40f}},
    {"venus", 0, 6.0518e6, 0.723 * AU, 224.7, 2.1, {0.80f, 0.70f, 0.50f}},
    {"earth", 0, 6.371e6, 1.0 * AU, 365.256, 0.0, {0.20f, 0.35f, 0.75f}},
    {"moon", 3, 1.7374e6, 3.844e8, 27.32, 2.6, {0.55f, 0.55f, 0.55f}},
    {"mars", 0, 3.3895e6, 1.524 * AU, 686.98, 4.0, {0.70f, 0.30f, 0.15f}},
    {"jupiter", 0, 6.9911e7, 5.203 * AU, 4332.6, 1.2, {0.75f, 0.62f, 0.48f}},
    {"io", 6, 1.8216e6, 4.217e8, 1.769, 0.3, {0.85f, 0.80f, 0.35f}},
    {"europa", 6, 1.5608e6, 6.709e8, 3.551, 1.9, {0.80f, 0.75f, 0.70f}},
    {"ganymede", 6, 2.6341e6, 1.0704e9, 7.155, 3.5, {0.55f, 0.50f, 0.45f}},
    {"callisto", 6, 2.4103e6, 1.8827e9, 16.69, 5.0, {0.40f, 0.37f, 0.33f}},
    {"saturn", 0, 5.8232e7, 9.537 * AU, 10759.2, 5.5, {0.80f, 0.72f, 0.55f}},
    {"titan", 11, 2.5747e6, 1.22187e9, 15.945, 0.8, {0.75f, 0.55f, 0.25f}},
    {"rhea", 11, 7.638e5, 5.2704e8, 4.518, 2.2, {0.70f, 0.70f, 0.68f}},
    {"uranus", 0, 2.5362e7, 19.19 * AU, 30688.5, 3.1, {0.60f, 0.80f, 0.85f}},
    {"titania", 14, 7.889e5, 4.358e8, 8.706, 4.4, {0.55f, 0.52f, 0.50f}},
    {"neptune", 0, 2.4622e7, 30.07 * AU, 60195.0, 0.9, {0.25f, 0.40f, 0.85f}},
    {"triton", 16, 1.3534e6, 3.5476e8, 5.877, 1.5, {0.70f, 0.65f, 0.62f}},
};
#define BODY_COUNT (sizeof bodies / sizeof bodies[0])
#define BODY_EARTH 3
#define BODY_MOON 4
#define BODY_JUPITER 6
/* The belt: rings between 2.2 and 3.2 AU, each a pivot turning at the Kepler period of its radius
 * (inner rings faster), with rocks of a few meshes and materials. */
#define BELT_INNER (2.2 * AU)
#define BELT_OUTER (3.2 * AU)
#define BELT_RINGS 16
#define ROCK_MESHES 4
#define ROCK_MATERIALS 3

/* The sky: a sphere around the sun, far beyond Neptune (4.5e12 m), whose inside shows SKY_STARS stars
 * on black, unlit, from a SKY_WIDTH x SKY_HEIGHT equirectangular texture. */
#define SKY_RADIUS 1.0e14
#define SKY_WIDTH 2048
#define SKY_HEIGHT 1024
#define SKY_STARS 6000
/* The exposure of a camera that meters the sun where it stands never goes beyond a sunny day's. */
#define EV100_SUNNY 15.0
/* Every camera's vertical field of view, radians. */
#define CAMERA_YFOV 0.7
/* The system camera: above and behind the sun, far enough back that the monitor has room beside it. */
#define CAM_SUN_AT ((orr_vec3d){0, 3.0e9, 8.0e9})
/* The monitor floats in front of the system camera, at this share of its distance to the sun, in the
 * upper left of its picture: its centre MONITOR_X, MONITOR_Y of the half-height there to the left and
 * up (x measured in the half-height too, so that a wider view keeps it clear of the sun), its screen
 * MONITOR_H of the half-height tall, 16:9. */
#define MONITOR_DEPTH 0.6
#define MONITOR_X 0.25
#define MONITOR_Y 0.645
#define MONITOR_H 0.62

/* ---- procedural meshes ------------------------------------------------------------------- */

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static double unit(uint32_t *state) /* deterministic [0, 1) */
{
    *state = hash32(*state + 0x9e3779b9U);
    return (double)(*state >> 8) / 16777216.0;
}

/* A UV sphere of radius 1: (stacks + 1) x (slices + 1) vertices, texture coordinates u along the
 * longitude (0 to 1 counter-clockwise seen from +Y, from +X), v from the north pole (+Y) to the south. */
enum { SLICES = 48, STACKS = 24, SPHERE_VERTS = (SLICES + 1) * (STACKS + 1), SPHERE_INDICES = SLICES * STACKS * 6 };

static orr_result add_sphere(orr_assets *assets, const char *name, bool meshlets, orr_mesh_id *out)
{
    static float pos[SPHERE_VERTS * 3], nrm[SPHERE_VERTS * 3], uv[SPHERE_VERTS * 2];
    static uint32_t idx[SPHERE_INDICES];
    uint32_t v = 0, k = 0;
    for (uint32_t i = 0; i <= STACKS; i++) {
        double phi = ORR_PI * i / STACKS;
        for (uint32_t j = 0; j <= SLICES; j++, v++) {
            double theta = 2.0 * ORR_PI * j / SLICES;
            float x = (float)(sin(phi) * cos(theta)), y = (float)cos(phi), z = (float)(-sin(phi) * sin(theta));
            pos[v * 3 + 0] = nrm[v * 3 + 0] = x;
            pos[v * 3 + 1] = nrm[v * 3 + 1] = y;
            pos[v * 3 + 2] = nrm[v * 3 + 2] = z;
            uv[v * 2 + 0] = (float)j / SLICES;
            uv[v * 2 + 1] = (float)i / STACKS;
        }
    }
    for (uint32_t i = 0; i < STACKS; i++) {
        for (uint32_t j = 0; j < SLICES; j++) {
            uint32_t a = i * (SLICES + 1) + j, b = a + SLICES + 1;
            /* counter-clockwise seen from outside */
            idx[k++] = a, idx[k++] = b, idx[k++] = a + 1;
            idx[k++] = a + 1, idx[k++] = b, idx[k++] = b + 1;
        }
    }
    orr_primitive_desc p = {.vertex_count = SPHERE_VERTS, .positions = pos, .normals = nrm, .texcoords0 = uv,
                            .index_count = SPHERE_INDICES, .indices = idx};
    return orr_assets_add_mesh(
        assets, &(orr_mesh_desc){.name = name, .primitive_count = 1, .primitives = &p, .build_meshlets = meshlets}, out);
}

/* The star map: black, with SKY_STARS stars spread evenly over the sphere (a uniform height and
 * longitude), most of them faint, a few bright ones two texels across, white tinted towards blue or
 * orange. Laid out as add_sphere's texture coordinates read it. */
static orr_result add_star_map(orr_assets *assets, orr_texture_id *out)
{
    uint8_t *px = calloc((size_t)SKY_WIDTH * SKY_HEIGHT, 4);
    if (!px) return ORR_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < (size_t)SKY_WIDTH * SKY_HEIGHT; i++) px[i * 4 + 3] = 255;
    uint32_t state = 2026;
    for (uint32_t k = 0; k < SKY_STARS; k++) {
        double y = 2.0 * unit(&state) - 1.0, u = unit(&state), b = unit(&state), tint = unit(&state) - 0.5;
        uint32_t x0 = (uint32_t)(u * SKY_WIDTH) % SKY_WIDTH;
        uint32_t y0 = (uint32_t)(acos(y) / ORR_PI * SKY_HEIGHT);
        if (y0 >= SKY_HEIGHT) y0 = SKY_HEIGHT - 1;
        double level = 0.22 + 0.78 * pow(b, 5.0); /* many faint stars, few bright ones */
        double rgb[3] = {level * (1.0 + 0.25 * tint), level, level * (1.0 - 0.25 * tint)};
        int size = level > 0.75 ? 2 : 1;
        for (int dy = 0; dy < size; dy++)
            for (int dx = 0; dx < size; dx++) {
                uint8_t *p = px + (((size_t)((y0 + dy) % SKY_HEIGHT) * SKY_WIDTH) + (x0 + dx) % SKY_WIDTH) * 4;
                for (int c = 0; c < 3; c++) {
                    long v = lround(fmin(rgb[c], 1.0) * 255.0);
                    if (v > p[c]) p[c] = (uint8_t)v;
                }
            }
    }
    orr_texture_desc td = {.name = "stars", .width = SKY_WIDTH, .height = SKY_HEIGHT, .rgba8 = px,
                           .color_space = ORR_COLOR_SPACE_SRGB, .sampler = {.mipmaps = true}};
    orr_result r = orr_assets_add_texture(assets, &td, out);
    free(px);
    return r;
}

/* The monitor, 16 x 9 units: primitive 0 the screen (a quad facing +Z, texture coordinates 0,0 at its
 * top left), primitive 1 its bezel (a flat box behind it, a little larger). */
static orr_result add_monitor(orr_assets *assets, orr_material_id screen, orr_material_id bezel, orr_mesh_id *out)
{
    static const float spos[12] = {-8, 4.5f, 0, -8, -4.5f, 0, 8, -4.5f, 0, 8, 4.5f, 0};
    static const float snrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const float suv[8] = {0, 0, 0, 1, 1, 1, 1, 0};
    static const uint32_t sidx[6] = {0, 1, 2, 0, 2, 3};
    /* the box: 6 faces of 4 corners, each face with its own normal */
    static const float lo[3] = {-8.5f, -5.0f, -0.8f}, hi[3] = {8.5f, 5.0f, -0.02f};
    float bpos[72], bnrm[72];
    uint32_t bidx[36];
    for (int face = 0; face < 6; face++) {
        int axis = face / 2, sign = face % 2 ? -1 : 1;
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        static const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int c = 0; c < 4; c++) {
            int k = face * 4 + c;
            float p[3];
            p[axis] = sign > 0 ? hi[axis] : lo[axis];
            /* counter-clockwise seen from outside: swap the corner order on the negative faces */
            int cu = corner[sign > 0 ? c : 3 - c][0], cv = corner[sign > 0 ? c : 3 - c][1];
            p[u] = cu ? hi[u] : lo[u];
            p[v] = cv ? hi[v] : lo[v];
            for (int j = 0; j < 3; j++) {
                bpos[k * 3 + j] = p[j];
                bnrm[k * 3 + j] = j == axis ? (float)sign : 0.0f;
            }
        }
        uint32_t b = (uint32_t)face * 4;
        uint32_t tri[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        memcpy(bidx + face * 6, tri, sizeof tri);
    }
    orr_primitive_desc prims[2] = {
        {.vertex_count = 4, .positions = spos, .normals = snrm, .texcoords0 = suv, .index_count = 6, .indices = sidx,
         .material = screen},
        {.vertex_count = 24, .positions = bpos, .normals = bnrm, .index_count = 36, .indices = bidx, .material = bezel},
    };
    return orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "monitor", .primitive_count = 2, .primitives = prims},
                               out);
}

/* A rock: an icosahedron split once (80 faces), each corner pushed in or out by a hash of its
 * direction (`seed` picks the rock), stretched a little along one axis; flat normals are generated by
 * the asset library because none are given (faces do not share vertices). */
enum { ROCK_FACES = 80, ROCK_VERTS = ROCK_FACES * 3 };

static void rock_corner(const double dir[3], uint32_t seed, double stretch, float out[3])
{
    double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    /* the same direction gets the same bump in every face that shares the corner */
    uint32_t h = seed;
    for (int k = 0; k < 3; k++) h = hash32(h ^ (uint32_t)(int32_t)lround(dir[k] / len * 4096.0));
    double r = (0.72 + 0.42 * (double)(h >> 8) / 16777216.0) / len;
    out[0] = (float)(dir[0] * r * stretch);
    out[1] = (float)(dir[1] * r);
    out[2] = (float)(dir[2] * r);
}

static orr_result add_rock(orr_assets *assets, uint32_t seed, bool meshlets, orr_mesh_id *out)
{
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    const double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const uint8_t faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                         {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                         {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                         {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    double stretch = 1.0 + 0.5 * (double)(hash32(seed) >> 8) / 16777216.0;
    float pos[ROCK_VERTS * 3];
    uint32_t v = 0;
    for (int f = 0; f < 20; f++) {
        /* the face's corners a, b, c and its edge midpoints: four faces */
        double c[6][3];
        for (int k = 0; k < 3; k++) memcpy(c[k], base[faces[f][k]], sizeof c[k]);
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++) c[3 + k][d] = (c[k][d] + c[(k + 1) % 3][d]) * 0.5;
        static const uint8_t split[4][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}, {3, 4, 5}};
        for (int q = 0; q < 4; q++)
            for (int k = 0; k < 3; k++, v++) rock_corner(c[split[q][k]], seed, stretch, pos + v * 3);
    }
    char name[32];
    snprintf(name, sizeof name, "rock%u", seed);
    orr_primitive_desc p = {.vertex_count = ROCK_VERTS, .positions = pos};
    return orr_assets_add_mesh(
        assets, &(orr_mesh_desc){.name = name, .primitive_count = 1, .primitives = &p, .build_meshlets = meshlets}, out);
}

/* ---- the scene --------------------------------------------------------------------------- */

typedef struct orbit {
    orr_entity pivot;
    double period_days;
    double phase;
} orbit;

typedef struct orrery_state {
    orbit orbits[BODY_COUNT + BELT_RINGS];
    uint32_t orbit_count;
    orr_entity belt;
} orrery_state;

/* The orbits turn with the tick count alone (never the wall clock), so replays are exact. */
static void turn_orbits(void *user, orr_world *world, orr_assets *assets, uint64_t tick, double step)
{
    (void)assets;
    const orrery_state *st = user;
    double days = (double)tick * step * DAYS_PER_SECOND;
    for (uint32_t i = 0; i < st->orbit_count; i++) {
        const orbit *o = &st->orbits[i];
        double angle = o->phase + 2.0 * ORR_PI * days / o->period_days;
        orr_entity_set_rotation(world, o->pivot, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, angle));
    }
}

static orr_result make(orr_world *w, const char *name, orr_entity parent, orr_vec3d at, double scale, orr_entity *out)
{
    orr_transform t = orr_transform_identity();
    t.translation = at;
    t.scale = (orr_vec3d){scale, scale, scale};
    return orr_entity_create(w, &(orr_entity_desc){.name = name, .parent = parent, .local = &t}, out);
}

/* casts: whether it casts shadows (the sun, round its own light, and the sky, which holds the whole
 * system, do not) */
static orr_result add_renderer_on(orr_world *w, orr_entity e, orr_mesh_id mesh, orr_material_id mat, uint32_t layers,
                                  bool casts)
{
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    mr.casts_shadows = casts;
    if (layers) mr.layers = layers;
    orr_result r = orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
    if (r == ORR_OK && !orr_id_is_none(mat)) r = orr_mesh_renderer_set_material(w, e, 0, mat);
    return r;
}

static orr_result add_renderer(orr_world *w, orr_entity e, orr_mesh_id mesh, orr_material_id mat)
{
    return add_renderer_on(w, e, mesh, mat, 0, true);
}

/* The monitor (see the top): its screen shows the texture target of key TOOL_MONITOR_KEY, unlit (the
 * target's pixels as they are), its bezel a dark unlit grey (lit, it would glare this near the sun). It
 * is on its own layer, which the monitor's own view leaves out. */
static orr_result add_monitor_entity(orr_world *w, orr_assets *assets, orr_entity scene, orr_vec3d cam_at,
                                     orr_vec3d look_at)
{
    orr_texture_id screen_tex;
    orr_target_texture_desc td = {.name = "monitor screen", .target_key = TOOL_MONITOR_KEY,
                                  .sampler = {.wrap_s = ORR_WRAP_CLAMP, .wrap_t = ORR_WRAP_CLAMP}};
    orr_result r = orr_assets_add_target_texture(assets, &td, &screen_tex);
    orr_material screen = orr_material_default(), bezel = orr_material_default();
    screen.unlit = bezel.unlit = true;
    screen.base_color_texture.texture = screen_tex;
    for (int k = 0; k < 3; k++) bezel.base_color[k] = 0.03f;
    orr_material_id screen_mat, bezel_mat;
    orr_mesh_id mesh;
    if (r == ORR_OK) r = orr_assets_add_material(assets, &screen, &screen_mat);
    if (r == ORR_OK) r = orr_assets_add_material(assets, &bezel, &bezel_mat);
    if (r == ORR_OK) r = add_monitor(assets, screen_mat, bezel_mat, &mesh);
    if (r != ORR_OK) return r;
    /* in the camera's frame: MONITOR_DEPTH of the way to what it looks at, up and to the left */
    orr_vec3d to = orr_vec3d_sub(look_at, cam_at);
    orr_quatd q = orr_quatd_look_rotation(to, (orr_vec3d){0, 1, 0});
    double depth = MONITOR_DEPTH * orr_vec3d_length(to), half = depth * tan(CAMERA_YFOV / 2);
    orr_vec3d at = orr_vec3d_add(cam_at, orr_quatd_rotate(q, (orr_vec3d){-MONITOR_X * half, MONITOR_Y * half, -depth}));
    orr_transform t = orr_transform_identity();
    t.translation = at;
    t.rotation = q; /* its screen (+Z) faces the camera */
    double scale = MONITOR_H * half / 9.0;
    t.scale = (orr_vec3d){scale, scale, scale};
    orr_entity e;
    r = orr_entity_create(w, &(orr_entity_desc){.name = "monitor", .parent = scene, .local = &t}, &e);
    return r == ORR_OK ? add_renderer_on(w, e, mesh, (orr_material_id){0, 0}, TOOL_MONITOR_LAYER, true) : r;
}

/* A camera placed at `offset` from `target`'s orbit frame, looking at the target body. */
static orr_result add_camera(orr_world *w, const char *name, orr_entity frame, orr_vec3d offset, orr_vec3d look_at)
{
    orr_transform t = orr_transform_identity();
    t.translation = offset;
    t.rotation = orr_quatd_look_rotation(orr_vec3d_sub(look_at, offset), (orr_vec3d){0, 1, 0});
    orr_entity cam;
    orr_result r = orr_entity_create(w, &(orr_entity_desc){.name = name, .parent = frame, .local = &t}, &cam);
    if (r != ORR_OK) return r;
    orr_camera c = orr_camera_default();
    c.yfov = CAMERA_YFOV;
    c.znear = 1000.0;
    return orr_component_add(w, cam, ORR_COMPONENT_CAMERA, &c, NULL);
}

static void free_state(void *p) { free(p); }

orr_result tool_builtin_orrery(orr_session *session, uint32_t rocks, bool meshlets, orr_error *err)
{
    orr_world *w = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    orr_entity scene = orr_world_find(w, ORR_ENTITY_NONE, "scene");
    orr_mesh_id sphere, sky_sphere, rock[ROCK_MESHES];
    orr_texture_id stars;
    orr_result r = add_sphere(assets, "sphere", meshlets, &sphere);
    if (r == ORR_OK) r = add_sphere(assets, "sky", false, &sky_sphere);
    if (r == ORR_OK) r = add_star_map(assets, &stars);
    for (uint32_t i = 0; r == ORR_OK && i < ROCK_MESHES; i++) r = add_rock(assets, 7 + i * 101, meshlets, &rock[i]);
    if (r != ORR_OK) return tool_fail(err, r, "meshes: %s", orr_assets_last_error(assets)->message);

    orrery_state *st = calloc(1, sizeof *st);
    if (!st) return tool_fail(err, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    orr_entity body_entity[BODY_COUNT], body_frame[BODY_COUNT];
    for (uint32_t i = 0; i < BODY_COUNT; i++) {
        const body *b = &bodies[i];
        orr_material m = orr_material_default();
        memcpy(m.base_color, b->color, sizeof b->color);
        m.metallic = 0.0f;
        if (i == 0) { /* the sun shines by itself */
            m.unlit = true;
            memcpy(m.emissive, b->color, sizeof b->color);
        }
        orr_material_id mat;
        if ((r = orr_assets_add_material(assets, &m, &mat)) != ORR_OK) goto fail;
        orr_entity parent = b->parent < 0 ? scene : body_frame[b->parent];
        orr_entity frame = parent;
        if (b->parent >= 0) {
            /* pivot (turns) -> frame at the orbit radius (does not spin) -> body (scaled) */
            char pivot_name[64], frame_name[64];
            snprintf(pivot_name, sizeof pivot_name, "%s_orbit", b->name);
            snprintf(frame_name, sizeof frame_name, "%s_frame", b->name);
            orr_entity pivot;
            if ((r = make(w, pivot_name, parent, (orr_vec3d){0, 0, 0}, 1.0, &pivot)) != ORR_OK) goto fail;
            if ((r = make(w, frame_name, pivot, (orr_vec3d){b->distance, 0, 0}, 1.0, &frame)) != ORR_OK) goto fail;
            st->orbits[st->orbit_count++] = (orbit){pivot, b->period_days, b->phase};
        }
        body_frame[i] = frame;
        if ((r = make(w, b->name, frame, (orr_vec3d){0, 0, 0}, b->radius, &body_entity[i])) != ORR_OK) goto fail;
        if ((r = add_renderer_on(w, body_entity[i], sphere, mat, 0, i != 0)) != ORR_OK) goto fail;
    }
    /* The sky, seen from inside (both faces drawn), on a layer of its own (left out of framing) */
    orr_material sky = orr_material_default();
    sky.unlit = sky.double_sided = true;
    sky.base_color_texture.texture = stars;
    orr_material_id sky_mat;
    orr_entity sky_entity;
    if ((r = orr_assets_add_material(assets, &sky, &sky_mat)) != ORR_OK) goto fail;
    if ((r = make(w, "sky", scene, (orr_vec3d){0, 0, 0}, SKY_RADIUS, &sky_entity)) != ORR_OK) goto fail;
    if ((r = add_renderer_on(w, sky_entity, sky_sphere, sky_mat, TOOL_SKY_LAYER, false)) != ORR_OK) goto fail;

    /* The sun's light: a point light of the sun's luminous intensity (about 3e27 cd). */
    orr_light sun = orr_light_default();
    sun.type = ORR_LIGHT_POINT;
    sun.intensity = 3.0e27f;
    sun.color[0] = 1.0f, sun.color[1] = 0.96f, sun.color[2] = 0.9f;
    if ((r = orr_component_add(w, body_entity[0], ORR_COMPONENT_LIGHT, &sun, NULL)) != ORR_OK) goto fail;

    /* The asteroid belt: `rocks` instances of the rock meshes between 2.2 and 3.2 AU, in rings. */
    static const float rock_colors[ROCK_MATERIALS][3] = {{0.42f, 0.38f, 0.34f}, {0.30f, 0.28f, 0.27f},
                                                        {0.55f, 0.45f, 0.36f}};
    orr_material_id rock_mat[ROCK_MATERIALS];
    for (uint32_t i = 0; i < ROCK_MATERIALS; i++) {
        orr_material rock_m = orr_material_default();
        memcpy(rock_m.base_color, rock_colors[i], sizeof rock_colors[i]);
        rock_m.metallic = 0.0f;
        rock_m.roughness = 0.9f;
        if ((r = orr_assets_add_material(assets, &rock_m, &rock_mat[i])) != ORR_OK) goto fail;
    }
    orr_entity ring[BELT_RINGS];
    for (uint32_t i = 0; i < BELT_RINGS; i++) {
        char name[32];
        snprintf(name, sizeof name, "belt_ring_%u", i);
        if ((r = make(w, name, scene, (orr_vec3d){0, 0, 0}, 1.0, &ring[i])) != ORR_OK) goto fail;
        double a = BELT_INNER + (BELT_OUTER - BELT_INNER) * (i + 0.5) / BELT_RINGS;
        st->orbits[st->orbit_count++] = (orbit){ring[i], 365.256 * pow(a / AU, 1.5), 0.0}; /* Kepler's third law */
    }
    /* A belt at real density is empty to the eye (rocks ~4e9 m apart): a fifth of the rocks form a
     * collisional family, a swarm 2e8 m across around the first rock, in its ring, where the belt
     * camera sits. */
    uint32_t seed = 12345, family = rocks / 5, first_ring_index = 0;
    orr_vec3d first_rock = {0, 0, 0};
    tool_progress progress; /* on a terminal, for more than 100,000 rocks */
    tool_progress_begin(&progress, "building the asteroid belt");
    progress.on = progress.on && rocks > 100000;
    for (uint32_t i = 0; i < rocks; i++) {
        if (i % 4096 == 0) tool_progress_update(&progress, "rock", i, rocks);
        double u = unit(&seed);
        double radius = BELT_INNER + (BELT_OUTER - BELT_INNER) * u, angle = 2.0 * ORR_PI * unit(&seed);
        uint32_t in_ring = (uint32_t)(u * BELT_RINGS) < BELT_RINGS ? (uint32_t)(u * BELT_RINGS) : BELT_RINGS - 1;
        double height = (unit(&seed) - 0.5) * 0.1 * AU;
        double size = 2.0e4 + 4.8e5 * pow(unit(&seed), 3.0); /* 20 km to 500 km */
        orr_vec3d at = {radius * cos(angle), height, -radius * sin(angle)};
        if (i == 0) {
            first_rock = at;
            first_ring_index = in_ring;
        } else if (i < family) { /* a ball of normal spread about the first rock */
            double g[3];
            for (int k = 0; k < 3; k++) {
                double a = fmax(unit(&seed), 1e-12), b = unit(&seed);
                g[k] = sqrt(-2.0 * log(a)) * cos(2.0 * ORR_PI * b) * 0.7e8;
            }
            at = orr_vec3d_add(first_rock, (orr_vec3d){g[0], g[1] * 0.3, g[2]});
            in_ring = first_ring_index;
        }
        orr_transform t = orr_transform_identity();
        t.translation = at;
        double qx = unit(&seed) - 0.5, qy = unit(&seed) - 0.5, qz = unit(&seed) - 0.5, qw = unit(&seed) - 0.5;
        t.rotation = orr_quatd_normalize((orr_quatd){qx, qy, qz, qw}); /* drawn in a fixed order */
        t.scale = (orr_vec3d){size, size * (0.6 + 0.4 * unit(&seed)), size};
        uint32_t look = hash32(i * 2654435761u);
        char name[32];
        snprintf(name, sizeof name, "rock_%u", i);
        orr_entity e;
        if ((r = orr_entity_create(w, &(orr_entity_desc){.name = name, .parent = ring[in_ring], .local = &t}, &e)) !=
                ORR_OK ||
            (r = add_renderer(w, e, rock[look % ROCK_MESHES], rock_mat[(look >> 8) % ROCK_MATERIALS])) != ORR_OK) {
            tool_progress_end(&progress);
            goto fail;
        }
    }
    tool_progress_end(&progress);
    /* Cameras, used in this order by `render`: Earth and its moon, Jupiter and its moons, inside the
     * belt beside its first rock, the sun. Then closeup_moon, which render's views leave out (not named
     * cam_*: snapshot order puts it, deepest in the hierarchy, before the others) and --camera names:
     * the moon from close by, on its side towards Earth (and the sun, at full moon: where Earth's shadow
     * falls on it in an eclipse). Each hangs from its subject's orbit frame, so it follows it. With no
     * belt, the belt camera looks along the empty ring. */
    if ((r = add_camera(w, "cam_earth", body_frame[BODY_EARTH], (orr_vec3d){-2.2e7, 6.0e6, 2.4e7},
                        (orr_vec3d){0, 0, 0})) != ORR_OK)
        goto fail;
    if ((r = add_camera(w, "cam_jupiter", body_frame[BODY_JUPITER], (orr_vec3d){-3.0e8, 1.2e8, 6.2e8},
                        (orr_vec3d){0, 0, 0})) != ORR_OK)
        goto fail;
    if (!rocks) first_rock = (orr_vec3d){BELT_INNER, 0, 0};
    orr_vec3d beside = orr_vec3d_add(first_rock, (orr_vec3d){-3.0e6, 1.0e6, 2.0e6});
    if ((r = add_camera(w, "cam_belt", ring[first_ring_index], beside, first_rock)) != ORR_OK) goto fail;
    if ((r = add_camera(w, "cam_sun", scene, CAM_SUN_AT, (orr_vec3d){0, 0, 0})) != ORR_OK) goto fail;
    if ((r = add_camera(w, "closeup_moon", body_frame[BODY_MOON], (orr_vec3d){-6.0e6, 1.5e6, 3.0e6},
                        (orr_vec3d){0, 0, 0})) != ORR_OK)
        goto fail;
    if ((r = add_monitor_entity(w, assets, scene, CAM_SUN_AT, (orr_vec3d){0, 0, 0})) != ORR_OK) goto fail;

    turn_orbits(st, w, assets, 0, 1.0 / 60.0);
    /* The state lives exactly as long as the session. */
    if ((r = orr_session_add_system(session, &(orr_system_desc){turn_orbits, st, free_state, .tick_only = true})) != ORR_OK) goto fail;
    return ORR_OK;
fail:
    free(st);
    return tool_fail(err, r, "%s", orr_world_last_error(w)->message[0] ? orr_world_last_error(w)->message
                                                                            : orr_result_name(r));
}

void tool_builtin_meter(const orr_snapshot *snap, orr_entity camera, orr_view_lighting *lighting)
{
    const orr_render_camera *cam = NULL;
    const orr_render_light *sun = NULL;
    for (uint32_t c = 0; c < snap->camera_count; c++)
        if (orr_entity_eq(snap->cameras[c].entity, camera)) cam = &snap->cameras[c];
    for (uint32_t l = 0; l < snap->light_count && !sun; l++)
        if (snap->lights[l].type == ORR_LIGHT_POINT) sun = &snap->lights[l];
    double ev100 = EV100_SUNNY;
    if (cam && sun) {
        orr_mat4d cw, lw;
        orr_affine3d_to_mat4d(&cam->world, &cw);
        orr_affine3d_to_mat4d(&sun->world, &lw);
        orr_vec3d d = {cw.m[12] - lw.m[12], cw.m[13] - lw.m[13], cw.m[14] - lw.m[14]};
        double lux = sun->intensity / fmax(orr_vec3d_dot(d, d), 1.0);
        ev100 = fmin(EV100_SUNNY, log2(fmax(lux, 1e-9) / 2.5)); /* an incident-light meter: EV100 = log2(E / 2.5) */
    }
    lighting->exposure = orr_gpu_exposure_from_ev100(ev100);
    lighting->custom_ambient = true;
    for (int c = 0; c < 3; c++) lighting->sky[c] = lighting->ground[c] = (float)(0.05 / lighting->exposure);
}

int tool_monitor_target(orr_renderer *renderer, const orr_snapshot *snap, const orr_view_desc *like, bool meter,
                        uint32_t samples, orr_target_id *out)
{
    orr_target_desc td = {.width = TOOL_MONITOR_WIDTH, .height = TOOL_MONITOR_HEIGHT, .samples = samples,
                          .clear_color = {0.01f, 0.01f, 0.015f, 1.0f}, .texture_key = TOOL_MONITOR_KEY,
                          .name = "monitor"};
    if (orr_renderer_create_target(renderer, &td, out) != ORR_OK) return 1;
    orr_view_desc vd = *like;
    vd.target = *out;
    vd.slot = 0;
    vd.viewport = (orr_viewport){0, 0, 0, 0};
    vd.layer_mask = ORR_LAYERS_ALL & ~TOOL_MONITOR_LAYER; /* it would show itself */
    vd.camera = (orr_entity){0, 0};
    for (uint32_t c = 0; c < snap->camera_count; c++)
        if (!strcmp(orr_snapshot_name(snap, snap->cameras[c].name), "cam_belt")) {
            vd.camera = snap->cameras[c].entity;
            vd.yfov = snap->cameras[c].yfov;
            vd.znear = snap->cameras[c].znear;
            if (meter) tool_builtin_meter(snap, vd.camera, &vd.lighting);
        }
    orr_view_id view;
    return orr_renderer_create_view(renderer, &vd, &view) == ORR_OK ? 0 : 1;
}
