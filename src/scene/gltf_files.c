/* glTF 2.0 parse: files and URIs. Reading a model or an external file (regular files only, never
 * mapped), base64 and data: URIs, file URIs resolved inside the model's folder and opened once
 * however many buffers and images name them, the GLB container, and the check of the external files
 * no part of the parse read (orr_gltf_options.require_files, orr_gltf_info_file). */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files, base64, URIs ------------------------------------------------------------------------ */

/* Opens a regular file without blocking on a FIFO or device a URI might name; -1 with err set. */
static int open_regular(const char *path, uint64_t *size, orr_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        orri_error(err, ORR_ERROR_IO, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        orri_error(err, ORR_ERROR_IO, "cannot read '%s': not a regular file", path);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

static orr_result read_fd(const orr_allocator *a, int fd, const char *path, uint64_t n, uint8_t **out, size_t *size,
                          orr_error *err)
{
    if (n >= SIZE_MAX) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "cannot read '%s': too large", path);
    uint8_t *buf = orri_gltf_alloc_uninit(a, (size_t)n + 1); /* +1: never a zero-sized allocation; read over */
    if (!buf) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "cannot read '%s': out of memory (%llu bytes)", path, (unsigned long long)n);
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, (size_t)n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got != n) {
        orri_gltf_dealloc(a, buf, (size_t)n + 1);
        return orri_error(err, ORR_ERROR_IO, "cannot read '%s': short read", path);
    }
    *out = buf;
    *size = (size_t)n;
    return ORR_OK;
}

orr_result orri_gltf_read_file(const orr_allocator *a, const char *path, uint64_t max_bytes, uint8_t **out, size_t *size,
                               orr_error *err)
{
    *out = NULL;
    *size = 0;
    uint64_t n;
    int fd = open_regular(path, &n, err);
    if (fd < 0) return err ? err->code : ORR_ERROR_IO;
    orr_result r = read_fd(a, fd, path, n < max_bytes ? n : max_bytes, out, size, err);
    close(fd);
    return r;
}

/* Read, never mapped: a mapped file that shrinks while it loads (an exporter rewriting it) kills the
 * process with SIGBUS on the first page past the new end, and no library may take a host down for
 * that (catching the signal is the host's business, not ours). A file that changes size while it is
 * read is refused as a short read naming it. Reading costs 0.7 ms of a 50 ms load of an 8 MB .glb. */
orr_result orri_gltf_file_open(const orr_allocator *a, const char *path, uint64_t max_bytes, orri_gltf_file *out,
                               orr_error *err)
{
    memset(out, 0, sizeof *out);
    uint64_t n;
    orr_error local;
    int fd = open_regular(path, &n, err ? err : &local);
    if (fd < 0) return err ? err->code : local.code;
    if (n > max_bytes) n = max_bytes; /* only what the caller can use: a URI may name a huge file */
    size_t got;
    orr_result r = read_fd(a, fd, path, n, &out->heap, &got, err);
    close(fd);
    if (r != ORR_OK) return r;
    out->data = out->heap;
    out->size = got;
    return ORR_OK;
}

static uint32_t rd32(const uint8_t *p);

/* The bytes before a model's header is trusted: enough for a GLB header and a JSON byte order mark
 * and leading white space. */
#define ORRI_GLTF_HEAD 4096u

orr_result orri_gltf_model_open(const orr_allocator *a, const char *path, orri_gltf_file *out, orr_error *err)
{
    memset(out, 0, sizeof *out);
    uint64_t n;
    orr_error local;
    if (!err) err = &local;
    int fd = open_regular(path, &n, err);
    if (fd < 0) return err->code;
    uint8_t head[ORRI_GLTF_HEAD];
    size_t hn = n < sizeof head ? (size_t)n : sizeof head, got = 0;
    while (got < hn) {
        ssize_t r = pread(fd, head + got, hn - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got != hn) return orri_error(err, ORR_ERROR_IO, "cannot read '%s': short read", path);
    uint64_t want = n;
    if (hn >= 4 && memcmp(head, "glTF", 4) == 0) {
        /* the header's length rules: nothing past it is read, and a file that is not that long is refused */
        if (hn < 12) return orri_error(err, ORR_ERROR_PARSE, "glb: file is %zu bytes, shorter than the 12-byte header", hn);
        uint32_t version = rd32(head + 4), length = rd32(head + 8);
        if (version != 2) return orri_error(err, ORR_ERROR_UNSUPPORTED, "glb: container version %u, expected 2", version);
        if (length > n)
            return orri_error(err, ORR_ERROR_PARSE, "glb: declared length %u but the file has %llu bytes", length,
                              (unsigned long long)n);
        if (length < n)
            return orri_error(err, ORR_ERROR_PARSE, "glb: the file has %llu bytes, %llu more than the header's length %u",
                              (unsigned long long)n, (unsigned long long)(n - length), length);
        want = length;
    } else if (n > ORRI_GLTF_HEAD) {
        /* JSON: a large file must at least start like a glTF (an object), or nothing more of it is read */
        size_t i = hn >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0;
        while (i < hn && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
        if (i < hn && head[i] != '{')
            return orri_error(err, ORR_ERROR_PARSE, "JSON: the file is neither a GLB nor a JSON object (byte %zu is 0x%02x)", i,
                              head[i]);
    }
    return orri_gltf_file_open(a, path, want, out, err);
}

void orri_gltf_file_close(const orr_allocator *a, orri_gltf_file *f)
{
    if (f->heap) orri_gltf_dealloc(a, f->heap, f->size + 1);
    memset(f, 0, sizeof *f);
}

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Strict base64 (padding optional at the very end). Returns false with *bad = offending offset. */
static bool b64_decode(const char *s, size_t n, uint8_t *out, size_t *out_n, size_t *bad)
{
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    size_t i = 0;
    for (; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '=') break;
        int v = b64_value(ch);
        if (v < 0) {
            *bad = i;
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    size_t pad = 0;
    for (; i < n; i++, pad++) {
        if (s[i] != '=' || pad >= 2) {
            *bad = i;
            return false;
        }
    }
    if (bits >= 6 || (pad && ((n % 4) != 0))) { /* a lone sextet, or padding that does not fit */
        *bad = n;
        return false;
    }
    *out_n = o;
    return true;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Whether extensionsUsed names `name`. */
static bool ext_used(const orri_gltf_pctx *c, const char *name)
{
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(c->doc->json, "extensionsUsed");
    for (const cJSON *e = cJSON_IsArray(used) ? used->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

/* An image media type glTF allows: PNG and JPEG, and those of the image extensions the file uses. */
bool orri_gltf_image_type_ok(const orri_gltf_pctx *c, const char *type, size_t n)
{
    static const struct {
        const char *type, *ext;
    } types[] = {{"image/png", NULL}, {"image/jpeg", NULL}, {"image/webp", "EXT_texture_webp"}, {"image/ktx2", "KHR_texture_basisu"}};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (strlen(types[k].type) == n && strncmp(type, types[k].type, n) == 0) return !types[k].ext || ext_used(c, types[k].ext);
    return false;
}

/* A data URI's bytes, decoded into *owned. */
bool orri_gltf_decode_data_uri(orri_gltf_pctx *c, const char *uri, const char *path, bool image, uint8_t **owned, size_t *size)
{
    size_t len = strlen(uri);
    const char *comma = strchr(uri, ',');
    if (!comma) return PARSE_ERR(c, "%s: data URI without ','", path);
    size_t hl = (size_t)(comma - (uri + 5));
    const char *hdr = uri + 5;
    if (hl < 7 || strncmp(comma - 7, ";base64", 7) != 0) return PARSE_ERR(c, "%s: data URI is not base64", path);
    size_t ml = hl - 7;
    if (memchr(hdr, ';', ml)) return PARSE_ERR(c, "%s: malformed data URI media type '%.*s'", path, (int)ml, hdr);
    bool type_ok = ml == 0 || (ml == 24 && strncmp(hdr, "application/octet-stream", 24) == 0) ||
                   (ml == 23 && strncmp(hdr, "application/gltf-buffer", 23) == 0) ||
                   (image && orri_gltf_image_type_ok(c, hdr, ml));
    if (!type_ok) orri_gltf_violation(c, "%s: unexpected data URI media type '%.*s'", path, (int)ml, hdr);
    const char *b = comma + 1;
    size_t bl = len - (size_t)(b - uri);
    uint8_t *out = orri_gltf_palloc(c, bl / 4 * 3 + 4, 1);
    if (!out) return false;
    size_t bad = 0, n = 0;
    if (!b64_decode(b, bl, out, &n, &bad)) {
        orri_gltf_dealloc(&c->doc->allocator, out, 0);
        return PARSE_ERR(c, "%s: bad base64 at character %zu of the data", path, bad);
    }
    *owned = out;
    *size = n;
    return true;
}

/* The file a relative URI names, joined to base_dir into full[cap]. Refuses schemes, bad percent
 * escapes, and (unless allowed) paths outside the folder. */
bool orri_gltf_uri_file_path(orri_gltf_pctx *c, const char *uri, const char *path, char *full, size_t cap)
{
    size_t len = strlen(uri);
    /* A scheme ("http:", ":", "C:") is not a relative reference. */
    for (const char *p = uri; *p && *p != '/' && *p != '?' && *p != '#'; p++) {
        if (*p == ':') return PARSE_ERR(c, "%s: '%s' is neither a data URI nor a relative path", path, uri);
    }
    if (!c->base_dir) return orri_gltf_fail(c, ORR_ERROR_IO, "%s: external URI '%s' but no base folder to resolve it", path, uri);
    /* percent-decode; the query/fragment are not part of a file name */
    char rel[1024];
    size_t o = 0;
    for (size_t i = 0; i < len && uri[i] != '?' && uri[i] != '#'; i++) {
        char ch = uri[i];
        if (ch == '%') {
            int h1 = i + 1 < len ? hexval(uri[i + 1]) : -1, h2 = i + 2 < len ? hexval(uri[i + 2]) : -1;
            if (h1 < 0 || h2 < 0) return PARSE_ERR(c, "%s: bad percent escape in '%s'", path, uri);
            ch = (char)(h1 * 16 + h2);
            i += 2;
        }
        if (ch == 0) return PARSE_ERR(c, "%s: NUL in '%s'", path, uri);
        if (o + 1 >= sizeof rel) return PARSE_ERR(c, "%s: URI too long", path);
        rel[o++] = ch;
    }
    rel[o] = 0;
    if (o == 0) return PARSE_ERR(c, "%s: URI '%s' names no file", path, uri);
    if (!c->allow_outside) {
        /* an absolute path, or one whose ".." segments climb above the folder, names a file the
         * asset's author has no business reading (/etc/passwd, ~/.ssh/...) */
        bool outside = rel[0] == '/';
        long depth = 0;
        for (const char *seg = rel; !outside && *seg;) {
            const char *end = strchr(seg, '/');
            size_t sl = end ? (size_t)(end - seg) : strlen(seg);
            if (sl == 2 && seg[0] == '.' && seg[1] == '.') outside = --depth < 0;
            else if (sl && !(sl == 1 && seg[0] == '.')) depth++;
            seg += sl + (end ? 1 : 0);
        }
        if (outside)
            return orri_gltf_fail(c, ORR_ERROR_PARSE,
                                  "%s: \"%s\" is outside the file's folder (orr_gltf_options.allow_outside_uris)", path, rel);
    }
    if (rel[0] == '/') snprintf(full, cap, "%s", rel);
    else if ((size_t)snprintf(full, cap, "%s/%s", c->base_dir, rel) >= cap) return PARSE_ERR(c, "%s: path too long", path);
    return true;
}

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Where `full` really is: its real path (symlinks resolved) into real[PATH_MAX], refused unless it lies
 * inside the real path of the model's folder (or allow_outside_uris). A link inside the folder may
 * name any file (`plink.bin -> /etc/passwd`, `sub -> /`), so the lexical check of uri_file_path is
 * not enough. A missing file leaves real empty (opening `full` then reports it, when and if it is
 * opened); any other failure to resolve (a symlink loop) refuses the file. `upath` is the JSON path
 * for the message. */
static bool resolve_inside(orri_gltf_pctx *c, const char *full, const char *upath, char real[PATH_MAX])
{
    real[0] = 0;
    if (c->allow_outside) return true;
    if (!realpath(full, real)) {
        int e = errno;
        real[0] = 0;
        if (e == ENOENT || e == ENOTDIR) return true; /* missing: reported when it is opened */
        return orri_gltf_fail(c, ORR_ERROR_IO, "%s: cannot resolve \"%s\": %s", upath, full, strerror(e));
    }
    if (c->real_base_state == 0)
        c->real_base_state = realpath(c->base_dir, c->real_base) ? 1 : (errno ? -errno : -EIO);
    if (c->real_base_state < 0)
        return orri_gltf_fail(c, ORR_ERROR_IO, "%s: the model's folder '%s' cannot be resolved: %s", upath, c->base_dir,
                              strerror(-c->real_base_state));
    size_t n = strlen(c->real_base);
    bool root = n == 1 && c->real_base[0] == '/';
    if (root || (strncmp(real, c->real_base, n) == 0 && (real[n] == '/' || real[n] == 0))) return true;
    return orri_gltf_fail(c, ORR_ERROR_PARSE,
                          "%s: \"%s\" resolves to \"%s\", outside the model's folder \"%s\" (orr_gltf_options.allow_outside_uris)",
                          upath, full, real, c->real_base);
}

/* The source of a file path: each distinct path has one, opened at most once and shared by every
 * buffer and image naming it (a file may name itself ten thousand times), its real path resolved and
 * checked once (resolve_inside). max_bytes grows to the most any user needs. -1 with the error set
 * when out of memory or outside the folder. */
int32_t orri_gltf_source_intern(orri_gltf_pctx *c, const char *full, uint64_t max_bytes, const char *upath)
{
    orri_gltf_doc *d = c->doc;
    const orr_allocator *al = &d->allocator;
    if ((d->source_count + 1) * 2 > d->source_hash_cap) { /* grow and rehash: load <= 1/2 */
        uint32_t cap = d->source_hash_cap ? d->source_hash_cap * 2 : 64;
        int32_t *h = orri_gltf_palloc(c, cap, sizeof *h);
        orri_gltf_source *src = orri_gltf_palloc(c, cap / 2, sizeof *src);
        if (!h || !src) {
            orri_gltf_dealloc(al, h, 0), orri_gltf_dealloc(al, src, 0);
            return -1;
        }
        for (uint32_t i = 0; i < cap; i++) h[i] = -1;
        if (d->source_count) memcpy(src, d->sources, (size_t)d->source_count * sizeof *src);
        for (uint32_t i = 0; i < d->source_count; i++) {
            uint32_t k = hash_str(src[i].path) & (cap - 1);
            while (h[k] >= 0) k = (k + 1) & (cap - 1);
            h[k] = (int32_t)i;
        }
        orri_gltf_dealloc(al, d->source_hash, 0), orri_gltf_dealloc(al, d->sources, 0);
        d->source_hash = h, d->sources = src, d->source_hash_cap = cap;
    }
    uint32_t k = hash_str(full) & (d->source_hash_cap - 1);
    for (; d->source_hash[k] >= 0; k = (k + 1) & (d->source_hash_cap - 1)) {
        orri_gltf_source *e = &d->sources[d->source_hash[k]];
        if (strcmp(e->path, full) == 0) {
            if (max_bytes > e->max_bytes) e->max_bytes = max_bytes;
            return d->source_hash[k];
        }
    }
    char real[PATH_MAX];
    if (!resolve_inside(c, full, upath, real)) return -1;
    size_t n = strlen(full) + 1, rn = real[0] ? strlen(real) + 1 : 0;
    char *copy = orri_gltf_palloc(c, n + rn, 1);
    if (!copy) return -1;
    memcpy(copy, full, n);
    if (rn) memcpy(copy + n, real, rn);
    int32_t idx = (int32_t)d->source_count++;
    d->sources[idx] = (orri_gltf_source){.path = copy, .real = rn ? copy + n : NULL, .max_bytes = max_bytes};
    d->source_hash[k] = idx;
    return idx;
}

/* Opens a source (once; later calls return the first outcome). */
bool orri_gltf_source_open(const orri_gltf_doc *d, orri_gltf_source *s)
{
    if (!s->opened) {
        s->opened = true;
        s->ok = orri_gltf_file_open(&d->allocator, s->real ? s->real : s->path, s->max_bytes, &s->file, &s->error) == ORR_OK;
    }
    return s->ok;
}

bool orri_gltf_image_data(const orri_gltf_doc *d, uint32_t image, const uint8_t **bytes, size_t *size, const char **why)
{
    const orri_gltf_image *img = &d->images[image];
    *why = NULL;
    if (img->source < 0) {
        *bytes = img->bytes, *size = img->size;
        return img->bytes != NULL;
    }
    orri_gltf_source *s = &d->sources[img->source];
    if (!orri_gltf_source_open(d, s)) {
        *why = s->error.message;
        return false;
    }
    *bytes = s->file.data, *size = s->file.size;
    return true;
}

/* ---- GLB container ------------------------------------------------------------------------------ */

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

bool orri_gltf_parse_glb(orri_gltf_pctx *c, const uint8_t *d, size_t n, const uint8_t **json, size_t *json_n)
{
    if (n < 12) return PARSE_ERR(c, "glb: file is %zu bytes, shorter than the 12-byte header", n);
    uint32_t version = rd32(d + 4), length = rd32(d + 8);
    if (version != 2) return orri_gltf_fail(c, ORR_ERROR_UNSUPPORTED, "glb: container version %u, expected 2", version);
    if (length < 20) return PARSE_ERR(c, "glb: declared length %u is too small", length);
    if (length > n) return PARSE_ERR(c, "glb: declared length %u but the file has %zu bytes", length, n);
    if (length < n)
        return PARSE_ERR(c, "glb: the file has %zu bytes, %zu more than the header's length %u", n, n - length, length);
    *json = NULL;
    size_t off = 12;
    uint32_t index = 0;
    while (off < length) {
        if (length - off < 8) return PARSE_ERR(c, "glb: chunk %u: truncated chunk header at byte %zu", index, off);
        uint32_t clen = rd32(d + off), ctype = rd32(d + off + 4);
        off += 8;
        if (clen > length - off)
            return PARSE_ERR(c, "glb: chunk %u: length %u runs past the end of the file (%zu bytes left)", index, clen,
                             (size_t)length - off);
        if (clen % 4 != 0) return PARSE_ERR(c, "glb: chunk %u: length %u is not a multiple of 4", index, clen);
        if (index == 0 && ctype != GLB_JSON)
            return PARSE_ERR(c, "glb: chunk 0: first chunk must be JSON, found type 0x%08x", ctype);
        if (ctype == GLB_JSON) {
            if (*json) return PARSE_ERR(c, "glb: chunk %u: a second JSON chunk", index);
            if (clen == 0) return PARSE_ERR(c, "glb: chunk %u: empty JSON chunk", index);
            *json = d + off;
            *json_n = clen;
        } else if (ctype == GLB_BIN) {
            if (c->glb_bin || index != 1) {
                if (c->glb_bin) return PARSE_ERR(c, "glb: chunk %u: a second BIN chunk", index);
                return PARSE_ERR(c, "glb: chunk %u: BIN chunk must directly follow the JSON chunk", index);
            }
            c->glb_bin = d + off;
            c->glb_bin_size = clen;
        } else {
            orri_gltf_warn(c, "glb: chunk %u: unknown chunk type 0x%08x, ignored", index, ctype);
        }
        off += clen;
        index++;
    }
    if (!*json) return PARSE_ERR(c, "glb: no JSON chunk");
    return true;
}

/* ---- external files nothing has read yet ------------------------------------------------------- */

/* One problem with an external file: a warning, or (require) an error logged and counted, the
 * first kept for the refusal. In the fast pass a warning only marks the pass, and an error fails it,
 * so that the second pass, with paths, reports them all. */
typedef struct file_report {
    uint32_t errors;
    char first[sizeof ((orr_error *)0)->message];
} file_report;

static void log_error(orri_gltf_pctx *c, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void log_error(orri_gltf_pctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&c->doc->logger, ORR_LOG_ERROR, c->name, fmt, ap);
    va_end(ap);
}

static void file_problem(orri_gltf_pctx *c, file_report *r, const char *fmt, ...) ORRI_PRINTF(3, 4);
static void file_problem(orri_gltf_pctx *c, file_report *r, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->files == ORRI_GLTF_FILES_WARN) {
        orri_gltf_warn(c, "%s", msg);
        return;
    }
    if (r->errors++ == 0) {
        size_t n = strnlen(msg, sizeof r->first - 1); /* cut, as a message is */
        memcpy(r->first, msg, n);
        r->first[n] = 0;
    }
    if (c->paths) log_error(c, "%s", msg);
}

/* Opens every external file that parsing did not need (unused buffers, images: loading reads them
 * later, or never) just far enough to know it is a regular file of enough bytes, and reports each
 * that is not under the first JSON path naming it. */
bool orri_gltf_check_files(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (c->files == ORRI_GLTF_FILES_LAZY || !d->source_count) return true;
    /* per source: 0 = not probed, 1 = usable (size[] bytes), 2 = reported */
    uint8_t *state = orri_gltf_palloc(c, d->source_count, 1);
    uint64_t *size = orri_gltf_palloc(c, d->source_count, sizeof *size);
    if (!state || !size) {
        orri_gltf_dealloc(&d->allocator, state, 0), orri_gltf_dealloc(&d->allocator, size, 0);
        return false;
    }
    file_report r = {0};
    uint32_t n_items = d->buffer_count + d->image_count;
    for (uint32_t k = 0; k < n_items && (c->paths || !r.errors); k++) {
        bool is_buffer = k < d->buffer_count;
        uint32_t i = is_buffer ? k : k - d->buffer_count;
        int32_t si = is_buffer ? d->buffers[i].source : d->images[i].source;
        if (si < 0) continue;
        orri_gltf_source *src = &d->sources[si];
        char path[64];
        PATHF(c, path, sizeof path, "%s[%u]", is_buffer ? "buffers" : "images", i);
        if (state[si] == 0) {
            if (src->opened) {
                state[si] = src->ok ? 1 : 0;
                size[si] = src->file.size;
            }
            if (state[si] == 0) {
                orr_error e = {0};
                uint64_t n = 0;
                int fd = src->opened ? -1 : open_regular(src->real ? src->real : src->path, &n, &e);
                if (fd >= 0) {
                    close(fd);
                    state[si] = 1;
                    size[si] = n;
                } else {
                    state[si] = 2;
                    file_problem(c, &r, "%s.uri: %s", path, src->opened ? src->error.message : e.message);
                }
            }
        }
        if (state[si] == 1 && is_buffer && size[si] < d->buffers[i].byte_length)
            file_problem(c, &r, "%s.byteLength: %llu but the file has %llu bytes", path,
                         (unsigned long long)d->buffers[i].byte_length, (unsigned long long)size[si]);
    }
    orri_gltf_dealloc(&d->allocator, state, 0), orri_gltf_dealloc(&d->allocator, size, 0);
    if (!r.errors) return true;
    if (r.errors == 1) return orri_gltf_fail(c, ORR_ERROR_IO, "%s", r.first);
    return orri_gltf_fail(c, ORR_ERROR_IO, "%s (and %u more files that cannot be used)", r.first, r.errors - 1);
}
