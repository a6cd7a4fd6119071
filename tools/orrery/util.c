/* Helpers shared by the commands: option parsing, JSON output, error messages. */
#include "tool.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- parsing ----------------------------------------------------------------------------- */

/* Every number on the command line is read by these: strict decimal, checked digit by digit, so that a
 * value never wraps ("4294967297" is not 1) and nothing is skipped silently (a sign, a space, a
 * suffix, hex). */

bool tool_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
    if (!s || !*s) return false;
    uint64_t x = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10) return false;
        x = x * 10 + d;
    }
    if (x < min || x > max) return false;
    *v = x;
    return true;
}

bool tool_parse_u32(const char *s, uint32_t *v)
{
    uint64_t x;
    if (!tool_parse_uint(s, 0, UINT32_MAX, &x)) return false;
    *v = (uint32_t)x;
    return true;
}

/* [-]digits[.digits][(e|E)[+|-]digits], or [-].digits[...]: what strtod reads, minus its leniencies. */
static bool decimal_syntax(const char *s)
{
    const char *p = s;
    if (*p == '-') p++;
    size_t digits = 0;
    while (*p >= '0' && *p <= '9') p++, digits++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++, digits++;
    }
    if (!digits) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (*p < '0' || *p > '9') return false;
        while (*p >= '0' && *p <= '9') p++;
    }
    return *p == 0;
}

bool tool_parse_number(const char *s, double min, double max, double *v)
{
    if (!s || !decimal_syntax(s)) return false;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (*end || !isfinite(x) || x < min || x > max) return false;
    if (errno == ERANGE && x != 0.0) return false; /* overflow; an underflow to 0 is a plain 0 */
    *v = x;
    return true;
}

bool tool_parse_double(const char *s, double *v) { return tool_parse_number(s, -DBL_MAX, DBL_MAX, v); }

bool tool_parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    if (!x || x == s || (size_t)(x - s) > 20) return false;
    char first[24];
    memcpy(first, s, (size_t)(x - s));
    first[x - s] = 0;
    uint64_t a, b;
    if (!tool_parse_uint(first, 1, TOOL_MAX_SIZE, &a) || !tool_parse_uint(x + 1, 1, TOOL_MAX_SIZE, &b)) return false;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return true;
}

bool tool_parse_vec3(const char *s, orr_vec3d *v)
{
    char part[3][64];
    const char *p = s;
    for (int k = 0; k < 3; k++) {
        const char *end = k < 2 ? strchr(p, ',') : p + strlen(p);
        if (!end || (size_t)(end - p) >= sizeof part[k]) return false;
        memcpy(part[k], p, (size_t)(end - p));
        part[k][end - p] = 0;
        p = end + (k < 2);
    }
    double c[3];
    for (int k = 0; k < 3; k++)
        if (!tool_parse_number(part[k], -TOOL_MAX_OFFSET, TOOL_MAX_OFFSET, &c[k])) return false;
    *v = (orr_vec3d){c[0], c[1], c[2]};
    return true;
}

/* ---- options ----------------------------------------------------------------------------- */

/* The long name of an option that has a short one, so that "-o a --output b" is a repeat too. */
static const char *long_name(const char *opt) { return !strcmp(opt, "-o") ? "--output" : opt; }

const char *tool_opt_value(int argc, char **argv, int *i)
{
    const char *cmd = argv[0], *opt = argv[*i];
    if (*i + 1 >= argc || !argv[*i + 1][0]) {
        fprintf(stderr, "orrery %s: %s needs a value\n", cmd, opt);
        return NULL;
    }
    /* An option of one value given twice is refused, not overwritten by the second: the options
     * before this one were parsed already, so an earlier occurrence is a repeat (a value spelled
     * like this option, "--camera -o", would read as one: no such value is meaningful). */
    for (int j = 1; j < *i; j++) {
        if (!strcmp(argv[j], "--")) break;
        if (!strcmp(long_name(argv[j]), long_name(opt)) && (j == 1 || strcmp(argv[j - 1], argv[j]))) {
            fprintf(stderr, "orrery %s: %s is given twice ('%s', then '%s'); it takes one value\n", cmd, opt,
                    j + 1 < argc ? argv[j + 1] : "", argv[*i + 1]);
            return NULL;
        }
    }
    return argv[++*i];
}

int tool_arg_kind(const char *arg, bool *ended)
{
    if (*ended) return 2;
    if (!strcmp(arg, "--")) {
        *ended = true;
        return 1;
    }
    return arg[0] == '-' && arg[1] ? 0 : 2;
}

bool tool_opt_u32(int argc, char **argv, int *i, uint32_t min, uint32_t max, uint32_t *v)
{
    const char *opt = argv[*i], *val = tool_opt_value(argc, argv, i);
    if (!val) return false;
    uint64_t x;
    if (!tool_parse_uint(val, min, max, &x)) {
        fprintf(stderr, "orrery %s: %s must be an integer within %u..%u (got '%s')\n", argv[0], opt, min, max, val);
        return false;
    }
    *v = (uint32_t)x;
    return true;
}

bool tool_opt_number(int argc, char **argv, int *i, double min, double max, double *v)
{
    const char *opt = argv[*i], *val = tool_opt_value(argc, argv, i);
    if (!val) return false;
    if (!tool_parse_number(val, min, max, v)) {
        fprintf(stderr, "orrery %s: %s must be a decimal number within %g..%g (got '%s')\n", argv[0], opt, min, max, val);
        return false;
    }
    return true;
}

int tool_scene_option(int argc, char **argv, int *i, tool_scene_options *o)
{
    const char *opt = argv[*i];
    if (!strcmp(opt, "--instances")) {
        return tool_opt_u32(argc, argv, i, 1, TOOL_MAX_INSTANCES, &o->instances) ? 1 : -1;
    } else if (!strcmp(opt, "--time")) {
        return tool_opt_number(argc, argv, i, 0, TOOL_MAX_TIME, &o->time) ? 1 : -1;
    } else if (!strcmp(opt, "--offset")) {
        const char *val = tool_opt_value(argc, argv, i);
        if (!val) return -1;
        if (!tool_parse_vec3(val, &o->offset)) {
            fprintf(stderr, "orrery %s: --offset must be X,Y,Z, three decimal numbers within %g..%g metres (got '%s')\n",
                    argv[0], -TOOL_MAX_OFFSET, TOOL_MAX_OFFSET, val);
            return -1;
        }
        return 1;
    } else if (!strcmp(opt, "--anim")) {
        const char *val = tool_opt_value(argc, argv, i);
        if (!val) return -1;
        uint64_t n;
        if (!strcmp(val, "none")) {
            o->anim = -1;
        } else if (tool_parse_uint(val, 0, INT32_MAX, &n)) {
            o->anim = (int32_t)n;
        } else {
            fprintf(stderr, "orrery %s: --anim must be 'none' or an animation index (got '%s')\n", argv[0], val);
            return -1;
        }
        o->anim_given = true;
        return 1;
    } else if (!strcmp(opt, "--fur")) {
        const char *val = tool_opt_value(argc, argv, i);
        if (!val) return -1;
        char length[64];
        const char *comma = strchr(val, ',');
        size_t n = comma ? (size_t)(comma - val) : strlen(val);
        bool ok = n < sizeof length;
        if (ok) {
            memcpy(length, val, n);
            length[n] = '\0';
            ok = tool_parse_number(length, 0, TOOL_MAX_FUR, &o->fur) && o->fur > 0;
        }
        o->fur_density = 0;
        if (ok && comma) ok = tool_parse_number(comma + 1, 0, TOOL_MAX_FUR_DENSITY, &o->fur_density) && o->fur_density > 0;
        if (!ok) {
            fprintf(stderr,
                    "orrery %s: --fur must be LENGTH[,DENSITY]: metres above 0 and at most %g, noise repeats per texture "
                    "coordinate unit above 0 and at most %g (got '%s')\n",
                    argv[0], TOOL_MAX_FUR, TOOL_MAX_FUR_DENSITY, val);
            return -1;
        }
        return 1;
    } else if (!strcmp(opt, "--belt")) {
        o->belt_given = true;
        return tool_opt_u32(argc, argv, i, 0, TOOL_MAX_INSTANCES, &o->belt) ? 1 : -1;
    } else if (!strcmp(opt, "--quiet") || !strcmp(opt, "-q")) {
        o->quiet = true;
        return 1;
    } else if (!strcmp(opt, "--meshlets")) {
        o->meshlets = true;
        return 1;
    } else if ((!strcmp(opt, "--lod-pixels") || !strcmp(opt, "--lods")) && strcmp(argv[0], "render") &&
               strcmp(argv[0], "view")) {
        return 0; /* levels of detail are drawn: render and view only */
    } else if (!strcmp(opt, "--lod-pixels")) {
        const char *val = tool_opt_value(argc, argv, i);
        if (!val) return -1;
        if (!tool_parse_number(val, 0, TOOL_MAX_LOD_PIXELS, &o->lod_pixels)) {
            fprintf(stderr, "orrery %s: --lod-pixels must be a number of pixels within 0..%g (got '%s')\n", argv[0],
                    TOOL_MAX_LOD_PIXELS, val);
            return -1;
        }
        return 1;
    } else if (!strcmp(opt, "--lods")) { /* --lods, or --lods N */
        o->lods = TOOL_LODS;
        if (*i + 1 < argc && argv[*i + 1][0] >= '0' && argv[*i + 1][0] <= '9')
            return tool_opt_u32(argc, argv, i, 1, ORR_MESH_MAX_LODS - 1, &o->lods) ? 1 : -1;
        return 1;
    }
    return 0;
}

int tool_usage_error(const char *cmd, const char *fmt, ...)
{
    fprintf(stderr, "orrery %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see 'orrery %s --help'\n", cmd);
    return 2;
}

int tool_unknown_option(const char *cmd, const char *arg) { return tool_usage_error(cmd, "unknown option '%s'", arg); }

/* ---- messages --------------------------------------------------------------------------- */

void tool_log_init(tool_log *log, const char *file, bool quiet)
{
    memset(log, 0, sizeof *log);
    log->file = file;
    log->quiet = quiet;
    if (file && !realpath(file, log->real)) log->real[0] = 0;
}

/* "NAME: rest" -> "rest" when NAME is the file as typed or its real path. */
const char *tool_log_strip(const tool_log *log, const char *message)
{
    const char *names[2] = {log->file, log->real};
    for (int k = 0; k < 2; k++) {
        size_t n = names[k] ? strlen(names[k]) : 0;
        if (n && !strncmp(message, names[k], n) && message[n] == ':' && message[n + 1] == ' ') return message + n + 2;
    }
    return message;
}

static void tool_log_fn(void *user, orr_log_level level, const char *message)
{
    tool_log *log = user;
    if (level < ORR_LOG_WARNING) return;
    if (level == ORR_LOG_WARNING) log->warnings++;
    else log->errors++;
    if (level == ORR_LOG_WARNING && log->quiet) return;
    if (log->progress) tool_progress_end(log->progress); /* the message on a line of its own; the next update redraws */
    const char *rest = tool_log_strip(log, message);
    const char *kind = level >= ORR_LOG_ERROR ? "error" : "warning";
    if (rest != message) fprintf(stderr, "%s: %s: %s\n", kind, log->file, rest);
    else fprintf(stderr, "%s: %s\n", kind, message);
}

orr_logger tool_log_logger(tool_log *log) { return (orr_logger){.log = tool_log_fn, .user = log}; }

int tool_finish_stdout(int status)
{
    /* fflush reports a failure of the last buffered write, ferror one before it, fclose one the
     * file system reports only at close */
    bool failed = fflush(stdout) != 0;
    int e = failed ? errno : 0;
    failed |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !failed) failed = true, e = errno;
    if (!failed) return status;
    fprintf(stderr, "orrery: writing the output failed%s%s\n", e ? ": " : "", e ? strerror(e) : "");
    return status ? status : 1;
}

/* ---- outputs ----------------------------------------------------------------------------- */

int tool_output_check(const char *cmd, const char *opt, const char *output, const char *input)
{
    return tool_output_check_kind(cmd, opt, output, input, "\x89PNG\r\n\x1a\n", "a PNG image");
}

int tool_output_check_kind(const char *cmd, const char *opt, const char *output, const char *input,
                           const char magic8[8], const char *kind)
{
    struct stat out_st, in_st;
    if (stat(output, &out_st) != 0) return 0; /* nothing there yet (or a dangling link): nothing to lose */
    if (S_ISDIR(out_st.st_mode)) {
        fprintf(stderr, "orrery %s: %s %s is a folder\n", cmd, opt, output);
        return 1;
    }
    if (input && stat(input, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fprintf(stderr, "orrery %s: %s %s is the input file %s (the same file): refusing to replace it\n", cmd, opt,
                output, input);
        return 1;
    }
    if (!S_ISREG(out_st.st_mode)) return 0; /* a device or a pipe is written in place */
    if (access(output, W_OK) != 0 || (geteuid() == 0 && !(out_st.st_mode & 0222))) {
        fprintf(stderr, "orrery %s: %s %s is read-only (mode %04o): refusing to replace it\n", cmd, opt, output,
                (unsigned)(out_st.st_mode & 07777));
        return 1;
    }
    if (out_st.st_size == 0) return 0;
    unsigned char magic[8] = {0};
    FILE *f = fopen(output, "rb");
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    if (got != sizeof magic || memcmp(magic, magic8, sizeof magic) != 0) {
        fprintf(stderr, "orrery %s: %s %s exists and is not %s: refusing to replace it (remove it first, "
                        "or name another file)\n", cmd, opt, output, kind);
        return 1;
    }
    return 0;
}

/* ---- JSON -------------------------------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at p (1..4), or 0 when it is not one: a stray
 * continuation byte, a truncated sequence, an overlong form, a surrogate, or past U+10FFFF. */
static size_t utf8_sequence(const unsigned char *p)
{
    if (p[0] < 0x80) return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0; /* the NUL that ends the string stops here too */
    if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0; /* overlong, surrogate */
    if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0; /* overlong, > U+10FFFF */
    return n;
}

void tool_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_sequence(p);
        if (!n) { /* not UTF-8: the replacement character, one per byte */
            fputs("\\ufffd", f);
            p++;
        } else if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\u%04x", *p++);
        } else {
            fwrite(p, 1, n, f);
            p += n;
        }
    }
    fputc('"', f);
}

void tool_json_float(FILE *f, float v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    if (v == 0.0f) v = 0.0f; /* no "-0" */
    /* the shortest form that reads back as the same float */
    char buf[32];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

void tool_json_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    if (v == 0.0) v = 0.0; /* no "-0" */
    /* the shortest form that reads back as the same double */
    char buf[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

void tool_json_vec3(FILE *f, orr_vec3d v)
{
    fputc('[', f);
    tool_json_double(f, v.x);
    fputc(',', f);
    tool_json_double(f, v.y);
    fputc(',', f);
    tool_json_double(f, v.z);
    fputc(']', f);
}

void tool_json_mat4(FILE *f, const orr_mat4d *m)
{
    fputc('[', f);
    for (int i = 0; i < 16; i++) {
        if (i) fputc(',', f);
        tool_json_double(f, m->m[i]);
    }
    fputc(']', f);
}

void tool_json_affine(FILE *f, const orr_affine3d *a)
{
    orr_mat4d m;
    orr_affine3d_to_mat4d(a, &m);
    tool_json_mat4(f, &m);
}

orr_result tool_fail(orr_error *err, orr_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

/* ---- progress ---------------------------------------------------------------------------- */

static double progress_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double tool_now_s(void) { return progress_now_ms() * 1e-3; }

void tool_progress_begin(tool_progress *p, const char *what)
{
    *p = (tool_progress){.on = isatty(STDERR_FILENO) == 1, .what = what};
    p->started_ms = p->last_ms = p->on ? progress_now_ms() : 0.0;
}

void tool_progress_update(tool_progress *p, const char *step, uint64_t done, uint64_t total)
{
    if (!p->on) return;
    double now = progress_now_ms();
    /* nothing for work that ends quickly; then at most ten lines a second */
    if (now - p->started_ms < TOOL_PROGRESS_DELAY_MS || (p->shown && now - p->last_ms < 100.0)) return;
    p->last_ms = now;
    char line[160];
    int n;
    if (total)
        n = snprintf(line, sizeof line, "%s: %s %llu of %llu (%.0f%%)", p->what, step ? step : "",
                     (unsigned long long)done, (unsigned long long)total, 100.0 * (double)done / (double)total);
    else if (done)
        n = snprintf(line, sizeof line, "%s: %s %llu", p->what, step ? step : "", (unsigned long long)done);
    else
        n = snprintf(line, sizeof line, "%s: %s", p->what, step ? step : "");
    if (n < 0) return;
    /* one line, rewritten in place: carriage return, the text, the rest of the old line erased */
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->shown = true;
}

void tool_progress_end(tool_progress *p)
{
    if (p->on && p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
}

void *tool_flat_alloc(size_t size)
{
    orr_allocator a = orr_allocator_default();
    return a.realloc(a.user, NULL, 0, size);
}

void tool_flat_free(void *p, size_t size)
{
    orr_allocator a = orr_allocator_default();
    a.realloc(a.user, p, size, 0);
}

double tool_lod_pixels(const tool_scene_options *o)
{
    return o->lod_pixels > 0 ? o->lod_pixels : o->lods ? 1.0 : 0.0;
}
