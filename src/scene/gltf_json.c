/* A glTF file's JSON text read into a cJSON tree, with what cJSON does not check checked first or after
 * (gltf_internal.h, orri_gltf_json_read): strict syntax, the memory the tree will take, NUL in strings,
 * duplicate keys, UTF-8. */
#include "gltf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one parsed value costs in memory: cJSON's node and the allocator's header beside it. Strings
 * cost their bytes, a terminator and a header more. */
#define ORRI_JSON_VALUE_COST (sizeof(cJSON) + 16u)
#define ORRI_JSON_STRING_COST 17u

/* cJSON copies a number into a 64-byte buffer before strtod: a longer one is cut and then fails to
 * parse, so it is refused by name here. */
#define ORRI_JSON_NUMBER_MAX 63u

/* The objects of the root's arrays become the document's structs: what each element costs besides
 * its JSON (an empty node `{}` is 3 bytes of text, ~80 bytes of cJSON and ~300 of orri_gltf_node). */
static const struct {
    const char *key;
    size_t cost;
} element_cost[] = {
    {"accessors", sizeof(orri_gltf_accessor)}, {"animations", sizeof(orri_gltf_animation)},
    {"buffers", sizeof(orri_gltf_buffer)},     {"bufferViews", sizeof(orri_gltf_view)},
    {"cameras", sizeof(orri_gltf_camera)},     {"images", sizeof(orri_gltf_image)},
    {"materials", sizeof(orri_gltf_material)}, {"meshes", sizeof(orri_gltf_mesh)},
    {"nodes", sizeof(orri_gltf_node)},         {"samplers", sizeof(orr_sampler)},
    {"scenes", sizeof(orri_gltf_scene)},       {"skins", sizeof(orri_gltf_skin)},
    {"textures", sizeof(orri_gltf_texture)},
};

/* One level of the scanner's path: an object (the key being read) or an array (the element's index). */
typedef struct jframe {
    const char *key; /* raw key text (escapes as written), NULL before the first key */
    size_t key_n;
    uint64_t index;
    bool array;
    size_t cost; /* an array of the root: what each element costs besides its JSON, 0 = nothing more */
} jframe;

typedef struct jscan {
    const uint8_t *p;
    size_t n, i;
    jframe *frames;
    uint32_t depth;
    uint64_t values, cost;
    bool high_bytes; /* a string holds a byte >= 0x80 (UTF-8 is checked on the tree) */
    bool control;    /* a string holds an unescaped control character (warned about once) */
    const orri_gltf_json_desc *desc;
    orr_error *err;
} jscan;

/* The path of the value being read (`nodes[3].name`), for a message. */
static void scan_path(const jscan *s, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (uint32_t d = 0; d < s->depth && o + 1 < cap; d++) {
        const jframe *f = &s->frames[d];
        int k;
        if (f->array) k = snprintf(out + o, cap - o, "[%llu]", (unsigned long long)f->index);
        else if (f->key) k = snprintf(out + o, cap - o, "%s%.*s", o ? "." : "", (int)(f->key_n < 64 ? f->key_n : 64), f->key);
        else break;
        if (k < 0) break;
        o += (size_t)k < cap - o ? (size_t)k : cap - o - 1;
    }
    if (!out[0]) snprintf(out, cap, "JSON");
}

static bool scan_fail(jscan *s, orr_result code, const char *what)
{
    orri_error(s->err, code, "JSON: %s at byte %zu", what, s->i);
    return false;
}

static void skip_ws(jscan *s)
{
    while (s->i < s->n && (s->p[s->i] == ' ' || s->p[s->i] == '\t' || s->p[s->i] == '\n' || s->p[s->i] == '\r')) s->i++;
}

static int hex4(const uint8_t *p)
{
    int v = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t ch = p[k];
        int h = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A NUL in a string (\u0000, or the raw byte) at byte `at` cuts cJSON's copy there: refused in a URI
 * (nothing may be read past it, as %00 is refused), warned about elsewhere. */
static bool string_nul(jscan *s, bool is_key, size_t at)
{
    char path[160];
    scan_path(s, path, sizeof path);
    const jframe *f = s->depth ? &s->frames[s->depth - 1] : NULL;
    bool uri = !is_key && f && !f->array && f->key_n == 3 && memcmp(f->key, "uri", 3) == 0;
    if (uri) {
        orri_error(s->err, ORR_ERROR_PARSE, "%s: holds \\u0000 (NUL) at byte %zu, which no URI may", path, at);
        return false;
    }
    s->desc->warn(s->desc->user, "%s: %s holds \\u0000 (NUL) at byte %zu; it is cut there", path,
                  is_key ? "a key" : "the string", at);
    return true;
}

/* A string at s->i (the opening quote). */
static bool scan_string(jscan *s, bool is_key)
{
    size_t start = s->i++;
    while (s->i < s->n) {
        uint8_t ch = s->p[s->i];
        if (ch == '"') break;
        if (ch == 0 && !string_nul(s, is_key, s->i)) return false;
        if (ch < 0x20 && ch && !s->control) { /* cJSON reads it as it is; JSON wants it escaped */
            char path[160];
            scan_path(s, path, sizeof path);
            s->desc->warn(s->desc->user, "%s: an unescaped control character (0x%02x) at byte %zu (JSON wants it escaped; "
                          "the first of the file)", path, ch, s->i);
            s->control = true;
        }
        if (ch >= 0x80) s->high_bytes = true;
        if (ch != '\\') {
            s->i++;
            continue;
        }
        if (s->i + 1 >= s->n) {
            s->i = s->n; /* a backslash ends the text */
            break;
        }
        ch = s->p[s->i + 1];
        if (ch != 'u') {
            if (!strchr("\"\\/bfnrt", ch) || !ch) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (an unknown escape)");
            s->i += 2;
            continue;
        }
        int u = s->i + 6 <= s->n ? hex4(s->p + s->i + 2) : -1;
        if (u < 0) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (a \\u escape without 4 hex digits)");
        if (u >= 0xDC00 && u <= 0xDFFF) return scan_fail(s, ORR_ERROR_PARSE, "a lone low surrogate (\\u escape)");
        if (u >= 0xD800 && u <= 0xDBFF) {
            int lo = s->i + 12 <= s->n && s->p[s->i + 6] == '\\' && s->p[s->i + 7] == 'u' ? hex4(s->p + s->i + 8) : -1;
            if (lo < 0xDC00 || lo > 0xDFFF) return scan_fail(s, ORR_ERROR_PARSE, "a high surrogate without its low one (\\u escape)");
            s->i += 6;
        }
        if (u == 0 && !string_nul(s, is_key, s->i)) return false;
        s->i += 6;
    }
    if (s->i >= s->n) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (an unterminated string)");
    s->i++;
    s->cost += (s->i - start) + ORRI_JSON_STRING_COST;
    return true;
}

static bool scan_number(jscan *s)
{
    size_t start = s->i;
    const uint8_t *p = s->p;
    if (s->i < s->n && p[s->i] == '-') s->i++;
    if (s->i < s->n && p[s->i] == '0') s->i++;
    else if (s->i < s->n && p[s->i] >= '1' && p[s->i] <= '9')
        while (s->i < s->n && p[s->i] >= '0' && p[s->i] <= '9') s->i++;
    else return scan_fail(s, ORR_ERROR_PARSE, "syntax error");
    if (s->i < s->n && p[s->i] == '.') {
        size_t d = ++s->i;
        while (s->i < s->n && p[s->i] >= '0' && p[s->i] <= '9') s->i++;
        if (s->i == d) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (no digit after '.')");
    }
    if (s->i < s->n && (p[s->i] == 'e' || p[s->i] == 'E')) {
        s->i++;
        if (s->i < s->n && (p[s->i] == '+' || p[s->i] == '-')) s->i++;
        size_t d = s->i;
        while (s->i < s->n && p[s->i] >= '0' && p[s->i] <= '9') s->i++;
        if (s->i == d) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (no digit in the exponent)");
    }
    if (s->i - start > ORRI_JSON_NUMBER_MAX) {
        s->i = start;
        return scan_fail(s, ORR_ERROR_PARSE, "a number longer than 63 characters");
    }
    return true;
}

static size_t root_array_cost(const jframe *f)
{
    for (size_t k = 0; k < sizeof element_cost / sizeof element_cost[0]; k++)
        if (strlen(element_cost[k].key) == f->key_n && memcmp(element_cost[k].key, f->key, f->key_n) == 0)
            return element_cost[k].cost;
    return 0;
}

/* One value at s->i and everything in it, without recursion (the frames are the stack). */
static bool scan_value(jscan *s)
{
    for (;;) {
        /* a value */
        skip_ws(s);
        if (s->i >= s->n) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (the text ends inside a value)");
        s->values++;
        s->cost += ORRI_JSON_VALUE_COST;
        if (s->depth) {
            const jframe *f = &s->frames[s->depth - 1];
            s->cost += f->array ? f->cost : 0;
        }
        uint8_t ch = s->p[s->i];
        bool opened = false;
        if (ch == '{' || ch == '[') {
            if (s->depth >= CJSON_NESTING_LIMIT) {
                orri_error(s->err, ORR_ERROR_PARSE, "JSON: nesting deeper than %d at byte %zu", CJSON_NESTING_LIMIT, s->i);
                return false;
            }
            jframe *f = &s->frames[s->depth++];
            *f = (jframe){.array = ch == '['};
            if (f->array && s->depth == 2 && !s->frames[0].array) f->cost = root_array_cost(&s->frames[0]);
            s->i++;
            skip_ws(s);
            if (s->i < s->n && s->p[s->i] == (f->array ? ']' : '}')) {
                s->i++;
                s->depth--;
            } else if (f->array) {
                continue; /* its first element */
            } else {
                opened = true; /* its first key */
            }
        } else if (ch == '"') {
            if (!scan_string(s, false)) return false;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (!scan_number(s)) return false;
        } else if (s->n - s->i >= 4 && (memcmp(s->p + s->i, "true", 4) == 0 || memcmp(s->p + s->i, "null", 4) == 0)) {
            s->i += 4;
        } else if (s->n - s->i >= 5 && memcmp(s->p + s->i, "false", 5) == 0) {
            s->i += 5;
        } else {
            return scan_fail(s, ORR_ERROR_PARSE, "syntax error");
        }
        /* after a value (or at an object's first key): close what ends here, find the next value */
        for (;;) {
            if (!s->depth) return true;
            jframe *f = &s->frames[s->depth - 1];
            skip_ws(s);
            if (!opened) {
                if (s->i >= s->n) return scan_fail(s, ORR_ERROR_PARSE, "syntax error (the text ends inside an object or array)");
                uint8_t c = s->p[s->i];
                if (c == (f->array ? ']' : '}')) {
                    s->i++;
                    s->depth--;
                    continue;
                }
                if (c != ',') return scan_fail(s, ORR_ERROR_PARSE, "syntax error");
                s->i++;
                skip_ws(s);
            }
            opened = false;
            if (f->array) {
                f->index++;
                break;
            }
            if (s->i >= s->n || s->p[s->i] != '"') return scan_fail(s, ORR_ERROR_PARSE, "syntax error (a key must be a string)");
            size_t k0 = s->i;
            f->key = NULL; /* the path of a NUL in the key is its object's */
            if (!scan_string(s, true)) return false;
            f->key = (const char *)s->p + k0 + 1;
            f->key_n = s->i - k0 - 2;
            skip_ws(s);
            if (s->i >= s->n || s->p[s->i] != ':') return scan_fail(s, ORR_ERROR_PARSE, "syntax error (no ':' after a key)");
            s->i++;
            break;
        }
    }
}

/* ---- the tree: duplicate keys, UTF-8 ---------------------------------------------------------------
 * tree_walk recurses once per nesting level (at most CJSON_NESTING_LIMIT, as cJSON itself does), with
 * a small frame: its scratch lives in the twalk. */

/* A tree path, kept as the walk descends (frames), formatted only for a message. */
typedef struct tframe {
    const cJSON *item; /* the child being visited */
    uint32_t index;
    bool array;
} tframe;

typedef struct twalk {
    const orri_gltf_json_desc *desc;
    orr_error *err;
    tframe frames[CJSON_NESTING_LIMIT + 1];
    uint32_t depth;
    const char **keys; /* scratch for sorting one object's keys */
    size_t keys_cap;
    bool utf8; /* strings may hold invalid UTF-8 */
    bool failed;
    char path[160]; /* a message's path: here, not in tree_walk's frame, which recurses once per level */
} twalk;

static void tree_path(const twalk *w, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (uint32_t d = 0; d < w->depth && o + 1 < cap; d++) {
        const tframe *f = &w->frames[d];
        int k = f->array ? snprintf(out + o, cap - o, "[%u]", f->index)
                         : snprintf(out + o, cap - o, "%s%.64s", o ? "." : "", f->item->string ? f->item->string : "");
        if (k < 0) break;
        o += (size_t)k < cap - o ? (size_t)k : cap - o - 1;
    }
    if (!out[0]) snprintf(out, cap, "JSON");
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), 0 when invalid (overlong forms,
 * surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!len || len > n) return 0;
    for (size_t k = 1; k < len; k++)
        if ((p[k] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
    if (c == 0xED && p[1] > 0x9F) return 0; /* surrogate */
    if (c == 0xF0 && p[1] < 0x90) return 0; /* overlong */
    if (c == 0xF4 && p[1] > 0x8F) return 0; /* above U+10FFFF */
    return len;
}

/* *s with each byte that starts no valid UTF-8 sequence replaced by U+FFFD (from cJSON's allocator,
 * which cJSON_Delete frees); false when it was valid (nothing done) or on out of memory (*oom). */
static bool utf8_repair(char **s, bool *oom)
{
    const uint8_t *p = (const uint8_t *)*s;
    size_t n = strlen(*s), bad = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(p + i, n - i);
        if (!k) bad++, k = 1;
        i += k;
    }
    if (!bad) return false;
    char *out = cJSON_malloc(n + 2 * bad + 1);
    if (!out) {
        *oom = true;
        return false;
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(p + i, n - i);
        if (k) {
            memcpy(out + o, p + i, k);
            o += k, i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3, i++;
        }
    }
    out[o] = 0;
    cJSON_free(*s);
    *s = out;
    return true;
}

static int key_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool tree_fail_oom(twalk *w)
{
    orri_error(w->err, ORR_ERROR_OUT_OF_MEMORY, "JSON: out of memory while checking its strings");
    w->failed = true;
    return false;
}

/* The key that appears twice among obj's children, or NULL. */
static const char *duplicate_key(twalk *w, const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) n++;
    if (n < 2) return NULL;
    if (n <= 16) {
        for (const cJSON *a = obj->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (strcmp(a->string, b->string) == 0) return b->string;
        return NULL;
    }
    if (n > w->keys_cap) {
        const char **k = orri_gltf_alloc(&w->desc->allocator, n * sizeof *k);
        if (!k) {
            tree_fail_oom(w);
            return NULL;
        }
        orri_gltf_dealloc(&w->desc->allocator, w->keys, w->keys_cap * sizeof *k);
        w->keys = k, w->keys_cap = n;
    }
    size_t i = 0;
    for (const cJSON *c = obj->child; c; c = c->next) w->keys[i++] = c->string;
    qsort(w->keys, n, sizeof *w->keys, key_cmp);
    for (i = 1; i < n; i++)
        if (strcmp(w->keys[i - 1], w->keys[i]) == 0) return w->keys[i];
    return NULL;
}

static bool tree_walk(twalk *w, cJSON *v)
{
    if (w->utf8 && cJSON_IsString(v) && v->valuestring) {
        bool oom = false;
        if (utf8_repair(&v->valuestring, &oom)) {
            tree_path(w, w->path, sizeof w->path);
            w->desc->warn(w->desc->user, "%s: not valid UTF-8; each invalid byte replaced by U+FFFD", w->path);
        }
        if (oom) return tree_fail_oom(w);
    }
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) return true;
    if (cJSON_IsObject(v)) {
        for (cJSON *c = v->child; c && w->utf8; c = c->next) {
            bool oom = false;
            if (!(c->type & cJSON_StringIsConst) && c->string && utf8_repair(&c->string, &oom)) {
                tree_path(w, w->path, sizeof w->path);
                w->desc->warn(w->desc->user, "%s: a key that is not valid UTF-8 ('%.64s'); each invalid byte replaced "
                              "by U+FFFD", w->path, c->string);
            }
            if (oom) return tree_fail_oom(w);
        }
        const char *dup = duplicate_key(w, v);
        if (w->failed) return false;
        if (dup) {
            tree_path(w, w->path, sizeof w->path);
            orri_error(w->err, ORR_ERROR_PARSE, "%s%s%.64s: the key appears more than once (glTF: keys MUST be unique)",
                       w->depth ? w->path : "", w->depth ? "." : "", dup);
            w->failed = true;
            return false;
        }
    }
    uint32_t i = 0;
    for (cJSON *c = v->child; c; c = c->next, i++) {
        w->frames[w->depth++] = (tframe){.item = c, .index = i, .array = cJSON_IsArray(v)};
        bool ok = tree_walk(w, c);
        w->depth--;
        if (!ok) return false;
    }
    return true;
}

/* ---- the whole read ----------------------------------------------------------------------------- */

orr_result orri_gltf_json_read(const orri_gltf_json_desc *desc, cJSON **out, size_t *end, orr_error *err)
{
    *out = NULL;
    *end = 0;
    const orr_allocator *a = &desc->allocator;
    size_t frames_size = (CJSON_NESTING_LIMIT + 1) * sizeof(jframe);
    jframe *frames = orri_gltf_alloc(a, frames_size);
    if (!frames) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "JSON: out of memory");
    jscan s = {.p = desc->text, .n = desc->size, .frames = frames, .desc = desc, .err = err};
    bool ok = scan_value(&s);
    orri_gltf_dealloc(a, frames, frames_size);
    if (!ok) return err->code;
    uint64_t budget = (uint64_t)desc->size * ORRI_GLTF_JSON_AMPLIFICATION;
    if (budget < ORRI_GLTF_JSON_MIN_BUDGET) budget = ORRI_GLTF_JSON_MIN_BUDGET;
    if (s.cost > budget)
        return orri_error(err, ORR_ERROR_CAPACITY,
                          "JSON: its %llu values would take about %llu MiB to read, more than %u times the %zu bytes "
                          "of text (at least %u MiB)",
                          (unsigned long long)s.values, (unsigned long long)(s.cost >> 20),
                          (unsigned)ORRI_GLTF_JSON_AMPLIFICATION, desc->size, (unsigned)(ORRI_GLTF_JSON_MIN_BUDGET >> 20));
    *end = s.i;
    cJSON *root = cJSON_ParseWithLengthOpts((const char *)desc->text, s.i, NULL, false);
    if (!root) /* the text was scanned above as strictly as cJSON reads it: only an allocation can have failed */
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "JSON: out of memory reading %llu values (about %llu MiB)",
                          (unsigned long long)s.values, (unsigned long long)(s.cost >> 20));
    twalk *w = orri_gltf_alloc(a, sizeof *w); /* zeroed */
    if (!w) {
        cJSON_Delete(root);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "JSON: out of memory");
    }
    w->desc = desc, w->err = err, w->utf8 = s.high_bytes;
    ok = tree_walk(w, root);
    orri_gltf_dealloc(a, w->keys, w->keys_cap * sizeof *w->keys);
    orri_gltf_dealloc(a, w, sizeof *w);
    if (!ok) {
        cJSON_Delete(root);
        return err->code;
    }
    *out = root;
    return ORR_OK;
}
