/* record and replay: the live loop's presented frames written to a recording (with the resources they
 * draw), and recorded frames rendered again with no world and no glTF file (docs/recording.md). */
#include "tool.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOOL_MAX_FRAMES 10000000u /* record --frames */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* ---- record ------------------------------------------------------------------------------ */

static const char record_help[] =
    "usage: orrery record [FILE] -o|--output REC [--frames N] [--time SECONDS] [--anim N|none]\n"
    "                     [--instances N] [--offset X,Y,Z] [--fur LENGTH[,D]] [--belt N] [--meshlets]\n"
    "                     [-q|--quiet]\n"
    "  runs the live loop (presenting profile, 1/60 s steps) and records every presented frame, with the\n"
    "  resources it draws, to REC: frame K is tick K, the frame `orrery render FILE --time K/60` draws.\n"
    "  --frames N: 1..10000000 frames (default 600); --time T: T seconds instead (round(T x 60) frames).\n"
    "  Without FILE, the built-in orrery. Its last line names what it wrote: 'orrery record: wrote REC (N\n"
    "  frames, B bytes: ...)' on stderr (-q drops it).\n"
    "  Exit status: 0, 1 failed, 2 bad usage.\n";

/* The metadata a replay needs to show the frames as render would: where they came from, which layers
 * its views show, whether they are the built-in scene's (its lighting, cameras and monitor). */
static char *record_metadata(const tool_scene_options *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "source", o->file ? o->file : "built-in orrery");
    cJSON_AddBoolToObject(j, "builtin", o->file == NULL);
    cJSON_AddNumberToObject(j, "layers", o->layers);
    cJSON_AddNumberToObject(j, "instances", o->instances);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}

int orr_tool_record(int argc, char **argv)
{
    tool_scene_options o = {.instances = 1};
    const char *output = NULL;
    uint32_t frames = 600;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--time")) { /* a duration here, not the time of one frame */
            double t;
            if (!tool_opt_number(argc, argv, &i, 1.0 / 60.0, TOOL_MAX_FRAMES / 60.0, &t)) return 2;
            frames = (uint32_t)llround(t * 60.0);
            continue;
        }
        int shared = tool_scene_option(argc, argv, &i, &o);
        if (shared < 0) return 2;
        if (shared) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(record_help, stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(output = tool_opt_value(argc, argv, &i))) return 2;
        } else if (!strcmp(a, "--frames")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_FRAMES, &frames)) return 2;
        } else if (a[0] != '-' && !o.file) {
            o.file = a;
        } else {
            return tool_unknown_option("record", a);
        }
    }
    if (!output) {
        return tool_usage_error("record", "-o REC is required");
    }
    if (tool_output_check_kind("record", "-o", output, o.file, "ORRYREC\n", "a recording")) return 1;
    tool_log log;
    tool_log_init(&log, o.file, o.quiet);
    o.log = &log;
    orr_session *session = NULL;
    orr_error err = {0};
    if (orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_PRESENTING, .logger = tool_log_logger(&log)},
                           &session, &err) != ORR_OK) {
        fprintf(stderr, "orrery: could not create a session: %s\n", err.message);
        return 1;
    }
    int status = tool_scene_build(session, &o);
    orr_recorder *rec = NULL;
    char *meta = NULL;
    if (status) goto done;
    status = 1;
    meta = record_metadata(&o);
    if (orr_recorder_create(output, &(orr_recorder_desc){.metadata = meta, .metadata_size = (uint32_t)strlen(meta)}, &rec,
                            &err) != ORR_OK) {
        fprintf(stderr, "orrery record: %s\n", err.message);
        goto done;
    }
    tool_progress progress;
    tool_progress_begin(&progress, "recording");
    double record_ms = 0, t0 = now_ms();
    for (uint32_t f = 0; f < frames; f++) {
        if (f % 64 == 0) tool_progress_update(&progress, "frame", f, frames);
        if (orr_session_run_frame(session, f ? 1.0 / 60.0 : 0.0) != ORR_OK) {
            tool_progress_end(&progress);
            fprintf(stderr, "orrery: frame %u: %s\n", f, orr_session_last_error(session)->message);
            goto done;
        }
        double r0 = cpu_ms();
        if (orr_frame_record(rec, orr_session_snapshot(session), orr_session_assets(session), &err) != ORR_OK) {
            tool_progress_end(&progress);
            fprintf(stderr, "orrery record: frame %u: %s\n", f, err.message);
            goto done;
        }
        record_ms += cpu_ms() - r0;
    }
    tool_progress_end(&progress);
    if (orr_recorder_finish(rec) != ORR_OK) {
        fprintf(stderr, "orrery record: %s\n", orr_recorder_last_error(rec)->message);
        goto done;
    }
    orr_recording_stats st;
    orr_recorder_get_stats(rec, &st);
    /* the line naming what was written, as render's (not a warning: --quiet drops it too) */
    if (!o.quiet)
        fprintf(stderr,
                "orrery record: wrote %s (%llu frames, %llu bytes: %llu key frames %llu bytes, deltas %llu bytes, "
                "%llu resources %llu bytes) in %.0f ms, %.3f ms CPU a frame recording\n",
                output, (unsigned long long)st.frames, (unsigned long long)st.bytes,
                (unsigned long long)st.key_frames, (unsigned long long)st.key_frame_bytes,
                (unsigned long long)st.delta_bytes, (unsigned long long)st.resources,
                (unsigned long long)st.resource_bytes, now_ms() - t0, frames ? record_ms / frames : 0.0);
    status = 0;
done:
    orr_recorder_destroy(rec);
    cJSON_free(meta);
    orr_session_destroy(session);
    return status;
}

/* ---- a recording's resources in a library of the replay's own -------------------------------- */

/* Recorded id -> the replay library's, per kind, by recorded index (generation checked). */
typedef struct id_map {
    uint32_t *gen, *index, *new_gen;
    uint32_t count;
} id_map;

typedef struct replay_library {
    orr_assets *assets;
    id_map maps[4]; /* by orr_resource_kind */
} replay_library;

static bool map_put(id_map *m, uint32_t index, uint32_t gen, uint32_t new_index, uint32_t new_gen)
{
    if (index >= m->count) {
        uint32_t n = index + 1 > m->count * 2 ? index + 1 : m->count * 2;
        uint32_t *g = realloc(m->gen, n * 4ull), *i = g ? realloc(m->index, n * 4ull) : NULL,
                 *ng = i ? realloc(m->new_gen, n * 4ull) : NULL;
        if (g) m->gen = g;
        if (i) m->index = i;
        if (ng) m->new_gen = ng;
        if (!ng) return false;
        memset(m->gen + m->count, 0, (n - m->count) * 4ull);
        m->count = n;
    }
    m->gen[index] = gen;
    m->index[index] = new_index;
    m->new_gen[index] = new_gen;
    return true;
}

/* The replay's id, or none (a resource the recording lacks: the renderer skips it, as it skipped it then). */
static bool map_get(const id_map *m, uint32_t index, uint32_t gen, uint32_t *new_index, uint32_t *new_gen)
{
    if (index >= m->count || m->gen[index] != gen || gen == 0) return false;
    *new_index = m->index[index];
    *new_gen = m->new_gen[index];
    return true;
}

static orr_mesh_id remap_mesh(void *user, orr_mesh_id id)
{
    orr_mesh_id out = {0, 0};
    map_get(&((replay_library *)user)->maps[ORR_RESOURCE_MESH], id.index, id.generation, &out.index, &out.generation);
    return out;
}

static orr_material_id remap_material(void *user, orr_material_id id)
{
    orr_material_id out = {0, 0};
    map_get(&((replay_library *)user)->maps[ORR_RESOURCE_MATERIAL], id.index, id.generation, &out.index, &out.generation);
    return out;
}

static orr_texture_id remap_texture(void *user, orr_texture_id id)
{
    orr_texture_id out = {0, 0};
    map_get(&((replay_library *)user)->maps[ORR_RESOURCE_TEXTURE], id.index, id.generation, &out.index, &out.generation);
    return out;
}

static void replay_library_free(replay_library *l)
{
    for (int k = 0; k < 4; k++) {
        free(l->maps[k].gen);
        free(l->maps[k].index);
        free(l->maps[k].new_gen);
    }
    orr_assets_destroy(l->assets);
}

/* Every resource of the recording, in file order (each after those it names), into a new library. */
static int replay_library_load(const orr_recording *rec, const char *path, replay_library *l)
{
    if (orr_assets_create(NULL, &l->assets, NULL) != ORR_OK) {
        fprintf(stderr, "orrery: out of memory\n");
        return 1;
    }
    orr_recording_info info;
    orr_recording_get_info(rec, &info);
    orr_resource_remap remap = {.material = remap_material, .texture = remap_texture, .user = l};
    for (uint32_t i = 0; i < info.stats.resources; i++) {
        orr_recording_resource r;
        orr_recording_get_resource(rec, i, &r);
        orr_error err = {0};
        orr_result res = ORR_OK;
        uint32_t index = 0, gen = 0;
        if (r.kind == ORR_RESOURCE_TEXTURE) {
            orr_texture_id id;
            res = orr_assets_decode_texture(l->assets, r.bytes, r.size, &id, &err);
            index = id.index, gen = id.generation;
        } else if (r.kind == ORR_RESOURCE_MATERIAL) {
            orr_material_id id;
            res = orr_assets_decode_material(l->assets, r.bytes, r.size, &remap, &id, &err);
            index = id.index, gen = id.generation;
        } else {
            orr_mesh_id id;
            res = orr_assets_decode_mesh(l->assets, r.bytes, r.size, &remap, &id, &err);
            index = id.index, gen = id.generation;
        }
        if (res != ORR_OK) {
            fprintf(stderr, "%s: resource %u (kind %d, id %u:%u): %s\n", path, i, (int)r.kind, r.index, r.generation,
                    err.message);
            return 1;
        }
        if (!map_put(&l->maps[r.kind], r.index, r.generation, index, gen)) {
            fprintf(stderr, "orrery: out of memory\n");
            return 1;
        }
    }
    return 0;
}

/* ---- replay ------------------------------------------------------------------------------ */

static const char replay_help[] =
    "usage: orrery replay REC [-o|--output out.png] [--frame K] [--size WxH] [--views N] [--strategy S] [--order O]\n"
    "       orrery replay REC --frames A:B --out-pattern frame%04d.png [options]\n"
    "       orrery replay REC --bench [--frames A:B] [options]\n"
    "       orrery replay REC --info [--json]\n"
    "  renders recorded frames with no world and no glTF file: the recording's resources are read into a\n"
    "  library of its own. Frame K (0-based, default 0) is drawn as `orrery render FILE --time K/60` draws\n"
    "  it with the same --size (default 640x360), --views (1..16, default 2), --strategy (direct | batched\n"
    "  | indirect | shell | meshlet, default batched) and --order (hierarchy | mesh, default mesh).\n"
    "  --frames A:B renders frames A..B inclusive, each to the pattern's name (one %d-style conversion).\n"
    "  --bench renders them (default all) without writing PNGs and prints frames per second and the CPU time\n"
    "  a frame takes to read and to render. --info prints the recording's frames, key frames, resources and\n"
    "  sizes. --validation: the Vulkan validation layer. Each PNG written is named on stderr ('orrery replay:\n"
    "  wrote PATH (WxH)'; -q|--quiet drops the line). Exit status: 0, 1 failed, 2 bad usage.\n";

/* Whether `pattern` holds exactly one integer conversion (%d, %u, %0Nd ...) and no other. */
static bool one_conversion(const char *pattern)
{
    int found = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        while (*p >= '0' && *p <= '9') p++;
        if (*p != 'd' && *p != 'u') return false;
        found++;
    }
    return found == 1;
}

static void print_info(const orr_recording *rec, const char *path, bool json)
{
    orr_recording_info info;
    orr_recording_get_info(rec, &info);
    uint32_t kinds[4] = {0};
    for (uint32_t i = 0; i < info.stats.resources; i++) {
        orr_recording_resource r;
        orr_recording_get_resource(rec, i, &r);
        kinds[r.kind]++;
    }
    const orr_recording_stats *s = &info.stats;
    if (json) {
        printf("{\"file\": ");
        tool_json_string(stdout, path);
        printf(", \"format_version\": %u, \"library_version\": \"%u.%u.%u\", \"frames\": %llu, \"key_frames\": %llu, "
               "\"resources\": {\"meshes\": %u, \"materials\": %u, \"textures\": %u, \"shared\": %llu}, \"bytes\": %llu, "
               "\"resource_bytes\": %llu, \"key_frame_bytes\": %llu, \"delta_bytes\": %llu, \"metadata\": ",
               info.format_version, info.library_version >> 16, (info.library_version >> 8) & 255,
               info.library_version & 255, (unsigned long long)s->frames, (unsigned long long)s->key_frames,
               kinds[ORR_RESOURCE_MESH], kinds[ORR_RESOURCE_MATERIAL], kinds[ORR_RESOURCE_TEXTURE],
               (unsigned long long)s->resources_shared, (unsigned long long)s->bytes, (unsigned long long)s->resource_bytes,
               (unsigned long long)s->key_frame_bytes, (unsigned long long)s->delta_bytes);
        cJSON *meta = cJSON_ParseWithLength(info.metadata, info.metadata_size);
        char *text = meta ? cJSON_PrintUnformatted(meta) : NULL;
        if (text) fputs(text, stdout);
        else tool_json_string(stdout, "");
        cJSON_free(text);
        cJSON_Delete(meta);
        printf("}\n");
    } else {
        printf("%s: recording format %u, library %u.%u.%u\n", path, info.format_version, info.library_version >> 16,
               (info.library_version >> 8) & 255, info.library_version & 255);
        printf("  %llu frames, %llu key frames\n", (unsigned long long)s->frames, (unsigned long long)s->key_frames);
        printf("  resources: %u meshes, %u materials, %u textures (%llu stored as an equal one), %llu bytes\n",
               kinds[ORR_RESOURCE_MESH], kinds[ORR_RESOURCE_MATERIAL], kinds[ORR_RESOURCE_TEXTURE],
               (unsigned long long)s->resources_shared, (unsigned long long)s->resource_bytes);
        printf("  key frames %llu bytes, deltas %llu bytes (%.1f a frame), %llu bytes in all\n",
               (unsigned long long)s->key_frame_bytes, (unsigned long long)s->delta_bytes,
               s->frames > s->key_frames ? (double)s->delta_bytes / (double)(s->frames - s->key_frames) : 0.0,
               (unsigned long long)s->bytes);
        printf("  metadata: %.*s\n", (int)info.metadata_size, (const char *)info.metadata);
    }
}

static uint64_t frame_count(const orr_recording *rec)
{
    orr_recording_info info;
    orr_recording_get_info(rec, &info);
    return info.stats.frames;
}

/* ---- a player: the recording, its library and the remap ---------------------------------------- */

struct tool_player {
    const char *path;
    orr_recording *rec;
    replay_library lib;
    orr_snapshot_remap remap;
};

tool_player *tool_player_open(const char *path, tool_scene_options *o)
{
    tool_player *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "orrery: out of memory\n");
        return NULL;
    }
    p->path = path;
    orr_error err = {0};
    if (orr_recording_open(path, NULL, &p->rec, &err) != ORR_OK) {
        fprintf(stderr, "%s\n", err.message);
        free(p);
        return NULL;
    }
    if (replay_library_load(p->rec, path, &p->lib)) {
        tool_player_close(p);
        return NULL;
    }
    p->remap = (orr_snapshot_remap){.mesh = remap_mesh, .material = remap_material, .user = &p->lib};
    if (o) {
        orr_recording_info ri;
        orr_recording_get_info(p->rec, &ri);
        o->layers = ORR_LAYERS_ALL;
        o->file = path;
        cJSON *meta = cJSON_ParseWithLength(ri.metadata, ri.metadata_size);
        const cJSON *layers = cJSON_GetObjectItemCaseSensitive(meta, "layers");
        if (cJSON_IsNumber(layers) && layers->valuedouble >= 1 && layers->valuedouble <= UINT32_MAX)
            o->layers = (uint32_t)layers->valuedouble;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meta, "builtin"))) o->file = NULL;
        cJSON_Delete(meta);
    }
    return p;
}

void tool_player_close(tool_player *p)
{
    if (!p) return;
    replay_library_free(&p->lib);
    orr_recording_close(p->rec);
    free(p);
}

orr_assets *tool_player_assets(const tool_player *p) { return p->lib.assets; }
uint64_t tool_player_frames(const tool_player *p) { return frame_count(p->rec); }

orr_result tool_player_read(tool_player *p, uint64_t position, orr_snapshot *snap)
{
    orr_error err = {0};
    orr_result r = orr_recording_read_frame(p->rec, position, &p->remap, snap, &err);
    if (r != ORR_OK) fprintf(stderr, "%s: %s\n", p->path, err.message);
    return r;
}

/* Opens a recording, refusing it with the reader's message. */
static orr_recording *open_recording(const char *path)
{
    orr_recording *rec = NULL;
    orr_error err = {0};
    if (orr_recording_open(path, NULL, &rec, &err) != ORR_OK) {
        fprintf(stderr, "%s\n", err.message);
        return NULL;
    }
    return rec;
}

bool tool_is_recording(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char magic[8];
    bool yes = fread(magic, 1, 8, f) == 8 && !memcmp(magic, "ORRYREC\n", 8);
    fclose(f);
    return yes;
}

int tool_recording_snapshot(const char *path, uint64_t frame, bool json)
{
    orr_recording *rec = open_recording(path);
    if (!rec) return 1;
    orr_snapshot s;
    orr_snapshot_init(&s, NULL);
    orr_error err = {0};
    int status = 0;
    if (orr_recording_read_frame(rec, frame, NULL, &s, &err) != ORR_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        status = frame >= frame_count(rec) ? 2 : 1;
    } else {
        tool_print_snapshot(&s, json);
    }
    orr_snapshot_fini(&s);
    orr_recording_close(rec);
    return status;
}

/* Parses A:B (each 0..UINT32_MAX, A <= B). */
static bool parse_range(const char *v, uint64_t *a, uint64_t *b)
{
    const char *colon = strchr(v, ':');
    if (!colon || colon == v || !colon[1]) return false;
    char left[32];
    size_t n = (size_t)(colon - v);
    if (n >= sizeof left) return false;
    memcpy(left, v, n);
    left[n] = 0;
    return tool_parse_uint(left, 0, UINT32_MAX, a) && tool_parse_uint(colon + 1, 0, UINT32_MAX, b) && *a <= *b;
}

int orr_tool_replay(int argc, char **argv)
{
    const char *path = NULL, *output = "replay.png", *pattern = NULL;
    uint32_t width = 640, height = 360, views = 2;
    uint64_t first = 0, last = 0;
    bool range = false, info = false, json = false, bench = false, validation = false, quiet = false;
    orr_strategy strategy = ORR_STRATEGY_BATCHED;
    orr_draw_order order = ORR_ORDER_MESH;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(replay_help, stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(output = tool_opt_value(argc, argv, &i))) return 2;
        } else if (!strcmp(a, "--frame")) {
            uint32_t k;
            if (!tool_opt_u32(argc, argv, &i, 0, UINT32_MAX, &k)) return 2;
            first = last = k;
        } else if (!strcmp(a, "--frames")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!parse_range(v, &first, &last)) {
                fprintf(stderr, "orrery replay: --frames must be A:B, frame numbers with A <= B (got '%s')\n", v);
                return 2;
            }
            range = true;
        } else if (!strcmp(a, "--out-pattern")) {
            if (!(pattern = tool_opt_value(argc, argv, &i))) return 2;
            if (!one_conversion(pattern)) {
                fprintf(stderr, "orrery replay: --out-pattern needs one %%d (or %%0Nd) and no other conversion (got '%s')\n",
                        pattern);
                return 2;
            }
        } else if (!strcmp(a, "--size")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!tool_parse_size(v, &width, &height)) {
                fprintf(stderr, "orrery replay: --size must be WxH with W and H each within 1..%u (got '%s')\n",
                        TOOL_MAX_SIZE, v);
                return 2;
            }
        } else if (!strcmp(a, "--views")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_VIEWS, &views)) return 2;
        } else if (!strcmp(a, "--strategy")) {
            if (!tool_opt_strategy("replay", argc, argv, &i, &strategy)) return 2;
        } else if (!strcmp(a, "--order")) {
            if (!tool_opt_order("replay", argc, argv, &i, &order)) return 2;
        } else if (!strcmp(a, "--info")) {
            info = true;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--bench")) {
            bench = true;
        } else if (!strcmp(a, "--validation")) {
            validation = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = true;
        } else if (a[0] != '-' && !path) {
            path = a;
        } else if (a[0] != '-') {
            return tool_usage_error("replay", "unexpected argument '%s' (one REC: '%s')", a, path);
        } else {
            return tool_unknown_option("replay", a);
        }
    }
    if (!path) {
        return tool_usage_error("replay", "a recording (REC) is required");
    }
    if (range && !bench && !pattern) {
        fprintf(stderr, "orrery replay: --frames A:B needs --out-pattern (or --bench)\n");
        return 2;
    }
    if (views > width) {
        fprintf(stderr, "orrery replay: --views %u needs a target at least %u pixels wide (--size %ux%u)\n", views, views,
                width, height);
        return 2;
    }
    if (info) {
        orr_recording *rec = open_recording(path);
        if (!rec) return 1;
        print_info(rec, path, json);
        orr_recording_close(rec);
        return 0;
    }
    tool_scene_options o = {.instances = 1};
    tool_player *player = tool_player_open(path, &o);
    if (!player) return 1;
    uint64_t count = tool_player_frames(player);
    if (bench && !range) first = 0, last = count ? count - 1 : 0;
    if (!count || last >= count) {
        fprintf(stderr, "orrery replay: frame %llu asked for, %s holds %llu frames (0..%llu)\n", (unsigned long long)last,
                path, (unsigned long long)count, (unsigned long long)(count ? count - 1 : 0));
        tool_player_close(player);
        return 2;
    }

    int status = 1;
    orr_renderer *renderer = NULL;
    uint8_t *pixels = NULL;
    orr_snapshot snap;
    orr_snapshot_init(&snap, NULL);
    tool_render_log rlog = {0};
    orr_error err = {0};
    orr_assets *assets = tool_player_assets(player);
    orr_renderer_desc rd = {.validation = validation, .validate_synchronization = validation,
                            .logger = {.log = tool_render_log_line, .user = &rlog}};
    if (orr_renderer_create(&rd, &renderer, &err) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", err.message);
        goto done;
    }
    uint32_t msaa = 0; /* the library's default: 4 where the device has 4, else 1 */
    orr_target_id target;
    orr_target_desc td = {.width = width, .height = height, .clear_color = {0.01f, 0.01f, 0.015f, 1.0f},
                          .readback = !bench, .samples = msaa};
    if (orr_renderer_bind_library(renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(renderer, &td, &target) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    orr_view_lighting lighting = tool_default_lighting(&o, 0.0);
    size_t size = (size_t)width * height * 4;
    if (!bench && !(pixels = malloc(size))) {
        fprintf(stderr, "orrery: out of memory\n");
        goto done;
    }
    /* the default cameras frame the recording's first frame, as render frames time 0 */
    if (tool_player_read(player, 0, &snap) != ORR_OK) goto done;
    o.frame_box = tool_scene_box(&snap, assets, o.layers);
    orr_view_id view_ids[TOOL_MAX_VIEWS];
    bool have_views = false, monitor = false;
    double read_cpu = 0, render_cpu = 0, t0 = now_ms();
    for (uint64_t f = first; f <= last; f++) {
        double c0 = cpu_ms();
        if (tool_player_read(player, f, &snap) != ORR_OK) goto done;
        double c1 = cpu_ms();
        /* the views as render makes them for this frame: a camera framing the frame's scene (bench: the
         * first frame's, kept) */
        if (!have_views || !bench) {
            for (uint32_t v = 0; have_views && v < views; v++) orr_renderer_destroy_view(renderer, view_ids[v]);
            uint32_t cam_used = 0;
            for (uint32_t v = 0; v < views; v++) {
                uint32_t x0 = (uint32_t)((uint64_t)width * v / views), x1 = (uint32_t)((uint64_t)width * (v + 1) / views);
                orr_view_desc vd = {.target = target, .slot = v, .viewport = {x0, 0, x1 - x0, height}, .order = order,
                                    .strategy = strategy, .lighting = lighting};
                tool_default_camera(&snap, &o, v, (double)(x1 - x0) / height, &cam_used, &vd);
                if (orr_renderer_create_view(renderer, &vd, &view_ids[v]) != ORR_OK) {
                    fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
                    goto done;
                }
            }
            have_views = true;
            orr_target_id monitor_target;
            orr_view_desc like = {.order = order, .strategy = strategy, .lighting = lighting};
            if (!o.file && !monitor && tool_monitor_target(renderer, &snap, &like, true, msaa, &monitor_target)) {
                fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
                goto done;
            }
            monitor = !o.file;
        }
        orr_render_stats st;
        orr_render_desc desc = {.target = target, .snapshot = &snap};
        if (orr_renderer_render(renderer, &desc, &st) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        read_cpu += c1 - c0;
        render_cpu += cpu_ms() - c1;
        if (bench) continue;
        if (orr_renderer_read_target(renderer, target, pixels, size) != ORR_OK) {
            fprintf(stderr, "orrery: reading the target back failed: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        char name[4096];
        if (pattern) snprintf(name, sizeof name, pattern, (unsigned)f);
        if (tool_output_check("replay", pattern ? "--out-pattern" : "-o", pattern ? name : output, path)) goto done;
        if (orr_gpu_write_png(pattern ? name : output, width, height, pixels, &err) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", err.message);
            goto done;
        }
        if (!quiet) fprintf(stderr, "orrery replay: wrote %s (%ux%u)\n", pattern ? name : output, width, height);
    }
    if (bench) {
        /* a seek: the middle frame into a fresh snapshot (the key frame before it, then its deltas) */
        orr_snapshot fresh;
        orr_snapshot_init(&fresh, NULL);
        double s0 = now_ms();
        orr_result sr = tool_player_read(player, count / 2, &fresh);
        double seek_ms = now_ms() - s0;
        orr_snapshot_fini(&fresh);
        if (sr != ORR_OK) goto done;
        if (orr_renderer_finish(renderer, NULL) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        double n = (double)(last - first + 1), wall = now_ms() - t0;
        if (json)
            printf("{\"name\": \"replay\", \"frames\": %.0f, \"instances\": %u, \"fps\": %.2f, \"read_ms\": %.4f, "
                   "\"render_cpu_ms\": %.4f, \"seek_ms\": %.3f, \"seek_frame\": %llu, \"device\": ",
                   n, snap.instance_count, n * 1e3 / wall, read_cpu / n, render_cpu / n, seek_ms,
                   (unsigned long long)(count / 2));
        else
            printf("replay %s: %.0f frames of %u instances in %.0f ms: %.1f frames/s; CPU a frame: read %.3f ms, render "
                   "%.3f ms; seek to frame %llu of %llu: %.3f ms (%s)\n",
                   path, n, snap.instance_count, wall, n * 1e3 / wall, read_cpu / n, render_cpu / n,
                   (unsigned long long)(count / 2), (unsigned long long)count, seek_ms,
                   orr_renderer_device_name(renderer));
        if (json) {
            tool_json_string(stdout, orr_renderer_device_name(renderer));
            printf("}\n");
        }
    }
    status = 0;
done:
    free(pixels);
    orr_renderer_destroy(renderer);
    orr_snapshot_fini(&snap);
    tool_player_close(player);
    if (rlog.validation_messages) {
        fprintf(stderr, "orrery: %u validation messages\n", rlog.validation_messages);
        status = 1;
    }
    return status;
}
