/* The orrery command-line tool: shared pieces of its commands. */
#ifndef ORRERY_TOOL_H
#define ORRERY_TOOL_H

#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/debug_draw.h>
#include <orrery/pick.h>
#include <orrery/scene.h>
#include <orrery/world.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Commands: argv[0] is the command's own name. Each returns the process exit status. */
int orr_tool_render(int argc, char **argv);
int orr_tool_snapshot(int argc, char **argv);
int orr_tool_serve(int argc, char **argv);
int orr_tool_info(int argc, char **argv);
int orr_tool_validate(int argc, char **argv);
int orr_tool_bench(int argc, char **argv);
int orr_tool_bench_world(int argc, char **argv);
int orr_tool_bench_gltf(int argc, char **argv);
int orr_tool_bench_extract(int argc, char **argv); /* extract and draw */
int orr_tool_bench_frame(int argc, char **argv);   /* the live loop */
int orr_tool_bench_frame_threaded(int argc, char **argv); /* --threaded: with the render thread, beside without */
int orr_tool_view(int argc, char **argv);          /* the live loop in a window */
int orr_tool_record(int argc, char **argv);        /* the live loop to a recording */
int orr_tool_replay(int argc, char **argv);        /* a recording's frames rendered again */

/* The snapshot command's output: one JSON object, or a line and a line per instance. */
void tool_print_snapshot(const orr_snapshot *s, bool json);
/* Whether the file begins as a recording does. */
bool tool_is_recording(const char *path);
/* snapshot REC: frame `frame` of a recording printed (exit status). */
int tool_recording_snapshot(const char *path, uint64_t frame, bool json);

/* Limits of the options, each stated in the commands' help and in the message that refuses a value
 * beyond it (exit 2). */
#define TOOL_MAX_SIZE 16384u         /* --size W and H: the largest 2D image every Vulkan device supports */
#define TOOL_MAX_VIEWS 16u           /* --views: views of one target */
#define TOOL_LODS 4u /* --lods alone: 4 levels beyond the full one, each about a quarter of the last */
#define TOOL_MAX_LOD_PIXELS 1e4 /* --lod-pixels: a level's error on screen at most this many pixels */
#define TOOL_MAX_INSTANCES 1000000u  /* --instances: copies of a file's scene (80 MB of GPU instance data) */
#define TOOL_MAX_ENTITIES (1u << 24) /* --instances x the entities of one copy */
#define TOOL_MAX_TIME 1e7            /* --time: seconds of simulation (6e8 ticks) */
#define TOOL_MAX_OFFSET 1e30         /* --offset: metres on each axis */
#define TOOL_MAX_TICKS 100000000u    /* serve --ticks: about 19 days of 1/60 s ticks */
#define TOOL_MAX_FUR 1e6             /* --fur: metres of fur (the shells stand that far out) */
#define TOOL_MAX_FUR_DENSITY 1e6     /* --fur ,DENSITY: noise repeats per texture coordinate unit */

/* What the scene commands share: which file, how many copies, where, which animation, when, and
 * whether the loader's warnings are printed. */
typedef struct tool_scene_options {
    const char *file;     /* NULL = the built-in orrery */
    uint32_t instances;   /* copies of the file's scene on a grid; default 1 */
    orr_vec3d offset;     /* added to the whole scene (large-coordinate checks) */
    double time;          /* seconds of simulation before the frame */
    int32_t anim;         /* animation index to play; -1 = none */
    bool anim_given;      /* --anim was on the command line: an index must exist in the file */
    bool quiet;           /* --quiet: the loader's warnings are not printed */
    uint32_t belt;        /* --belt N: asteroids of the built-in scene (only with no file) */
    bool belt_given;
    double fur;           /* --fur LENGTH[,DENSITY]: every material shades fur this long (metres), every
                           * renderable wears it; 0 = none */
    double fur_density;   /* noise repeats per texcoord unit (0 = the material default's 32) */
    bool meshlets;        /* --meshlets (or a command's --strategy meshlet): meshes are built with meshlets */
    uint32_t lods;        /* --lods [N]: levels of detail built beyond the full one (N, default TOOL_LODS) */
    double lod_pixels;    /* --lod-pixels PX: the views' orr_view_desc.lod_pixels (default 1 with --lods, else 0) */
    bool frame_camera;    /* render --camera frame: views frame the scene even where the file has cameras */
    bool floor;           /* render --floor: a grey floor under the scene, for its shadows to fall on */
    bool exposure_given;  /* render --exposure X; without it each built-in camera meters the sun
                           * (tool_builtin_meter) */
    /* set by tool_scene_build */
    uint32_t layers;      /* the layers a view shows (the file's default scene) */
    orr_entity root;      /* everything built hangs under it */
    orr_prefab_id prefab; /* the file's prefab (none for the built-in scene) */
    uint32_t clip_count;  /* its animations */
    bool framed;          /* set by the command: tool_scene_build measures frame_box */
    orr_aabbd frame_box;  /* set by tool_scene_build when framed: the visible renderables of `layers` as
                           * they stand at time 0, before --time is simulated: what the default cameras
                           * frame, so that a frame at time T is drawn from where a viewer started at 0
                           * stands (view --frames N gives the bytes of render --time (N-1)/60) */
    struct tool_log *log; /* NULL-able, set by the command: the session's logger, whose messages erase a
                           * progress line first */
} tool_scene_options;

/* Parses one of the shared options at argv[*i] (advancing *i past its value); argv[0] is the
 * command's name, for messages. Returns 1 when it was one, 0 when it is not a shared option, -1 on
 * a missing or bad value (message printed naming the option and its range; exit 2). */
int tool_scene_option(int argc, char **argv, int *i, tool_scene_options *o);
/* The views' lod_pixels: --lod-pixels, else 1 with --lods, else 0. */
double tool_lod_pixels(const tool_scene_options *o);

/* Builds the session's world from the options and runs it up to `time` (ticks = round(time x 60)), so
 * that the next orr_session_run_frame(session, 0) extracts the frame to show. With --fur, every material
 * the scene's renderables draw with shades fur (orr_material_default's fur look with the given length
 * and a noise from orr_assets_add_fur_noise) and every renderable gets a Fur component. Returns 0, or the exit
 * status after printing one line: 2 when an option does not fit the file (--anim past its
 * animations, --instances past TOOL_MAX_ENTITIES), 1 when the file cannot be loaded. */
int tool_scene_build(orr_session *session, tool_scene_options *o);

/* --fur: every material the world's renderables draw with (their own and their overrides) shades fur
 * `length` metres long (orr_material_default's fur look, `density` noise repeats per texcoord unit
 * unless 0, one noise texture from orr_assets_add_fur_noise for all), and every renderable wears it (a
 * Fur component: the material's look). Returns 0, or 1 after printing why. */
int tool_dress_in_fur(orr_world *world, orr_assets *assets, double length, double density);

/* A logger for the session (and the renderer) of a scene command: warnings and errors go to stderr
 * once each, as "warning: FILE: message" with the loader's own name of the file (its real path)
 * replaced by FILE as the user typed it; --quiet drops warnings, never errors. `file` NULL-able. */
typedef struct tool_log {
    const char *file;
    char real[4096]; /* realpath(file), the name the loader gives it; "" when it has none */
    bool quiet;
    uint32_t warnings, errors; /* printed or not */
    struct tool_progress *progress; /* NULL, or a progress line to erase before a message is printed */
} tool_log;
void tool_log_init(tool_log *log, const char *file, bool quiet);
orr_logger tool_log_logger(tool_log *log);
/* The message without the loader's leading "NAME: " when NAME is the file (for printing). */
const char *tool_log_strip(const tool_log *log, const char *message);

/* Points every AnimationPlayer under `root` at `clip`, or removes them (play false). */
void tool_choose_animation(orr_world *world, orr_entity root, bool play, orr_clip_id clip);

/* The world box of the snapshot's visible instances of `layers` whose mesh is in `assets` (empty when
 * none). */
orr_aabbd tool_scene_box(const orr_snapshot *snap, const orr_assets *assets, uint32_t layers);
/* A camera pose (camera to world) framing `box` (a unit box when empty), from one of four directions
 * by `index`: front-right-above, back-left, ... */
void tool_frame_pose(orr_aabbd box, uint32_t index, double aspect, double yfov, orr_mat4d *pose);
/* The lighting of a view as `orrery render` sets it: `exposure` (0 = the default: 1 for a file, a sunny
 * day's EV100 of 15 for the built-in scene, whose sun has its real luminous intensity, with a faint
 * ambient fill there). */
orr_view_lighting tool_default_lighting(const tool_scene_options *o, double exposure);
/* The camera of view `index` as `orrery render` chooses it: the built-in scene's camera entities
 * named cam_* in snapshot order (*cam_used counts those taken); a file's cameras, view k through the
 * snapshot's camera k (wrapping), unless o->frame_camera; else a pose framing o->frame_box. Sets camera,
 * pose, yfov, znear and layer_mask. */
void tool_default_camera(const orr_snapshot *snap, const tool_scene_options *o,
                         uint32_t index, double aspect, uint32_t *cam_used, orr_view_desc *vd);

/* A recording opened to be played (replay, view REC): its resources read into a library of its own, its
 * frames read by position with the recorded ids translated into that library's; no world, no glTF file. */
typedef struct tool_player tool_player;
/* Opens `path` and reads its resources; NULL after printing why (the reader's message: the section and
 * the byte offset). `o` (NULL-able) gets what the recording's metadata says a view needs, as render
 * would have it: its layers, and whether it is the built-in scene (file NULL) or a file's (file =
 * path). */
tool_player *tool_player_open(const char *path, tool_scene_options *o);
void tool_player_close(tool_player *p); /* NULL: no-op */
orr_assets *tool_player_assets(const tool_player *p);
uint64_t tool_player_frames(const tool_player *p);
/* Reads frame `position` into `snap` (initialised), ids translated into the player's library; on a
 * broken frame prints "PATH: message" and returns its error. Reading position + 1 after position
 * applies one delta; any other position seeks from the key frame at or before it. */
orr_result tool_player_read(tool_player *p, uint64_t position, orr_snapshot *snap);

/* The renderer's messages: warnings and errors on stderr (--quiet drops warnings, except validation
 * messages, which fail the command); counts the validation messages, including those raised while the
 * device is torn down (leak reports), which orr_renderer_validation_messages cannot see. */
typedef struct tool_render_log {
    bool quiet;
    uint32_t validation_messages;
    char last_error[sizeof(((orr_error *)0)->message) + 8]; /* the last error line printed */
} tool_render_log;
void tool_render_log_line(void *user, orr_log_level level, const char *message); /* user: tool_render_log */
/* A call's error message, "PREFIX: MESSAGE" on stderr, unless the renderer's logger has just printed
 * it (the renderer logs each error it returns, as "gpu: MESSAGE"): each error is said once. */
void tool_render_error(const tool_render_log *log, const char *prefix, const char *message);

/* A command line a command cannot use (exit 2): one line on stderr, "orrery CMD: MESSAGE; see 'orrery
 * CMD --help'", rather than the whole help. `cmd` is the command as typed after "orrery" ("render",
 * "bench frame"). Returns 2. tool_unknown_option says "unknown option 'ARG'". */
int tool_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tool_unknown_option(const char *cmd, const char *arg);

/* "--opt" with a value that must be one of `names` (NULL-terminated): its index, or -1 after a message. */
int tool_opt_choice(int argc, char **argv, int *i, const char *const *names);
/* "--opt" with a name the library parses (orr_strategy_parse, orr_cull_parse, orr_draw_order_parse): true
 * with *out set, or false after one line "orrery CMD: --opt must be one of ..." listing the library's
 * names. */
bool tool_opt_strategy(const char *cmd, int argc, char **argv, int *i, orr_strategy *out);
bool tool_opt_cull(const char *cmd, int argc, char **argv, int *i, orr_cull *out);
bool tool_opt_order(const char *cmd, int argc, char **argv, int *i, orr_draw_order *out);

/* Before a command that writes a PNG to `output` (named by option `opt`) does its work: 0 when it may,
 * else 1 after one line saying why (exit 1): `output` is `input` (NULL-able, the model read: the same
 * file through any symlink or hard link), a folder, a file the user may not write (no write bit at all
 * counts for root too), or a non-empty regular file that is not a PNG (a model, a buffer, a JPEG
 * texture: nothing a render replaces). orr_gpu_write_png keeps a replaced file's permission bits. */
int tool_output_check(const char *cmd, const char *opt, const char *output, const char *input);
/* tool_output_check for an output of another kind: an existing non-empty file must begin with
 * magic8 (8 bytes) to be replaced; `kind` names it in the message ("a recording"). */
int tool_output_check_kind(const char *cmd, const char *opt, const char *output, const char *input,
                           const char magic8[8], const char *kind);

/* Flushes and closes stdout; when a write to it failed (a full disk, /dev/full, a closed pipe),
 * prints why on stderr and returns 1, otherwise `status`. main calls it after every command. */
int tool_finish_stdout(int status);

/* The built-in scene: an orrery of the sun, planets and major moons at real distances and sizes
 * (metres), an asteroid belt of `rocks` instances of a few rock meshes in rings that orbit at their
 * own (Kepler) speeds, a point light at the sun, camera entities named "cam_*" (the views' defaults)
 * and "closeup_moon" (--camera only), and a system that turns the orbits each tick. */
#define TOOL_BELT_DEFAULT 100000u
orr_result tool_builtin_orrery(orr_session *session, uint32_t rocks, bool meshlets, orr_error *err);

/* The built-in scene's monitor: an entity "monitor" in front of cam_sun, on layer TOOL_MONITOR_LAYER,
 * whose screen samples the texture target of key TOOL_MONITOR_KEY (orr_assets_add_target_texture).
 * tool_monitor_target makes that target (TOOL_MONITOR_WIDTH x TOOL_MONITOR_HEIGHT, `samples`) and its
 * one view: `like`'s settings (strategy, order, lighting, metered for cam_belt when `meter`), through
 * cam_belt, every layer but the monitor's. Returns 0, or 1 with the renderer's last error set. */
#define TOOL_MONITOR_KEY 0x6f7272657279u /* "orrery" */
#define TOOL_MONITOR_LAYER (1u << 1)
/* The built-in scene's sky (a star map on a sphere around everything) is on a layer of its own, which
 * framing leaves out. */
#define TOOL_SKY_LAYER (1u << 2)
/* The lighting of a view of the built-in scene through `camera`, exposed for the sunlight where the
 * camera stands (an incident-light reading of the snapshot's point light: EV100 = log2(lux / 2.5)), at
 * most a sunny day's EV100 of 15, so that Jupiter's camera, 27 times dimmer lit than Earth's, sees its
 * planet as bright; with a faint ambient fill, the same on screen at any exposure. */
void tool_builtin_meter(const orr_snapshot *snap, orr_entity camera, orr_view_lighting *lighting);
#define TOOL_MONITOR_WIDTH 256u
#define TOOL_MONITOR_HEIGHT 144u
int tool_monitor_target(orr_renderer *renderer, const orr_snapshot *snap, const orr_view_desc *like, bool meter,
                        uint32_t samples, orr_target_id *out);

/* Picks (pick.h) as the tool prints them: one line, "pick view V (CAMERA) pixel X,Y: NAME (entity
 * I:G, instance N, mesh M primitive P) at (X, Y, Z) m, D m away" or "...: nothing". The name is the
 * snapshot's for the hit's instance, "(gone)" when the snapshot no longer holds its entity. */
const char *tool_pick_name(const orr_snapshot *snap, const orr_pick_hit *hit);
/* --debug LIST: "bounds,frusta,cascades" (any of them) into orr_debug_flags; 2 after a message naming
 * the bad entry. */
int tool_parse_debug(const char *cmd, const char *list, uint32_t *flags);
void tool_print_pick(FILE *f, const orr_snapshot *snap, uint32_t view, orr_entity camera, uint32_t x, uint32_t y,
                     const orr_pick_result *res, const orr_pick_hit *hit);

/* Strict parsers (no sign, space, suffix, hex or wrap-around); false on anything else. */
bool tool_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v); /* decimal digits only */
bool tool_parse_u32(const char *s, uint32_t *v);                                /* 0..UINT32_MAX */
bool tool_parse_number(const char *s, double min, double max, double *v);     /* [-]d[.d][e[+-]d], finite */
bool tool_parse_double(const char *s, double *v);                             /* any finite */
bool tool_parse_size(const char *s, uint32_t *w, uint32_t *h);                /* WxH, each 1..TOOL_MAX_SIZE */
bool tool_parse_vec3(const char *s, orr_vec3d *v);                            /* X,Y,Z, each within TOOL_MAX_OFFSET */

/* Option values: argv[*i] is the option, argv[0] the command. Each advances *i past the value, or
 * prints "orrery CMD: OPT needs a value" / "... must be an integer within MIN..MAX (got 'V')" and
 * returns NULL / false (the caller exits 2). */
const char *tool_opt_value(int argc, char **argv, int *i);
/* Option values are single: tool_opt_value refuses an option given twice ("-o a -o b": "orrery
 * render: -o is given twice ('a', then 'b'); it takes one value"), -o and --output alike. */

/* "--" ends the options (POSIX): what follows is an operand however it begins. Returns 1 for that
 * "--" (skip it; *ended becomes true), 2 for an operand, 0 for an option. */
int tool_arg_kind(const char *arg, bool *ended);
bool tool_opt_u32(int argc, char **argv, int *i, uint32_t min, uint32_t max, uint32_t *v);
bool tool_opt_number(int argc, char **argv, int *i, double min, double max, double *v);

/* Progress of long work (loading a large file, building many instances, long serve and bench runs):
 * one line on stderr, rewritten in place ("\r... \033[K"), only when stderr is a terminal; nothing at
 * all otherwise, so logs and pipes see none of it. Work that ends within TOOL_PROGRESS_DELAY_MS shows
 * nothing either; after that the line is redrawn at most ten times a second, and _end erases it, so
 * what the command prints afterwards starts on a clean line. */
#define TOOL_PROGRESS_DELAY_MS 300.0
typedef struct tool_progress {
    bool on;    /* stderr is a terminal */
    bool shown; /* a line is on the screen */
    double started_ms, last_ms;
    const char *what; /* "serve", "loading FILE", ... */
} tool_progress;
void tool_progress_begin(tool_progress *p, const char *what);
/* "WHAT: STEP DONE of TOTAL (P%)"; total 0 = unknown ("WHAT: STEP DONE", or "WHAT: STEP" when done is 0). */
void tool_progress_update(tool_progress *p, const char *step, uint64_t done, uint64_t total);
void tool_progress_end(tool_progress *p);
/* Seconds on the monotonic clock (for rates the commands report). */
double tool_now_s(void);

/* Fills err (NULL-able) with a formatted message and returns code. */
/* The benches' baseline arrays, on the memory the library's large tables get (orr_allocator_default),
 * so that a baseline and the library pay the same for scattered access. */
void *tool_flat_alloc(size_t size);
void tool_flat_free(void *p, size_t size);

/* The benches' own threads, for the threaded versions of their baselines (bench_pool.c): kept between
 * runs like orr_workers, so that a baseline pays what the library pays to share a loop out. job(ctx, i)
 * runs for every i in [0, count) on the `threads` threads (the caller's among them); returns when all
 * are done. NULL from create: out of memory or no thread could start. */
typedef struct tool_pool tool_pool;
tool_pool *tool_pool_create(uint32_t threads);
void tool_pool_run(tool_pool *pool, uint32_t count, void (*job)(void *ctx, uint32_t i), void *ctx);
void tool_pool_destroy(tool_pool *pool); /* NULL: no-op */

orr_result tool_fail(orr_error *err, orr_result code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* JSON output helpers: a string with escapes (quotes, backslashes and control characters escaped,
 * each byte that is not part of well-formed UTF-8 written as U+FFFD), so the output is valid JSON
 * whatever a file names; and a double that reads back exactly (null when not finite). */
void tool_json_string(FILE *f, const char *s);
void tool_json_double(FILE *f, double v);
void tool_json_float(FILE *f, float v); /* the shortest form that reads back as the same binary32 */
void tool_json_vec3(FILE *f, orr_vec3d v);
void tool_json_mat4(FILE *f, const orr_mat4d *m);
void tool_json_affine(FILE *f, const orr_affine3d *a); /* as the 4x4 it stands for (16 numbers) */

#endif
