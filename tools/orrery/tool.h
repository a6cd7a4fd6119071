/* The orrery command-line tool: shared pieces of its commands. */
#ifndef ORRERY_TOOL_H
#define ORRERY_TOOL_H

#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/scene.h>
#include <orrery/world.h>
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
int orr_tool_bench_frame(int argc, char **argv); /* extract and draw */

/* What the scene commands share: which file, how many copies, where, which animation, when. */
typedef struct tool_scene_options {
    const char *file;     /* NULL = the built-in orrery */
    uint32_t instances;   /* copies of the file's scene on a grid; default 1 */
    orr_vec3d offset;     /* added to the whole scene (large-coordinate checks) */
    double time;          /* seconds of simulation before the frame */
    int anim;             /* animation index to play; -1 = none */
    uint32_t layers;      /* set by tool_scene_build: the layers a view shows (the file's default scene) */
} tool_scene_options;

/* Parses one of the shared options at argv[*i] (advancing *i past its value). Returns 1 when it was one,
 * 0 when it is not a shared option, -1 on a bad value (message printed). */
int tool_scene_option(int argc, char **argv, int *i, tool_scene_options *o);

/* Builds the session's world from the options and runs it up to `time` (ticks = round(time x 60)), so
 * that the next orr_session_run_frame(session, 0) extracts the frame to show. Prints one line and
 * returns false on failure. */
bool tool_scene_build(orr_session *session, tool_scene_options *o);

/* The built-in scene: an orrery of the sun, planets and moons at real distances (metres), an asteroid
 * belt of many instances of one rock, a point light at the sun, camera entities named "cam_*", and a
 * system that turns the orbits each tick. */
orr_result tool_builtin_orrery(orr_session *session, orr_error *err);

/* Parses "WxH" / "X,Y,Z"; false on bad input. */
bool tool_parse_size(const char *s, uint32_t *w, uint32_t *h);
bool tool_parse_vec3(const char *s, orr_vec3d *v);
bool tool_parse_u32(const char *s, uint32_t *v);
bool tool_parse_double(const char *s, double *v);

/* Fills err (NULL-able) with a formatted message and returns code. */
orr_result tool_fail(orr_error *err, orr_result code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* JSON output helpers: a string with escapes, and a double that reads back exactly. */
void tool_json_string(FILE *f, const char *s);
void tool_json_double(FILE *f, double v);
void tool_json_vec3(FILE *f, orr_vec3d v);
void tool_json_mat4(FILE *f, const orr_mat4d *m);

#endif
