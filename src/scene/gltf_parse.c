/* glTF 2.0: container (.gltf / .glb), JSON, buffers and URIs, and validation of every object the
 * loader relies on. See gltf_internal.h for the contract. */
#include "core/internal.h"
#include "scene/gltf_internal.h"
#include "scene/gltf_draco.h"

#include <orrery/scene.h>

#include <errno.h>
#include <meshoptimizer.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MESHOPTIMIZER_VERSION_VALUE MESHOPTIMIZER_VERSION

/* Accessors without a buffer view are zeros the loader must allocate; this caps what a small hostile
 * file can make it allocate. */
#define ORRI_GLTF_MAX_VIEWLESS_COUNT (1u << 24)
#define ORRI_GLTF_MIN_VIEWLESS_COUNT (1u << 16)
/* An encoded image file is read up to this size (a decodable one is far smaller). */
#define ORRI_GLTF_MAX_IMAGE_BYTES (UINT64_C(1) << 28)

/* ---- allocation (size-prefixed, so frees need no size) ----------------------------------------- */

void *orri_gltf_alloc(const orr_allocator *a, size_t size)
{
    if (size == 0 || size > SIZE_MAX - 16) return NULL;
    orr_allocator al = orri_allocator_or_default(a);
    uint8_t *p = orri_alloc(&al, size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    return p + 16;
}

void *orri_gltf_alloc_uninit(const orr_allocator *a, size_t size)
{
    if (size == 0 || size > SIZE_MAX - 16) return NULL;
    orr_allocator al = orri_allocator_or_default(a);
    uint8_t *p = al.realloc(al.user, NULL, 0, size + 16); /* orri_alloc without its memset */
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    return p + 16;
}

void orri_gltf_dealloc(const orr_allocator *a, void *ptr, size_t size)
{
    (void)size;
    if (!ptr) return;
    uint8_t *p = (uint8_t *)ptr - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    orr_allocator al = orri_allocator_or_default(a);
    orri_free(&al, p, n + 16);
}

/* ---- parse context ------------------------------------------------------------------------------ */

typedef struct pctx {
    orri_gltf_doc *doc;
    orr_error *err;
    bool failed;
    const char *name;
    const char *base_dir;
    bool allow_outside; /* URIs may be absolute or climb out of base_dir, and symlinks lead anywhere */
    orri_gltf_files files; /* what happens to external files nothing reads while parsing */
    int real_base_state;   /* 0 = not resolved yet, 1 = real_base holds realpath(base_dir), -errno = failed */
    char real_base[PATH_MAX];
    const uint8_t *glb_bin; /* the GLB BIN chunk, NULL when absent */
    uint64_t glb_bin_size;
    bool quantization; /* KHR_mesh_quantization relaxes attribute formats */
    bool paths;        /* format JSON paths; off in the first, fast pass (see orri_gltf_parse) */
    bool warned;       /* a warning was suppressed in the fast pass */
    uint32_t *stamp;   /* per node index: the list that last named it (duplicate checks in O(n)) */
    uint32_t stamp_n, stamp_gen;
    bool is_glb;
    uint64_t buffer_bytes; /* sum of the byteLength of buffers that have data */
    uint32_t threads;      /* decoding threads (orri_gltf_threads) */
    bool defer;            /* large index views may decode beside the load (orri_gltf_parse_desc.defer) */
    uint32_t deferred;     /* how many do (orr_gltf_stats.deferred_views) */
    uint64_t json_ns, decode_ns; /* time in cJSON and in decoders (orr_gltf_stats) */
    orri_gltf_meshopt_view *mo; /* compressed views to decode (parse_views), mo_n of them */
    uint32_t mo_n;
    uint32_t unplaceable; /* orr_gltf_stats.unplaceable_nodes */
} pctx;

void orri_gltf_escape(char *msg, size_t cap)
{
    char tmp[1024];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 5 < sizeof tmp; p++) {
        if (*p < 0x20 || *p == 0x7f) o += (size_t)snprintf(tmp + o, sizeof tmp - o, "\\x%02x", *p);
        else tmp[o++] = (char)*p;
    }
    if (cap == 0) return;
    if (o >= cap) o = cap - 1; /* cut, as the message it came from would have been */
    memcpy(msg, tmp, o);
    msg[o] = 0;
}

void orri_gltf_vlog(const orr_logger *logger, orr_log_level level, const char *name, const char *fmt, va_list ap)
{
    if (!logger->log) return;
    char msg[600];
    int n = snprintf(msg, sizeof msg, "%s: ", name ? name : "glTF");
    if (n < 0 || (size_t)n >= sizeof msg) n = 0;
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    orri_gltf_escape(msg, sizeof msg);
    logger->log(logger->user, level, msg);
}

void orri_gltf_vwarn(const orr_logger *logger, const char *name, const char *fmt, va_list ap)
{
    orri_gltf_vlog(logger, ORR_LOG_WARNING, name, fmt, ap);
}

static bool fail(pctx *c, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
static bool fail(pctx *c, orr_result code, const char *fmt, ...)
{
    if (!c->failed) {
        va_list ap;
        va_start(ap, fmt);
        orri_verror(c->err, code, fmt, ap);
        va_end(ap);
        if (c->err) orri_gltf_escape(c->err->message, sizeof c->err->message);
        c->failed = true;
    }
    return false;
}

static void warn(pctx *c, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void warn(pctx *c, const char *fmt, ...)
{
    if (!c->doc->logger.log) return;
    if (!c->paths) {
        c->warned = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vwarn(&c->doc->logger, c->name, fmt, ap);
    va_end(ap);
}

/* A place where the file breaks the glTF 2.0 spec and the loader steps around it (the message says
 * how): logged at ORR_LOG_ERROR, so that a checker (orrery validate) calls the file invalid while a
 * viewer still draws it. */
static void violation(pctx *c, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void violation(pctx *c, const char *fmt, ...)
{
    if (!c->doc->logger.log) return;
    if (!c->paths) {
        c->warned = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&c->doc->logger, ORR_LOG_ERROR, c->name, fmt, ap);
    va_end(ap);
}

/* How min/max that disagree with an accessor's data are reported: a violation where the data is in a
 * buffer view; a warning for the zeros of a view-less accessor, which the Khronos validator does not
 * compare either. */
typedef void (*report_fn)(pctx *c, const char *fmt, ...);
static report_fn minmax_report(const orri_gltf_accessor *a) { return a->view >= 0 ? violation : warn; }

#define PARSE_ERR(c, ...) fail((c), ORR_ERROR_PARSE, __VA_ARGS__)

/* Path strings cost more than the checks on small files, and are needed only for a message: the
 * first pass leaves them empty; a pass that fails or warns is run again with them. */
#define PATHF(c, buf, cap, ...) ((c)->paths ? snprintf((buf), (cap), __VA_ARGS__) : ((buf)[0] = 0, 0))

static void *palloc(pctx *c, size_t count, size_t size)
{
    if (count == 0) return NULL;
    if (size && count > SIZE_MAX / size) {
        fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    void *p = orri_gltf_alloc(&c->doc->allocator, count * size);
    if (!p) fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes)", count * size);
    return p;
}

/* palloc for `size` bytes that are written before they are read (a decoder's scratch): not zeroed, so
 * that the pages are first touched by the workers that use them, not all by this thread. */
static void *palloc_scratch(pctx *c, size_t size)
{
    void *p = orri_gltf_alloc_uninit(&c->doc->allocator, size);
    if (!p) fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes)", size);
    return p;
}

/* ---- JSON helpers: each checks the type and names the path in its message ---------------------- */

static const char *jtype(const cJSON *j)
{
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    return "invalid";
}

/* "path.key", or "key" for a top-level member (path ""). */
#define DOT(path) (*(path) ? "." : "")

/* Top-level or member array; absent = NULL with ok. */
static bool jarray(pctx *c, const cJSON *obj, const char *key, const char *path, const cJSON **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!j) return true;
    if (!cJSON_IsArray(j)) return PARSE_ERR(c, "%s%s%s: expected an array, found %s", path, DOT(path), key, jtype(j));
    *out = j;
    return true;
}

static bool jobject(pctx *c, const cJSON *obj, const char *key, const char *path, const cJSON **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!j) return true;
    if (!cJSON_IsObject(j)) return PARSE_ERR(c, "%s%s%s: expected an object, found %s", path, DOT(path), key, jtype(j));
    *out = j;
    return true;
}

static bool jbool(pctx *c, const cJSON *obj, const char *key, const char *path, bool def, bool *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!j) return true;
    if (!cJSON_IsBool(j)) return PARSE_ERR(c, "%s%s%s: expected a boolean, found %s", path, DOT(path), key, jtype(j));
    *out = cJSON_IsTrue(j);
    return true;
}

static bool jnumber_value(pctx *c, const cJSON *j, const char *path, const char *key, double *out)
{
    if (!cJSON_IsNumber(j)) return PARSE_ERR(c, "%s%s%s: expected a number, found %s", path, key && *path ? "." : "", key ? key : "", jtype(j));
    if (!isfinite(j->valuedouble)) return PARSE_ERR(c, "%s%s%s: number is not finite", path, key && *path ? "." : "", key ? key : "");
    *out = j->valuedouble;
    return true;
}

static bool jnum(pctx *c, const cJSON *obj, const char *key, const char *path, double def, double *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!j) return true;
    return jnumber_value(c, j, path, key, out);
}

static bool jrequired(pctx *c, const cJSON *obj, const char *key, const char *path)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key)) return true;
    return PARSE_ERR(c, "%s: required property '%s' is missing", path, key);
}

/* An integer in [lo, hi]; absent = def (return true). */
static bool jint(pctx *c, const cJSON *obj, const char *key, const char *path, int64_t def, int64_t lo, int64_t hi,
                 int64_t *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!j) return true;
    if (!cJSON_IsNumber(j)) return PARSE_ERR(c, "%s%s%s: expected an integer, found %s", path, DOT(path), key, jtype(j));
    double v = j->valuedouble;
    if (!isfinite(v) || v != floor(v)) return PARSE_ERR(c, "%s%s%s: %g is not an integer", path, DOT(path), key, v);
    if (v < (double)lo || v > (double)hi)
        return PARSE_ERR(c, "%s%s%s: %.17g is out of range [%lld, %lld]", path, DOT(path), key, v, (long long)lo,
                         (long long)hi);
    *out = (int64_t)v;
    return true;
}

/* A reference to element of a top-level array of `count` (named `what`); absent = -1. */
static bool jref_value(pctx *c, const cJSON *j, const char *path, uint32_t count, const char *what, int32_t *out)
{
    if (!cJSON_IsNumber(j)) return PARSE_ERR(c, "%s: expected an index, found %s", path, jtype(j));
    double v = j->valuedouble;
    if (!isfinite(v) || v != floor(v)) return PARSE_ERR(c, "%s: %g is not an index", path, v);
    if (v < 0 || v >= (double)count)
        return PARSE_ERR(c, "%s: %.17g is out of range, %u %s", path, v, count, what);
    *out = (int32_t)v;
    return true;
}

static bool jref(pctx *c, const cJSON *obj, const char *key, const char *path, uint32_t count, const char *what,
                 int32_t *out)
{
    *out = -1;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) return true;
    char p[300];
    PATHF(c, p, sizeof p, "%s%s%s", path, DOT(path), key);
    return jref_value(c, j, p, count, what, out);
}

static bool jstring(pctx *c, const cJSON *obj, const char *key, const char *path, const char **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!j) return true;
    if (!cJSON_IsString(j)) return PARSE_ERR(c, "%s.%s: expected a string, found %s", path, key, jtype(j));
    *out = j->valuestring;
    return true;
}

/* A fixed-length number array (translation, color, ...). */
static bool jnums(pctx *c, const cJSON *obj, const char *key, const char *path, uint32_t n, double *out, bool *present)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present) *present = false;
    if (!j) return true;
    if (!cJSON_IsArray(j)) return PARSE_ERR(c, "%s.%s: expected an array of %u numbers, found %s", path, key, n, jtype(j));
    if ((uint32_t)cJSON_GetArraySize(j) != n)
        return PARSE_ERR(c, "%s.%s: expected %u numbers, found %d", path, key, n, cJSON_GetArraySize(j));
    uint32_t i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        char p[300];
        PATHF(c, p, sizeof p, "%s.%s[%u]", path, key, i);
        if (!jnumber_value(c, e, p, NULL, &out[i])) return false;
    }
    if (present) *present = true;
    return true;
}

/* Warns once per object about properties the loader does not know (untidy, not invalid). */
static void check_keys(pctx *c, const cJSON *obj, const char *path, const char *const *known)
{
    for (const cJSON *e = obj->child; e; e = e->next) {
        if (!e->string) continue;
        bool ok = strcmp(e->string, "extensions") == 0 || strcmp(e->string, "extras") == 0 ||
                  strcmp(e->string, "name") == 0;
        for (const char *const *k = known; !ok && *k; k++) ok = (*k)[0] == e->string[0] && strcmp(*k, e->string) == 0;
        if (!ok) warn(c, "%s%s%s: unknown property, ignored", path, *path ? "." : "", e->string);
    }
}

/* Iterates a top-level array of objects; each element must be an object. */
static bool top_array(pctx *c, const char *key, const cJSON **arr, uint32_t *count)
{
    if (!jarray(c, c->doc->json, key, "", arr)) return false;
    *count = *arr ? (uint32_t)cJSON_GetArraySize(*arr) : 0;
    if (*arr && !*count) violation(c, "%s: empty array, ignored", key); /* the spec wants it left out */
    if (*arr) {
        uint32_t i = 0;
        for (const cJSON *e = (*arr)->child; e; e = e->next, i++) {
            if (!cJSON_IsObject(e)) return PARSE_ERR(c, "%s[%u]: expected an object, found %s", key, i, jtype(e));
        }
    }
    return true;
}

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
static bool ext_used(const pctx *c, const char *name)
{
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(c->doc->json, "extensionsUsed");
    for (const cJSON *e = cJSON_IsArray(used) ? used->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

/* An image media type glTF allows: PNG and JPEG, and those of the image extensions the file uses. */
static bool image_type_ok(const pctx *c, const char *type, size_t n)
{
    static const struct {
        const char *type, *ext;
    } types[] = {{"image/png", NULL}, {"image/jpeg", NULL}, {"image/webp", "EXT_texture_webp"}, {"image/ktx2", "KHR_texture_basisu"}};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (strlen(types[k].type) == n && strncmp(type, types[k].type, n) == 0) return !types[k].ext || ext_used(c, types[k].ext);
    return false;
}

/* A data URI's bytes, decoded into *owned. */
static bool decode_data_uri(pctx *c, const char *uri, const char *path, bool image, uint8_t **owned, size_t *size)
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
                   (image && image_type_ok(c, hdr, ml));
    if (!type_ok) violation(c, "%s: unexpected data URI media type '%.*s'", path, (int)ml, hdr);
    const char *b = comma + 1;
    size_t bl = len - (size_t)(b - uri);
    uint8_t *out = palloc(c, bl / 4 * 3 + 4, 1);
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
static bool uri_file_path(pctx *c, const char *uri, const char *path, char *full, size_t cap)
{
    size_t len = strlen(uri);
    /* A scheme ("http:", ":", "C:") is not a relative reference. */
    for (const char *p = uri; *p && *p != '/' && *p != '?' && *p != '#'; p++) {
        if (*p == ':') return PARSE_ERR(c, "%s: '%s' is neither a data URI nor a relative path", path, uri);
    }
    if (!c->base_dir) return fail(c, ORR_ERROR_IO, "%s: external URI '%s' but no base folder to resolve it", path, uri);
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
            return fail(c, ORR_ERROR_PARSE,
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
static bool resolve_inside(pctx *c, const char *full, const char *upath, char real[PATH_MAX])
{
    real[0] = 0;
    if (c->allow_outside) return true;
    if (!realpath(full, real)) {
        int e = errno;
        real[0] = 0;
        if (e == ENOENT || e == ENOTDIR) return true; /* missing: reported when it is opened */
        return fail(c, ORR_ERROR_IO, "%s: cannot resolve \"%s\": %s", upath, full, strerror(e));
    }
    if (c->real_base_state == 0)
        c->real_base_state = realpath(c->base_dir, c->real_base) ? 1 : (errno ? -errno : -EIO);
    if (c->real_base_state < 0)
        return fail(c, ORR_ERROR_IO, "%s: the model's folder '%s' cannot be resolved: %s", upath, c->base_dir,
                    strerror(-c->real_base_state));
    size_t n = strlen(c->real_base);
    bool root = n == 1 && c->real_base[0] == '/';
    if (root || (strncmp(real, c->real_base, n) == 0 && (real[n] == '/' || real[n] == 0))) return true;
    return fail(c, ORR_ERROR_PARSE,
                "%s: \"%s\" resolves to \"%s\", outside the model's folder \"%s\" (orr_gltf_options.allow_outside_uris)",
                upath, full, real, c->real_base);
}

/* The source of a file path: each distinct path has one, opened at most once and shared by every
 * buffer and image naming it (a file may name itself ten thousand times), its real path resolved and
 * checked once (resolve_inside). max_bytes grows to the most any user needs. -1 with the error set
 * when out of memory or outside the folder. */
static int32_t source_intern(pctx *c, const char *full, uint64_t max_bytes, const char *upath)
{
    orri_gltf_doc *d = c->doc;
    const orr_allocator *al = &d->allocator;
    if ((d->source_count + 1) * 2 > d->source_hash_cap) { /* grow and rehash: load <= 1/2 */
        uint32_t cap = d->source_hash_cap ? d->source_hash_cap * 2 : 64;
        int32_t *h = palloc(c, cap, sizeof *h);
        orri_gltf_source *src = palloc(c, cap / 2, sizeof *src);
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
    char *copy = palloc(c, n + rn, 1);
    if (!copy) return -1;
    memcpy(copy, full, n);
    if (rn) memcpy(copy + n, real, rn);
    int32_t idx = (int32_t)d->source_count++;
    d->sources[idx] = (orri_gltf_source){.path = copy, .real = rn ? copy + n : NULL, .max_bytes = max_bytes};
    d->source_hash[k] = idx;
    return idx;
}

/* Opens a source (once; later calls return the first outcome). */
static bool source_open(const orri_gltf_doc *d, orri_gltf_source *s)
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
    if (!source_open(d, s)) {
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

static bool parse_glb(pctx *c, const uint8_t *d, size_t n, const uint8_t **json, size_t *json_n)
{
    if (n < 12) return PARSE_ERR(c, "glb: file is %zu bytes, shorter than the 12-byte header", n);
    uint32_t version = rd32(d + 4), length = rd32(d + 8);
    if (version != 2) return fail(c, ORR_ERROR_UNSUPPORTED, "glb: container version %u, expected 2", version);
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
            warn(c, "glb: chunk %u: unknown chunk type 0x%08x, ignored", index, ctype);
        }
        off += clen;
        index++;
    }
    if (!*json) return PARSE_ERR(c, "glb: no JSON chunk");
    return true;
}

/* ---- asset, extensions -------------------------------------------------------------------------- */

static const char *const supported_extensions[] = {
    "KHR_lights_punctual", "KHR_materials_emissive_strength", "KHR_materials_unlit", "KHR_texture_transform",
    "EXT_mesh_gpu_instancing", "KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_meshopt_compression",
    "EXT_texture_webp",
#ifdef ORRI_HAVE_DRACO
    "KHR_draco_mesh_compression",
#endif
    NULL,
};

static bool extension_supported(const char *name)
{
    for (const char *const *s = supported_extensions; *s; s++)
        if (strcmp(*s, name) == 0) return true;
    return false;
}

bool orr_gltf_extension_supported(const char *name)
{
    return name && extension_supported(name);
}

uint32_t orr_gltf_extensions(const char **out, uint32_t max)
{
    uint32_t n = 0;
    for (const char *const *s = supported_extensions; *s; s++, n++)
        if (out && n < max) out[n] = *s;
    return n;
}

/* Why a known extension is refused, for the message; "" for the others. */
static const char *unsupported_reason(const char *name)
{
    if (strcmp(name, "KHR_texture_basisu") == 0) return " (no Basis Universal transcoder is packaged)";
    if (strcmp(name, "KHR_draco_mesh_compression") == 0) return " (this build has no Draco decoder: libdraco-dev)";
    return "";
}

/* ---- extension objects: one walk over the JSON tree ------------------------------------------- */

/* Where the extensions this loader reads (and some it knows but does not read) may appear: the owner
 * of the `extensions` object. One found anywhere else breaks the spec and is ignored (violation());
 * an extension without an entry here is not checked for its place. */
enum {
    EXT_AT_ROOT = 1,
    EXT_AT_NODE = 2,
    EXT_AT_MATERIAL = 4,
    EXT_AT_TEXINFO = 8, /* a textureInfo: materials[i].*Texture, also nested */
    EXT_AT_TEXTURE = 16,
    EXT_AT_PRIMITIVE = 32,
};
static const struct {
    const char *name;
    unsigned at;
} extension_places[] = {
    {"KHR_lights_punctual", EXT_AT_ROOT | EXT_AT_NODE},
    {"KHR_materials_emissive_strength", EXT_AT_MATERIAL},
    {"KHR_materials_unlit", EXT_AT_MATERIAL},
    {"KHR_texture_transform", EXT_AT_TEXINFO},
    {"EXT_mesh_gpu_instancing", EXT_AT_NODE},
    {"EXT_texture_webp", EXT_AT_TEXTURE},
    {"KHR_texture_basisu", EXT_AT_TEXTURE},
    {"KHR_draco_mesh_compression", EXT_AT_PRIMITIVE},
    /* known, not read: only their place is checked */
    {"KHR_materials_anisotropy", EXT_AT_MATERIAL},
    {"KHR_materials_clearcoat", EXT_AT_MATERIAL},
    {"KHR_materials_diffuse_transmission", EXT_AT_MATERIAL},
    {"KHR_materials_dispersion", EXT_AT_MATERIAL},
    {"KHR_materials_ior", EXT_AT_MATERIAL},
    {"KHR_materials_iridescence", EXT_AT_MATERIAL},
    {"KHR_materials_pbrSpecularGlossiness", EXT_AT_MATERIAL},
    {"KHR_materials_sheen", EXT_AT_MATERIAL},
    {"KHR_materials_specular", EXT_AT_MATERIAL},
    {"KHR_materials_transmission", EXT_AT_MATERIAL},
    {"KHR_materials_volume", EXT_AT_MATERIAL},
    {"KHR_materials_variants", EXT_AT_ROOT | EXT_AT_PRIMITIVE},
    {"KHR_node_visibility", EXT_AT_NODE},
    {"KHR_mesh_quantization", 0}, /* declared only: it has no extension objects */
};

/* One step of the path from the root: a member (key) or an array element (key NULL, index). */
typedef struct ext_frame {
    const struct ext_frame *up; /* NULL for the root object */
    const char *key;
    uint32_t index;
} ext_frame;

typedef struct ext_walk {
    pctx *c;
    const cJSON *used; /* extensionsUsed; NULL-able */
    /* unsupported extensions warned about, once per extension and top-level member (extensions,
     * materials, meshes, ...): a file that uses one on every material gets one warning, not thousands */
    const char *warned[32], *warned_top[32];
    uint32_t warned_n;
    bool stop; /* the fast pass needs to know only that something warns */
} ext_walk;

static size_t ext_path(const ext_frame *f, char *out, size_t cap)
{
    if (!f || !f->up) return 0; /* the root */
    size_t n = ext_path(f->up, out, cap);
    int w = f->key ? snprintf(out + n, cap - n, "%s%s", n ? "." : "", f->key) : snprintf(out + n, cap - n, "[%u]", f->index);
    if (w < 0 || (size_t)w >= cap - n) return cap - 1;
    return n + (size_t)w;
}

/* Warns "<path of f>: <message>". */
/* A warning, or with `error` a violation of the spec (violation()), at the frame's path. */
static void ext_warn(ext_walk *w, const ext_frame *f, bool error, const char *fmt, ...) ORRI_PRINTF(4, 5);
static void ext_warn(ext_walk *w, const ext_frame *f, bool error, const char *fmt, ...)
{
    char path[400], msg[300];
    path[0] = msg[0] = 0;
    if (w->c->paths) {
        ext_path(f, path, sizeof path);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    if (error) violation(w->c, "%s: %s", path, msg);
    else warn(w->c, "%s: %s", path, msg);
    if (!w->c->paths) w->stop = true;
}

/* The kind of object a frame stands for, as extension_places names them. */
static unsigned ext_owner(const ext_frame *f)
{
    if (!f->up) return EXT_AT_ROOT;
    if (!f->key && f->up->key && f->up->up && !f->up->up->up) { /* an element of a top-level array */
        if (strcmp(f->up->key, "nodes") == 0) return EXT_AT_NODE;
        if (strcmp(f->up->key, "materials") == 0) return EXT_AT_MATERIAL;
        if (strcmp(f->up->key, "textures") == 0) return EXT_AT_TEXTURE;
    }
    if (!f->key && f->up->key && strcmp(f->up->key, "primitives") == 0) return EXT_AT_PRIMITIVE;
    if (f->key) {
        size_t n = strlen(f->key);
        if (n > 7 && strcmp(f->key + n - 7, "Texture") == 0) return EXT_AT_TEXINFO;
    }
    return 0;
}

static bool ext_declared(const cJSON *used, const char *name)
{
    for (const cJSON *e = used ? used->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

static void ext_walk_value(ext_walk *w, const cJSON *v, const ext_frame *f);

static void ext_check(ext_walk *w, const cJSON *ext, const ext_frame *ef, const ext_frame *owner)
{
    if (!cJSON_IsObject(ext)) {
        ext_warn(w, ef, true, "expected an object, found %s; ignored", jtype(ext));
        return;
    }
    const ext_frame *top = ef;
    while (top->up && top->up->up) top = top->up;
    for (const cJSON *x = ext->child; x && !w->stop; x = x->next) {
        const char *name = x->string ? x->string : "";
        ext_frame xf = {ef, name, 0};
        if (!cJSON_IsObject(x)) {
            ext_warn(w, &xf, true, "expected an object, found %s; ignored", jtype(x));
            continue;
        }
        if (!ext_declared(w->used, name)) ext_warn(w, &xf, true, "extension %s is not declared in extensionsUsed", name);
        bool placed = true;
        for (size_t k = 0; k < sizeof extension_places / sizeof extension_places[0]; k++)
            if (strcmp(extension_places[k].name, name) == 0) placed = (extension_places[k].at & ext_owner(owner)) != 0;
        if (!placed) {
            ext_warn(w, &xf, true, "extension %s does not belong here, ignored", name);
            continue;
        }
        if (!extension_supported(name)) {
            bool seen = false;
            for (uint32_t k = 0; k < w->warned_n && !seen; k++)
                seen = strcmp(w->warned[k], name) == 0 && strcmp(w->warned_top[k], top->key) == 0;
            if (seen || w->warned_n == 32) continue; /* beyond 32 kinds: still warned about in extensionsUsed */
            w->warned[w->warned_n] = name, w->warned_top[w->warned_n++] = top->key;
            ext_warn(w, &xf, false, "extension %s is not supported, ignored", name);
            continue; /* its content is not read, so it is not checked either */
        }
        ext_walk_value(w, x, &xf);
    }
}

static void ext_walk_value(ext_walk *w, const cJSON *v, const ext_frame *f)
{
    if (cJSON_IsArray(v)) {
        uint32_t i = 0;
        for (const cJSON *e = v->child; e && !w->stop; e = e->next, i++) {
            if (!cJSON_IsObject(e) && !cJSON_IsArray(e)) continue;
            ext_frame ef = {f, NULL, i};
            ext_walk_value(w, e, &ef);
        }
        return;
    }
    if (!cJSON_IsObject(v)) return;
    for (const cJSON *m = v->child; m && !w->stop; m = m->next) {
        if (!m->string || strcmp(m->string, "extras") == 0) continue; /* the application's, anything goes */
        if (!cJSON_IsObject(m) && !cJSON_IsArray(m)) continue;
        ext_frame mf = {f, m->string, 0};
        if (strcmp(m->string, "extensions") == 0) ext_check(w, m, &mf, f);
        else ext_walk_value(w, m, &mf);
    }
    /* a non-object `extensions` member is skipped above; name it */
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(v, "extensions");
    if (ext && !cJSON_IsObject(ext) && !w->stop) {
        ext_frame mf = {f, "extensions", 0};
        ext_check(w, ext, &mf, f);
    }
}

/* Every `extensions` object of the file: its members are objects, declared in extensionsUsed, and
 * supported (once per extension and top-level member) where the loader reads them. Warnings only: what
 * is not read is ignored. Nesting is bounded by cJSON's limit, so the recursion is too. Skipped when
 * no logger listens. Returns the walk, so that extensionsUsed need not repeat what it said. */
static void check_extension_objects(pctx *c, const cJSON *used, ext_walk *w)
{
    *w = (ext_walk){.c = c, .used = used};
    if (!c->doc->logger.log) return;
    ext_frame root = {NULL, NULL, 0};
    ext_walk_value(w, c->doc->json, &root);
}

static bool ext_warned(const ext_walk *w, const char *name)
{
    for (uint32_t k = 0; k < w->warned_n; k++)
        if (strcmp(w->warned[k], name) == 0) return true;
    return false;
}

/* The index of an earlier string equal to e in arr, or -1; only the first 256 entries are compared
 * (a list of extensions is short; a hostile one must not cost n^2). */
static int32_t earlier_duplicate(const cJSON *arr, const cJSON *e, uint32_t i)
{
    if (i >= 256) return -1;
    int32_t k = 0;
    for (const cJSON *p = arr->child; p && p != e; p = p->next, k++)
        if (cJSON_IsString(p) && strcmp(p->valuestring, e->valuestring) == 0) return k;
    return -1;
}

static bool parse_version(const char *s, unsigned *major, unsigned *minor)
{
    unsigned a = 0, b = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') a = a * 10 + (unsigned)(*p++ - '0'), a = a > 100000 ? 100000 : a;
    if (*p++ != '.') return false;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') b = b * 10 + (unsigned)(*p++ - '0'), b = b > 100000 ? 100000 : b;
    if (*p) return false;
    *major = a;
    *minor = b;
    return true;
}

static bool parse_asset(pctx *c)
{
    const cJSON *root = c->doc->json;
    const cJSON *asset;
    if (!jobject(c, root, "asset", "", &asset)) return false;
    if (!asset) return PARSE_ERR(c, "asset: required property is missing");
    const char *version;
    if (!jstring(c, asset, "version", "asset", &version)) return false;
    if (!version) return PARSE_ERR(c, "asset.version: required property is missing");
    unsigned major, minor;
    if (!parse_version(version, &major, &minor)) return PARSE_ERR(c, "asset.version: '%s' is not MAJOR.MINOR", version);
    if (major != 2) return fail(c, ORR_ERROR_UNSUPPORTED, "asset.version: %s is not glTF 2.x", version);
    const char *minv;
    if (!jstring(c, asset, "minVersion", "asset", &minv)) return false;
    if (minv) {
        unsigned a, b;
        if (!parse_version(minv, &a, &b)) return PARSE_ERR(c, "asset.minVersion: '%s' is not MAJOR.MINOR", minv);
        if (a != 2 || b > 0) return fail(c, ORR_ERROR_UNSUPPORTED, "asset.minVersion: %s is newer than 2.0", minv);
    }
    static const char *const known[] = {"version", "minVersion", "generator", "copyright", NULL};
    check_keys(c, asset, "asset", known);

    const cJSON *req, *used;
    if (!jarray(c, root, "extensionsRequired", "", &req) || !jarray(c, root, "extensionsUsed", "", &used)) return false;
    uint32_t i = 0;
    for (const cJSON *e = req ? req->child : NULL; e; e = e->next, i++) {
        if (!cJSON_IsString(e)) return PARSE_ERR(c, "extensionsRequired[%u]: expected a string", i);
        if (!extension_supported(e->valuestring))
            return fail(c, ORR_ERROR_UNSUPPORTED, "extensionsRequired[%u]: required extension %s is not supported%s", i,
                        e->valuestring, unsupported_reason(e->valuestring));
        if (strcmp(e->valuestring, "KHR_mesh_quantization") == 0) c->quantization = true;
        int32_t dup = earlier_duplicate(req, e, i);
        if (dup >= 0) violation(c, "extensionsRequired[%u]: %s is listed twice (extensionsRequired[%d])", i, e->valuestring, dup);
    }
    ext_walk walk;
    check_extension_objects(c, used, &walk);
    i = 0;
    for (const cJSON *e = used ? used->child : NULL; e; e = e->next, i++) {
        if (!cJSON_IsString(e)) return PARSE_ERR(c, "extensionsUsed[%u]: expected a string", i);
        int32_t dup = earlier_duplicate(used, e, i);
        if (dup >= 0) violation(c, "extensionsUsed[%u]: %s is listed twice (extensionsUsed[%d])", i, e->valuestring, dup);
        else if (!extension_supported(e->valuestring) && !ext_warned(&walk, e->valuestring))
            warn(c, "extensionsUsed[%u]: extension %s is not supported, ignored", i, e->valuestring);
        /* KHR_mesh_quantization relaxes formats only when required (the extension says it must be) */
    }
    static const char *const root_known[] = {"asset", "extensionsRequired", "extensionsUsed", "buffers", "bufferViews",
                                             "accessors", "images", "samplers", "textures", "materials", "meshes",
                                             "cameras", "skins", "nodes", "scenes", "scene", "animations", NULL};
    check_keys(c, root, "", root_known);
    return true;
}

/* ---- buffers and views -------------------------------------------------------------------------- */

static bool open_buffer(pctx *c, uint32_t i);

/* Memory the document owns (decoded views and attributes), freed with it. */
static uint8_t *doc_block(pctx *c, size_t size)
{
    orri_gltf_doc *d = c->doc;
    if (d->block_count == d->block_cap) {
        uint32_t cap = d->block_cap ? d->block_cap * 2 : 8;
        struct orri_gltf_block *b = palloc(c, cap, sizeof *b);
        if (!b) return NULL;
        if (d->block_count) memcpy(b, d->blocks, (size_t)d->block_count * sizeof *b);
        orri_gltf_dealloc(&d->allocator, d->blocks, 0);
        d->blocks = b, d->block_cap = cap;
    }
    /* every byte is written by a decoder before it is read; no header, so the asset library can take
     * the block over as one of its streams */
    size_t bytes = size ? size : 1;
    uint8_t *p = d->allocator.realloc(d->allocator.user, NULL, 0, bytes);
    if (!p) {
        fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes of decoded data)", size);
        return NULL;
    }
    d->blocks[d->block_count++] = (struct orri_gltf_block){p, bytes, false};
    d->decoded_bytes += size;
    return p;
}

static struct orri_gltf_block *view_block(orri_gltf_doc *d, int32_t view)
{
    if (view < 0 || (uint32_t)view >= d->view_count || !d->views[view].block) return NULL;
    return &d->blocks[d->views[view].block - 1];
}

bool orri_gltf_lend_block(orri_gltf_doc *d, int32_t view, const void *data, size_t bytes)
{
    struct orri_gltf_block *b = view_block(d, view);
    if (!b || b->data != data || b->bytes != bytes || b->lent) return false;
    b->lent = true;
    return true;
}

void orri_gltf_unlend_block(orri_gltf_doc *d, int32_t view)
{
    struct orri_gltf_block *b = view_block(d, view);
    if (b) b->lent = false;
}

static const char *const meshopt_names[2] = {"EXT_meshopt_compression", "KHR_meshopt_compression"};

/* buffers[i].extensions.{EXT,KHR}_meshopt_compression.fallback */
static bool buffer_fallback(pctx *c, const cJSON *b, const char *path, bool *out)
{
    *out = false;
    const cJSON *ext;
    if (!jobject(c, b, "extensions", path, &ext)) return false;
    for (int k = 0; k < 2 && ext; k++) {
        const cJSON *mo;
        char ep[128];
        PATHF(c, ep, sizeof ep, "%s.extensions", path);
        if (!jobject(c, ext, meshopt_names[k], ep, &mo)) return false;
        if (!mo) continue;
        PATHF(c, ep, sizeof ep, "%s.extensions.%s", path, meshopt_names[k]);
        bool f;
        if (!jbool(c, mo, "fallback", ep, false, &f)) return false;
        *out = *out || f;
    }
    return true;
}

/* bufferViews[i].extensions.{EXT,KHR}_meshopt_compression: checked against the extension's rules and
 * queued for decoding (decode_views). *compressed = false when the view has neither. */
static bool parse_view_meshopt(pctx *c, const cJSON *v, const char *path, uint32_t index, uint64_t length,
                               int64_t stride, bool *compressed)
{
    orri_gltf_doc *d = c->doc;
    *compressed = false;
    const cJSON *ext, *mo = NULL;
    if (!jobject(c, v, "extensions", path, &ext)) return false;
    if (!ext) return true;
    int which = -1;
    char ep[128];
    PATHF(c, ep, sizeof ep, "%s.extensions", path);
    for (int k = 0; k < 2; k++) {
        const cJSON *j;
        if (!jobject(c, ext, meshopt_names[k], ep, &j)) return false;
        if (!j) continue;
        if (mo) return PARSE_ERR(c, "%s: both EXT_meshopt_compression and KHR_meshopt_compression", ep);
        mo = j, which = k;
    }
    if (!mo) return true;
    char mp[160];
    PATHF(c, mp, sizeof mp, "%s.%s", ep, meshopt_names[which]);
    int32_t src;
    int64_t off, len, mstride, count;
    const char *mode, *filter;
    if (!jrequired(c, mo, "buffer", mp) || !jref(c, mo, "buffer", mp, d->buffer_count, "buffers", &src) ||
        !jint(c, mo, "byteOffset", mp, 0, 0, INT64_C(1) << 53, &off) || !jrequired(c, mo, "byteLength", mp) ||
        !jint(c, mo, "byteLength", mp, 0, 1, INT64_C(1) << 53, &len) || !jrequired(c, mo, "byteStride", mp) ||
        !jint(c, mo, "byteStride", mp, 0, 1, 256, &mstride) || !jrequired(c, mo, "count", mp) ||
        !jint(c, mo, "count", mp, 0, 1, UINT32_MAX, &count) || !jrequired(c, mo, "mode", mp) ||
        !jstring(c, mo, "mode", mp, &mode) || !jstring(c, mo, "filter", mp, &filter))
        return false;
    static const char *const known[] = {"buffer", "byteOffset", "byteLength", "byteStride", "count", "mode", "filter", NULL};
    check_keys(c, mo, mp, known);
    orri_gltf_meshopt_view job = {.count = (uint32_t)count, .stride = (uint32_t)mstride, .view = index};
    if (mode && strcmp(mode, "ATTRIBUTES") == 0) job.mode = ORRI_MESHOPT_ATTRIBUTES;
    else if (mode && strcmp(mode, "TRIANGLES") == 0) job.mode = ORRI_MESHOPT_TRIANGLES;
    else if (mode && strcmp(mode, "INDICES") == 0) job.mode = ORRI_MESHOPT_INDICES;
    else return PARSE_ERR(c, "%s.mode: '%s' is not ATTRIBUTES, TRIANGLES or INDICES", mp, mode ? mode : "");
    if (!filter || strcmp(filter, "NONE") == 0) job.filter = ORRI_MESHOPT_FILTER_NONE;
    else if (strcmp(filter, "OCTAHEDRAL") == 0) job.filter = ORRI_MESHOPT_FILTER_OCTAHEDRAL;
    else if (strcmp(filter, "QUATERNION") == 0) job.filter = ORRI_MESHOPT_FILTER_QUATERNION;
    else if (strcmp(filter, "EXPONENTIAL") == 0) job.filter = ORRI_MESHOPT_FILTER_EXPONENTIAL;
    else if (which == 1 && strcmp(filter, "COLOR") == 0)
        return fail(c, ORR_ERROR_UNSUPPORTED, "%s.filter: COLOR is not supported (meshoptimizer %d.%d has no decoder for it)",
                    mp, MESHOPTIMIZER_VERSION_VALUE / 1000, MESHOPTIMIZER_VERSION_VALUE % 1000 / 10);
    else return PARSE_ERR(c, "%s.filter: '%s' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL", mp, filter);
    /* the extension's validity rules */
    if (stride && stride != mstride)
        return PARSE_ERR(c, "%s.byteStride: %lld, the bufferView's byteStride is %lld", mp, (long long)mstride, (long long)stride);
    if ((uint64_t)mstride * (uint64_t)count != length)
        return PARSE_ERR(c, "%s: count %lld x byteStride %lld is not the bufferView's byteLength %llu", mp, (long long)count,
                         (long long)mstride, (unsigned long long)length);
    if (job.mode == ORRI_MESHOPT_ATTRIBUTES && mstride % 4)
        return PARSE_ERR(c, "%s.byteStride: %lld is not a multiple of 4 (mode ATTRIBUTES)", mp, (long long)mstride);
    if (job.mode != ORRI_MESHOPT_ATTRIBUTES) {
        if (mstride != 2 && mstride != 4) return PARSE_ERR(c, "%s.byteStride: %lld, indices need 2 or 4", mp, (long long)mstride);
        if (job.mode == ORRI_MESHOPT_TRIANGLES && count % 3)
            return PARSE_ERR(c, "%s.count: %lld is not a multiple of 3 (mode TRIANGLES)", mp, (long long)count);
        if (job.filter != ORRI_MESHOPT_FILTER_NONE) return PARSE_ERR(c, "%s.filter: index modes take no filter", mp);
    }
    if (job.filter == ORRI_MESHOPT_FILTER_OCTAHEDRAL && mstride != 4 && mstride != 8)
        return PARSE_ERR(c, "%s.byteStride: %lld, OCTAHEDRAL needs 4 or 8", mp, (long long)mstride);
    if (job.filter == ORRI_MESHOPT_FILTER_QUATERNION && mstride != 8)
        return PARSE_ERR(c, "%s.byteStride: %lld, QUATERNION needs 8", mp, (long long)mstride);
    orri_gltf_buffer *sb = &d->buffers[src];
    if (sb->fallback)
        return PARSE_ERR(c, "%s.buffer: buffer %d is a fallback buffer, which compressed data may not come from", mp, src);
    if (sb->source >= 0 && !sb->data && !open_buffer(c, (uint32_t)src)) return false;
    if (!sb->data) return PARSE_ERR(c, "%s.buffer: buffer %d has no data (no uri and no GLB binary chunk)", mp, src);
    if ((uint64_t)off > sb->byte_length || (uint64_t)len > sb->byte_length - (uint64_t)off)
        return PARSE_ERR(c, "%s.byteLength: offset %lld + length %lld runs past buffer %d (%llu bytes)", mp, (long long)off,
                         (long long)len, src, (unsigned long long)sb->byte_length);
    /* what a stream of this size can decode to at most (version 0: a 2-bit header per 16 elements and
     * byte; triangles: a byte each; indices: a byte each): a small stream cannot ask for gigabytes */
    uint64_t most = job.mode == ORRI_MESHOPT_ATTRIBUTES ? (uint64_t)len * 64 + 8192
                  : job.mode == ORRI_MESHOPT_TRIANGLES ? (uint64_t)len * 3 * 4 : (uint64_t)len * 4;
    if (length > most)
        return PARSE_ERR(c, "%s: %llu compressed bytes cannot decode to the bufferView's %llu", mp, (unsigned long long)len,
                         (unsigned long long)length);
    job.src = sb->data + off;
    job.src_size = (size_t)len;
    if (!c->mo) {
        c->mo = palloc(c, d->view_count, sizeof *c->mo);
        if (!c->mo) return false;
    }
    c->mo[c->mo_n++] = job;
    *compressed = true;
    return true;
}

/* The views in the order they are decoded: largest first (ties in view order), so that a large index
 * view, whose codec runs on one thread, starts at once and the small ones fill the other threads. */
typedef struct meshopt_slot {
    uint64_t bytes;
    uint32_t view; /* into the queued views */
} meshopt_slot;

typedef struct meshopt_queue {
    orri_gltf_meshopt_view *views;
    meshopt_slot *order;
} meshopt_queue;

static int larger_first(const void *x, const void *y)
{
    const meshopt_slot *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->view < b->view ? -1 : a->view > b->view;
}

static void meshopt_job(void *ctx, uint32_t i)
{
    const meshopt_queue *q = ctx;
    orri_gltf_meshopt_decode(&q->views[q->order ? q->order[i].view : i]);
}

/* Where a compressed view decodes: in a block of its own, exactly its size, which the asset library can
 * take over instead of copying it (32-bit indices, and large attribute views of 4 or 8 bytes a vertex,
 * which may be packed positions or normals: orr_packed_stream), or in the one block the rest share. */
static bool own_block(const orri_gltf_meshopt_view *m)
{
    if (m->mode != ORRI_MESHOPT_ATTRIBUTES) return m->stride == 4;
    return (m->stride == 4 || m->stride == 8) && (uint64_t)m->count * m->stride >= ((uint64_t)1 << 20);
}

#define ORRI_LATE_BYTES ((uint64_t)4 << 20) /* an index view decodes beside the load from this size */

#define ORRI_TRI_PARALLEL (UINT32_C(1) << 17) /* a triangle view of this many indices decodes in parallel */

static bool parallel_triangles(const orri_gltf_meshopt_view *m)
{
    return m->mode == ORRI_MESHOPT_TRIANGLES && m->count >= ORRI_TRI_PARALLEL;
}

#define ORRI_VTX_PARALLEL ((uint64_t)1 << 20) /* an attribute view of this many bytes decodes in parallel */

static bool parallel_vertices(const orri_gltf_meshopt_view *m)
{
    return m->mode == ORRI_MESHOPT_ATTRIBUTES && (uint64_t)m->count * m->stride >= ORRI_VTX_PARALLEL;
}

/* Whether a queued view decodes beside the load: a large 32-bit index view that only primitives read. */
static bool decodes_late(const orri_gltf_meshopt_view *m, const uint8_t *index_only)
{
    return index_only && own_block(m) && index_only[m->view] && (uint64_t)m->count * 4 >= ORRI_LATE_BYTES;
}

/* A number member of a JSON object as an index, -1 when absent or not one (the JSON is not validated
 * yet where this is used: anything unexpected only leaves a view out). */
static int64_t index_of(const cJSON *v)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 4294967296.0)) return -1;
    int64_t i = (int64_t)v->valuedouble;
    return (double)i == v->valuedouble ? i : -1;
}

static int64_t jindex(const cJSON *o, const char *key) { return index_of(cJSON_GetObjectItemCaseSensitive(o, key)); }

/* Per bufferView: 1 when one accessor alone lies in it, a plain 32-bit one, and nothing reads that accessor
 * but primitives, as their indices (read from the JSON before it is validated). Such a view is read only when its meshes are
 * built, so it may decode beside the rest of the load. NULL when out of memory (failed). */
static void view_use(int32_t *owner, uint32_t views, int64_t v, int64_t accessor)
{
    if (v >= 0 && v < views) owner[v] = owner[v] == -1 && accessor >= 0 ? (int32_t)accessor : -2;
}

static uint8_t *index_only_views(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *root = d->json, *accs = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    int na = cJSON_GetArraySize(accs);
    int32_t *owner = palloc(c, d->view_count, sizeof *owner); /* accessor, -1 none, -2 more than one or other use */
    uint8_t *use = palloc(c, (size_t)na + 1, 1), *only = palloc(c, d->view_count, 1); /* 1 as indices, 2 otherwise */
    if (!owner || !use || !only) {
        orri_gltf_dealloc(&d->allocator, owner, 0), orri_gltf_dealloc(&d->allocator, use, 0);
        orri_gltf_dealloc(&d->allocator, only, 0);
        return NULL;
    }
    for (uint32_t v = 0; v < d->view_count; v++) owner[v] = -1;
#define VIEW_USE(I, A) view_use(owner, d->view_count, (I), (A))
#define ACC_USE(I, U) ((I) >= 0 && (I) < na ? (void)(use[(I)] |= (U)) : (void)0)
    int i = 0;
    for (const cJSON *a = accs ? accs->child : NULL; a; a = a->next, i++) {
        /* 32-bit, no declared bounds, no sparse part: what is checked later can refuse the file, never warn,
         * so the messages of a load do not depend on whether it waited */
        bool plain = jindex(a, "componentType") == ORRI_GLTF_UNSIGNED_INT && !cJSON_GetObjectItemCaseSensitive(a, "min") &&
                     !cJSON_GetObjectItemCaseSensitive(a, "max") && !cJSON_GetObjectItemCaseSensitive(a, "sparse");
        VIEW_USE(jindex(a, "bufferView"), plain ? i : -2);
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
        VIEW_USE(jindex(cJSON_GetObjectItemCaseSensitive(sp, "indices"), "bufferView"), -2);
        VIEW_USE(jindex(cJSON_GetObjectItemCaseSensitive(sp, "values"), "bufferView"), -2);
    }
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "images");
    for (const cJSON *im = arr ? arr->child : NULL; im; im = im->next) VIEW_USE(jindex(im, "bufferView"), -2);
    arr = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    for (const cJSON *m = arr ? arr->child : NULL; m; m = m->next) {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
        for (const cJSON *p = prims ? prims->child : NULL; p; p = p->next) {
            ACC_USE(jindex(p, "indices"), 1);
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            for (const cJSON *at = attrs ? attrs->child : NULL; at; at = at->next)
                ACC_USE(index_of(at), 2);
            const cJSON *tg = cJSON_GetObjectItemCaseSensitive(p, "targets");
            for (const cJSON *t = tg ? tg->child : NULL; t; t = t->next)
                for (const cJSON *at = t->child; at; at = at->next)
                    ACC_USE(index_of(at), 2);
            const cJSON *dr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "extensions"),
                                                               "KHR_draco_mesh_compression");
            VIEW_USE(jindex(dr, "bufferView"), -2);
        }
    }
    arr = cJSON_GetObjectItemCaseSensitive(root, "skins");
    for (const cJSON *sk = arr ? arr->child : NULL; sk; sk = sk->next) ACC_USE(jindex(sk, "inverseBindMatrices"), 2);
    arr = cJSON_GetObjectItemCaseSensitive(root, "animations");
    for (const cJSON *an = arr ? arr->child : NULL; an; an = an->next) {
        const cJSON *smp = cJSON_GetObjectItemCaseSensitive(an, "samplers");
        for (const cJSON *sm = smp ? smp->child : NULL; sm; sm = sm->next)
            ACC_USE(jindex(sm, "input"), 2), ACC_USE(jindex(sm, "output"), 2);
    }
    arr = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    for (const cJSON *n = arr ? arr->child : NULL; n; n = n->next) {
        const cJSON *inst = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(n, "extensions"),
                                                             "EXT_mesh_gpu_instancing");
        const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(inst, "attributes");
        for (const cJSON *at = attrs ? attrs->child : NULL; at; at = at->next)
            ACC_USE(index_of(at), 2);
    }
#undef VIEW_USE
#undef ACC_USE
    for (uint32_t v = 0; v < d->view_count; v++) only[v] = owner[v] >= 0 && use[owner[v]] == 1;
    orri_gltf_dealloc(&d->allocator, owner, 0), orri_gltf_dealloc(&d->allocator, use, 0);
    return only;
}

static bool meshopt_failed(pctx *c, const orri_gltf_meshopt_view *m)
{
    const cJSON *vj = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c->doc->json, "bufferViews"), (int)m->view);
    bool khr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(vj, "extensions"), meshopt_names[1]) != NULL;
    return fail(c, m->why == m->why_buf ? ORR_ERROR_UNSUPPORTED : ORR_ERROR_PARSE, "bufferViews[%u].extensions.%s: %s",
                m->view, meshopt_names[khr], m->why);
}

/* A decoded view's largest index, where its decoder found it. */
static void view_decoded(orri_gltf_doc *d, const orri_gltf_meshopt_view *m, bool ok)
{
    orri_gltf_view *v = &d->views[m->view];
    v->max_known = ok && m->max_known, v->max = m->max, v->max_size = m->stride;
}

static bool decoder_max(const orri_gltf_doc *d, const orri_gltf_accessor *a);
static void late_scan_spared(orri_gltf_doc *d);

static void late_decode(orri_gltf_doc *d)
{
    uint64_t t0 = orri_gltf_now_ns();
    for (uint32_t k = 0; k < d->late_n; k++) orri_gltf_meshopt_decode(&d->late[k]);
    d->late_ns = orri_gltf_now_ns() - t0;
}

/* What the late views' decoders found, into their views: once the parse is done with the views (it may
 * still replace the array while they decode, and reads them), so after late_go on the task. */
static void late_views_decoded(orri_gltf_doc *d)
{
    for (uint32_t k = 0; k < d->late_n; k++) view_decoded(d, &d->late[k], !d->late[k].why);
}

static struct scan_job *scan_jobs(orri_gltf_doc *d, bool late, uint32_t *count, uint64_t *values, bool *oom);
static bool scan_shares(uint32_t threads, uint32_t n, uint64_t values);
static void scan_run(struct scan_job *js, uint32_t n, uint32_t threads, orr_workers *workers);

/* The late views' task, a job of its own on the workers (orri_pool_spawn: not a thread beside them,
 * which would take turns with them for the cores): their decoding; then, once the parse has validated
 * the rest and made their accessors' scan jobs (late_go 1), those jobs run (scan_data's work, its
 * report left to orri_gltf_finish), beside the build instead of after it. late_go -1: nothing to scan.
 * The task allocates nothing: allocation stays on the caller's thread. */
static void late_main(void *arg, uint32_t index)
{
    (void)index;
    orri_gltf_doc *d = arg;
    late_decode(d);
    bool ok = true;
    for (uint32_t k = 0; k < d->late_n; k++) ok = ok && !d->late[k].why;
    pthread_mutex_lock(&d->late_lock);
    while (!d->late_go) pthread_cond_wait(&d->late_cond, &d->late_lock);
    bool go = d->late_go > 0;
    pthread_mutex_unlock(&d->late_lock);
    late_views_decoded(d);
    if (go && ok && d->late_scan) {
        late_scan_spared(d);
        scan_run(d->late_scan, d->late_scan_n, d->late_threads, d->late_workers);
    }
    d->late_scanned = go && ok && d->late_scan;
}

/* Lets the late thread scan (go 1: its jobs made here, on the caller's thread; without memory for them
 * orri_gltf_finish scans) or not (-1), once. */
static void late_release(orri_gltf_doc *d, int go)
{
    if (!d->late_started) return;
    pthread_mutex_lock(&d->late_lock);
    if (!d->late_go) {
        bool oom;
        uint64_t values;
        if (go > 0) d->late_scan = scan_jobs(d, true, &d->late_scan_n, &values, &oom);
        if (go > 0 && !scan_shares(d->late_threads, d->late_scan_n, values)) d->late_workers = NULL;
        d->late_go = go;
    }
    pthread_cond_signal(&d->late_cond);
    pthread_mutex_unlock(&d->late_lock);
}

static void late_join(orri_gltf_doc *d)
{
    late_release(d, -1); /* (when the parse never said go) */
    if (d->late_started && !d->late_joined) orri_pool_join(&d->late_task);
    d->late_joined = true;
}

/* A view's scratch as a part of the load's one block (decode_views): its bytes, a multiple of 64, and
 * with `at` its decoders' scratch carved there. */
static size_t carve_scratch(orri_gltf_meshopt_view *m, uint8_t *at)
{
    size_t tri = parallel_triangles(m) ? (orri_meshopt_tri_scratch_size(m->count, m->tri_chunks) + 63) & ~(size_t)63 : 0;
    size_t vtx = parallel_vertices(m) ? (orri_meshopt_vtx_scratch_size(m->src_size, m->count, m->stride) + 63) & ~(size_t)63 : 0;
    if (at) m->tri = tri ? (void *)at : NULL, m->vtx = vtx ? (void *)(at + tri) : NULL;
    return tri + vtx;
}

/* Decodes the compressed views queued by parse_view_meshopt, on the worker pool, largest first. With
 * `defer`, the large index views that nothing reads but the meshes' build (index_only_views) decode on a
 * thread of their own instead, beside the rest of the load, until orri_gltf_finish. The first failure in
 * view order is the one reported, whatever the thread count. */
static bool decode_views(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (!c->mo_n) return true;
    uint64_t total = 0, shared = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) {
        uint64_t bytes = (uint64_t)c->mo[k].count * c->mo[k].stride;
        total += bytes;
        if (!own_block(&c->mo[k])) shared += (bytes + 15) & ~UINT64_C(15);
    }
    if (total >= SIZE_MAX || shared >= SIZE_MAX)
        return fail(c, ORR_ERROR_OUT_OF_MEMORY, "bufferViews: %llu decoded bytes", (unsigned long long)total);
    uint8_t *block = shared ? doc_block(c, (size_t)shared) : NULL;
    if (shared && !block) return false;
    uint64_t at = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) {
        orri_gltf_meshopt_view *m = &c->mo[k];
        uint64_t bytes = (uint64_t)m->count * m->stride;
        if (own_block(m)) {
            m->dst = doc_block(c, (size_t)bytes);
            if (!m->dst) return false;
            d->views[m->view].block = d->block_count; /* its index + 1 */
        } else {
            m->dst = block + at;
            at += (bytes + 15) & ~UINT64_C(15);
        }
    }
    uint32_t threads = total >= (UINT64_C(1) << 20) ? c->threads : 1;
    /* the late ones: moved to the doc, the rest stay queued in view order */
    uint8_t *only = c->defer && threads > 1 && d->view_count ? index_only_views(c) : NULL;
    if (c->failed) return false;
    uint32_t late = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) late += decodes_late(&c->mo[k], only);
    if (late && !(d->late = palloc(c, late, sizeof *d->late))) {
        orri_gltf_dealloc(&d->allocator, only, 0);
        return false;
    }
    /* a large triangle or attribute view decodes on all of them, beside the others
     * (orri_meshopt_decode_triangles, orri_meshopt_decode_vertices), with scratch: a late one's its own,
     * freed with the doc; the others' one block (carved below) */
    for (uint32_t k = 0; threads > 1 && k < c->mo_n; k++) {
        orri_gltf_meshopt_view *m = &c->mo[k];
        if (!parallel_triangles(m) && !parallel_vertices(m)) continue;
        /* started here, on this thread; without them (the info pass) a view decodes on its job's thread,
         * not on threads * threads started ones */
        if (!(m->workers = orri_gltf_pool_get(d->pool))) continue;
        if (parallel_triangles(m)) m->tri_chunks = orri_meshopt_tri_chunks(m->count, threads, 0);
        m->threads = threads;
        if (late && decodes_late(m, only) && !(m->tri = palloc_scratch(c, orri_meshopt_tri_scratch_size(m->count, m->tri_chunks)))) {
            orri_gltf_dealloc(&d->allocator, only, 0);
            return false;
        }
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) {
        orri_gltf_meshopt_view *m = &c->mo[k];
        if (late && decodes_late(m, only)) {
            d->late[d->late_n++] = *m;
            d->views[m->view].data = m->dst; /* where it will be: read only after orri_gltf_finish */
            d->views[m->view].late = true;
        } else {
            c->mo[kept++] = *m;
        }
    }
    /* past `kept`: the late ones, whose scratch is the doc's now, and stale copies of kept ones moved down */
    for (uint32_t k = kept; k < c->mo_n; k++) c->mo[k].tri = NULL, c->mo[k].vtx = NULL;
    orri_gltf_dealloc(&d->allocator, only, 0);
    if (d->late_n) {
        d->late_threads = threads, d->late_workers = orri_gltf_pool_get(d->pool);
        if (d->late_workers && pthread_mutex_init(&d->late_lock, NULL) == 0) {
            if (pthread_cond_init(&d->late_cond, NULL) == 0) {
                orri_pool_spawn(d->late_workers, &d->late_task, late_main, d);
                d->late_started = true;
            } else {
                pthread_mutex_destroy(&d->late_lock);
            }
        }
    }
    c->deferred += d->late_n;
    if (d->late_n && !d->late_started) late_decode(d), late_views_decoded(d); /* no workers: now, on this thread */
    uint64_t t0 = orri_gltf_now_ns();
    meshopt_queue q = {c->mo, threads > 1 ? palloc(c, kept, sizeof(meshopt_slot)) : NULL}; /* none: view order */
    if (c->failed) return false;
    /* The kept views' scratch, one block for them all: as large as their decoded data's copy, a large
     * block that the default allocator keeps and hands to the next load, whose decoders then write pages
     * already mapped (scratch of its own, a view's would be a few MB, each load faulting in and zeroing
     * fresh pages: 1600 faults a load of a compressed 1M-vertex mesh on 16 threads). Nothing fails
     * between this and its free below. */
    uint64_t need = 0;
    for (uint32_t k = 0; k < kept; k++) need += c->mo[k].workers ? carve_scratch(&c->mo[k], NULL) : 0;
    uint8_t *scratch = need && need < SIZE_MAX - 64 ? orri_gltf_alloc_uninit(&d->allocator, (size_t)need + 64) : NULL;
    if (need && !scratch) {
        orri_gltf_dealloc(&d->allocator, q.order, 0);
        return fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%llu bytes of decoding scratch)", (unsigned long long)need);
    }
    uint8_t *next = scratch ? scratch + (-(uintptr_t)scratch & 63) : NULL; /* each part 64-byte aligned */
    for (uint32_t k = 0; next && k < kept; k++) next += c->mo[k].workers ? carve_scratch(&c->mo[k], next) : 0;
    for (uint32_t k = 0; q.order && k < kept; k++) q.order[k] = (meshopt_slot){(uint64_t)c->mo[k].count * c->mo[k].stride, k};
    if (q.order) qsort(q.order, kept, sizeof *q.order, larger_first);
    orri_gltf_run(d->pool, threads, kept, meshopt_job, &q);
    orri_gltf_dealloc(&d->allocator, q.order, 0);
    orri_gltf_dealloc(&d->allocator, scratch, 0);
    for (uint32_t k = 0; k < kept; k++) c->mo[k].tri = NULL, c->mo[k].vtx = NULL;
    c->decode_ns += orri_gltf_now_ns() - t0;
    for (uint32_t k = 0; k < kept; k++) {
        const orri_gltf_meshopt_view *m = &c->mo[k];
        if (m->why) return meshopt_failed(c, m);
        view_decoded(d, m, true);
        d->split_views += m->split;
        d->views[m->view].data = m->dst;
    }
    c->buffer_bytes += total;
    return true;
}

static bool parse_buffers(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "buffers", &arr, &d->buffer_count)) return false;
    d->buffers = palloc(c, d->buffer_count, sizeof *d->buffers);
    if (d->buffer_count && !d->buffers) return false;
    uint32_t i = 0;
    for (const cJSON *b = arr ? arr->child : NULL; b; b = b->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "buffers[%u]", i);
        orri_gltf_buffer *buf = &d->buffers[i];
        buf->source = -1;
        int64_t len;
        if (!jrequired(c, b, "byteLength", path) || !jint(c, b, "byteLength", path, 0, 1, INT64_C(1) << 53, &len))
            return false;
        buf->byte_length = (uint64_t)len;
        const char *uri;
        if (!jstring(c, b, "uri", path, &uri)) return false;
        static const char *const known[] = {"byteLength", "uri", NULL};
        check_keys(c, b, path, known);
        if (!buffer_fallback(c, b, path, &buf->fallback)) return false;
        if (buf->fallback) continue; /* never read: its views decode from compressed data */
        if (!uri) {
            if (c->is_glb && i == 0 && !c->glb_bin)
                return PARSE_ERR(c, "%s: refers to the GLB binary chunk, but the file has none", path);
            if (i != 0 || !c->glb_bin) {
                /* only an error once something reads it: checked after the accessors' layout */
                buf->missing = true;
                continue;
            }
            if (c->glb_bin_size < buf->byte_length)
                return PARSE_ERR(c, "%s.byteLength: %llu bytes but the GLB BIN chunk has %llu", path,
                                 (unsigned long long)buf->byte_length, (unsigned long long)c->glb_bin_size);
            if (c->glb_bin_size > buf->byte_length + 3)
                warn(c, "%s.byteLength: %llu, the GLB BIN chunk has %llu bytes", path, (unsigned long long)buf->byte_length,
                     (unsigned long long)c->glb_bin_size);
            buf->data = c->glb_bin;
            continue;
        }
        char upath[80];
        PATHF(c, upath, sizeof upath, "%s.uri", path);
        if (strncmp(uri, "data:", 5) == 0) {
            size_t n = 0;
            if (!decode_data_uri(c, uri, upath, false, &buf->owned, &n)) return false;
            buf->data = buf->owned;
            if (n < buf->byte_length)
                return PARSE_ERR(c, "%s.byteLength: %llu but the data has %zu bytes", path,
                                 (unsigned long long)buf->byte_length, n);
            if (n > buf->byte_length + 3)
                violation(c, "%s.byteLength: %llu but the data URI holds %zu bytes", path, (unsigned long long)buf->byte_length, n);
            continue;
        }
        if (strlen(uri) == 0) return PARSE_ERR(c, "%s: empty URI", upath);
        char full[2048];
        if (!uri_file_path(c, uri, upath, full, sizeof full)) return false;
        buf->source = source_intern(c, full, buf->byte_length, upath);
        if (buf->source < 0) return false;
    }
    return true;
}

/* An external buffer's file, opened when a buffer view first uses it (an unused one is never read;
 * each distinct file once, for the most any buffer naming it needs). */
static bool open_buffer(pctx *c, uint32_t i)
{
    orri_gltf_doc *d = c->doc;
    orri_gltf_buffer *buf = &d->buffers[i];
    orri_gltf_source *src = &d->sources[buf->source];
    char path[64];
    PATHF(c, path, sizeof path, "buffers[%u]", i);
    if (!source_open(d, src)) return fail(c, src->error.code, "%s.uri: %s", path, src->error.message);
    if (src->file.size < buf->byte_length)
        return PARSE_ERR(c, "%s.byteLength: %llu but '%s' has %zu bytes", path, (unsigned long long)buf->byte_length,
                         src->path, src->file.size);
    buf->data = src->file.data;
    return true;
}

static bool parse_views(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "bufferViews", &arr, &d->view_count)) return false;
    d->views = palloc(c, d->view_count, sizeof *d->views);
    if (d->view_count && !d->views) return false;
    uint32_t i = 0;
    for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "bufferViews[%u]", i);
        orri_gltf_view *view = &d->views[i];
        int32_t buffer;
        int64_t off, len, stride, target;
        if (!jrequired(c, v, "buffer", path) || !jref(c, v, "buffer", path, d->buffer_count, "buffers", &buffer) ||
            !jint(c, v, "byteOffset", path, 0, 0, INT64_C(1) << 53, &off) || !jrequired(c, v, "byteLength", path) ||
            !jint(c, v, "byteLength", path, 0, 1, INT64_C(1) << 53, &len) ||
            !jint(c, v, "byteStride", path, 0, 4, 252, &stride) || !jint(c, v, "target", path, 0, 0, INT32_MAX, &target))
            return false;
        static const char *const known[] = {"buffer", "byteOffset", "byteLength", "byteStride", "target", NULL};
        check_keys(c, v, path, known);
        orri_gltf_buffer *buf = &d->buffers[buffer];
        bool compressed;
        if (!parse_view_meshopt(c, v, path, i, (uint64_t)len, stride, &compressed)) return false;
        if (!compressed && buf->fallback)
            return PARSE_ERR(c, "%s.buffer: buffer %d is a meshopt fallback buffer; only compressed bufferViews may use it",
                             path, buffer);
        if (!compressed && buf->source >= 0 && !buf->data && !open_buffer(c, (uint32_t)buffer)) return false;
        if ((uint64_t)off > buf->byte_length || (uint64_t)len > buf->byte_length - (uint64_t)off)
            return PARSE_ERR(c, "%s.byteLength: offset %lld + length %lld runs past buffer %d (%llu bytes)", path,
                             (long long)off, (long long)len, buffer, (unsigned long long)buf->byte_length);
        if (stride && stride % 4 != 0) return PARSE_ERR(c, "%s.byteStride: %lld is not a multiple of 4", path, (long long)stride);
        if (stride > len)
            return PARSE_ERR(c, "%s.byteStride: %lld is larger than byteLength %lld", path, (long long)stride, (long long)len);
        if (target && target != 34962 && target != 34963) {
            violation(c, "%s.target: %lld is not a valid target, ignored", path, (long long)target);
            target = 0;
        }
        if (stride && target == 34963)
            return PARSE_ERR(c, "%s.byteStride: an index buffer view (target 34963) cannot have a stride", path);
        view->data = !compressed && buf->data ? buf->data + off : NULL; /* compressed: decode_views */
        view->buffer = (uint32_t)buffer;
        view->offset = (uint64_t)off;
        view->length = (uint64_t)len;
        view->stride = (uint32_t)stride;
        view->target = (uint32_t)target;
    }
    /* bytes that exist and are used (not a byteLength without data): what the view-less accessor cap weighs */
    for (uint32_t k = 0; k < d->buffer_count; k++)
        if (d->buffers[k].data) c->buffer_bytes += d->buffers[k].byte_length;
    return decode_views(c);
}

/* ---- accessors ---------------------------------------------------------------------------------- */

static uint32_t comp_size(uint32_t t)
{
    switch (t) {
    case ORRI_GLTF_BYTE:
    case ORRI_GLTF_UNSIGNED_BYTE: return 1;
    case ORRI_GLTF_SHORT:
    case ORRI_GLTF_UNSIGNED_SHORT: return 2;
    case ORRI_GLTF_UNSIGNED_INT:
    case ORRI_GLTF_FLOAT: return 4;
    default: return 0;
    }
}

static const char *comp_name(uint32_t t)
{
    switch (t) {
    case ORRI_GLTF_BYTE: return "BYTE";
    case ORRI_GLTF_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
    case ORRI_GLTF_SHORT: return "SHORT";
    case ORRI_GLTF_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
    case ORRI_GLTF_UNSIGNED_INT: return "UNSIGNED_INT";
    case ORRI_GLTF_FLOAT: return "FLOAT";
    default: return "?";
    }
}

static const char *const type_names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};

/* Where a sparse accessor's indices and values start (both validated against their views). */
static const uint8_t *sparse_indices(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    const orri_gltf_view *v = &d->views[a->sparse_indices_view];
    return v->data + a->sparse_indices_offset;
}

static const uint8_t *sparse_values(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    const orri_gltf_view *v = &d->views[a->sparse_values_view];
    return v->data + a->sparse_values_offset;
}

static const uint8_t *elem_ptr(const orri_gltf_doc *d, const orri_gltf_accessor *a, uint32_t i)
{
    const orri_gltf_view *v = &d->views[a->view];
    return v->data + a->offset + (uint64_t)i * a->stride;
}

/* A component's value as read: normalized integers mapped to [0, 1] or [-1, 1] (an order-keeping map) */
static double comp_value(double v, uint32_t type, bool normalized)
{
    if (!normalized) return v;
    switch (type) {
    case ORRI_GLTF_BYTE: return fmax(v / 127.0, -1.0);
    case ORRI_GLTF_UNSIGNED_BYTE: return v / 255.0;
    case ORRI_GLTF_SHORT: return fmax(v / 32767.0, -1.0);
    case ORRI_GLTF_UNSIGNED_SHORT: return v / 65535.0;
    case ORRI_GLTF_UNSIGNED_INT: return v / 4294967295.0;
    default: return v;
    }
}

static double read_comp(const uint8_t *p, uint32_t type, bool normalized)
{
    switch (type) {
    case ORRI_GLTF_BYTE: {
        int8_t v;
        memcpy(&v, p, 1);
        return comp_value(v, type, normalized);
    }
    case ORRI_GLTF_UNSIGNED_BYTE: return comp_value(p[0], type, normalized);
    case ORRI_GLTF_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return comp_value(v, type, normalized);
    }
    case ORRI_GLTF_UNSIGNED_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return comp_value(v, type, normalized);
    }
    case ORRI_GLTF_UNSIGNED_INT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return comp_value(v, type, normalized);
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static uint32_t read_uint(const uint8_t *p, uint32_t type)
{
    switch (type) {
    case ORRI_GLTF_UNSIGNED_BYTE:
    case ORRI_GLTF_BYTE: return p[0];
    case ORRI_GLTF_UNSIGNED_SHORT:
    case ORRI_GLTF_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ORRI_GLTF_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f >= 0 && f < 4294967295.0f ? (uint32_t)f : 0;
    }
    default: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

/* Byte offset of component k inside an element (matrix columns are padded to 4 bytes). */
static uint32_t comp_offset(const orri_gltf_accessor *a, uint32_t k)
{
    return (k / a->rows) * a->column_stride + (k % a->rows) * a->comp_size;
}

static bool parse_sparse(pctx *c, orri_gltf_accessor *a, const cJSON *sp, const char *apath)
{
    orri_gltf_doc *d = c->doc;
    char path[96];
    PATHF(c, path, sizeof path, "%s.sparse", apath);
    int64_t count;
    if (!jrequired(c, sp, "count", path) || !jint(c, sp, "count", path, 0, 1, a->count, &count)) return false;
    const cJSON *idx, *val;
    if (!jobject(c, sp, "indices", path, &idx) || !jobject(c, sp, "values", path, &val)) return false;
    if (!idx) return PARSE_ERR(c, "%s: required property 'indices' is missing", path);
    if (!val) return PARSE_ERR(c, "%s: required property 'values' is missing", path);
    char ip[128], vp[128];
    PATHF(c, ip, sizeof ip, "%s.indices", path);
    PATHF(c, vp, sizeof vp, "%s.values", path);
    int32_t iview, vview;
    int64_t ioff, voff, itype;
    if (!jrequired(c, idx, "bufferView", ip) || !jref(c, idx, "bufferView", ip, d->view_count, "bufferViews", &iview) ||
        !jint(c, idx, "byteOffset", ip, 0, 0, INT64_C(1) << 53, &ioff) || !jrequired(c, idx, "componentType", ip) ||
        !jint(c, idx, "componentType", ip, 0, 0, INT32_MAX, &itype) || !jrequired(c, val, "bufferView", vp) ||
        !jref(c, val, "bufferView", vp, d->view_count, "bufferViews", &vview) ||
        !jint(c, val, "byteOffset", vp, 0, 0, INT64_C(1) << 53, &voff))
        return false;
    if (itype != ORRI_GLTF_UNSIGNED_BYTE && itype != ORRI_GLTF_UNSIGNED_SHORT && itype != ORRI_GLTF_UNSIGNED_INT)
        return PARSE_ERR(c, "%s.componentType: %lld is not UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT", ip, (long long)itype);
    uint32_t isz = comp_size((uint32_t)itype);
    const orri_gltf_view *iv = &d->views[iview], *vv = &d->views[vview];
    if ((uint64_t)ioff % isz || (iv->offset + (uint64_t)ioff) % isz)
        return PARSE_ERR(c, "%s.byteOffset: %lld is not aligned to %u bytes", ip, (long long)ioff, isz);
    if ((uint64_t)ioff + (uint64_t)count * isz > iv->length)
        return PARSE_ERR(c, "%s: %lld indices at offset %lld run past bufferView %d (%llu bytes)", ip, (long long)count,
                         (long long)ioff, iview, (unsigned long long)iv->length);
    if ((uint64_t)voff % a->comp_size || (vv->offset + (uint64_t)voff) % a->comp_size)
        return PARSE_ERR(c, "%s.byteOffset: %lld is not aligned to %u bytes", vp, (long long)voff, a->comp_size);
    if ((uint64_t)voff + (uint64_t)count * a->elem_size > vv->length)
        return PARSE_ERR(c, "%s: %lld values at offset %lld run past bufferView %d (%llu bytes)", vp, (long long)count,
                         (long long)voff, vview, (unsigned long long)vv->length);
    a->sparse_count = (uint32_t)count;
    a->sparse_indices_view = iview;
    a->sparse_indices_offset = (uint64_t)ioff;
    a->sparse_indices_type = (uint32_t)itype;
    a->sparse_values_view = vview;
    a->sparse_values_offset = (uint64_t)voff;
    return true;
}

static bool check_sparse_indices(pctx *c, const orri_gltf_accessor *a, uint32_t index)
{
    orri_gltf_doc *d = c->doc;
    uint32_t isz = comp_size(a->sparse_indices_type);
    /* indices strictly increasing and inside the accessor */
    const uint8_t *ip0 = sparse_indices(d, a);
    uint64_t prev = 0;
    for (uint32_t k = 0; k < a->sparse_count; k++) {
        uint32_t v = read_uint(ip0 + (size_t)k * isz, a->sparse_indices_type);
        if (v >= a->count)
            return PARSE_ERR(c, "accessors[%u].sparse.indices: index %u is %u, the accessor has %u elements", index, k, v, a->count);
        if (k > 0 && v <= prev) return PARSE_ERR(c, "accessors[%u].sparse.indices: index %u (%u) does not increase", index, k, v);
        prev = v;
    }
    return true;
}

static bool float_error(pctx *c, const char *what, uint32_t index, uint32_t i, uint32_t k, float f)
{
    return PARSE_ERR(c, "accessors[%u]%s: element %u component %u is %s", index, what, i, k,
                     isnan(f) ? "NaN" : (f > 0 ? "Infinity" : "-Infinity"));
}

/* NaN and infinity refuse the file; min/max that disagree with the data only warn. Tightly packed
 * data (the common case, and the large one) takes a branch-free pass. */
static bool scan_floats(pctx *c, const orri_gltf_accessor *a, uint32_t index)
{
    orri_gltf_doc *d = c->doc;
    double mn[16], mx[16];
    for (uint32_t k = 0; k < 16; k++) mn[k] = INFINITY, mx[k] = -INFINITY;
    /* Draco quantizes: its decoded values need not match the bounds written from the originals */
    bool want_bounds = (a->has_min || a->has_max) && !a->sparse_count && a->draco_view < 0;
    if (a->view >= 0) {
        const uint8_t *base = elem_ptr(d, a, 0);
        bool packed = a->columns == 1 && a->stride == a->elem_size;
        uint32_t bad = 1;
        if (packed) {
            /* exponent all ones (NaN, inf) <=> (w & 0x7f800000) + 0x00800000 reaches bit 31; two
             * floats per 64-bit word, no carry crosses between them */
            size_t n = (size_t)a->count * a->components, i = 0;
            uint64_t acc = 0;
            for (; i + 2 <= n; i += 2) {
                uint64_t w;
                memcpy(&w, base + i * 4, 8);
                acc |= (w & UINT64_C(0x7f8000007f800000)) + UINT64_C(0x0080000000800000);
            }
            for (; i < n; i++) {
                uint32_t w;
                memcpy(&w, base + i * 4, 4);
                acc |= (w & 0x7f800000u) + 0x00800000u;
            }
            bad = (acc & UINT64_C(0x8000000080000000)) != 0;
            if (!bad && want_bounds) {
                float fmn[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, fmx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
                uint32_t nc = a->components;
#define ORRI_MINMAX(NC)                                                                                    \
    for (uint32_t e = 0; e < a->count; e++) {                                                              \
        float f[NC];                                                                                       \
        memcpy(f, base + (size_t)e * (NC) * 4, (NC) * 4);                                                  \
        for (uint32_t k = 0; k < (NC); k++) fmn[k] = f[k] < fmn[k] ? f[k] : fmn[k], fmx[k] = f[k] > fmx[k] ? f[k] : fmx[k]; \
    }
                if (nc == 3) { ORRI_MINMAX(3) }
                else if (nc == 2) { ORRI_MINMAX(2) }
                else if (nc == 4) { ORRI_MINMAX(4) }
                else { ORRI_MINMAX(1) }
#undef ORRI_MINMAX
                for (uint32_t k = 0; k < nc; k++) mn[k] = fmn[k], mx[k] = fmx[k];
            }
        }
        if (bad) { /* strided, matrix, or a bad value to name */
            for (uint32_t i = 0; i < a->count; i++) {
                const uint8_t *p = elem_ptr(d, a, i);
                for (uint32_t k = 0; k < a->components; k++) {
                    float f;
                    memcpy(&f, p + comp_offset(a, k), 4);
                    if (!isfinite(f)) return float_error(c, "", index, i, k, f);
                    if (f < mn[k]) mn[k] = f;
                    if (f > mx[k]) mx[k] = f;
                }
            }
        }
    } else {
        for (uint32_t k = 0; k < a->components; k++) mn[k] = mx[k] = 0.0;
    }
    if (a->sparse_count) {
        const uint8_t *base = sparse_values(d, a);
        for (uint32_t i = 0; i < a->sparse_count; i++) {
            for (uint32_t k = 0; k < a->components; k++) {
                float f;
                memcpy(&f, base + (size_t)i * a->elem_size + comp_offset(a, k), 4);
                if (!isfinite(f)) return float_error(c, ".sparse.values", index, i, k, f);
            }
        }
        return true; /* min/max over sparse data are not compared */
    }
    if (!want_bounds || a->components > 4 || a->columns > 1) return true;
    for (uint32_t k = 0; k < a->components; k++) {
        if ((a->has_min && (float)a->min[k] != (float)mn[k]) || (a->has_max && (float)a->max[k] != (float)mx[k])) {
            minmax_report(a)(c, "accessors[%u]: declared min/max disagree with the data (component %u: data %g..%g)", index, k,
                 mn[k], mx[k]);
            break;
        }
    }
    return true;
}



/* accessors[i].min / .max: read when present; a list of the wrong length is only untidy (a warning,
 * and the bound is ignored), anything else that is not numbers is refused. */
static bool accessor_bound(pctx *c, const cJSON *j, const char *key, const char *path, uint32_t components,
                           double *out, bool *present)
{
    if (jnums(c, j, key, path, components, out, present)) return true;
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, key))) return false;
    c->failed = false;
    if (c->err) c->err->code = ORR_OK;
    violation(c, "%s.%s: expected %u numbers, ignored", path, key, components);
    *present = false;
    return true;
}
/* ---- KHR_draco_mesh_compression ---------------------------------------------------------------- */

/* Accessors named by a Draco primitive get their data from the decoder (parse_draco), so the cap on
 * view-less accessors does not apply to them. A first look at the JSON only: parse_primitive checks it. */
static void mark_draco_targets(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    for (uint32_t i = 0; i < d->accessor_count; i++) d->accessors[i].draco_view = d->accessors[i].draco_id = -1;
#ifdef ORRI_HAVE_DRACO
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(d->json, "meshes");
    for (const cJSON *m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next) {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
        for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next) {
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p, "extensions");
            if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ext, "KHR_draco_mesh_compression"))) continue;
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            const cJSON *refs[2] = {cJSON_IsObject(attrs) ? attrs->child : NULL, cJSON_GetObjectItemCaseSensitive(p, "indices")};
            for (const cJSON *a = refs[0]; a; a = a->next)
                if (cJSON_IsNumber(a) && a->valuedouble >= 0 && a->valuedouble < d->accessor_count)
                    d->accessors[(uint32_t)a->valuedouble].draco_target = true;
            if (cJSON_IsNumber(refs[1]) && refs[1]->valuedouble >= 0 && refs[1]->valuedouble < d->accessor_count)
                d->accessors[(uint32_t)refs[1]->valuedouble].draco_target = true;
        }
    }
#endif
}

/* ---- the accessors' data, scanned on the worker pool ------------------------------------------- */

/* One range of one accessor's elements (a vector of at most 4 components with no sparse part): whether
 * a float in it is NaN or infinite, and each component's extremes in the component's own type (as
 * doubles, the raw values read_comp gives). A job writes only its own record. */
typedef struct scan_job {
    const orri_gltf_doc *doc;
    uint32_t accessor, first, count;
    bool bad;
    double mn[4], mx[4];
} scan_job;

#define ORRI_SCAN_JOB_ELEMENTS (1u << 14) /* small enough to share out among threads as they come free */
#define ORRI_SCAN_SHARED_VALUES (UINT64_C(1) << 20) /* from which the scan runs on the pool */

static bool scannable(const orri_gltf_accessor *a)
{
    return a->view >= 0 && !a->sparse_count && a->columns == 1 && a->components <= 4 && a->count;
}

/* Indices whose largest value the triangle decoder found (orri_meshopt_tri_desc.max): the accessor is the
 * whole decoded view, element for element, and declares no bounds to compare; it is not scanned. */
static bool decoder_max(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    if (a->view < 0 || a->sparse_count || a->components != 1 || a->has_min || a->has_max || a->offset != 0) return false;
    const orri_gltf_view *v = &d->views[a->view];
    return v->max_known && (a->component_type == ORRI_GLTF_UNSIGNED_SHORT || a->component_type == ORRI_GLTF_UNSIGNED_INT) &&
           a->comp_size == v->max_size && a->stride == a->comp_size && (uint64_t)a->count * a->comp_size == v->length;
}

/* exponent all ones (NaN, infinity) <=> (w & 0x7f800000) + 0x00800000 reaches bit 31 */
#define ORRI_SCAN_FLOAT_BAD                                                                                \
    {                                                                                                      \
        uint32_t w;                                                                                        \
        memcpy(&w, &v[k], 4);                                                                              \
        acc |= (w & 0x7f800000u) + 0x00800000u;                                                            \
    }
#define ORRI_SCAN_LOOP(T, NC, BAD, STRIDE)                                                                 \
    for (uint32_t e = 0; e < j->count; e++) {                                                              \
        T v[NC];                                                                                           \
        memcpy(v, base + (size_t)e * (STRIDE), sizeof v);                                                  \
        for (uint32_t k = 0; k < (NC); k++) {                                                              \
            BAD;                                                                                           \
            lo[k] = v[k] < lo[k] ? v[k] : lo[k], hi[k] = v[k] > hi[k] ? v[k] : hi[k];                      \
        }                                                                                                  \
    }
#define ORRI_SCAN(T, NC, BAD)                                                                              \
    {                                                                                                      \
        T lo[NC], hi[NC];                                                                                  \
        uint32_t acc = 0;                                                                                  \
        memcpy(lo, base, sizeof lo);                                                                       \
        memcpy(hi, base, sizeof hi);                                                                       \
        if (a->stride == sizeof lo) /* packed: a constant stride, which the compiler vectorizes */         \
            ORRI_SCAN_LOOP(T, NC, BAD, sizeof lo)                                                          \
        else                                                                                               \
            ORRI_SCAN_LOOP(T, NC, BAD, a->stride)                                                          \
        j->bad = (acc & 0x80000000u) != 0;                                                                 \
        for (uint32_t k = 0; k < (NC); k++) j->mn[k] = lo[k], j->mx[k] = hi[k];                            \
    }
#define ORRI_SCAN_NC(T, BAD)                                                                               \
    switch (a->components) {                                                                               \
    case 1: ORRI_SCAN(T, 1, BAD) break;                                                                    \
    case 2: ORRI_SCAN(T, 2, BAD) break;                                                                    \
    case 3: ORRI_SCAN(T, 3, BAD) break;                                                                    \
    default: ORRI_SCAN(T, 4, BAD) break;                                                                   \
    }
/* Integer vectors of 3 padded to 4 (quantized positions and normals: a stride of 4 components) are
 * scanned as one array of T in steps of 64 bytes, lane k of the extremes holding component k % 4: a
 * loop of whole vectors, which the compiler vectorizes (a loop over elements, extremes per component,
 * it does not); the lanes of a component are combined at the end, the fourth's dropped. Not the
 * accessor's last element, whose padding may lie past the end of its view: it is read alone. */
#define ORRI_SCAN_INT(T)                                                                                   \
    if (a->components == 3 && a->stride == 4 * sizeof(T)) {                                               \
        enum { LANES = 64 / sizeof(T), PER = LANES / 4 };                                                  \
        uint32_t padded = j->count - (j->first + j->count == a->count), steps = padded / PER;              \
        T lo[LANES], hi[LANES], v[LANES], e3[3];                                                           \
        memcpy(e3, base, sizeof e3);                                                                       \
        for (uint32_t k = 0; k < LANES; k++) lo[k] = hi[k] = e3[k % 4 < 3 ? k % 4 : 0];                    \
        for (uint32_t s = 0; s < steps; s++) {                                                             \
            memcpy(v, base + (size_t)s * sizeof v, sizeof v);                                              \
            for (uint32_t k = 0; k < LANES; k++)                                                           \
                lo[k] = v[k] < lo[k] ? v[k] : lo[k], hi[k] = v[k] > hi[k] ? v[k] : hi[k];                  \
        }                                                                                                  \
        for (uint32_t e = steps * PER; e < j->count; e++) { /* the rest, and the last element's 3 */       \
            memcpy(e3, base + (size_t)e * 4 * sizeof(T), sizeof e3);                                       \
            for (uint32_t k = 0; k < 3; k++)                                                               \
                lo[k] = e3[k] < lo[k] ? e3[k] : lo[k], hi[k] = e3[k] > hi[k] ? e3[k] : hi[k];              \
        }                                                                                                  \
        for (uint32_t k = 4; k < LANES; k++)                                                               \
            if (k % 4 < 3)                                                                                 \
                lo[k % 4] = lo[k] < lo[k % 4] ? lo[k] : lo[k % 4], hi[k % 4] = hi[k] > hi[k % 4] ? hi[k] : hi[k % 4]; \
        j->bad = false;                                                                                    \
        for (uint32_t k = 0; k < 3; k++) j->mn[k] = lo[k], j->mx[k] = hi[k];                               \
    } else {                                                                                               \
        ORRI_SCAN_NC(T, (void)0)                                                                           \
    }

ORRI_WIDE static void scan_job_run(void *ctx, uint32_t i)
{
    scan_job *j = &((scan_job *)ctx)[i];
    const orri_gltf_accessor *a = &j->doc->accessors[j->accessor];
    const uint8_t *base = elem_ptr(j->doc, a, j->first);
    switch (a->component_type) {
    case ORRI_GLTF_FLOAT: ORRI_SCAN_NC(float, ORRI_SCAN_FLOAT_BAD) break;
    case ORRI_GLTF_BYTE: ORRI_SCAN_INT(int8_t) break;
    case ORRI_GLTF_UNSIGNED_BYTE: ORRI_SCAN_INT(uint8_t) break;
    case ORRI_GLTF_SHORT: ORRI_SCAN_INT(int16_t) break;
    case ORRI_GLTF_UNSIGNED_SHORT: ORRI_SCAN_INT(uint16_t) break;
    default: ORRI_SCAN_INT(uint32_t) break;
    }
}
#undef ORRI_SCAN_INT
#undef ORRI_SCAN_NC
#undef ORRI_SCAN
#undef ORRI_SCAN_LOOP
#undef ORRI_SCAN_FLOAT_BAD

/* Every accessor's data (with `late`, only those in views decoded beside the load): sparse indices checked; floats refused when NaN or infinite; declared min/max
 * compared (a warning); an unsigned integer accessor's largest value kept for the index and joint checks.
 * The vectors, the bulk of a file, are scanned in ranges on the worker pool; what is found is reported
 * afterwards in accessor order, so the first failure and the warnings are the same at any thread count. */
static bool on_late_view(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    return a->view >= 0 && (uint32_t)a->view < d->view_count && d->views[a->view].late;
}

/* Whether what the scan finds in the accessor's data is used: floats are checked; declared bounds
 * compared; an unsigned, not normalized accessor's largest value may be wanted by the index and joint
 * checks. Of other integers (quantized normals, tangents, texture coordinates: a third of a compressed
 * mesh's bytes) it would find only extremes, and those only a POSITION accessor uses (its box), which
 * the spec requires to declare its bounds (without them its box is found from the positions). */
static bool scan_wanted(const orri_gltf_accessor *a)
{
    return a->component_type == ORRI_GLTF_FLOAT || a->has_min || a->has_max ||
           (!a->normalized && (a->component_type == ORRI_GLTF_UNSIGNED_BYTE || a->component_type == ORRI_GLTF_UNSIGNED_SHORT ||
                               a->component_type == ORRI_GLTF_UNSIGNED_INT));
}

/* Whether the scan (with `late`, the late one) reads the accessor's data in ranges. */
static bool scanned_in(const orri_gltf_doc *d, const orri_gltf_accessor *a, bool late)
{
    return scannable(a) && scan_wanted(a) && !decoder_max(d, a) && on_late_view(d, a) == late;
}

/* The scan's jobs (NULL with *count 0 when there are none, or too many, or no memory for them: *oom),
 * and how many values they read. */
static scan_job *scan_jobs(orri_gltf_doc *d, bool late, uint32_t *count, uint64_t *values, bool *oom)
{
    uint64_t jobs = 0;
    *count = 0, *values = 0, *oom = false;
    for (uint32_t i = 0; i < d->accessor_count; i++) {
        const orri_gltf_accessor *a = &d->accessors[i];
        if (!scanned_in(d, a, late)) continue;
        jobs += ((uint64_t)a->count + ORRI_SCAN_JOB_ELEMENTS - 1) / ORRI_SCAN_JOB_ELEMENTS; /* 64 bits: counts near 2^32 */
        *values += (uint64_t)a->count * a->components;
    }
    scan_job *js = jobs && jobs <= UINT32_MAX && jobs <= SIZE_MAX / sizeof *js ? orri_gltf_alloc(&d->allocator, (size_t)jobs * sizeof *js) : NULL;
    if (!js) {
        *oom = jobs != 0;
        return NULL;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->accessor_count; i++) {
        const orri_gltf_accessor *a = &d->accessors[i];
        for (uint64_t first = 0; scanned_in(d, a, late) && first < a->count; first += ORRI_SCAN_JOB_ELEMENTS) {
            uint64_t left = a->count - first;
            js[n++] = (scan_job){.doc = d, .accessor = i, .first = (uint32_t)first,
                                 .count = (uint32_t)(left < ORRI_SCAN_JOB_ELEMENTS ? left : ORRI_SCAN_JOB_ELEMENTS)};
        }
    }
    *count = n;
    return js;
}

/* The late scan's jobs, made before the late views' decode ended, less those it spared (decoder_max). */
static void late_scan_spared(orri_gltf_doc *d)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < d->late_scan_n; k++)
        if (!decoder_max(d, &d->accessors[d->late_scan[k].accessor])) d->late_scan[n++] = d->late_scan[k];
    d->late_scan_n = n;
}

/* Whether n jobs reading `values` values are worth sharing out on `threads`. */
static bool scan_shares(uint32_t threads, uint32_t n, uint64_t values)
{
    return threads > 1 && n > 1 && values >= ORRI_SCAN_SHARED_VALUES;
}

/* Runs them on `workers`, up to `threads` (NULL: this thread alone). */
static void scan_run(scan_job *js, uint32_t n, uint32_t threads, orr_workers *workers)
{
    orri_pool_run(workers, workers ? threads : 1, n, scan_job_run, js);
}

static bool scan_data(pctx *c, bool late)
{
    orri_gltf_doc *d = c->doc;
    scan_job *js;
    uint32_t jobs;
    if (late && d->late_scanned) { /* scanned on the late views' thread */
        js = d->late_scan, jobs = d->late_scan_n;
        d->late_scan = NULL, d->late_scan_n = 0, d->late_scanned = false;
    } else {
        bool oom;
        uint64_t values;
        js = scan_jobs(d, late, &jobs, &values, &oom);
        if (oom) return fail(c, ORR_ERROR_OUT_OF_MEMORY, "accessors: out of memory scanning them");
        /* the pool only when the scan shares its work: a small load starts no threads */
        scan_run(js, jobs, c->threads, scan_shares(c->threads, jobs, values) ? orri_gltf_pool_get(d->pool) : NULL);
    }
    bool ok = true;
    uint32_t n = 0;
    for (uint32_t i = 0; ok && i < d->accessor_count; i++) {
        orri_gltf_accessor *a = &d->accessors[i];
        if (on_late_view(d, a) != late) continue; /* scanned by the other pass */
        if (a->sparse_count && !check_sparse_indices(c, a, i)) {
            ok = false;
            break;
        }
        if (decoder_max(d, a)) {
            a->max_known = true, a->max_uint = d->views[a->view].max;
            continue;
        }
        if (!scan_wanted(a)) continue;
        if (!scannable(a)) { /* sparse, matrices, no view: read element by element */
            if (a->component_type == ORRI_GLTF_FLOAT) ok = scan_floats(c, a, i);
            continue;
        }
        bool bad = false;
        double mn[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, mx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
        for (; n < jobs && js[n].accessor == i; n++) {
            bad = bad || js[n].bad;
            for (uint32_t k = 0; k < a->components; k++)
                mn[k] = js[n].mn[k] < mn[k] ? js[n].mn[k] : mn[k], mx[k] = js[n].mx[k] > mx[k] ? js[n].mx[k] : mx[k];
        }
        bool is_float = a->component_type == ORRI_GLTF_FLOAT;
        if (is_float && bad) { /* the element-by-element scan names the first bad value */
            ok = scan_floats(c, a, i);
            continue;
        }
        if (!is_float && a->component_type != ORRI_GLTF_BYTE && a->component_type != ORRI_GLTF_SHORT) {
            double top = mx[0];
            for (uint32_t k = 1; k < a->components; k++) top = mx[k] > top ? mx[k] : top;
            a->max_known = true, a->max_uint = (uint32_t)top;
        }
        a->range_known = a->components <= 4;
        for (uint32_t k = 0; a->range_known && k < a->components; k++) a->range_min[k] = mn[k], a->range_max[k] = mx[k];
        /* Draco quantizes: its decoded values need not match the bounds written from the originals */
        if (!(a->has_min || a->has_max) || a->draco_view >= 0) continue;
        for (uint32_t k = 0; k < a->components; k++) {
            bool differ = is_float ? (a->has_min && (float)a->min[k] != (float)mn[k]) || (a->has_max && (float)a->max[k] != (float)mx[k])
                                   : (a->has_min && a->min[k] != mn[k]) || (a->has_max && a->max[k] != mx[k]);
            if (differ) {
                minmax_report(a)(c, "accessors[%u]: declared min/max disagree with the data (component %u: data %g..%g)", i, k,
                     mn[k], mx[k]);
                break;
            }
        }
    }
    orri_gltf_dealloc(&d->allocator, js, 0);
    return ok;
}

#ifdef ORRI_HAVE_DRACO
/* A decoded stream becomes the accessor's data: a view of its own (beyond the file's views), packed. */
static bool draco_attach(pctx *c, uint32_t acc, const uint8_t *data, uint64_t size, int32_t view, int32_t id)
{
    orri_gltf_doc *d = c->doc;
    if (d->view_count + d->view_extra >= d->view_cap) { /* 0 until the first: the file's views fill theirs */
        uint32_t cap = d->view_cap ? d->view_cap * 2 : d->view_count + 8;
        orri_gltf_view *nv = palloc(c, cap, sizeof *nv);
        if (!nv) return false;
        if (d->view_count + d->view_extra) memcpy(nv, d->views, (size_t)(d->view_count + d->view_extra) * sizeof *nv);
        orri_gltf_dealloc(&d->allocator, d->views, 0);
        d->views = nv, d->view_cap = cap;
    }
    uint32_t vi = d->view_count + d->view_extra++;
    d->views[vi] = (orri_gltf_view){.data = data, .buffer = 0, .offset = 0, .length = size};
    orri_gltf_accessor *a = &d->accessors[acc];
    a->view = (int32_t)vi, a->offset = 0, a->stride = a->elem_size;
    a->sparse_count = 0; /* the decoder's output is the data (a Draco accessor has no sparse part) */
    a->max_known = a->range_known = false;
    a->draco_view = view, a->draco_id = id;
    return true;
}

/* primitives[k].extensions.KHR_draco_mesh_compression: decodes the stream and points the primitive's
 * accessors (every attribute the extension lists, and the indices) at the decoded data, converted to
 * the accessor's format. Counts must be what the decoder produced. An accessor already decoded from
 * the same stream and attribute (meshes sharing a primitive) is kept. */
static bool parse_draco(pctx *c, const cJSON *prim, const cJSON *dj, const char *path)
{
    orri_gltf_doc *d = c->doc;
    char dp[240];
    PATHF(c, dp, sizeof dp, "%s.extensions.KHR_draco_mesh_compression", path);
    int32_t view;
    const cJSON *dattrs, *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    if (!jrequired(c, dj, "bufferView", dp) || !jref(c, dj, "bufferView", dp, d->view_count, "bufferViews", &view) ||
        !jrequired(c, dj, "attributes", dp) || !jobject(c, dj, "attributes", dp, &dattrs))
        return false;
    static const char *const known[] = {"bufferView", "attributes", NULL};
    check_keys(c, dj, dp, known);
    int32_t indices;
    if (!jref(c, prim, "indices", path, d->accessor_count, "accessors", &indices)) return false;
    /* all done already (a second primitive naming the same data)? */
    bool todo = indices >= 0 && d->accessors[indices].draco_view != view;
    for (const cJSON *a = dattrs->child; a && !todo; a = a->next) {
        const cJSON *pa = cJSON_GetObjectItemCaseSensitive(attrs, a->string);
        todo = !cJSON_IsNumber(pa) || pa->valuedouble < 0 || pa->valuedouble >= d->accessor_count ||
               d->accessors[(uint32_t)pa->valuedouble].draco_view != view ||
               !cJSON_IsNumber(a) || d->accessors[(uint32_t)pa->valuedouble].draco_id != (int32_t)a->valuedouble;
    }
    if (!todo) return true;
    const orri_gltf_view *v = &d->views[view];
    if (!v->data) return PARSE_ERR(c, "%s.bufferView: bufferView %d has no data", dp, view);
    char why[160] = "";
    orri_draco *dm = orri_draco_decode(v->data, (size_t)v->length, why, sizeof why);
    if (!dm) return PARSE_ERR(c, "%s: bufferView %d does not decode: %s", dp, view, why);
    bool ok = true;
    uint32_t points = orri_draco_points(dm);
    uint64_t faces = orri_draco_faces(dm);
    if (indices >= 0) {
        orri_gltf_accessor *ia = &d->accessors[indices];
        char ip[260];
        PATHF(c, ip, sizeof ip, "%s.indices", path);
        if (ia->type != ORRI_GLTF_SCALAR || (ia->component_type != ORRI_GLTF_UNSIGNED_BYTE &&
                                             ia->component_type != ORRI_GLTF_UNSIGNED_SHORT &&
                                             ia->component_type != ORRI_GLTF_UNSIGNED_INT))
            ok = PARSE_ERR(c, "%s: accessor %d is not SCALAR unsigned integers", ip, indices);
        else if ((uint64_t)ia->count != faces * 3)
            ok = PARSE_ERR(c, "%s: accessor %d has %u elements, the Draco stream %llu faces (%llu indices)", ip, indices,
                           ia->count, (unsigned long long)faces, (unsigned long long)faces * 3);
        uint8_t *out = ok ? doc_block(c, (size_t)ia->count * ia->comp_size) : NULL;
        if (ok && !out) ok = false;
        if (ok && !orri_draco_indices(dm, ia->component_type, out))
            ok = PARSE_ERR(c, "%s: the Draco stream's indices do not fit accessor %d's %s", ip, indices,
                           ia->component_type == ORRI_GLTF_UNSIGNED_INT ? "range" : "component type");
        if (ok) ok = draco_attach(c, (uint32_t)indices, out, (uint64_t)ia->count * ia->comp_size, view, -1);
    } else if (faces) {
        warn(c, "%s: the Draco stream has %llu faces but the primitive no indices; drawn as points in order", dp,
             (unsigned long long)faces);
    }
    for (const cJSON *a = dattrs->child; a && ok; a = a->next) {
        char ap[300];
        PATHF(c, ap, sizeof ap, "%s.attributes.%s", dp, a->string);
        int32_t id = -1;
        if (!jref_value(c, a, ap, INT32_MAX, "attribute ids", &id)) {
            ok = false;
            break;
        }
        const cJSON *pa = cJSON_GetObjectItemCaseSensitive(attrs, a->string);
        int32_t acc;
        if (!pa) {
            ok = PARSE_ERR(c, "%s: the primitive has no attribute %s", ap, a->string);
            break;
        }
        if (!jref_value(c, pa, ap, d->accessor_count, "accessors", &acc)) {
            ok = false;
            break;
        }
        orri_gltf_accessor *ac = &d->accessors[acc];
        int32_t comps = orri_draco_attribute_components(dm, (uint32_t)id);
        if (comps < 0) {
            ok = PARSE_ERR(c, "%s: the Draco stream has no attribute %d", ap, id);
        } else if (ac->count != points) {
            ok = PARSE_ERR(c, "%s: accessor %d has %u elements, the Draco stream %u points", ap, acc, ac->count, points);
        } else if (ac->columns != 1) {
            ok = PARSE_ERR(c, "%s: accessor %d is a matrix, which Draco does not store", ap, acc);
        } else if (ac->draco_view == view && ac->draco_id == id) {
            continue;
        } else {
            uint64_t size = (uint64_t)ac->count * ac->elem_size;
            uint8_t *out = doc_block(c, (size_t)size);
            if (!out) ok = false;
            else if (!orri_draco_attribute(dm, (uint32_t)id, ac->component_type, ac->components, out))
                ok = PARSE_ERR(c, "%s: attribute %d does not convert to accessor %d's format", ap, id, acc);
            else ok = draco_attach(c, (uint32_t)acc, out, size, view, id) &&
                      (ac->component_type != ORRI_GLTF_FLOAT || scan_floats(c, ac, (uint32_t)acc));
        }
    }
    orri_draco_free(dm);
    return ok;
}
#endif

static bool parse_accessors(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "accessors", &arr, &d->accessor_count)) return false;
    d->accessors = palloc(c, d->accessor_count, sizeof *d->accessors);
    if (d->accessor_count && !d->accessors) return false;
    mark_draco_targets(c);
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "accessors[%u]", i);
        orri_gltf_accessor *a = &d->accessors[i];
        int32_t view;
        int64_t off, ct, count;
        bool norm;
        const char *type;
        if (!jref(c, j, "bufferView", path, d->view_count, "bufferViews", &view) ||
            !jint(c, j, "byteOffset", path, 0, 0, INT64_C(1) << 53, &off) || !jrequired(c, j, "componentType", path) ||
            !jint(c, j, "componentType", path, 0, 0, INT32_MAX, &ct) || !jbool(c, j, "normalized", path, false, &norm) ||
            !jrequired(c, j, "count", path) || !jint(c, j, "count", path, 0, 1, UINT32_MAX, &count) ||
            !jrequired(c, j, "type", path) || !jstring(c, j, "type", path, &type))
            return false;
        static const char *const known[] = {"bufferView", "byteOffset", "componentType", "normalized", "count",
                                            "type", "max", "min", "sparse", NULL};
        check_keys(c, j, path, known);
        a->component_type = (uint32_t)ct;
        a->comp_size = comp_size(a->component_type);
        if (!a->comp_size) return PARSE_ERR(c, "%s.componentType: %lld is not a glTF component type", path, (long long)ct);
        if (!type) return PARSE_ERR(c, "%s.type: expected a string", path);
        int t = -1;
        for (int k = 0; k < 7; k++)
            if (strcmp(type, type_names[k]) == 0) t = k;
        if (t < 0) return PARSE_ERR(c, "%s.type: '%s' is not an accessor type", path, type);
        a->type = (orri_gltf_type)t;
        static const uint32_t rows[] = {1, 2, 3, 4, 2, 3, 4}, cols[] = {1, 1, 1, 1, 2, 3, 4};
        a->rows = rows[t];
        a->columns = cols[t];
        a->components = a->rows * a->columns;
        a->column_stride = a->rows * a->comp_size;
        if (a->columns > 1) a->column_stride = (a->column_stride + 3u) & ~3u;
        a->elem_size = a->column_stride * a->columns;
        if (norm && (ct == ORRI_GLTF_FLOAT || ct == ORRI_GLTF_UNSIGNED_INT)) {
            violation(c, "%s.normalized: not allowed for %s, ignored", path, comp_name(a->component_type));
            norm = false;
        }
        a->normalized = norm;
        a->count = (uint32_t)count;
        a->view = view;
        a->offset = (uint64_t)off;
        a->stride = a->elem_size;
        if (!accessor_bound(c, j, "min", path, a->components, a->min, &a->has_min)) return false;
        if (!accessor_bound(c, j, "max", path, a->components, a->max, &a->has_max)) return false;
        if (view < 0) {
            if (cJSON_GetObjectItemCaseSensitive(j, "byteOffset")) violation(c, "%s.byteOffset: set without a bufferView, ignored", path);
            a->offset = 0;
            /* zeros cost memory but no file bytes: a real one (a sparse morph target, say) stands beside
             * data at least as large, so the file's buffer bytes bound it */
            uint64_t limit = c->buffer_bytes > ORRI_GLTF_MIN_VIEWLESS_COUNT ? c->buffer_bytes : ORRI_GLTF_MIN_VIEWLESS_COUNT;
            if (limit > ORRI_GLTF_MAX_VIEWLESS_COUNT) limit = ORRI_GLTF_MAX_VIEWLESS_COUNT;
            if (a->count > limit && !a->draco_target)
                return fail(c, ORR_ERROR_CAPACITY,
                            "%s.count: %u elements without a bufferView exceed the limit %llu (the larger of %u and the "
                            "file's buffer bytes)", path, a->count, (unsigned long long)limit, ORRI_GLTF_MIN_VIEWLESS_COUNT);
        } else {
            const orri_gltf_view *v = &d->views[view];
            if (a->offset % a->comp_size)
                return PARSE_ERR(c, "%s.byteOffset: %llu is not a multiple of the component size %u", path,
                                 (unsigned long long)a->offset, a->comp_size);
            if (a->columns > 1 && a->offset % 4)
                return PARSE_ERR(c, "%s.byteOffset: matrix accessors must be 4-byte aligned", path);
            if ((v->offset + a->offset) % a->comp_size)
                return PARSE_ERR(c, "%s: total byte offset %llu (bufferView %d offset + byteOffset) is not a multiple of %u",
                                 path, (unsigned long long)(v->offset + a->offset), view, a->comp_size);
            if (v->stride) {
                if (v->stride < a->elem_size)
                    return PARSE_ERR(c, "%s: bufferView %d byteStride %u is smaller than the element size %u", path, view,
                                     v->stride, a->elem_size);
                if (v->stride % a->comp_size)
                    return PARSE_ERR(c, "%s: bufferView %d byteStride %u is not a multiple of the component size %u",
                                     path, view, v->stride, a->comp_size);
                a->stride = v->stride;
            }
            uint64_t need = a->offset + (uint64_t)a->stride * (a->count - 1) + a->elem_size;
            if (need > v->length)
                return PARSE_ERR(c, "%s: %u elements at byteOffset %llu need %llu bytes, bufferView %d has %llu", path,
                                 a->count, (unsigned long long)a->offset, (unsigned long long)need, view,
                                 (unsigned long long)v->length);
        }
        const cJSON *sp;
        if (!jobject(c, j, "sparse", path, &sp)) return false;
        if (sp && !parse_sparse(c, a, sp, path)) return false;
    }
    /* the layout is sound; now the data, which needs every used buffer present */
    for (uint32_t v = 0; v < d->view_count; v++) {
        if (!d->views[v].data && d->buffers[d->views[v].buffer].missing)
            return PARSE_ERR(c, "buffers[%u]: no uri and no GLB binary chunk, but bufferViews[%u] uses it",
                             d->views[v].buffer, v);
    }
    return scan_data(c, false);
}

/* ---- accessor reading (after validation: no bounds checks needed) ------------------------------ */

void orri_gltf_read_floats(const orri_gltf_doc *d, uint32_t index, uint32_t out_components, float fill, float *out)
{
    orri_gltf_read_floats_range(d, index, 0, d->accessors[index].count, out_components, fill, out);
}

/* The values read_comp gives, for one component type and vector shape, without its switch per
 * component: the same floats, several times faster on the millions of quantized components of a
 * compressed mesh. A value is max(v, LO) / D in binary32 (normalized: LO = -D for the signed types, D =
 * 127, 255, 32767, 65535; else D = 1): a correctly rounded quotient of two exact floats, the float
 * nearest v / D, which read_comp's v / D in binary64 rounds to as well (an integer over such a D that is
 * not itself a float lies at least 2^-41, relative, from every midpoint between two floats: a midpoint
 * has 25 significant bits, |v 2^k - D m| >= 1). The clamp is a statement of its own: folded into the
 * quotient's expression, it becomes a branch around the division, and the loop no longer vectorizes. */
#define ORRI_READ_INTS(T, LO, D, NC, OC)                                                                 \
    for (uint32_t i = 0; i < count; i++) {                                                               \
        const uint8_t *p = base + (size_t)i * a->stride;                                                 \
        float *o = out + (size_t)i * (OC);                                                               \
        for (uint32_t k = 0; k < (NC); k++) {                                                            \
            T t;                                                                                         \
            memcpy(&t, p + (size_t)k * sizeof(T), sizeof(T));                                           \
            int32_t v = t;                                                                               \
            v = v < (LO) ? (LO) : v;                                                                     \
            o[k] = (float)v / (D);                                                                       \
        }                                                                                                \
        for (uint32_t k = (NC); k < (OC); k++) o[k] = fill;                                              \
    }
/* Vectors of NC components padded to 4 bytes, all of them read (the layout of quantized vertex
 * streams): a block at a time, widened with a stride the compiler knows, then converted as one run of
 * values, which vectorizes (the loop above, with the stride a variable, does not). */
#define ORRI_READ_BLOCKS(T, LO, D, NC)                                                                   \
    for (uint32_t at = 0; at < count; at += ORRI_READ_BLOCK) {                                           \
        uint32_t m = count - at < ORRI_READ_BLOCK ? count - at : ORRI_READ_BLOCK;                        \
        enum { S = ((NC) * sizeof(T) + 3) / 4 * 4 };                                                    \
        const uint8_t *b = base + (size_t)at * S;                                                        \
        for (uint32_t i = 0; i < m; i++)                                                                 \
            for (uint32_t k = 0; k < (NC); k++) {                                                        \
                T t;                                                                                     \
                memcpy(&t, b + (size_t)i * S + k * sizeof(T), sizeof(T));                               \
                wide[i * (NC) + k] = t;                                                                  \
            }                                                                                            \
        float *restrict o = out + (size_t)at * (NC);                                                     \
        for (uint32_t j = 0; j < m * (NC); j++) {                                                        \
            int32_t v = wide[j];                                                                         \
            v = v < (LO) ? (LO) : v;                                                                     \
            o[j] = (float)v / (D);                                                                       \
        }                                                                                                \
    }
#define ORRI_READ_SHAPES(T, LO, D)                                                                       \
    if (nc == a->components && nc == out_components && a->stride == (nc * sizeof(T) + 3) / 4 * 4) {     \
        if (nc == 2) { ORRI_READ_BLOCKS(T, LO, D, 2) }                                                   \
        else if (nc == 3) { ORRI_READ_BLOCKS(T, LO, D, 3) }                                              \
        else if (nc == 4) { ORRI_READ_BLOCKS(T, LO, D, 4) }                                              \
        else { ORRI_READ_BLOCKS(T, LO, D, 1) }                                                           \
    }                                                                                                    \
    else { ORRI_READ_INTS(T, LO, D, nc, out_components) }
#define ORRI_READ_BLOCK 256u

ORRI_WIDE static bool read_ints_fast(const orri_gltf_doc *d, const orri_gltf_accessor *a, uint32_t first, uint32_t count,
                           uint32_t nc, uint32_t out_components, float fill, float *out)
{
    const uint8_t *base = elem_ptr(d, a, first);
    int32_t wide[4 * ORRI_READ_BLOCK];
    bool n = a->normalized;
    switch (a->component_type) {
    case ORRI_GLTF_BYTE:
        if (n) { ORRI_READ_SHAPES(int8_t, -127, 127.0f) }
        else { ORRI_READ_SHAPES(int8_t, INT32_MIN, 1.0f) }
        return true;
    case ORRI_GLTF_UNSIGNED_BYTE:
        if (n) { ORRI_READ_SHAPES(uint8_t, 0, 255.0f) }
        else { ORRI_READ_SHAPES(uint8_t, 0, 1.0f) }
        return true;
    case ORRI_GLTF_SHORT:
        if (n) { ORRI_READ_SHAPES(int16_t, -32767, 32767.0f) }
        else { ORRI_READ_SHAPES(int16_t, INT32_MIN, 1.0f) }
        return true;
    case ORRI_GLTF_UNSIGNED_SHORT:
        if (n) { ORRI_READ_SHAPES(uint16_t, 0, 65535.0f) }
        else { ORRI_READ_SHAPES(uint16_t, 0, 1.0f) }
        return true;
    default: return false;
    }
}
#undef ORRI_READ_BLOCK
#undef ORRI_READ_SHAPES
#undef ORRI_READ_BLOCKS
#undef ORRI_READ_INTS

bool orri_gltf_scanned_box(const orri_gltf_doc *d, int32_t index, orr_aabbf *box)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    if (!a->range_known || a->components != 3) return false;
    /* the fast integer loops divide in binary32, comp_value in binary64: the same binary32 for every
     * 8- and 16-bit value (and debug builds of the asset library compare the box with the positions') */
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++)
        lo[k] = (float)comp_value(a->range_min[k], a->component_type, a->normalized),
        hi[k] = (float)comp_value(a->range_max[k], a->component_type, a->normalized);
    *box = (orr_aabbf){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
    return true;
}

void orri_gltf_read_floats_range(const orri_gltf_doc *d, uint32_t index, uint32_t first, uint32_t count,
                                 uint32_t out_components, float fill, float *out)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t nc = a->components < out_components ? a->components : out_components;
    if (first > a->count) first = a->count;
    if (count > a->count - first) count = a->count - first;
    if (a->view >= 0 && a->columns == 1 && a->component_type != ORRI_GLTF_FLOAT &&
        read_ints_fast(d, a, first, count, nc, out_components, fill, out)) {
        /* quantized vectors (KHR_mesh_quantization, meshopt output): one loop per format */
    } else
    for (uint32_t i = 0; i < count; i++) {
        float *o = out + (size_t)i * out_components;
        if (a->view >= 0) {
            const uint8_t *p = elem_ptr(d, a, first + i);
            if (a->component_type == ORRI_GLTF_FLOAT && a->columns == 1) {
                memcpy(o, p, nc * sizeof(float));
            } else {
                for (uint32_t k = 0; k < nc; k++) o[k] = (float)read_comp(p + comp_offset(a, k), a->component_type, a->normalized);
            }
        } else {
            for (uint32_t k = 0; k < nc; k++) o[k] = 0.0f;
        }
        for (uint32_t k = nc; k < out_components; k++) o[k] = fill;
    }
    if (a->sparse_count) {
        const uint8_t *ib = sparse_indices(d, a), *vb = sparse_values(d, a);
        uint32_t isz = comp_size(a->sparse_indices_type), lo = 0, hi = a->sparse_count;
        while (lo < hi) { /* the first substitution at or past `first`: indices increase (validated) */
            uint32_t mid = lo + (hi - lo) / 2;
            if (read_uint(ib + (size_t)mid * isz, a->sparse_indices_type) < first) lo = mid + 1;
            else hi = mid;
        }
        for (uint32_t s = lo; s < a->sparse_count; s++) {
            uint32_t i = read_uint(ib + (size_t)s * isz, a->sparse_indices_type);
            if (i - first >= count) break;
            float *o = out + (size_t)(i - first) * out_components;
            const uint8_t *p = vb + (size_t)s * a->elem_size;
            for (uint32_t k = 0; k < nc; k++) o[k] = (float)read_comp(p + comp_offset(a, k), a->component_type, a->normalized);
        }
    }
}

/* The values read_uint gives, for one component size, without its switch per component: 16-bit indices
 * (every mesh of fewer than 65536 vertices) widened in a loop the compiler vectorizes. */
#define ORRI_READ_UINTS(T, STRIDE, NC, OC)                                                                \
    for (uint32_t i = 0; i < count; i++) {                                                               \
        const uint8_t *p = base + (size_t)i * (STRIDE);                                                  \
        uint32_t *o = out + (size_t)i * (OC);                                                            \
        for (uint32_t k = 0; k < (NC); k++) {                                                            \
            T v;                                                                                         \
            memcpy(&v, p + (size_t)k * sizeof(T), sizeof(T));                                            \
            o[k] = v;                                                                                    \
        }                                                                                                \
        for (uint32_t k = (NC); k < (OC); k++) o[k] = 0;                                                 \
    }
#define ORRI_READ_UINTS_OF(T)                                                                             \
    if (nc == 1 && out_components == 1 && a->stride == sizeof(T)) { ORRI_READ_UINTS(T, sizeof(T), 1, 1) }  \
    else { ORRI_READ_UINTS(T, a->stride, nc, out_components) }

ORRI_WIDE static bool read_uints_fast(const orri_gltf_doc *d, const orri_gltf_accessor *a, uint32_t first,
                                      uint32_t count, uint32_t nc, uint32_t out_components, uint32_t *out)
{
    if (a->view < 0 || a->columns != 1 || a->component_type == ORRI_GLTF_FLOAT) return false;
    const uint8_t *base = elem_ptr(d, a, first);
    switch (a->comp_size) {
    case 1: ORRI_READ_UINTS_OF(uint8_t) return true;
    case 2: ORRI_READ_UINTS_OF(uint16_t) return true;
    case 4: ORRI_READ_UINTS_OF(uint32_t) return true;
    default: return false;
    }
}
#undef ORRI_READ_UINTS_OF
#undef ORRI_READ_UINTS

void orri_gltf_read_uints(const orri_gltf_doc *d, uint32_t index, uint32_t out_components, uint32_t *out)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t nc = a->components < out_components ? a->components : out_components;
    bool fast = read_uints_fast(d, a, 0, a->count, nc, out_components, out);
    for (uint32_t i = 0; !fast && i < a->count; i++) {
        uint32_t *o = out + (size_t)i * out_components;
        if (a->view >= 0) {
            const uint8_t *p = elem_ptr(d, a, i);
            for (uint32_t k = 0; k < nc; k++) o[k] = read_uint(p + comp_offset(a, k), a->component_type);
        } else {
            for (uint32_t k = 0; k < nc; k++) o[k] = 0;
        }
        for (uint32_t k = nc; k < out_components; k++) o[k] = 0;
    }
    if (a->sparse_count) {
        const uint8_t *ib = sparse_indices(d, a), *vb = sparse_values(d, a);
        uint32_t isz = comp_size(a->sparse_indices_type);
        for (uint32_t s = 0; s < a->sparse_count; s++) {
            uint32_t i = read_uint(ib + (size_t)s * isz, a->sparse_indices_type);
            uint32_t *o = out + (size_t)i * out_components;
            for (uint32_t k = 0; k < nc; k++) o[k] = read_uint(vb + (size_t)s * a->elem_size + comp_offset(a, k), a->component_type);
        }
    }
}

bool orri_gltf_read_uints_range(const orri_gltf_doc *d, uint32_t index, uint32_t first, uint32_t count,
                                uint32_t out_components, uint32_t *out)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t nc = a->components < out_components ? a->components : out_components;
    if (a->sparse_count || first > a->count || count > a->count - first) return false;
    return read_uints_fast(d, a, first, count, nc, out_components, out);
}

/* The largest integer component of an accessor (indices, joints), sparse applied. */
static uint32_t accessor_max_uint(const orri_gltf_doc *d, uint32_t index, uint32_t at_needed_above, uint32_t *at)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t best = 0;
    *at = 0;
    if (a->max_known && a->max_uint < at_needed_above) return a->max_uint; /* the element is wanted only above */
    if (a->view >= 0 && !a->sparse_count) {
        if (a->columns == 1 && a->stride == a->elem_size && a->component_type != ORRI_GLTF_FLOAT) {
            /* packed: a branch-free max first; the element is looked up only for the message */
            const uint8_t *p = elem_ptr(d, a, 0);
            size_t n = (size_t)a->count * a->components;
            if (a->comp_size == 1) {
                for (size_t i = 0; i < n; i++) best = p[i] > best ? p[i] : best;
            } else if (a->comp_size == 2) {
                for (size_t i = 0; i < n; i++) {
                    uint16_t v;
                    memcpy(&v, p + i * 2, 2);
                    best = v > best ? v : best;
                }
            } else {
                for (size_t i = 0; i < n; i++) {
                    uint32_t v;
                    memcpy(&v, p + i * 4, 4);
                    best = v > best ? v : best;
                }
            }
            if (best >= at_needed_above) /* only a refusal names the element */
                for (size_t i = 0; i < n; i++)
                    if (read_uint(p + i * a->comp_size, a->component_type) == best) {
                        *at = (uint32_t)(i / a->components);
                        break;
                    }
        } else {
            for (uint32_t i = 0; i < a->count; i++) {
                const uint8_t *p = elem_ptr(d, a, i);
                for (uint32_t k = 0; k < a->components; k++) {
                    uint32_t v = read_uint(p + comp_offset(a, k), a->component_type);
                    if (v > best || (i == 0 && k == 0)) best = v, *at = i;
                }
            }
        }
    }
    if (a->sparse_count) {
        /* substituted elements count with their sparse value, not the one they replace: walk the
         * elements with a cursor over the (strictly increasing, validated) sparse indices */
        const uint8_t *ib = sparse_indices(d, a), *vb = sparse_values(d, a);
        uint32_t isz = comp_size(a->sparse_indices_type);
        uint32_t s = 0, next = read_uint(ib, a->sparse_indices_type);
        best = 0;
        *at = 0;
        for (uint32_t i = 0; i < a->count; i++) {
            const uint8_t *p = NULL;
            if (s < a->sparse_count && next == i) {
                p = vb + (size_t)s * a->elem_size;
                if (++s < a->sparse_count) next = read_uint(ib + (size_t)s * isz, a->sparse_indices_type);
            } else if (a->view >= 0) {
                p = elem_ptr(d, a, i);
            }
            for (uint32_t k = 0; p && k < a->components; k++) {
                uint32_t v = read_uint(p + comp_offset(a, k), a->component_type);
                if (v > best) best = v, *at = i;
            }
        }
    }
    return best;
}

/* ---- images, samplers, textures, materials ------------------------------------------------------ */

static bool parse_images(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "images", &arr, &d->image_count)) return false;
    d->images = palloc(c, d->image_count, sizeof *d->images);
    if (d->image_count && !d->images) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "images[%u]", i);
        orri_gltf_image *img = &d->images[i];
        img->source = -1;
        img->view = -1;
        const char *uri, *mime;
        int32_t view;
        if (!jstring(c, j, "uri", path, &uri) || !jstring(c, j, "mimeType", path, &mime) || !jstring(c, j, "name", path, &img->name) ||
            !jref(c, j, "bufferView", path, d->view_count, "bufferViews", &view))
            return false;
        static const char *const known[] = {"uri", "mimeType", "bufferView", NULL};
        check_keys(c, j, path, known);
        if (uri && view >= 0) violation(c, "%s: both uri and bufferView; bufferView used", path);
        if (view >= 0) {
            if (!mime) violation(c, "%s.mimeType: required with bufferView, missing", path);
            else if (!image_type_ok(c, mime, strlen(mime)))
                violation(c, "%s.mimeType: '%.64s' is not an image type glTF (or an extension the file uses) allows", path, mime);
            const orri_gltf_view *v = &d->views[view];
            img->view = view;
            img->bytes = v->data;
            img->size = (size_t)v->length;
        } else if (uri) {
            char upath[80];
            PATHF(c, upath, sizeof upath, "%s.uri", path);
            if (strncmp(uri, "data:", 5) == 0) {
                size_t n = 0;
                if (!decode_data_uri(c, uri, upath, true, &img->owned, &n)) return false;
                img->bytes = img->owned;
                img->size = n;
                continue;
            }
            if (strlen(uri) == 0) return PARSE_ERR(c, "%s: empty URI", upath);
            /* a file is read only when a texture uses it (gltf_build.c), and once however many images name it */
            char full[2048];
            if (!uri_file_path(c, uri, upath, full, sizeof full)) return false;
            img->source = source_intern(c, full, ORRI_GLTF_MAX_IMAGE_BYTES, upath);
            if (img->source < 0) return false;
        } else {
            violation(c, "%s: neither uri nor bufferView; the texture falls back", path);
        }
    }
    return true;
}

static bool parse_samplers(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "samplers", &arr, &d->sampler_count)) return false;
    d->samplers = palloc(c, d->sampler_count, sizeof *d->samplers);
    if (d->sampler_count && !d->samplers) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "samplers[%u]", i);
        int64_t mag, min, ws, wt;
        if (!jint(c, j, "magFilter", path, 9729, 0, INT32_MAX, &mag) || !jint(c, j, "minFilter", path, 9987, 0, INT32_MAX, &min) ||
            !jint(c, j, "wrapS", path, 10497, 0, INT32_MAX, &ws) || !jint(c, j, "wrapT", path, 10497, 0, INT32_MAX, &wt))
            return false;
        static const char *const known[] = {"magFilter", "minFilter", "wrapS", "wrapT", NULL};
        check_keys(c, j, path, known);
        orr_sampler *s = &d->samplers[i];
        if (mag != 9728 && mag != 9729) violation(c, "%s.magFilter: %lld is not a filter, linear used", path, (long long)mag), mag = 9729;
        s->mag_filter = mag == 9728 ? ORR_FILTER_NEAREST : ORR_FILTER_LINEAR;
        switch (min) {
        case 9728: s->min_filter = ORR_FILTER_NEAREST; break;
        case 9729: s->min_filter = ORR_FILTER_LINEAR; break;
        case 9984: s->min_filter = ORR_FILTER_NEAREST, s->mipmaps = true; break; /* NEAREST_MIPMAP_NEAREST */
        case 9985: s->min_filter = ORR_FILTER_LINEAR, s->mipmaps = true; break;  /* LINEAR_MIPMAP_NEAREST */
        case 9986: s->min_filter = ORR_FILTER_NEAREST, s->mipmaps = true; break; /* NEAREST_MIPMAP_LINEAR */
        case 9987: s->min_filter = ORR_FILTER_LINEAR, s->mipmaps = true; break;  /* LINEAR_MIPMAP_LINEAR */
        default:
            violation(c, "%s.minFilter: %lld is not a filter, linear used", path, (long long)min);
            s->min_filter = ORR_FILTER_LINEAR;
            s->mipmaps = true;
        }
        int64_t w[2] = {ws, wt};
        orr_wrap *dst[2] = {&s->wrap_s, &s->wrap_t};
        for (int k = 0; k < 2; k++) {
            if (w[k] == 33071) *dst[k] = ORR_WRAP_CLAMP;
            else if (w[k] == 33648) *dst[k] = ORR_WRAP_MIRROR;
            else {
                if (w[k] != 10497) violation(c, "%s.wrap%c: %lld is not a wrap mode, repeat used", path, k ? 'T' : 'S', (long long)w[k]);
                *dst[k] = ORR_WRAP_REPEAT;
            }
        }
    }
    return true;
}

/* textures[i].extensions: EXT_texture_webp's source is read in place of the core one (which, when
 * present, is the fallback for loaders without WebP); KHR_texture_basisu cannot be transcoded here,
 * so its texture keeps the core PNG/JPEG source (a file requiring it was refused by name). */
static bool parse_texture_sources(pctx *c, const cJSON *j, const char *path, orri_gltf_texture *t)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *ext, *webp, *basisu;
    if (!jobject(c, j, "extensions", path, &ext)) return false;
    if (!ext) return true;
    char ep[96], xp[160];
    PATHF(c, ep, sizeof ep, "%s.extensions", path);
    if (!jobject(c, ext, "EXT_texture_webp", ep, &webp) || !jobject(c, ext, "KHR_texture_basisu", ep, &basisu)) return false;
    if (webp) {
        PATHF(c, xp, sizeof xp, "%s.EXT_texture_webp", ep);
        int32_t src;
        if (!jrequired(c, webp, "source", xp) || !jref(c, webp, "source", xp, d->image_count, "images", &src)) return false;
        t->source = src;
    }
    if (basisu) {
        PATHF(c, xp, sizeof xp, "%s.KHR_texture_basisu", ep);
        int32_t src;
        if (!jref(c, basisu, "source", xp, d->image_count, "images", &src)) return false;
        if (!webp)
            warn(c, "%s: KHR_texture_basisu is not supported (no Basis Universal transcoder is packaged); %s", xp,
                 t->source >= 0 ? "the core source is used" : "the texture has no other source and falls back");
    }
    return true;
}

static bool parse_textures(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "textures", &arr, &d->texture_count)) return false;
    d->textures = palloc(c, d->texture_count, sizeof *d->textures);
    if (d->texture_count && !d->textures) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "textures[%u]", i);
        orri_gltf_texture *t = &d->textures[i];
        if (!jref(c, j, "source", path, d->image_count, "images", &t->source) ||
            !jref(c, j, "sampler", path, d->sampler_count, "samplers", &t->sampler))
            return false;
        static const char *const known[] = {"source", "sampler", NULL};
        check_keys(c, j, path, known);
        if (!parse_texture_sources(c, j, path, t)) return false;
        if (t->source < 0) warn(c, "%s: no source image; the texture falls back", path);
    }
    return true;
}

static bool parse_texref(pctx *c, const cJSON *obj, const char *key, const char *path, orri_gltf_texref *out,
                         const char *scale_key)
{
    out->texture = -1;
    out->scale = 1.0f;
    out->uv_scale[0] = out->uv_scale[1] = 1.0f;
    const cJSON *j;
    if (!jobject(c, obj, key, path, &j)) return false;
    if (!j) return true;
    char p[160];
    PATHF(c, p, sizeof p, "%s.%s", path, key);
    int64_t tc;
    double scale;
    if (!jrequired(c, j, "index", p) || !jref(c, j, "index", p, c->doc->texture_count, "textures", &out->texture) ||
        !jint(c, j, "texCoord", p, 0, 0, INT32_MAX, &tc) || !jnum(c, j, scale_key ? scale_key : "scale", p, 1.0, &scale))
        return false;
    if (tc >= ORRI_GLTF_MAX_SETS) {
        warn(c, "%s.texCoord: set %lld is not supported, set 0 used", p, (long long)tc);
        tc = 0;
    }
    out->texcoord = (uint32_t)tc;
    out->scale = scale_key ? (float)scale : 1.0f;
    const cJSON *ext, *tt;
    if (!jobject(c, j, "extensions", p, &ext)) return false;
    if (ext) {
        char ep[200];
        PATHF(c, ep, sizeof ep, "%s.extensions", p);
        if (!jobject(c, ext, "KHR_texture_transform", ep, &tt)) return false;
        if (tt) {
            char tp[240];
            PATHF(c, tp, sizeof tp, "%s.KHR_texture_transform", ep);
            double off[2] = {0, 0}, sc[2] = {1, 1}, rot;
            int64_t tc2;
            if (!jnums(c, tt, "offset", tp, 2, off, NULL) || !jnums(c, tt, "scale", tp, 2, sc, NULL) ||
                !jnum(c, tt, "rotation", tp, 0.0, &rot) || !jint(c, tt, "texCoord", tp, -1, 0, INT32_MAX, &tc2))
                return false;
            out->offset[0] = (float)off[0], out->offset[1] = (float)off[1];
            out->uv_scale[0] = (float)sc[0], out->uv_scale[1] = (float)sc[1];
            out->rotation = (float)rot;
            if (tc2 >= ORRI_GLTF_MAX_SETS) {
                warn(c, "%s.texCoord: set %lld is not supported, set 0 used", tp, (long long)tc2);
                tc2 = 0;
            }
            if (tc2 >= 0) out->texcoord = (uint32_t)tc2;
        }
    }
    return true;
}

static float clamp01(pctx *c, const char *path, const char *key, double v)
{
    if (v < 0.0 || v > 1.0) {
        violation(c, "%s.%s: %g is outside [0, 1], clamped", path, key, v);
        v = v < 0.0 ? 0.0 : 1.0;
    }
    return (float)v;
}

static bool parse_materials(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "materials", &arr, &d->material_count)) return false;
    d->materials = palloc(c, d->material_count, sizeof *d->materials);
    if (d->material_count && !d->materials) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "materials[%u]", i);
        orri_gltf_material *m = &d->materials[i];
        m->value = orr_material_default();
        if (!jstring(c, j, "name", path, &m->name)) return false;
        static const char *const known[] = {"pbrMetallicRoughness", "normalTexture", "occlusionTexture", "emissiveTexture",
                                            "emissiveFactor", "alphaMode", "alphaCutoff", "doubleSided", NULL};
        check_keys(c, j, path, known);
        const cJSON *pbr;
        if (!jobject(c, j, "pbrMetallicRoughness", path, &pbr)) return false;
        if (pbr) {
            char pp[96];
            PATHF(c, pp, sizeof pp, "%s.pbrMetallicRoughness", path);
            double bc[4] = {1, 1, 1, 1}, metal, rough;
            if (!jnums(c, pbr, "baseColorFactor", pp, 4, bc, NULL) || !jnum(c, pbr, "metallicFactor", pp, 1.0, &metal) ||
                !jnum(c, pbr, "roughnessFactor", pp, 1.0, &rough) ||
                !parse_texref(c, pbr, "baseColorTexture", pp, &m->base_color, NULL) ||
                !parse_texref(c, pbr, "metallicRoughnessTexture", pp, &m->metallic_roughness, NULL))
                return false;
            for (int k = 0; k < 4; k++) m->value.base_color[k] = clamp01(c, pp, "baseColorFactor", bc[k]);
            m->value.metallic = clamp01(c, pp, "metallicFactor", metal);
            m->value.roughness = clamp01(c, pp, "roughnessFactor", rough);
        } else {
            m->base_color.texture = m->metallic_roughness.texture = -1;
        }
        double em[3] = {0, 0, 0}, cutoff;
        bool ds;
        const char *mode;
        if (!parse_texref(c, j, "normalTexture", path, &m->normal, "scale") ||
            !parse_texref(c, j, "occlusionTexture", path, &m->occlusion, "strength") ||
            !parse_texref(c, j, "emissiveTexture", path, &m->emissive, NULL) ||
            !jnums(c, j, "emissiveFactor", path, 3, em, NULL) || !jnum(c, j, "alphaCutoff", path, 0.5, &cutoff) ||
            !jbool(c, j, "doubleSided", path, false, &ds) || !jstring(c, j, "alphaMode", path, &mode))
            return false;
        for (int k = 0; k < 3; k++) m->value.emissive[k] = clamp01(c, path, "emissiveFactor", em[k]);
        if (cutoff < 0) {
            violation(c, "%s.alphaCutoff: %g is negative, 0 used", path, cutoff);
            cutoff = 0;
        }
        m->value.alpha_cutoff = (float)cutoff;
        m->value.double_sided = ds;
        if (!mode || strcmp(mode, "OPAQUE") == 0) m->value.alpha_mode = ORR_ALPHA_OPAQUE;
        else if (strcmp(mode, "MASK") == 0) m->value.alpha_mode = ORR_ALPHA_MASK;
        else if (strcmp(mode, "BLEND") == 0) m->value.alpha_mode = ORR_ALPHA_BLEND;
        else return PARSE_ERR(c, "%s.alphaMode: '%s' is not OPAQUE, MASK or BLEND", path, mode);
        const cJSON *ext;
        if (!jobject(c, j, "extensions", path, &ext)) return false;
        if (ext) {
            char ep[96];
            PATHF(c, ep, sizeof ep, "%s.extensions", path);
            const cJSON *es, *unlit;
            if (!jobject(c, ext, "KHR_materials_emissive_strength", ep, &es) ||
                !jobject(c, ext, "KHR_materials_unlit", ep, &unlit))
                return false;
            if (es) {
                char sp[160];
                PATHF(c, sp, sizeof sp, "%s.KHR_materials_emissive_strength", ep);
                double s;
                if (!jnum(c, es, "emissiveStrength", sp, 1.0, &s)) return false;
                if (s < 0) return PARSE_ERR(c, "%s.emissiveStrength: %g is negative", sp, s);
                m->value.emissive_strength = (float)s;
            }
            m->value.unlit = unlit != NULL;
        }
    }
    return true;
}

/* ---- meshes ------------------------------------------------------------------------------------- */

typedef struct fmt_rule {
    uint32_t comps_a, comps_b; /* allowed component counts (b may equal a) */
    bool float_ok, ubyte_n, ushort_n, byte_n, short_n, ubyte, ushort, byte_, short_;
} fmt_rule;

static bool accessor_format_ok(const orri_gltf_accessor *a, const fmt_rule *r)
{
    if (a->columns != 1 || (a->components != r->comps_a && a->components != r->comps_b)) return false;
    switch (a->component_type) {
    case ORRI_GLTF_FLOAT: return r->float_ok;
    case ORRI_GLTF_UNSIGNED_BYTE: return a->normalized ? r->ubyte_n : r->ubyte;
    case ORRI_GLTF_UNSIGNED_SHORT: return a->normalized ? r->ushort_n : r->ushort;
    case ORRI_GLTF_BYTE: return a->normalized ? r->byte_n : r->byte_;
    case ORRI_GLTF_SHORT: return a->normalized ? r->short_n : r->short_;
    default: return false;
    }
}

static bool check_format(pctx *c, uint32_t acc, const fmt_rule *r, const char *path)
{
    const orri_gltf_accessor *a = &c->doc->accessors[acc];
    if (accessor_format_ok(a, r)) return true;
    return PARSE_ERR(c, "%s: accessor %u has format {%s, %s%s}, not allowed here", path, acc, type_names[a->type],
                     a->normalized ? "normalized " : "", comp_name(a->component_type));
}

static bool parse_attribute_name(const char *name, const char *prefix, uint32_t *set)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0) return false;
    const char *p = name + n;
    if (!*p) return false;
    uint32_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000) return false;
        v = v * 10 + (uint32_t)(*p - '0');
    }
    *set = v;
    return true;
}

/* A primitive's indices lie below its vertex count; the index type's largest value (the primitive
 * restart value, which glTF forbids) is warned about. */
static bool check_index_range(pctx *c, const orri_gltf_primitive *p, const char *ip)
{
    const orri_gltf_accessor *ia = &c->doc->accessors[p->indices];
    uint32_t restart = ia->comp_size == 1 ? 0xffu : ia->comp_size == 2 ? 0xffffu : 0xffffffffu, at;
    uint32_t mx = accessor_max_uint(c->doc, (uint32_t)p->indices, p->vertex_count < restart ? p->vertex_count : restart, &at);
    if (mx >= p->vertex_count)
        return PARSE_ERR(c, "%s: index %u has value %u, the primitive has %u vertices", ip, at, mx, p->vertex_count);
    if (mx == restart)
        violation(c, "%s: index %u is %u, the primitive restart value of %s; drawn as a vertex index", ip, at, mx,
             comp_name(ia->component_type));
    return true;
}

static bool parse_primitive(pctx *c, const cJSON *j, const char *path, orri_gltf_primitive *p)
{
    orri_gltf_doc *d = c->doc;
    p->position = p->normal = p->tangent = p->color = p->joints = p->weights = -1;
    p->texcoord[0] = p->texcoord[1] = -1;
    int64_t mode;
    const cJSON *attrs, *targets;
    if (!jref(c, j, "indices", path, d->accessor_count, "accessors", &p->indices) ||
        !jref(c, j, "material", path, d->material_count, "materials", &p->material) ||
        !jint(c, j, "mode", path, 4, 0, INT32_MAX, &mode) || !jrequired(c, j, "attributes", path) ||
        !jobject(c, j, "attributes", path, &attrs) || !jarray(c, j, "targets", path, &targets))
        return false;
    static const char *const known[] = {"attributes", "indices", "material", "mode", "targets", NULL};
    check_keys(c, j, path, known);
    if (mode > 6) return PARSE_ERR(c, "%s.mode: %lld is not a primitive mode (0..6)", path, (long long)mode);
    const cJSON *ext, *draco = NULL;
    if (!jobject(c, j, "extensions", path, &ext)) return false;
    if (ext) {
        char ep[200];
        PATHF(c, ep, sizeof ep, "%s.extensions", path);
        if (!jobject(c, ext, "KHR_draco_mesh_compression", ep, &draco)) return false;
    }
#ifdef ORRI_HAVE_DRACO
    if (draco) {
        uint64_t t0 = orri_gltf_now_ns();
        bool ok = parse_draco(c, j, draco, path);
        c->decode_ns += orri_gltf_now_ns() - t0;
        if (!ok) return false;
    }
#else
    if (draco) warn(c, "%s: KHR_draco_mesh_compression is not decoded by this build; the uncompressed accessors are used", path);
#endif
    p->mode = (uint32_t)mode;
    p->attributes = attrs;
    bool q = c->quantization;
    /* KHR_mesh_quantization: positions in any 8/16-bit integer, normalized or not */
    const fmt_rule pos_rule = {3, 3, true, q, q, q, q, q, q, q, q};
    const fmt_rule nrm_rule = {3, 3, true, false, false, q, q, false, false, false, false};
    const fmt_rule tan_rule = {4, 4, true, false, false, q, q, false, false, false, false};
    const fmt_rule uv_rule = {2, 2, true, true, true, q, q, q, q, q, q};
    const fmt_rule col_rule = {3, 4, true, true, true, false, false, false, false, false, false};
    const fmt_rule jnt_rule = {4, 4, false, false, false, false, false, true, true, false, false};
    const fmt_rule wgt_rule = {4, 4, true, true, true, false, false, false, false, false, false};
    int64_t count = -1;
    const char *count_from = NULL;
    for (const cJSON *a = attrs->child; a; a = a->next) {
        char ap[200];
        PATHF(c, ap, sizeof ap, "%s.attributes.%s", path, a->string);
        int32_t acc;
        if (!jref_value(c, a, ap, d->accessor_count, "accessors", &acc)) return false;
        const char *n = a->string;
        uint32_t set = 0;
        const fmt_rule *rule = NULL;
        int32_t *slot = NULL;
        if (strcmp(n, "POSITION") == 0) rule = &pos_rule, slot = &p->position;
        else if (strcmp(n, "NORMAL") == 0) rule = &nrm_rule, slot = &p->normal;
        else if (strcmp(n, "TANGENT") == 0) rule = &tan_rule, slot = &p->tangent;
        else if (parse_attribute_name(n, "TEXCOORD_", &set)) rule = &uv_rule, slot = set < 2 ? &p->texcoord[set] : NULL;
        else if (parse_attribute_name(n, "COLOR_", &set)) rule = &col_rule, slot = set == 0 ? &p->color : NULL;
        else if (parse_attribute_name(n, "JOINTS_", &set)) rule = &jnt_rule, slot = set == 0 ? &p->joints : NULL;
        else if (parse_attribute_name(n, "WEIGHTS_", &set)) rule = &wgt_rule, slot = set == 0 ? &p->weights : NULL;
        else if (n[0] != '_') violation(c, "%s: unknown attribute semantic, ignored", ap);
        else if (d->accessors[acc].component_type == ORRI_GLTF_UNSIGNED_INT) /* glTF 3.7.2.1 */
            violation(c, "%s: accessor %d is UNSIGNED_INT, which no vertex attribute may use; ignored", ap, acc);
        if (rule && !check_format(c, (uint32_t)acc, rule, ap)) return false;
        if (slot) *slot = acc;
        else if (rule) warn(c, "%s: only the first sets are used, ignored", ap);
        int64_t n_acc = d->accessors[acc].count;
        if (count < 0) count = n_acc, count_from = a->string;
        else if (n_acc != count)
            return PARSE_ERR(c, "%s: accessor %d has %lld elements, %s has %lld", ap, acc, (long long)n_acc, count_from,
                             (long long)count);
    }
    if (p->position < 0) {
        warn(c, "%s.attributes: no POSITION; the primitive is skipped", path);
    } else {
        p->vertex_count = d->accessors[p->position].count;
        const orri_gltf_accessor *pa = &d->accessors[p->position];
        if (!pa->has_min || !pa->has_max) violation(c, "%s.attributes.POSITION: accessor %d has no min/max", path, p->position);
    }
    if (p->indices >= 0) {
        const orri_gltf_accessor *ia = &d->accessors[p->indices];
        char ip[200];
        PATHF(c, ip, sizeof ip, "%s.indices", path);
        if (ia->type != ORRI_GLTF_SCALAR || ia->normalized ||
            (ia->component_type != ORRI_GLTF_UNSIGNED_BYTE && ia->component_type != ORRI_GLTF_UNSIGNED_SHORT &&
             ia->component_type != ORRI_GLTF_UNSIGNED_INT))
            return PARSE_ERR(c, "%s: accessor %d has format {%s, %s%s}, indices need SCALAR unsigned integers", ip,
                             p->indices, type_names[ia->type], ia->normalized ? "normalized " : "",
                             comp_name(ia->component_type));
        if (ia->view >= 0 && d->views[ia->view].stride)
            return PARSE_ERR(c, "%s: accessor %d lies in bufferView %d, which has a byteStride", ip, p->indices, ia->view);
        if (p->position >= 0 && !on_late_view(d, ia) && !check_index_range(c, p, ip)) return false;
    }
    if (p->material >= 0) { /* texture coordinate sets the material samples and the primitive lacks */
        const orri_gltf_material *mat = &d->materials[p->material];
        const orri_gltf_texref *refs[5] = {&mat->base_color, &mat->metallic_roughness, &mat->normal, &mat->occlusion,
                                           &mat->emissive};
        for (int k = 0; k < 5; k++) {
            if (refs[k]->texture < 0 || refs[k]->texcoord >= ORRI_GLTF_MAX_SETS || p->texcoord[refs[k]->texcoord] >= 0) continue;
            violation(c, "%s.material: material %d samples TEXCOORD_%u, which the primitive lacks; coordinates (0, 0) used",
                 path, p->material, refs[k]->texcoord);
            break;
        }
    }
    if (targets) {
        p->targets = targets;
        p->target_count = (uint32_t)cJSON_GetArraySize(targets);
        uint32_t t = 0;
        for (const cJSON *tj = targets->child; tj; tj = tj->next, t++) {
            char tp[200];
            PATHF(c, tp, sizeof tp, "%s.targets[%u]", path, t);
            if (!cJSON_IsObject(tj)) return PARSE_ERR(c, "%s: expected an object, found %s", tp, jtype(tj));
            for (const cJSON *a = tj->child; a; a = a->next) {
                char ap[260];
                PATHF(c, ap, sizeof ap, "%s.%s", tp, a->string);
                int32_t acc;
                if (!jref_value(c, a, ap, d->accessor_count, "accessors", &acc)) return false;
                if (count >= 0 && d->accessors[acc].count != count)
                    return PARSE_ERR(c, "%s: accessor %d has %u elements, the primitive has %lld", ap, acc,
                                     d->accessors[acc].count, (long long)count);
                /* what the loader applies: POSITION, NORMAL and TANGENT displacements of attributes the
                 * primitive has */
                bool pos = !strcmp(a->string, "POSITION"), nrm = !strcmp(a->string, "NORMAL"),
                     tan = !strcmp(a->string, "TANGENT");
                if (!pos && !nrm && !tan)
                    warn(c, "%s: not a morph target attribute the loader applies (POSITION, NORMAL, TANGENT); ignored", ap);
                else if ((nrm && p->normal < 0) || (tan && p->tangent < 0))
                    violation(c, "%s: the primitive has no %s to displace; ignored", ap, a->string);
                else if (pos && (!d->accessors[acc].has_min || !d->accessors[acc].has_max))
                    violation(c, "%s: accessor %d has no min and max, which glTF requires of morph target positions", ap, acc);
            }
        }
    }
    return true;
}

static bool parse_meshes(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "meshes", &arr, &d->mesh_count)) return false;
    d->meshes = palloc(c, d->mesh_count, sizeof *d->meshes);
    if (d->mesh_count && !d->meshes) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "meshes[%u]", i);
        orri_gltf_mesh *m = &d->meshes[i];
        const cJSON *prims, *weights;
        if (!jstring(c, j, "name", path, &m->name) || !jrequired(c, j, "primitives", path) ||
            !jarray(c, j, "primitives", path, &prims) || !jarray(c, j, "weights", path, &weights))
            return false;
        static const char *const known[] = {"primitives", "weights", NULL};
        check_keys(c, j, path, known);
        m->primitive_count = (uint32_t)cJSON_GetArraySize(prims);
        if (!m->primitive_count) return PARSE_ERR(c, "%s.primitives: empty array", path);
        m->primitives = palloc(c, m->primitive_count, sizeof *m->primitives);
        if (!m->primitives) return false;
        d->primitive_total += m->primitive_count;
        uint32_t k = 0;
        for (const cJSON *pj = prims->child; pj; pj = pj->next, k++) {
            char pp[96];
            PATHF(c, pp, sizeof pp, "%s.primitives[%u]", path, k);
            if (!cJSON_IsObject(pj)) return PARSE_ERR(c, "%s: expected an object, found %s", pp, jtype(pj));
            if (!parse_primitive(c, pj, pp, &m->primitives[k])) return false;
            if (k > 0 && m->primitives[k].target_count != m->primitives[0].target_count)
                violation(c, "%s.targets: %u morph targets, primitive 0 has %u", pp, m->primitives[k].target_count,
                     m->primitives[0].target_count);
        }
        m->weight_count = m->primitives[0].target_count;
        if (weights) {
            uint32_t wn = (uint32_t)cJSON_GetArraySize(weights), w = 0;
            for (const cJSON *e = weights->child; e; e = e->next, w++) {
                char wp[96];
                double v;
                PATHF(c, wp, sizeof wp, "%s.weights[%u]", path, w);
                if (!jnumber_value(c, e, wp, NULL, &v)) return false;
            }
            if (wn != m->weight_count)
                violation(c, "%s.weights: %u weights for %u morph targets", path, wn, m->weight_count);
            m->weights = weights;
        }
    }
    return true;
}

/* ---- cameras and lights ------------------------------------------------------------------------- */

static bool parse_cameras(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "cameras", &arr, &d->camera_count)) return false;
    d->cameras = palloc(c, d->camera_count, sizeof *d->cameras);
    if (d->camera_count && !d->cameras) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "cameras[%u]", i);
        orri_gltf_camera *cam = &d->cameras[i];
        const char *type;
        if (!jrequired(c, j, "type", path) || !jstring(c, j, "type", path, &type)) return false;
        static const char *const known[] = {"type", "perspective", "orthographic", NULL};
        check_keys(c, j, path, known);
        if (cJSON_GetObjectItemCaseSensitive(j, "perspective") && cJSON_GetObjectItemCaseSensitive(j, "orthographic"))
            violation(c, "%s: both perspective and orthographic; the type ('%s') is used", path, type ? type : "");
        const cJSON *o;
        char op[96];
        if (type && strcmp(type, "perspective") == 0) {
            cam->projection = ORR_PERSPECTIVE;
            if (!jobject(c, j, "perspective", path, &o)) return false;
            if (!o) return PARSE_ERR(c, "%s: required property 'perspective' is missing", path);
            PATHF(c, op, sizeof op, "%s.perspective", path);
            if (!jrequired(c, o, "yfov", op) || !jnum(c, o, "yfov", op, 0, &cam->yfov) || !jrequired(c, o, "znear", op) ||
                !jnum(c, o, "znear", op, 0, &cam->znear) || !jnum(c, o, "zfar", op, 0, &cam->zfar) ||
                !jnum(c, o, "aspectRatio", op, 0, &cam->aspect))
                return false;
            if (!(cam->yfov > 0)) return PARSE_ERR(c, "%s.yfov: %g must be positive", op, cam->yfov);
            if (!(cam->znear > 0)) return PARSE_ERR(c, "%s.znear: %g must be positive", op, cam->znear);
            if (cJSON_GetObjectItemCaseSensitive(o, "zfar") && !(cam->zfar > cam->znear))
                return PARSE_ERR(c, "%s.zfar: %g must be greater than znear %g", op, cam->zfar, cam->znear);
            if (cam->aspect < 0) return PARSE_ERR(c, "%s.aspectRatio: %g must be positive", op, cam->aspect);
        } else if (type && strcmp(type, "orthographic") == 0) {
            cam->projection = ORR_ORTHOGRAPHIC;
            if (!jobject(c, j, "orthographic", path, &o)) return false;
            if (!o) return PARSE_ERR(c, "%s: required property 'orthographic' is missing", path);
            PATHF(c, op, sizeof op, "%s.orthographic", path);
            if (!jrequired(c, o, "xmag", op) || !jnum(c, o, "xmag", op, 0, &cam->xmag) || !jrequired(c, o, "ymag", op) ||
                !jnum(c, o, "ymag", op, 0, &cam->ymag) || !jrequired(c, o, "znear", op) ||
                !jnum(c, o, "znear", op, 0, &cam->znear) || !jrequired(c, o, "zfar", op) || !jnum(c, o, "zfar", op, 0, &cam->zfar))
                return false;
            if (cam->xmag == 0 || cam->ymag == 0) return PARSE_ERR(c, "%s: xmag and ymag must not be zero", op);
            if (cam->znear < 0) return PARSE_ERR(c, "%s.znear: %g is negative", op, cam->znear);
            if (!(cam->zfar > cam->znear)) return PARSE_ERR(c, "%s.zfar: %g must be greater than znear %g", op, cam->zfar, cam->znear);
        } else {
            return PARSE_ERR(c, "%s.type: '%s' is not perspective or orthographic", path, type ? type : "");
        }
    }
    return true;
}

static bool parse_lights(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *ext, *lp, *arr;
    if (!jobject(c, d->json, "extensions", "", &ext)) return false;
    if (!ext) return true;
    if (!jobject(c, ext, "KHR_lights_punctual", "extensions", &lp)) return false;
    if (!lp) return true;
    const char *base = "extensions.KHR_lights_punctual";
    if (!jarray(c, lp, "lights", base, &arr)) return false;
    if (!arr) return PARSE_ERR(c, "%s: required property 'lights' is missing", base);
    if (!cJSON_GetArraySize(arr)) violation(c, "%s.lights: empty array, ignored", base);
    d->light_count = (uint32_t)cJSON_GetArraySize(arr);
    d->lights = palloc(c, d->light_count, sizeof *d->lights);
    if (d->light_count && !d->lights) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr->child; j; j = j->next, i++) {
        char path[96];
        PATHF(c, path, sizeof path, "%s.lights[%u]", base, i);
        if (!cJSON_IsObject(j)) return PARSE_ERR(c, "%s: expected an object, found %s", path, jtype(j));
        orri_gltf_light *l = &d->lights[i];
        l->value = (orr_light){.color = {1, 1, 1}, .intensity = 1, .outer_cone = (float)(ORR_PI / 4), .enabled = true};
        const char *type;
        double col[3] = {1, 1, 1}, intensity, range;
        if (!jstring(c, j, "name", path, &l->name) || !jrequired(c, j, "type", path) || !jstring(c, j, "type", path, &type) ||
            !jnums(c, j, "color", path, 3, col, NULL) || !jnum(c, j, "intensity", path, 1.0, &intensity) ||
            !jnum(c, j, "range", path, 0.0, &range))
            return false;
        static const char *const known[] = {"type", "color", "intensity", "range", "spot", NULL};
        check_keys(c, j, path, known);
        if (type && strcmp(type, "directional") == 0) l->value.type = ORR_LIGHT_DIRECTIONAL;
        else if (type && strcmp(type, "point") == 0) l->value.type = ORR_LIGHT_POINT;
        else if (type && strcmp(type, "spot") == 0) l->value.type = ORR_LIGHT_SPOT;
        else return PARSE_ERR(c, "%s.type: '%s' is not directional, point or spot", path, type ? type : "");
        for (int k = 0; k < 3; k++) l->value.color[k] = clamp01(c, path, "color", col[k]);
        if (intensity < 0) return PARSE_ERR(c, "%s.intensity: %g is negative", path, intensity);
        if (cJSON_GetObjectItemCaseSensitive(j, "range") && !(range > 0))
            return PARSE_ERR(c, "%s.range: %g must be positive", path, range);
        l->value.intensity = (float)intensity;
        l->value.range = (float)range;
        if (l->value.type == ORR_LIGHT_SPOT) {
            const cJSON *spot;
            if (!jobject(c, j, "spot", path, &spot)) return false;
            if (!spot) return PARSE_ERR(c, "%s: required property 'spot' is missing", path);
            char sp[128];
            PATHF(c, sp, sizeof sp, "%s.spot", path);
            double inner, outer;
            if (!jnum(c, spot, "innerConeAngle", sp, 0.0, &inner) || !jnum(c, spot, "outerConeAngle", sp, ORR_PI / 4, &outer))
                return false;
            if (inner < 0 || !(outer > inner) || outer > ORR_PI / 2 + 1e-6)
                return PARSE_ERR(c, "%s: cone angles %g and %g need 0 <= inner < outer <= pi/2", sp, inner, outer);
            l->value.inner_cone = (float)inner;
            l->value.outer_cone = (float)outer;
        }
    }
    return true;
}

/* ---- nodes, skins, scenes ----------------------------------------------------------------------- */

static bool parse_index_list(pctx *c, const cJSON *arr, const char *path, uint32_t count, const char *what,
                             uint32_t **out, uint32_t *n, bool unique)
{
    *n = (uint32_t)cJSON_GetArraySize(arr);
    *out = NULL;
    if (!*n) return true;
    *out = palloc(c, *n, sizeof(uint32_t));
    if (!*out) return false;
    uint32_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        char p[160];
        PATHF(c, p, sizeof p, "%s[%u]", path, i);
        int32_t v = 0;
        if (!jref_value(c, e, p, count, what, &v)) return false;
        (*out)[i] = (uint32_t)v;
    }
    if (unique && *n > 1) {
        /* one stamp array for the whole parse, so that many short lists stay linear overall */
        if (c->stamp_n < count) {
            orri_gltf_dealloc(&c->doc->allocator, c->stamp, 0);
            c->stamp = palloc(c, count, sizeof *c->stamp);
            c->stamp_n = c->stamp ? count : 0;
            c->stamp_gen = 0;
            if (!c->stamp) return false;
        }
        uint32_t gen = ++c->stamp_gen;
        for (i = 0; i < *n; i++) {
            if (c->stamp[(*out)[i]] == gen) return PARSE_ERR(c, "%s[%u]: %u is listed twice", path, i, (*out)[i]);
            c->stamp[(*out)[i]] = gen;
        }
    }
    return true;
}

static bool parse_nodes(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "nodes", &arr, &d->node_count)) return false;
    d->nodes = palloc(c, d->node_count, sizeof *d->nodes);
    if (d->node_count && !d->nodes) return false;
    for (uint32_t i = 0; i < d->node_count; i++) d->nodes[i].parent = -1;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "nodes[%u]", i);
        orri_gltf_node *n = &d->nodes[i];
        n->light = n->inst_t = n->inst_r = n->inst_s = -1;
        const cJSON *children, *weights;
        double m[16], t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
        bool has_m, has_t, has_r, has_s;
        if (!jstring(c, j, "name", path, &n->name) || !jref(c, j, "mesh", path, d->mesh_count, "meshes", &n->mesh) ||
            !jref(c, j, "skin", path, d->skin_count, "skins", &n->skin) ||
            !jref(c, j, "camera", path, d->camera_count, "cameras", &n->camera) ||
            !jarray(c, j, "children", path, &children) || !jarray(c, j, "weights", path, &weights) ||
            !jnums(c, j, "matrix", path, 16, m, &has_m) || !jnums(c, j, "translation", path, 3, t, &has_t) ||
            !jnums(c, j, "rotation", path, 4, r, &has_r) || !jnums(c, j, "scale", path, 3, s, &has_s))
            return false;
        static const char *const known[] = {"camera", "children", "skin", "matrix", "mesh", "rotation", "scale",
                                            "translation", "weights", NULL};
        check_keys(c, j, path, known);
        if (children) {
            char cp[96];
            PATHF(c, cp, sizeof cp, "%s.children", path);
            if (!parse_index_list(c, children, cp, d->node_count, "nodes", &n->children, &n->child_count, true)) return false;
            if (!n->child_count) violation(c, "%s: empty array, ignored", cp);
        }
        if (has_m && (has_t || has_r || has_s)) violation(c, "%s: both matrix and TRS; the matrix is used", path);
        n->has_matrix = has_m;
        for (int k = 0; k < 16; k++) n->matrix.m[k] = has_m ? m[k] : (k % 5 == 0 ? 1.0 : 0.0);
        if (has_m && (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1))
            violation(c, "%s.matrix: not an affine transform", path);
        n->t = has_m ? (orr_vec3d){0, 0, 0} : (orr_vec3d){t[0], t[1], t[2]};
        n->s = has_m ? (orr_vec3d){1, 1, 1} : (orr_vec3d){s[0], s[1], s[2]};
        n->r = has_m ? ORR_QUAT_IDENTITY : (orr_quatd){r[0], r[1], r[2], r[3]};
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        if (!has_m) n->r = orr_quatd_normalize(n->r); /* always: float-written quaternions are close, not exact */
        if (!has_m && fabs(len - 1.0) > 1e-3) violation(c, "%s.rotation: not a unit quaternion (length %g), normalized", path, len);
        if (n->skin >= 0 && n->mesh < 0) violation(c, "%s.skin: set without a mesh, ignored", path);
        if (weights && n->mesh < 0) violation(c, "%s.weights: set without a mesh, ignored", path);
        if (weights && n->mesh >= 0) {
            uint32_t w = 0, want = d->meshes[n->mesh].weight_count;
            for (const cJSON *e = weights->child; e; e = e->next, w++) {
                char wp[96];
                double v;
                PATHF(c, wp, sizeof wp, "%s.weights[%u]", path, w);
                if (!jnumber_value(c, e, wp, NULL, &v)) return false;
            }
            if (w != want) violation(c, "%s.weights: %u weights for %u morph targets", path, w, want);
            n->weights = weights;
        }
        const cJSON *ext;
        if (!jobject(c, j, "extensions", path, &ext)) return false;
        if (ext) {
            char ep[96];
            PATHF(c, ep, sizeof ep, "%s.extensions", path);
            const cJSON *lp, *gi;
            if (!jobject(c, ext, "KHR_lights_punctual", ep, &lp) || !jobject(c, ext, "EXT_mesh_gpu_instancing", ep, &gi))
                return false;
            if (lp) {
                char lpp[160];
                PATHF(c, lpp, sizeof lpp, "%s.KHR_lights_punctual", ep);
                if (!jrequired(c, lp, "light", lpp) || !jref(c, lp, "light", lpp, d->light_count, "lights", &n->light))
                    return false;
            }
            if (gi) {
                char gp[160], ap[200];
                PATHF(c, gp, sizeof gp, "%s.EXT_mesh_gpu_instancing", ep);
                const cJSON *attrs;
                if (!jobject(c, gi, "attributes", gp, &attrs)) return false;
                if (!attrs) return PARSE_ERR(c, "%s: required property 'attributes' is missing", gp);
                PATHF(c, ap, sizeof ap, "%s.attributes", gp);
                if (!jref(c, attrs, "TRANSLATION", ap, d->accessor_count, "accessors", &n->inst_t) ||
                    !jref(c, attrs, "ROTATION", ap, d->accessor_count, "accessors", &n->inst_r) ||
                    !jref(c, attrs, "SCALE", ap, d->accessor_count, "accessors", &n->inst_s))
                    return false;
                const fmt_rule v3 = {3, 3, true, false, false, false, false, false, false, false, false};
                const fmt_rule q4 = {4, 4, true, false, false, true, true, false, false, false, false};
                int32_t accs[3] = {n->inst_t, n->inst_r, n->inst_s};
                const char *names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
                int64_t count = -1;
                for (int k = 0; k < 3; k++) {
                    if (accs[k] < 0) continue;
                    char kp[240];
                    PATHF(c, kp, sizeof kp, "%s.%s", ap, names[k]);
                    if (!check_format(c, (uint32_t)accs[k], k == 1 ? &q4 : &v3, kp)) return false;
                    int64_t cn = d->accessors[accs[k]].count;
                    if (count >= 0 && cn != count)
                        return PARSE_ERR(c, "%s: %lld instances, the other attributes have %lld", kp, (long long)cn, (long long)count);
                    count = cn;
                }
                if (count < 0) warn(c, "%s: no instance attributes; ignored", gp);
                else if (n->mesh < 0) warn(c, "%s: set without a mesh, ignored", gp);
                else n->instance_count = (uint32_t)count;
                if (n->instance_count && n->skin >= 0) warn(c, "%s: instances of a skinned mesh are drawn unskinned", gp);
            }
        }
    }
    /* parents: each node has at most one */
    for (i = 0; i < d->node_count; i++) {
        for (uint32_t k = 0; k < d->nodes[i].child_count; k++) {
            uint32_t ch = d->nodes[i].children[k];
            if (ch == i) return fail(c, ORR_ERROR_CYCLE, "nodes[%u].children[%u]: node %u is its own child", i, k, i);
            if (d->nodes[ch].parent >= 0)
                return PARSE_ERR(c, "nodes[%u].children[%u]: node %u already has parent %d", i, k, ch, d->nodes[ch].parent);
            d->nodes[ch].parent = (int32_t)i;
        }
    }
    /* cycles: walk up from each node; 1 = on the current path, 2 = reaches a root */
    uint8_t *state = d->node_count ? palloc(c, d->node_count, 1) : NULL;
    if (d->node_count && !state) return false;
    for (i = 0; i < d->node_count; i++) {
        uint32_t n = i;
        while (state[n] == 0) {
            state[n] = 1;
            if (d->nodes[n].parent < 0) break;
            n = (uint32_t)d->nodes[n].parent;
        }
        if (state[n] == 1 && d->nodes[n].parent >= 0) {
            orri_gltf_dealloc(&d->allocator, state, d->node_count);
            return fail(c, ORR_ERROR_CYCLE, "nodes[%u]: node is part of a cycle of children", n);
        }
        for (uint32_t m = i; state[m] == 1; m = (uint32_t)d->nodes[m].parent) {
            state[m] = 2;
            if (d->nodes[m].parent < 0) break;
        }
    }
    orri_gltf_dealloc(&d->allocator, state, d->node_count);
    return true;
}

/* Beyond this a world translation may overflow when a camera position (or another point as far the other
 * way) is subtracted from it, as drawing does: |x| > DBL_MAX / 2. */
#define ORRI_GLTF_PLACEABLE (DBL_MAX / 2)

/* Nodes whose world transform (the product of their ancestors' local transforms, each finite) overflows
 * binary64 or lies beyond ORRI_GLTF_PLACEABLE: each warned about and counted (orr_gltf_stats.
 * unplaceable_nodes); they are loaded as written. O(nodes): each world matrix once, parents first. */
static bool check_node_range(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (!d->node_count) return true;
    orr_mat4d *world = palloc(c, d->node_count, sizeof *world);
    uint8_t *done = palloc(c, d->node_count, 1);
    uint32_t *chain = palloc(c, d->node_count, sizeof *chain);
    bool ok = world && done && chain;
    for (uint32_t i = 0; ok && i < d->node_count; i++) {
        uint32_t n = 0;
        for (int64_t m = i; m >= 0 && !done[m]; m = d->nodes[m].parent) chain[n++] = (uint32_t)m;
        while (n--) { /* from the topmost node not yet done down to i */
            uint32_t m = chain[n];
            orr_mat4d local;
            orri_gltf_node_local(&d->nodes[m], &local);
            if (d->nodes[m].parent >= 0) orr_mat4d_mul(&world[d->nodes[m].parent], &local, &world[m]);
            else world[m] = local;
            done[m] = 1;
            const double *t = &world[m].m[12];
            bool finite = true;
            for (int k = 0; k < 16; k++) finite = finite && isfinite(world[m].m[k]);
            if (!finite || fabs(t[0]) > ORRI_GLTF_PLACEABLE || fabs(t[1]) > ORRI_GLTF_PLACEABLE || fabs(t[2]) > ORRI_GLTF_PLACEABLE) {
                c->unplaceable++;
                warn(c, "nodes[%u]: its world transform %s (translation %g %g %g), beyond what binary64 can place "
                     "(|x| <= %g); loaded as written", m, finite ? "lies too far" : "overflows", t[0], t[1], t[2],
                     ORRI_GLTF_PLACEABLE);
            }
        }
    }
    if (world) orri_gltf_dealloc(&d->allocator, world, d->node_count * sizeof *world);
    if (done) orri_gltf_dealloc(&d->allocator, done, d->node_count);
    if (chain) orri_gltf_dealloc(&d->allocator, chain, d->node_count * sizeof *chain);
    return ok;
}

static bool parse_skins(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    /* skins are parsed before nodes (nodes refer to them) but refer to nodes: count nodes first */
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d->json, "nodes");
    uint32_t node_count = cJSON_IsArray(nodes) ? (uint32_t)cJSON_GetArraySize(nodes) : 0;
    if (!top_array(c, "skins", &arr, &d->skin_count)) return false;
    d->skins = palloc(c, d->skin_count, sizeof *d->skins);
    if (d->skin_count && !d->skins) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "skins[%u]", i);
        orri_gltf_skin *s = &d->skins[i];
        const cJSON *joints;
        if (!jstring(c, j, "name", path, &s->name) ||
            !jref(c, j, "inverseBindMatrices", path, d->accessor_count, "accessors", &s->inverse_bind) ||
            !jref(c, j, "skeleton", path, node_count, "nodes", &s->skeleton) || !jrequired(c, j, "joints", path) ||
            !jarray(c, j, "joints", path, &joints))
            return false;
        static const char *const known[] = {"inverseBindMatrices", "skeleton", "joints", NULL};
        check_keys(c, j, path, known);
        char jp[96];
        PATHF(c, jp, sizeof jp, "%s.joints", path);
        if (!parse_index_list(c, joints, jp, node_count, "nodes", &s->joints, &s->joint_count, true)) return false;
        if (!s->joint_count) return PARSE_ERR(c, "%s: empty array", jp);
        if (s->inverse_bind >= 0) {
            char ip[96];
            PATHF(c, ip, sizeof ip, "%s.inverseBindMatrices", path);
            const orri_gltf_accessor *a = &d->accessors[s->inverse_bind];
            if (a->type != ORRI_GLTF_MAT4 || a->component_type != ORRI_GLTF_FLOAT)
                return PARSE_ERR(c, "%s: accessor %d has format {%s, %s}, needs {MAT4, FLOAT}", ip, s->inverse_bind,
                                 type_names[a->type], comp_name(a->component_type));
            if (a->count < s->joint_count)
                return PARSE_ERR(c, "%s: accessor %d has %u matrices for %u joints", ip, s->inverse_bind, a->count,
                                 s->joint_count);
        }
    }
    return true;
}

static bool parse_scenes(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "scenes", &arr, &d->scene_count)) return false;
    d->scenes = palloc(c, d->scene_count, sizeof *d->scenes);
    if (d->scene_count && !d->scenes) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "scenes[%u]", i);
        orri_gltf_scene *s = &d->scenes[i];
        const cJSON *nodes;
        if (!jstring(c, j, "name", path, &s->name) || !jarray(c, j, "nodes", path, &nodes)) return false;
        static const char *const known[] = {"nodes", NULL};
        check_keys(c, j, path, known);
        if (!nodes) continue;
        char np[96];
        PATHF(c, np, sizeof np, "%s.nodes", path);
        if (!parse_index_list(c, nodes, np, d->node_count, "nodes", &s->nodes, &s->node_count, true)) return false;
        if (!s->node_count) violation(c, "%s: empty array, ignored", np);
        for (uint32_t k = 0; k < s->node_count; k++) {
            if (d->nodes[s->nodes[k]].parent >= 0)
                return PARSE_ERR(c, "%s[%u]: node %u is not a root (its parent is node %d)", np, k, s->nodes[k],
                                 d->nodes[s->nodes[k]].parent);
        }
    }
    int32_t def;
    if (!jref(c, d->json, "scene", "", d->scene_count, "scenes", &def)) return false;
    d->default_scene = def;
    return true;
}

/* ---- animations --------------------------------------------------------------------------------- */

static bool parse_animation_list(pctx *c, const cJSON *arr, uint32_t **seen_io);

static bool parse_animations(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!top_array(c, "animations", &arr, &d->animation_count)) return false;
    d->animations = palloc(c, d->animation_count, sizeof *d->animations);
    if (d->animation_count && !d->animations) return false;
    uint32_t *seen = NULL; /* per node and path: the animation (+1) that last targeted it */
    bool ok = parse_animation_list(c, arr, &seen);
    orri_gltf_dealloc(&d->allocator, seen, 0);
    return ok;
}

static bool parse_animation_list(pctx *c, const cJSON *arr, uint32_t **seen_io)
{
    orri_gltf_doc *d = c->doc;
    uint32_t *seen = *seen_io;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "animations[%u]", i);
        orri_gltf_animation *an = &d->animations[i];
        const cJSON *chans, *samps;
        if (!jstring(c, j, "name", path, &an->name) || !jrequired(c, j, "channels", path) ||
            !jarray(c, j, "channels", path, &chans) || !jrequired(c, j, "samplers", path) ||
            !jarray(c, j, "samplers", path, &samps))
            return false;
        static const char *const known[] = {"channels", "samplers", NULL};
        check_keys(c, j, path, known);
        an->channel_count = (uint32_t)cJSON_GetArraySize(chans);
        an->sampler_count = (uint32_t)cJSON_GetArraySize(samps);
        if (!an->channel_count) return PARSE_ERR(c, "%s.channels: empty array", path);
        if (!an->sampler_count) return PARSE_ERR(c, "%s.samplers: empty array", path);
        an->channels = palloc(c, an->channel_count, sizeof *an->channels);
        an->samplers = palloc(c, an->sampler_count, sizeof *an->samplers);
        if (!an->channels || !an->samplers) return false;
        uint32_t k = 0;
        for (const cJSON *s = samps->child; s; s = s->next, k++) {
            char sp[96];
            PATHF(c, sp, sizeof sp, "%s.samplers[%u]", path, k);
            if (!cJSON_IsObject(s)) return PARSE_ERR(c, "%s: expected an object, found %s", sp, jtype(s));
            orri_gltf_sampler *smp = &an->samplers[k];
            const char *interp;
            if (!jrequired(c, s, "input", sp) || !jref(c, s, "input", sp, d->accessor_count, "accessors", &smp->input) ||
                !jrequired(c, s, "output", sp) || !jref(c, s, "output", sp, d->accessor_count, "accessors", &smp->output) ||
                !jstring(c, s, "interpolation", sp, &interp))
                return false;
            static const char *const sknown[] = {"input", "output", "interpolation", NULL};
            check_keys(c, s, sp, sknown);
            if (!interp || strcmp(interp, "LINEAR") == 0) smp->interpolation = ORR_INTERP_LINEAR;
            else if (strcmp(interp, "STEP") == 0) smp->interpolation = ORR_INTERP_STEP;
            else if (strcmp(interp, "CUBICSPLINE") == 0) smp->interpolation = ORR_INTERP_CUBICSPLINE;
            else return PARSE_ERR(c, "%s.interpolation: '%s' is not LINEAR, STEP or CUBICSPLINE", sp, interp);
            const orri_gltf_accessor *in = &d->accessors[smp->input];
            char ip[128];
            PATHF(c, ip, sizeof ip, "%s.input", sp);
            if (in->type != ORRI_GLTF_SCALAR || in->component_type != ORRI_GLTF_FLOAT)
                return PARSE_ERR(c, "%s: accessor %d has format {%s, %s%s}, needs {SCALAR, FLOAT}", ip, smp->input,
                                 type_names[in->type], in->normalized ? "normalized " : "", comp_name(in->component_type));
            if (smp->interpolation == ORR_INTERP_CUBICSPLINE && in->count < 2)
                return PARSE_ERR(c, "%s: CUBICSPLINE needs at least 2 keys, accessor %d has %u", ip, smp->input, in->count);
            if (!in->has_min || !in->has_max)
                violation(c, "%s: accessor %d has no min/max, which glTF requires of animation inputs", ip, smp->input);
            /* times: non-negative and strictly increasing (decoded when sparse or view-less) */
            float *decoded = NULL;
            if (in->sparse_count || in->view < 0) {
                decoded = palloc(c, in->count, sizeof(float));
                if (!decoded) return false;
                orri_gltf_read_floats(d, (uint32_t)smp->input, 1, 0, decoded);
            }
            float prev = 0;
            for (uint32_t e = 0; e < in->count; e++) {
                float t;
                if (decoded) t = decoded[e];
                else memcpy(&t, elem_ptr(d, in, e), 4);
                bool bad_time = t < 0 || (e > 0 && !(t > prev));
                if (bad_time) {
                    orri_gltf_dealloc(&d->allocator, decoded, 0);
                    return PARSE_ERR(c, "%s: key %u time %g %s", ip, e, t, t < 0 ? "is negative" : "does not increase");
                }
                prev = t;
            }
            orri_gltf_dealloc(&d->allocator, decoded, 0);
        }
        k = 0;
        for (const cJSON *ch = chans->child; ch; ch = ch->next, k++) {
            char cp[96];
            PATHF(c, cp, sizeof cp, "%s.channels[%u]", path, k);
            if (!cJSON_IsObject(ch)) return PARSE_ERR(c, "%s: expected an object, found %s", cp, jtype(ch));
            orri_gltf_channel *chan = &an->channels[k];
            const cJSON *target;
            if (!jrequired(c, ch, "sampler", cp) ||
                !jref(c, ch, "sampler", cp, an->sampler_count, "samplers in this animation", &chan->sampler) ||
                !jrequired(c, ch, "target", cp) || !jobject(c, ch, "target", cp, &target))
                return false;
            char tp[128];
            PATHF(c, tp, sizeof tp, "%s.target", cp);
            const char *tpath;
            if (!jref(c, target, "node", tp, d->node_count, "nodes", &chan->node) || !jrequired(c, target, "path", tp) ||
                !jstring(c, target, "path", tp, &tpath))
                return false;
            if (!tpath) return PARSE_ERR(c, "%s.path: expected a string", tp);
            if (strcmp(tpath, "translation") == 0) chan->path = ORR_ANIM_TRANSLATION;
            else if (strcmp(tpath, "rotation") == 0) chan->path = ORR_ANIM_ROTATION;
            else if (strcmp(tpath, "scale") == 0) chan->path = ORR_ANIM_SCALE;
            else if (strcmp(tpath, "weights") == 0) chan->path = ORR_ANIM_WEIGHTS;
            else if (strcmp(tpath, "pointer") == 0) {
                warn(c, "%s.path: 'pointer' (KHR_animation_pointer) is not supported; the channel is ignored", tp);
                chan->node = -1;
                continue;
            } else return PARSE_ERR(c, "%s.path: '%s' is not translation, rotation, scale or weights", tp, tpath);
            if (chan->node < 0) {
                warn(c, "%s: no target node; the channel is ignored", tp);
                continue;
            }
            /* one channel per node and path in an animation (glTF 2.0, 3.11): a second would be decoded
             * and played for nothing */
            if (!seen) {
                seen = *seen_io = palloc(c, (size_t)d->node_count * 4, sizeof *seen);
                if (!seen) return false;
            }
            uint32_t *mark = &seen[(size_t)chan->node * 4 + (uint32_t)chan->path];
            if (*mark == i + 1) {
                return PARSE_ERR(c, "%s: node %d path '%s' is already the target of another channel of this animation",
                                 tp, chan->node, tpath);
            }
            *mark = i + 1;
            const orri_gltf_sampler *smp = &an->samplers[chan->sampler];
            const orri_gltf_accessor *in = &d->accessors[smp->input], *out = &d->accessors[smp->output];
            char sp[128];
            PATHF(c, sp, sizeof sp, "%s.sampler", cp);
            fmt_rule rule = {3, 3, true, false, false, false, false, false, false, false, false};
            uint32_t per_key = 1;
            if (chan->path == ORR_ANIM_ROTATION) rule = (fmt_rule){4, 4, true, true, true, true, true, false, false, false, false};
            if (chan->path == ORR_ANIM_WEIGHTS) {
                rule = (fmt_rule){1, 1, true, true, true, true, true, false, false, false, false};
                const orri_gltf_node *tn = &d->nodes[chan->node];
                per_key = tn->mesh >= 0 ? d->meshes[tn->mesh].weight_count : 0;
                if (!per_key) return PARSE_ERR(c, "%s.node: node %d has no morph targets to animate", tp, chan->node);
            }
            if (!accessor_format_ok(out, &rule))
                return PARSE_ERR(c, "%s: output accessor %d has format {%s, %s%s}, not allowed for path '%s'", sp,
                                 smp->output, type_names[out->type], out->normalized ? "normalized " : "",
                                 comp_name(out->component_type), tpath);
            uint64_t expect = (uint64_t)in->count * per_key * (smp->interpolation == ORR_INTERP_CUBICSPLINE ? 3 : 1);
            if (out->count != expect)
                return PARSE_ERR(c, "%s: output accessor %d has %u elements, expected %llu for %u keys", sp, smp->output,
                                 out->count, (unsigned long long)expect, in->count);
        }
    }
    return true;
}

/* Skinned meshes: joint indices must name a joint of every skin the mesh is drawn with. The largest
 * joint index of each mesh (over its primitives' JOINTS_n sets) is computed once, and each skinned
 * node compares it once: O(nodes + primitives), not nodes x primitives. */
static bool check_joints(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (!d->mesh_count) return true;
    int64_t *max_of = palloc(c, d->mesh_count, sizeof *max_of); /* -1 = no joints, -2 = not computed */
    if (!max_of) return false;
    for (uint32_t m = 0; m < d->mesh_count; m++) max_of[m] = -2;
    bool ok = true;
    for (uint32_t i = 0; i < d->node_count && ok; i++) {
        const orri_gltf_node *n = &d->nodes[i];
        if (n->mesh < 0) continue;
        const orri_gltf_mesh *m = &d->meshes[n->mesh];
        if (max_of[n->mesh] == -2) {
            int64_t best = -1;
            for (uint32_t p = 0; p < m->primitive_count; p++) {
                const cJSON *attrs = m->primitives[p].attributes;
                for (const cJSON *a = attrs ? attrs->child : NULL; a; a = a->next) { /* every JOINTS_n set */
                    uint32_t set, at;
                    if (!parse_attribute_name(a->string, "JOINTS_", &set)) continue;
                    uint32_t mx = accessor_max_uint(d, (uint32_t)a->valuedouble, UINT32_MAX, &at);
                    if ((int64_t)mx > best) best = mx;
                }
            }
            max_of[n->mesh] = best;
        }
        if (max_of[n->mesh] < 0) {
            if (n->skin >= 0) violation(c, "nodes[%u]: skin %d, but mesh %d has no JOINTS_0; drawn unskinned", i, n->skin, n->mesh);
            continue;
        }
        if (n->skin < 0) {
            warn(c, "nodes[%u]: mesh %d has joints but the node has no skin", i, n->mesh);
            continue;
        }
        uint32_t joints = d->skins[n->skin].joint_count;
        if ((uint64_t)max_of[n->mesh] < joints) continue;
        /* refused: find the primitive and element to name (once, on the way out) */
        for (uint32_t p = 0; p < m->primitive_count && ok; p++) {
            const cJSON *attrs = m->primitives[p].attributes;
            for (const cJSON *a = attrs ? attrs->child : NULL; a && ok; a = a->next) {
                uint32_t set, at = 0;
                if (!parse_attribute_name(a->string, "JOINTS_", &set)) continue;
                uint32_t mx = accessor_max_uint(d, (uint32_t)a->valuedouble, joints, &at);
                if (mx >= joints)
                    ok = PARSE_ERR(c, "meshes[%d].primitives[%u].attributes.%s: element %u has joint %u, skin %d (used by node %u) has %u joints",
                                   n->mesh, p, a->string, at, mx, n->skin, i, joints);
            }
        }
    }
    orri_gltf_dealloc(&d->allocator, max_of, 0);
    return ok;
}

/* ---- external files nothing has read yet ------------------------------------------------------- */

/* One problem with an external file: a warning, or (require) an error logged and counted, the
 * first kept for the refusal. In the fast pass a warning only marks the pass, and an error fails it,
 * so that the second pass, with paths, reports them all. */
typedef struct file_report {
    uint32_t errors;
    char first[sizeof ((orr_error *)0)->message];
} file_report;

/* The node at the top of n's hierarchy. */
static uint32_t root_of(const orri_gltf_doc *d, uint32_t n)
{
    while (d->nodes[n].parent >= 0) n = (uint32_t)d->nodes[n].parent;
    return n;
}

/* Whether `a` is n or one of its ancestors. */
static bool is_ancestor(const orri_gltf_doc *d, uint32_t a, uint32_t n)
{
    for (int64_t m = n; m >= 0; m = d->nodes[m].parent)
        if ((uint32_t)m == a) return true;
    return false;
}

/* glTF: a skin's joints have a common root, and `skeleton`, when given, is one (an ancestor of, or, every
 * joint). Skinning here needs neither (joints are skinned from their own world matrices), so a skin
 * breaking them is a violation the loader steps around. O(joints x depth) per skin. */
static bool check_skin_roots(pctx *c)
{
    const orri_gltf_doc *d = c->doc;
    for (uint32_t i = 0; i < d->skin_count; i++) {
        const orri_gltf_skin *s = &d->skins[i];
        uint32_t root = root_of(d, s->joints[0]);
        for (uint32_t k = 1; k < s->joint_count; k++)
            if (root_of(d, s->joints[k]) != root) {
                violation(c, "skins[%u].joints: joint %u (node %u) shares no root with joint 0 (node %u); glTF wants a "
                          "common root, skinning does not need one", i, k, s->joints[k], s->joints[0]);
                break;
            }
        if (s->skeleton < 0) continue;
        for (uint32_t k = 0; k < s->joint_count; k++)
            if (!is_ancestor(d, (uint32_t)s->skeleton, s->joints[k])) {
                violation(c, "skins[%u].skeleton: node %d is not joint %u (node %u) nor one of its ancestors; ignored",
                          i, s->skeleton, k, s->joints[k]);
                break;
            }
    }
    return true;
}

static void log_error(pctx *c, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void log_error(pctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&c->doc->logger, ORR_LOG_ERROR, c->name, fmt, ap);
    va_end(ap);
}

static void file_problem(pctx *c, file_report *r, const char *fmt, ...) ORRI_PRINTF(3, 4);
static void file_problem(pctx *c, file_report *r, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->files == ORRI_GLTF_FILES_WARN) {
        warn(c, "%s", msg);
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
static bool check_files(pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (c->files == ORRI_GLTF_FILES_LAZY || !d->source_count) return true;
    /* per source: 0 = not probed, 1 = usable (size[] bytes), 2 = reported */
    uint8_t *state = palloc(c, d->source_count, 1);
    uint64_t *size = palloc(c, d->source_count, sizeof *size);
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
    if (r.errors == 1) return fail(c, ORR_ERROR_IO, "%s", r.first);
    return fail(c, ORR_ERROR_IO, "%s (and %u more files that cannot be used)", r.first, r.errors - 1);
}

/* ---- entry -------------------------------------------------------------------------------------- */

void orri_gltf_free(orri_gltf_doc *d)
{
    if (!d) return;
    late_join(d); /* its thread writes into the doc's blocks */
    orr_allocator a = d->allocator;
#define FREE(p) orri_gltf_dealloc(&a, (void *)(p), 0)
    for (uint32_t i = 0; i < d->buffer_count && d->buffers; i++) FREE(d->buffers[i].owned);
    for (uint32_t i = 0; i < d->source_count; i++) {
        FREE(d->sources[i].path);
        orri_gltf_file_close(&a, &d->sources[i].file);
    }
    FREE(d->sources);
    FREE(d->source_hash);
    for (uint32_t i = 0; i < d->block_count; i++)
        if (!d->blocks[i].lent) orri_free(&a, d->blocks[i].data, d->blocks[i].bytes);
    for (uint32_t k = 0; k < d->late_n; k++) FREE(d->late[k].tri);
    FREE(d->late);
    FREE(d->late_scan);
    if (d->late_started) pthread_mutex_destroy(&d->late_lock), pthread_cond_destroy(&d->late_cond);
    FREE(d->blocks);
    for (uint32_t i = 0; i < d->image_count && d->images; i++) FREE(d->images[i].owned);
    for (uint32_t i = 0; i < d->mesh_count && d->meshes; i++) FREE(d->meshes[i].primitives);
    for (uint32_t i = 0; i < d->node_count && d->nodes; i++) FREE(d->nodes[i].children);
    for (uint32_t i = 0; i < d->skin_count && d->skins; i++) FREE(d->skins[i].joints);
    for (uint32_t i = 0; i < d->scene_count && d->scenes; i++) FREE(d->scenes[i].nodes);
    for (uint32_t i = 0; i < d->animation_count && d->animations; i++) {
        FREE(d->animations[i].channels);
        FREE(d->animations[i].samplers);
    }
    FREE(d->buffers);
    FREE(d->views);
    FREE(d->accessors);
    FREE(d->meshes);
    FREE(d->materials);
    FREE(d->textures);
    FREE(d->images);
    FREE(d->samplers);
    FREE(d->nodes);
    FREE(d->skins);
    FREE(d->animations);
    FREE(d->scenes);
    FREE(d->cameras);
    FREE(d->lights);
#undef FREE
    if (d->json) cJSON_Delete(d->json);
    orri_free(&a, d, sizeof *d);
}

/* gltf_json.c's warnings, through the parse's (a second pass spells them out): each is a place where
 * the text is not the JSON glTF requires (violation()). */
static void json_warn(void *user, const char *fmt, ...)
{
    pctx *c = user;
    if (!c->doc->logger.log) return;
    if (!c->paths) {
        c->warned = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&c->doc->logger, ORR_LOG_ERROR, c->name, fmt, ap);
    va_end(ap);
}

static orr_result parse_once(const orri_gltf_parse_desc *desc, bool paths, bool defer, orri_gltf_doc **out,
                             orr_error *err, bool *warned)
{
    *out = NULL;
    *warned = false;
    if (err) err->code = ORR_OK, err->message[0] = 0;
    orr_allocator alloc = orri_allocator_or_default(&desc->allocator);
    orri_gltf_doc *d = orri_alloc(&alloc, sizeof *d);
    if (!d) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    d->allocator = alloc;
    d->pool = desc->pool;
    d->logger = desc->logger;
    d->default_scene = -1;
    orr_error local = {0};
    pctx c = {.doc = d, .err = err ? err : &local, .name = desc->name, .base_dir = desc->base_dir,
               .allow_outside = desc->allow_outside_uris, .files = desc->files, .paths = paths,
               .threads = orri_gltf_threads(desc->threads), .defer = defer};
    const uint8_t *bytes = desc->data;
    size_t size = desc->size;
    const uint8_t *json = bytes;
    size_t json_n = size;
    if (size == 0) {
        fail(&c, ORR_ERROR_PARSE, "file is empty");
        goto done;
    }
    if (size >= 4 && memcmp(bytes, "glTF", 4) == 0) {
        c.is_glb = true;
        if (!parse_glb(&c, bytes, size, &json, &json_n)) goto done;
    }
    if (json_n >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) {
        violation(&c, "JSON: starts with a UTF-8 byte order mark, skipped");
        json += 3;
        json_n -= 3;
    }
    uint64_t t0 = orri_gltf_now_ns();
    size_t end = 0;
    orri_gltf_json_desc jd = {.text = json, .size = json_n, .allocator = d->allocator, .warn = json_warn, .user = &c};
    orr_result jr = orri_gltf_json_read(&jd, &d->json, &end, c.err);
    c.json_ns = orri_gltf_now_ns() - t0;
    if (jr != ORR_OK) {
        c.failed = true;
        goto done;
    }
    for (size_t p = end; p < json_n; p++) {
        if (json[p] != ' ' && json[p] != '\t' && json[p] != '\r' && json[p] != '\n' && json[p] != 0) {
            fail(&c, ORR_ERROR_PARSE, "JSON: unexpected data after the root object at byte %zu", p);
            goto done;
        }
    }
    if (!cJSON_IsObject(d->json)) {
        fail(&c, ORR_ERROR_PARSE, "JSON: the root is %s, expected an object", jtype(d->json));
        goto done;
    }
    bool ok = parse_asset(&c) && parse_buffers(&c) && parse_views(&c) && parse_accessors(&c) && parse_images(&c) &&
              parse_samplers(&c) && parse_textures(&c) && parse_materials(&c) && parse_meshes(&c) &&
              parse_cameras(&c) && parse_lights(&c) && parse_skins(&c) && parse_nodes(&c) && check_node_range(&c) && parse_scenes(&c) &&
              parse_animations(&c) && check_joints(&c) && check_skin_roots(&c) && check_files(&c);
    if (ok && d->logger.log) { /* only a listener can hear what it finds */
        orri_gltf_check k = {.doc = d, .name = c.name, .paths = c.paths};
        orri_gltf_check_unread_extensions(&k);
        c.warned = c.warned || k.found;
    }
    orri_gltf_dealloc(&d->allocator, c.stamp, 0);
    for (uint32_t k = 0; k < c.mo_n && c.mo; k++)
        orri_gltf_dealloc(&d->allocator, c.mo[k].tri, 0), orri_gltf_dealloc(&d->allocator, c.mo[k].vtx, 0);
    orri_gltf_dealloc(&d->allocator, c.mo, 0);
    c.stamp = NULL, c.mo = NULL;
    if (ok) {
        late_release(d, 1); /* the rest is validated: the late views' accessors may be scanned */
        *out = d;
        *warned = c.warned;
        if (desc->stats) {
            desc->stats->json_ns += c.json_ns, desc->stats->decode_ns += c.decode_ns;
            desc->stats->deferred_views = c.deferred; /* of the parse kept */
            desc->stats->unplaceable_nodes = c.unplaceable;
        }
        return ORR_OK;
    }
done:;
    orr_result code = c.err->code != ORR_OK ? c.err->code : ORR_ERROR_PARSE;
    orri_gltf_free(d);
    if (desc->stats) desc->stats->json_ns += c.json_ns, desc->stats->decode_ns += c.decode_ns;
    return code;
}

bool orri_gltf_late(const orri_gltf_doc *d, int32_t accessor)
{
    return !d->late_checked && accessor >= 0 && (uint32_t)accessor < d->accessor_count &&
           on_late_view(d, &d->accessors[accessor]);
}

orr_result orri_gltf_finish(orri_gltf_doc *d, const char *name, uint32_t threads, orr_error *err)
{
    if (!d->late_n || d->late_checked) return ORR_OK;
    uint64_t t0 = orri_gltf_now_ns();
    late_join(d);
    d->late_wait_ns = orri_gltf_now_ns() - t0;
    d->late_checked = true;
    orr_error local = {0};
    pctx c = {.doc = d, .err = err ? err : &local, .name = name, .paths = true, .threads = orri_gltf_threads(threads)};
    for (uint32_t k = 0; k < d->late_n && !c.failed; k++)
        if (d->late[k].why) meshopt_failed(&c, &d->late[k]);
        else d->split_views += d->late[k].split;
    if (!c.failed) scan_data(&c, true);
    for (uint32_t mi = 0; mi < d->mesh_count && !c.failed; mi++)
        for (uint32_t pi = 0; pi < d->meshes[mi].primitive_count && !c.failed; pi++) {
            const orri_gltf_primitive *p = &d->meshes[mi].primitives[pi];
            if (p->indices < 0 || p->position < 0 || !on_late_view(d, &d->accessors[p->indices])) continue;
            char ip[96];
            snprintf(ip, sizeof ip, "meshes[%u].primitives[%u].indices", mi, pi);
            check_index_range(&c, p, ip);
        }
    for (uint32_t v = 0; v < d->view_count; v++) d->views[v].late = false;
    return c.failed ? (c.err->code != ORR_OK ? c.err->code : ORR_ERROR_PARSE) : ORR_OK;
}

static orr_result parse_timed(const orri_gltf_parse_desc *desc, bool paths, bool defer, orri_gltf_doc **out,
                              orr_error *err, bool *warned)
{
    orr_gltf_stats *st = desc->stats;
    uint64_t t0 = orri_gltf_now_ns(), j0 = st ? st->json_ns : 0, d0 = st ? st->decode_ns : 0;
    orr_result r = parse_once(desc, paths, defer, out, err, warned);
    if (st) {
        uint64_t spent = orri_gltf_now_ns() - t0, known = (st->json_ns - j0) + (st->decode_ns - d0);
        st->validate_ns += spent > known ? spent - known : 0;
        st->parses++;
        st->threads = orri_gltf_threads(desc->threads);
    }
    return r;
}

orr_result orri_gltf_parse(const orri_gltf_parse_desc *desc, orri_gltf_doc **out, orr_error *err)
{
    bool warned;
    orr_result r = parse_timed(desc, false, desc->defer, out, err, &warned);
    if (r == ORR_OK && !warned) return ORR_OK;
    /* a refusal or a warning to report: again, with the JSON paths spelled out; a refusal with every check
     * in its place (nothing deferred), so that the first problem is the one a single thread reports */
    orri_gltf_free(*out);
    return parse_timed(desc, true, desc->defer && r == ORR_OK, out, err, &warned);
}

void orri_gltf_node_local(const orri_gltf_node *n, orr_mat4d *out)
{
    if (n->has_matrix) *out = n->matrix;
    else orr_mat4d_from_trs(n->t, n->r, n->s, out);
}
