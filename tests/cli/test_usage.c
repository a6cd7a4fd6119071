/* The tool's usage as a newcomer meets it: `--version`, a bad option answered with one line and a
 * pointer to --help (not the whole help), every option a command's parser accepts listed in that
 * command's --help; and what each command reports when it is done: render names the file it wrote,
 * validate counts the files, serve gives its ticks per second, view without a display points to
 * --offscreen. Which options a parser accepts is asked of the parser itself: each option string
 * in the tool's sources is given to each command, followed by two options no command has, so that no
 * command does any work (a flag stops at the first, an option with a value takes the first and stops at
 * the second); the parser names the option it does not know. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int orrt_cli_usage(void);

static char out[1 << 16];

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s", orrt_tool(), args);
    return orrt_run(cmd, out, sizeof out);
}

/* Every command, as typed after "orrery". */
static const char *const commands[] = {"render", "view", "snapshot", "info", "validate", "serve", "record", "replay",
                                       "bench world", "bench gltf", "bench extract", "bench draw", "bench frame"};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

/* The project version from CMakeLists.txt's project(orrery VERSION X.Y.Z ...). */
static void project_version(char *buf, size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/CMakeLists.txt", orrt_source_dir());
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot read %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *p = strstr(text, "project(orrery VERSION ");
    if (!p) fail_msg("%s has no project(orrery VERSION ...)", path);
    p += strlen("project(orrery VERSION ");
    size_t len = strspn(p, "0123456789.");
    if (!len || len >= cap) fail_msg("%s: no version number after project(orrery VERSION", path);
    memcpy(buf, p, len);
    buf[len] = 0;
}

static void test_version(void **state)
{
    (void)state;
    char version[64], want[128];
    project_version(version, sizeof version);
    snprintf(want, sizeof want, "orrery %s\n", version);
    const char *spellings[] = {"--version", "-V"};
    for (size_t i = 0; i < 2; i++) {
        if (run(spellings[i]) != 0 || strcmp(out, want) != 0)
            fail_msg("orrery %s printed '%s', want '%s'", spellings[i], out, want);
    }
    assert_int_equal(run("--help"), 0);
    assert_non_null(strstr(out, "--version"));
}

/* The number of lines in s. */
static unsigned lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void test_bad_option_is_one_line(void **state)
{
    (void)state;
    for (size_t c = 0; c < COMMAND_COUNT; c++) {
        char args[256], want[256], pointer[256];
        snprintf(args, sizeof args, "%s --frobnicate 2>&1 >/dev/null", commands[c]);
        int status = run(args);
        if (!strcmp(commands[c], "view") && strstr(out, "without a window system")) continue;
        snprintf(want, sizeof want, "orrery %s: unknown option '--frobnicate'", commands[c]);
        snprintf(pointer, sizeof pointer, "'orrery %s --help'", commands[c]);
        if (status != 2 || lines(out) != 1 || strncmp(out, want, strlen(want)) != 0 || !strstr(out, pointer))
            fail_msg("orrery %s --frobnicate: exit %d, want 2 and one line '%s ...%s', got: %s", commands[c], status,
                     want, pointer, out);
    }
    /* the same at the top level and for a command that does not exist */
    assert_int_equal(run("--frobnicate 2>&1"), 2);
    assert_int_equal(lines(out), 1);
    assert_non_null(strstr(out, "unknown option '--frobnicate'"));
    assert_non_null(strstr(out, "'orrery --help'"));
    assert_int_equal(run("frobnicate 2>&1"), 2);
    assert_int_equal(lines(out), 1);
    assert_non_null(strstr(out, "unknown command 'frobnicate'"));
    /* a missing operand too */
    const char *missing[] = {"info", "validate", "serve", "replay", "bench gltf"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "%s 2>&1", missing[i]);
        int status = run(args);
        if (status != 2 || lines(out) != 1 || !strstr(out, "--help'"))
            fail_msg("orrery %s: exit %d, want 2 and one line pointing to --help, got: %s", missing[i], status, out);
    }
}

/* The option strings of the tool's sources: every C string literal that is one ("-o", "--size"). */
static unsigned source_options(char (*opts)[40], unsigned cap)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tools/orrery", orrt_source_dir());
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot list %s", dir);
    unsigned n = 0;
    static char text[1 << 20];
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) fail_msg("cannot read %s", path);
        size_t got = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[got] = 0;
        for (const char *p = text; (p = strstr(p, "\"-")); p++) {
            size_t k = 1 + strspn(p + 1, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
            if (p[k] != '"' || k < 3 || k - 1 >= sizeof opts[0] || !strcmp(p, "\"--\"")) continue;
            if (k == 3 && p[1] == '-') continue; /* "--" */
            char opt[40];
            memcpy(opt, p + 1, k - 1);
            opt[k - 1] = 0;
            bool seen = false;
            for (unsigned i = 0; i < n && !seen; i++) seen = !strcmp(opts[i], opt);
            if (!seen && n < cap) snprintf(opts[n++], sizeof opts[0], "%s", opt);
        }
    }
    closedir(d);
    return n;
}

/* Whether `text` holds `opt` as a word of its own ("--mesh" is not in "--meshlets"). */
static bool has_option(const char *text, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = text; (p = strstr(p, opt)); p++) {
        char before = p == text ? ' ' : p[-1], after = p[n];
        bool starts = strchr(" [(,|/\n", before) != NULL;
        bool ends = !(after == '-' || (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
                      (after >= '0' && after <= '9'));
        if (starts && ends) return true;
    }
    return false;
}

/* The synopsis of `cmd` in `orrery --help`: each line that begins "  CMD " and the lines indented
 * deeper that follow it (a command may have several, as snapshot FILE and snapshot REC), into buf. */
static void synopsis_of(const char *usage, const char *cmd, char *buf, size_t cap)
{
    size_t n = 0, len = strlen(cmd);
    buf[0] = 0;
    bool in = false;
    for (const char *line = usage; *line;) {
        const char *end = strchr(line, '\n');
        size_t l = end ? (size_t)(end - line) + 1 : strlen(line);
        if (line[0] == ' ' && line[1] == ' ' && line[2] != ' ')
            in = !strncmp(line + 2, cmd, len) && (line[2 + len] == ' ' || line[2 + len] == '\n');
        if (in && n + l < cap) {
            memcpy(buf + n, line, l);
            n += l;
            buf[n] = 0;
        }
        line += l;
    }
    if (!n) fail_msg("orrery --help has no synopsis of '%s'", cmd);
}

static void test_help_lists_every_option(void **state)
{
    (void)state;
    static char opts[256][40];
    unsigned count = source_options(opts, 256);
    assert_true(count > 40); /* the sources were read */
    static char help[1 << 16], usage[1 << 16], synopsis[1 << 14];
    assert_int_equal(run("--help"), 0);
    snprintf(usage, sizeof usage, "%s", out);
    unsigned missing = 0, accepted_total = 0;
    for (size_t c = 0; c < COMMAND_COUNT; c++) {
        char args[512];
        synopsis_of(usage, commands[c], synopsis, sizeof synopsis);
        snprintf(args, sizeof args, "%s --help", commands[c]);
        if (run(args) != 0) {
            if (!strcmp(commands[c], "view")) continue; /* built without a window system */
            fail_msg("orrery %s --help: exit status not 0", commands[c]);
        }
        snprintf(help, sizeof help, "%s", out);
        for (unsigned i = 0; i < count; i++) {
            if (!strcmp(opts[i], "--help") || !strcmp(opts[i], "-h")) continue; /* 'orrery --help' says it */
            snprintf(args, sizeof args, "%s %.39s --zz-no-such-option --zz-no-such-option 2>&1", commands[c], opts[i]);
            int status = run(args);
            char unknown[96];
            snprintf(unknown, sizeof unknown, "unknown option '%.39s'", opts[i]);
            if (status != 2) fail_msg("orrery %s: exit %d (want 2, bad usage): %s", args, status, out);
            if (strstr(out, unknown)) continue; /* not this command's */
            accepted_total++;
            if (!has_option(help, opts[i])) {
                print_error("orrery %s accepts %s, but its --help does not list it\n", commands[c], opts[i]);
                missing++;
            }
            if (!has_option(synopsis, opts[i])) {
                print_error("orrery %s accepts %s, but its synopsis in orrery --help does not list it\n", commands[c],
                            opts[i]);
                missing++;
            }
        }
    }
    print_message("%u options accepted over %zu commands\n", accepted_total, COMMAND_COUNT);
    assert_true(accepted_total > 80);
    assert_int_equal(missing, 0);
}

/* ---- what the commands report -------------------------------------------------------------- */

static char err_out[1 << 16];

/* Runs the tool with stdout in `out` and stderr in `err_out`; `env` (NULL-able) goes before it. */
static int run_split_env(const char *env, const char *args)
{
    char errf[4200], cmd[8192];
    snprintf(errf, sizeof errf, "%s/stderr.txt", orrt_scratch("cli_usage"));
    snprintf(cmd, sizeof cmd, "%s%s%s %s 2>'%s'", env ? env : "", env ? " " : "", orrt_tool(), args, errf);
    int status = orrt_run(cmd, out, sizeof out);
    FILE *f = fopen(errf, "rb");
    size_t n = f ? fread(err_out, 1, sizeof err_out - 1, f) : 0;
    err_out[n] = 0;
    if (f) fclose(f);
    remove(errf);
    return status;
}

static int run_split(const char *args) { return run_split_env(NULL, args); }

static const char *scratch_path(const char *name)
{
    static char path[4][4200];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", orrt_scratch("cli_usage"), name);
    return path[k];
}

static void test_render_says_what_it_wrote(void **state)
{
    (void)state;
    char png[4200], args[8192], want[8400];
    snprintf(png, sizeof png, "%s", scratch_path("said.png"));
    snprintf(args, sizeof args, "render --belt 10 --size 32x16 --views 1 -o '%s'", png);
    assert_int_equal(run_split(args), 0);
    snprintf(want, sizeof want, "orrery render: wrote %s (32x16)\n", png);
    if (strcmp(err_out, want) != 0) fail_msg("stderr '%s', want '%s'", err_out, want);
    assert_int_equal(out[0], 0); /* stdout stays for --stats */
    /* --stats: stdout is the JSON alone, the line stays on stderr */
    snprintf(args, sizeof args, "render --belt 10 --size 32x16 --views 1 --stats -o '%s'", png);
    assert_int_equal(run_split(args), 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("render --stats: stdout is not JSON: %s", out);
    cJSON_Delete(j);
    if (strcmp(err_out, want) != 0) fail_msg("--stats: stderr '%s', want '%s'", err_out, want);
    /* --quiet: nothing */
    snprintf(args, sizeof args, "render --belt 10 --size 32x16 --views 1 -q -o '%s'", png);
    assert_int_equal(run_split(args), 0);
    if (err_out[0] || out[0]) fail_msg("--quiet: stdout '%s', stderr '%s'", out, err_out);
    remove(png);
}

/* record and replay -o name what they wrote, as render does: one line each on stderr, -q none. */
static void test_record_and_replay_say_what_they_wrote(void **state)
{
    (void)state;
    char rec[4200], png[4200], pattern[4200], args[13000], want[13000];
    snprintf(rec, sizeof rec, "%s", scratch_path("said.orrec"));
    snprintf(png, sizeof png, "%s", scratch_path("replayed.png"));
    snprintf(pattern, sizeof pattern, "%s", scratch_path("replayed%02d.png"));
    snprintf(args, sizeof args, "record --belt 10 --frames 3 -o '%s'", rec);
    assert_int_equal(run_split(args), 0);
    FILE *f = fopen(rec, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    /* the one line names the file, its frames and its size in bytes (the file's own) */
    snprintf(want, sizeof want, "orrery record: wrote %s (3 frames, %ld bytes: ", rec, size);
    if (strncmp(err_out, want, strlen(want)) != 0 || strchr(err_out, '\n') != err_out + strlen(err_out) - 1)
        fail_msg("record: stderr '%s', want one line starting '%s'", err_out, want);
    assert_int_equal(out[0], 0);
    snprintf(args, sizeof args, "record --belt 10 --frames 3 -q -o '%s'", rec);
    assert_int_equal(run_split(args), 0);
    if (err_out[0] || out[0]) fail_msg("record -q: stdout '%s', stderr '%s'", out, err_out);

    snprintf(args, sizeof args, "replay '%s' --frame 2 --size 32x16 --views 1 -o '%s'", rec, png);
    assert_int_equal(run_split(args), 0);
    snprintf(want, sizeof want, "orrery replay: wrote %s (32x16)\n", png);
    if (strcmp(err_out, want) != 0) fail_msg("replay: stderr '%s', want '%s'", err_out, want);
    assert_int_equal(out[0], 0);
    /* a range: a line per file, in order */
    snprintf(args, sizeof args, "replay '%s' --frames 1:2 --out-pattern '%s' --size 32x16 --views 1", rec, pattern);
    assert_int_equal(run_split(args), 0);
    char one[4200], two[4200];
    snprintf(one, sizeof one, pattern, 1);
    snprintf(two, sizeof two, pattern, 2);
    snprintf(want, sizeof want, "orrery replay: wrote %s (32x16)\norrery replay: wrote %s (32x16)\n", one, two);
    if (strcmp(err_out, want) != 0) fail_msg("replay --frames: stderr '%s', want '%s'", err_out, want);
    snprintf(args, sizeof args, "replay '%s' --frame 2 --size 32x16 --views 1 -q -o '%s'", rec, png);
    assert_int_equal(run_split(args), 0);
    if (err_out[0] || out[0]) fail_msg("replay -q: stdout '%s', stderr '%s'", out, err_out);
    remove(rec);
    remove(png);
    remove(one);
    remove(two);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The last line of s (without its newline), into a static buffer. */
static const char *last_line(const char *s)
{
    static char line[1024];
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n') n--;
    size_t start = n;
    while (start && s[start - 1] != '\n') start--;
    snprintf(line, sizeof line, "%.*s", (int)(n - start), s + start);
    return line;
}

static void test_validate_counts_the_files(void **state)
{
    (void)state;
    char good[4200], bad[4200], args[13000];
    snprintf(good, sizeof good, "%s", scratch_path("empty.gltf"));
    snprintf(bad, sizeof bad, "%s", scratch_path("noversion.gltf"));
    write_file(good, "{\"asset\":{\"version\":\"2.0\"}}");
    write_file(bad, "{\"asset\":{}}");
    snprintf(args, sizeof args, "validate '%s'", good);
    assert_int_equal(run_split(args), 0);
    assert_string_equal(out, "1 file: 1 valid, 0 invalid\n");
    snprintf(args, sizeof args, "validate '%s' '%s' '%s'", good, bad, good);
    assert_int_equal(run_split(args), 1);
    assert_string_equal(last_line(out), "3 files: 2 valid, 1 invalid");
    assert_non_null(strstr(out, bad)); /* the reason comes first */
    assert_true(strstr(out, bad) < strstr(out, "3 files"));
    /* -q: the reasons alone */
    snprintf(args, sizeof args, "validate -q '%s' '%s'", good, bad);
    assert_int_equal(run_split(args), 1);
    assert_null(strstr(out, "files:"));
    assert_non_null(strstr(out, bad));
    remove(good);
    remove(bad);
}

static double number(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsNumber(v)) fail_msg("serve --json has no number '%s'", key);
    return v->valuedouble;
}

static void test_serve_reports_ticks_per_second(void **state)
{
    (void)state;
    assert_int_equal(run_split("serve --belt 100 --ticks 120 --json"), 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("serve --json: %s", out);
    double simulated = number(j, "simulated"), seconds = number(j, "seconds"), rate = number(j, "ticks_per_second");
    assert_true(number(j, "ticks") == 120 && simulated >= 1);
    /* the rate is the ticks run over the time they took (each printed rounded) */
    if (!(seconds > 0) || !(rate > 0) || fabs(rate * seconds - simulated) > 0.05 * simulated + rate * 1e-6)
        fail_msg("ticks_per_second %g over %g s for %g ticks run", rate, seconds, simulated);
    cJSON_Delete(j);
    assert_int_equal(run_split("serve --belt 100 --ticks 120"), 0);
    if (strncmp(out, "served 120 ticks, 0 extractions, ", 33) || !strstr(out, " ticks per second\n"))
        fail_msg("serve: %s", out);
    /* no ticks: no rate to give */
    assert_int_equal(run_split("serve --belt 100 --ticks 0"), 0);
    assert_null(strstr(out, "per second"));
}

static void test_view_without_display_suggests_offscreen(void **state)
{
    (void)state;
    int status = run_split_env("env -u DISPLAY -u WAYLAND_DISPLAY", "view --belt 10");
    if (strstr(err_out, "without a window system")) return; /* no window module: nothing to suggest */
    if (status != 1 || lines(err_out) != 1 || !strstr(err_out, "--offscreen --frames N"))
        fail_msg("view without a display: exit %d, want 1 and one line suggesting --offscreen, got: %s", status, err_out);
    /* which does run there */
    assert_int_equal(run_split_env("env -u DISPLAY -u WAYLAND_DISPLAY", "view --belt 10 --offscreen --frames 1 --size 16x16"), 0);
}

/* info counts the mesh instances the default scene draws: a node with a mesh once, a node with
 * EXT_mesh_gpu_instancing once per instance (before: only "nodes 3", which says nothing of the 5). */
static void test_info_counts_instances(void **state)
{
    (void)state;
    char path[4200], args[8400];
    snprintf(path, sizeof path, "%s", scratch_path("instanced.gltf"));
    /* a triangle; node 0 draws it 3 times (translations 0, 2, 4 on x), node 1 once, node 2 (a child of
     * node 1) once, node 3 has no mesh, node 4 is in no scene */
    write_file(path,
               "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"],\"scene\":0,"
               "\"scenes\":[{\"nodes\":[0,1,3]}],"
               "\"nodes\":[{\"mesh\":0,\"extensions\":{\"EXT_mesh_gpu_instancing\":{\"attributes\":{\"TRANSLATION\":1}}}},"
               "{\"mesh\":0,\"children\":[2]},{\"mesh\":0},{\"name\":\"empty\"},{\"mesh\":0}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
               "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36}],"
               "\"buffers\":[{\"byteLength\":72,\"uri\":\"data:application/octet-stream;base64,"
               "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAACAQAAAAAAAAAAA\"}]}");
    snprintf(args, sizeof args, "info '%s' --json", path);
    assert_int_equal(run_split(args), 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("info --json: %s", out);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes"), *inst = cJSON_GetObjectItemCaseSensitive(j, "instances");
    if (!cJSON_IsNumber(nodes) || nodes->valueint != 5 || !cJSON_IsNumber(inst) || inst->valueint != 5)
        fail_msg("want nodes 5, instances 5 (3 + 1 + 1): %s", out);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "info '%s'", path);
    assert_int_equal(run_split(args), 0);
    if (!strstr(out, "\ninstances   5\n")) fail_msg("info: %s", out);
    /* the renderer draws as many: the snapshot's instances */
    snprintf(args, sizeof args, "snapshot '%s'", path);
    assert_int_equal(run_split(args), 0);
    if (!strstr(out, ": 5 instances,")) fail_msg("snapshot: %s", out);
    remove(path);
}

/* The sample of 1,900 instances on 6 nodes (Blender's GPU instancing export): info says 1900, as
 * the snapshot has. */
static void test_info_counts_sample_instances(void **state)
{
    (void)state;
    char args[8400];
    const char *file = orrt_asset("gltf/Blender_24_gpu_instancing/24_gpu_instancing.gltf");
    snprintf(args, sizeof args, "info '%s' --json -q", file);
    assert_int_equal(run_split(args), 0);
    if (!strstr(out, "\"nodes\": 6,") || !strstr(out, "\"instances\": 1900,")) fail_msg("info: %s", out);
    snprintf(args, sizeof args, "snapshot '%s' -q", file);
    assert_int_equal(run_split(args), 0);
    if (!strstr(out, ": 1900 instances,")) fail_msg("snapshot: %.300s", out);
}

int orrt_cli_usage(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_bad_option_is_one_line),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_render_says_what_it_wrote),
        cmocka_unit_test(test_validate_counts_the_files),
        cmocka_unit_test(test_serve_reports_ticks_per_second),
        cmocka_unit_test(test_view_without_display_suggests_offscreen),
        cmocka_unit_test(test_record_and_replay_say_what_they_wrote),
        cmocka_unit_test(test_info_counts_instances),
        cmocka_unit_test(test_info_counts_sample_instances),
    };
    return cmocka_run_group_tests_name("cli: usage", tests, NULL, NULL);
}
