/* Helpers shared by the commands: option parsing, JSON output, error messages. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ----------------------------------------------------------------------------- */

bool tool_parse_u32(const char *s, uint32_t *v)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (errno || end == s || *end || x > UINT32_MAX || s[0] == '-') return false;
    *v = (uint32_t)x;
    return true;
}

bool tool_parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x)) return false;
    *v = x;
    return true;
}

bool tool_parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    unsigned a, b;
    char tail;
    if (sscanf(s, "%ux%u%c", &a, &b, &tail) != 2 || !a || !b || a > 16384 || b > 16384) return false;
    *w = a;
    *h = b;
    return true;
}

bool tool_parse_vec3(const char *s, orr_vec3d *v)
{
    char tail;
    if (sscanf(s, "%lf,%lf,%lf%c", &v->x, &v->y, &v->z, &tail) != 3) return false;
    return isfinite(v->x) && isfinite(v->y) && isfinite(v->z);
}

int tool_scene_option(int argc, char **argv, int *i, tool_scene_options *o)
{
    const char *opt = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    bool ok;
    if (!strcmp(opt, "--instances")) ok = val && tool_parse_u32(val, &o->instances) && o->instances >= 1;
    else if (!strcmp(opt, "--offset")) ok = val && tool_parse_vec3(val, &o->offset);
    else if (!strcmp(opt, "--time")) ok = val && tool_parse_double(val, &o->time) && o->time >= 0 && o->time < 1e7;
    else if (!strcmp(opt, "--anim")) {
        uint32_t n = 0;
        ok = val && (!strcmp(val, "none") || (tool_parse_u32(val, &n) && n < 100000));
        if (ok) o->anim = !strcmp(val, "none") ? -1 : (int)n;
    } else return 0;
    if (!ok) {
        fprintf(stderr, "orrery: %s needs a valid value (got '%s')\n", opt, val ? val : "nothing");
        return -1;
    }
    (*i)++;
    return 1;
}

/* ---- JSON -------------------------------------------------------------------------------- */

void tool_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
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
