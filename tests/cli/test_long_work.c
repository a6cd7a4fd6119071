/* The tool on work that takes long or goes far: progress lines on a terminal (and nothing on a pipe),
 * and the warning for positions beyond what the renderer's origin subtraction resolves. */
#include "testutil.h"

#include <poll.h>
#include <stdbool.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int orrt_cli_long_work(void);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs `sh -c "exec TOOL ARGS"` with its stdin, stdout and stderr on a new terminal (a pty), and
 * collects what it writes there until it exits, `until` appears (NULL: never), or `max_s` passes;
 * a command still running then is killed. Returns the bytes collected (NUL-terminated in buf); the
 * exit status in *status (-1 when it was killed). */
static size_t run_on_pty(const char *args, const char *until, double max_s, char *buf, size_t cap, int *status)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec %s %s", orrt_tool(), args);
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid < 0) fail_msg("forkpty: cannot make a terminal for '%s'", cmd);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    size_t n = 0;
    double end = now_s() + max_s;
    bool exited = false;
    while (now_s() < end) {
        struct pollfd pfd = {.fd = master, .events = POLLIN};
        if (poll(&pfd, 1, 100) > 0) {
            ssize_t got = read(master, buf + n, cap - 1 - n);
            if (got <= 0) { /* EIO: the other side closed, the command is done */
                exited = true;
                break;
            }
            n += (size_t)got;
            buf[n] = 0;
            if (until && strstr(buf, until)) break;
            if (n + 1 >= cap) break;
        }
    }
    buf[n] = 0;
    int st = 0;
    pid_t done = waitpid(pid, &st, exited ? 0 : WNOHANG); /* its terminal closed: it has exited, or is about to */
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        *status = -1;
    } else {
        *status = done == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    close(master);
    return n;
}

static char term[1 << 16];

/* Long work on a terminal (a belt of a million rocks): one line rewritten in place,
 * "\rbuilding the asteroid belt: rock N of M (P%)\033[K", growing. (serve's ticks no longer take long:
 * only the last of them runs.) */
static void test_progress_on_a_terminal(void **state)
{
    (void)state;
    int status;
    run_on_pty("serve --belt 1000000 --ticks 1", "of 1000000 (", 60.0, term, sizeof term, &status);
    const char *first = strstr(term, "\rbuilding the asteroid belt: rock ");
    if (!first) fail_msg("no progress line on the terminal within 60 s: '%s'", term);
    assert_non_null(strstr(first, " of 1000000 ("));
    assert_non_null(strstr(first, "\033[K")); /* the rest of the old line erased */
    assert_null(strchr(term, '\n'));          /* one line, never a new one */
}

/* The same on a pipe: nothing at all on stderr, however long it runs. */
static void test_no_progress_on_a_pipe(void **state)
{
    (void)state;
    char cmd[4096], out[4096];
    snprintf(cmd, sizeof cmd, "timeout 2 sh -c 'exec %s serve --belt 1000000 --ticks 1 2>&1 >/dev/null'", orrt_tool());
    orrt_run(cmd, out, sizeof out);
    if (out[0]) fail_msg("serve wrote to a stderr that is not a terminal: '%s'", out);
}

/* A run that ends: the progress line is erased, and what follows starts on a clean line. (A few
 * seconds here: long enough to show progress on most machines, and checked whenever it does.) */
static void test_progress_erased_at_the_end(void **state)
{
    (void)state;
    int status;
    run_on_pty("serve --belt 300000 --ticks 3000 --json", NULL, 300.0, term, sizeof term, &status);
    assert_int_equal(status, 0);
    const char *json = strstr(term, "{\"ticks\": 3000");
    if (!json) fail_msg("no result line: '%s'", term);
    const char *line = strstr(term, "building the asteroid belt: rock");
    if (line) { /* the run was long enough to show progress: erased before the result */
        assert_true(line < json);
        assert_true(json - term >= 4 && !memcmp(json - 4, "\r\033[K", 4));
    }
}

/* A small glTF: one triangle on one node named `name`. */
static const char *tiny_model(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/orrery_long_work_%d.gltf", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
            "\"nodes\":[{\"name\":\"%s\",\"mesh\":0}],"
            "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
            "\"min\":[0,0,0],\"max\":[1,1,0]}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
            "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
            "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}]}",
            name);
    fclose(f);
    return path;
}

/* Building more than 100,000 instances (copies of a file, or the built-in belt's rocks) shows its
 * progress; 100,000 or fewer do not. */
static void test_instances_progress(void **state)
{
    (void)state;
    const char *model = tiny_model("t");
    char args[1024];
    int status;
    snprintf(args, sizeof args, "snapshot %s --instances 1000000 >/dev/null", model);
    run_on_pty(args, "of 1000000 (", 60.0, term, sizeof term, &status);
    if (!strstr(term, "\rbuilding instances: copy ")) fail_msg("no progress for 1000000 copies: '%s'", term);
    snprintf(args, sizeof args, "snapshot %s --instances 100000 >/dev/null", model);
    run_on_pty(args, NULL, 300.0, term, sizeof term, &status);
    assert_int_equal(status, 0);
    if (strstr(term, "building instances")) fail_msg("progress for 100000 copies: '%s'", term);
    /* the built-in scene's belt likewise */
    run_on_pty("snapshot --belt 1000000 >/dev/null", "of 1000000 (", 60.0, term, sizeof term, &status);
    if (!strstr(term, "\rbuilding the asteroid belt: rock ")) fail_msg("no progress for 1000000 rocks: '%s'", term);
    remove(model);
}

/* ---- positions beyond binary64 origin subtraction ------------------------------------------ */

static char out[1 << 16], err_out[1 << 16];

/* Runs the tool with stdout in `out`, stderr in `err_out`; returns the exit status. */
static int run_split(const char *args)
{
    char path[256], cmd[4096];
    snprintf(path, sizeof path, "/tmp/orrery_long_work_err_%d.txt", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s %s 2>%s", orrt_tool(), args, path);
    int status = orrt_run(cmd, out, sizeof out);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(err_out, 1, sizeof err_out - 1, f) : 0;
    err_out[n] = 0;
    if (f) fclose(f);
    remove(path);
    return status;
}

static unsigned count_lines(const char *s, const char *needle)
{
    unsigned n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void test_far_positions_warn_once_per_frame(void **state)
{
    (void)state;
    const char *model = tiny_model("far_thing");
    char args[1024], png[256];
    snprintf(png, sizeof png, "/tmp/orrery_long_work_%d.png", (int)getpid());
    /* 1e16 m: binary64 itself is 2 m coarse there; the image is drawn (exit 0) and the frame warned */
    snprintf(args, sizeof args, "render %s --offset 1e16,0,0 --size 32x32 --views 1 -o %s", model, png);
    assert_int_equal(run_split(args), 0);
    if (count_lines(err_out, "warning: frame 1: ") != 1 || !strstr(err_out, "'far_thing'") ||
        !strstr(err_out, "binary64 grid 1 m"))
        fail_msg("1e16: expected one warning naming far_thing on a 1 m binary64 grid, got '%s'", err_out);
    /* once per frame, however many views see it; the count names every instance */
    snprintf(args, sizeof args, "render %s --offset 1e16,0,0 --size 48x16 --views 3 --instances 4 -o %s", model, png);
    assert_int_equal(run_split(args), 0);
    if (count_lines(err_out, "warning:") != 1 || !strstr(err_out, "4 instances lie beyond"))
        fail_msg("1e16, 3 views, 4 copies: expected one warning counting 4 instances, got '%s'", err_out);
    /* 1e13 m: binary64 resolves a millimetre, the float split does not (6 cm) */
    snprintf(args, sizeof args, "render %s --offset 1e13,0,0 --size 32x32 --views 1 -o %s", model, png);
    assert_int_equal(run_split(args), 0);
    if (count_lines(err_out, "warning: frame 1: ") != 1 || !strstr(err_out, "float split 0.0625 m"))
        fail_msg("1e13: expected one warning for the float split (0.0625 m), got '%s'", err_out);
    /* near enough: nothing to say but what was written */
    const char *fine[] = {"0,0,0", "1e9,-1e9,1e9", "1e11,0,0"};
    char wrote[512];
    snprintf(wrote, sizeof wrote, "orrery render: wrote %s (32x32)\n", png);
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++) {
        snprintf(args, sizeof args, "render %s --offset %s --size 32x32 --views 1 -o %s", model, fine[k], png);
        assert_int_equal(run_split(args), 0);
        if (strcmp(err_out, wrote)) fail_msg("--offset %s: expected no warning, got '%s'", fine[k], err_out);
    }
    /* the built-in orrery (planets at real distances, cameras near them) needs none either */
    snprintf(args, sizeof args, "render --size 64x32 --views 4 -o %s", png);
    assert_int_equal(run_split(args), 0);
    snprintf(wrote, sizeof wrote, "orrery render: wrote %s (64x32)\n", png);
    if (strcmp(err_out, wrote)) fail_msg("built-in scene: expected no warning, got '%s'", err_out);
    /* --quiet drops it */
    snprintf(args, sizeof args, "render %s --offset 1e16,0,0 --size 32x32 --views 1 --quiet -o %s", model, png);
    assert_int_equal(run_split(args), 0);
    if (err_out[0]) fail_msg("--quiet: expected no warning, got '%s'", err_out);
    remove(png);
    remove(model);
}

int orrt_cli_long_work(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_on_a_terminal),
        cmocka_unit_test(test_no_progress_on_a_pipe),
        cmocka_unit_test(test_progress_erased_at_the_end),
        cmocka_unit_test(test_instances_progress),
        cmocka_unit_test(test_far_positions_warn_once_per_frame),
    };
    return cmocka_run_group_tests_name("cli: long work and far positions", tests, NULL, NULL);
}
