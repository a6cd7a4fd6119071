/* Internal to the glTF parse: what the files that read one part of the document each share. One pass
 * over a file runs the parts in the order orri_gltf_parse calls them (gltf_parse.c); each reads its
 * part of the JSON tree into the document (gltf_internal.h), checks it, and on the first problem
 * fails the pass with a message naming the JSON path (orri_gltf_fail). Included by those files only:
 * the builder and the info pass see the finished document, never a pass. A part calls the walk, the
 * reports and the parts it builds on (files < views < accessors, scan < meshes < nodes, animations),
 * never the entry.
 *
 *   gltf_parse.c       the entry (parse, finish, free): runs the parts in order
 *   gltf_report.c      allocation, log lines, a pass's failures and warnings
 *   gltf_walk.c        the JSON walk: typed members of a cJSON object
 *   gltf_files.c       files, base64 and URIs, the GLB container, external files nothing read
 *   gltf_extensions.c  the asset object, extensionsUsed/Required, where extension objects may appear
 *   gltf_views.c       buffers, buffer views, compressed views and their decoding
 *   gltf_accessors.c   accessors (layout, sparse, bounds) and their readers (gltf_elements.h)
 *   gltf_scan.c        the accessors' data checked, the bulk scanned on the worker pool
 *   gltf_materials.c   images, samplers, textures, materials
 *   gltf_meshes.c      meshes, primitives, Draco primitives
 *   gltf_nodes.c       cameras, lights, nodes, skins, scenes
 *   gltf_animations.c  animations
 */
#ifndef ORRI_SCENE_GLTF_PARSE_INTERNAL_H
#define ORRI_SCENE_GLTF_PARSE_INTERNAL_H

#include "scene/gltf_internal.h"

#include <limits.h>
#include <stdio.h>

/* One pass over a file (orri_gltf_parse runs one or two). */
typedef struct orri_gltf_pctx {
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
} orri_gltf_pctx;

/* ---- reporting and allocation (gltf_report.c) ---- */

/* Fails the pass with the message (the first failure is the one kept); always false. */
bool orri_gltf_fail(orri_gltf_pctx *c, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
#define PARSE_ERR(c, ...) orri_gltf_fail((c), ORR_ERROR_PARSE, __VA_ARGS__)
/* Untidy input: a warning through the logger (in the fast pass it only marks the pass). */
void orri_gltf_warn(orri_gltf_pctx *c, const char *fmt, ...) ORRI_PRINTF(2, 3);
/* A place where the file breaks the glTF 2.0 spec and the loader steps around it (the message says
 * how): logged at ORR_LOG_ERROR, so that a checker (orrery validate) calls the file invalid while a
 * viewer still draws it. */
void orri_gltf_violation(orri_gltf_pctx *c, const char *fmt, ...) ORRI_PRINTF(2, 3);
void orri_gltf_vviolation(orri_gltf_pctx *c, const char *fmt, va_list ap);


/* Path strings cost more than the checks on small files, and are needed only for a message: the
 * first pass leaves them empty; a pass that fails or warns is run again with them. */
#define PATHF(c, buf, cap, ...) ((c)->paths ? snprintf((buf), (cap), __VA_ARGS__) : ((buf)[0] = 0, 0))

/* count x size zeroed bytes from the document's allocator, or NULL having failed the pass (NULL too
 * for count 0, without failing). */
void *orri_gltf_palloc(orri_gltf_pctx *c, size_t count, size_t size);
/* size bytes, not zeroed (a decoder's scratch: first touched by the workers that use it). */
void *orri_gltf_palloc_scratch(orri_gltf_pctx *c, size_t size);

/* ---- the JSON walk (gltf_walk.c) ----
 * Each reads obj[key] at JSON path `path` ("" at the root): absent gives the default (or NULL) and
 * true; present with the wrong type or out of range fails the pass naming "path.key". */

const char *orri_gltf_jtype(const cJSON *j); /* "an object", "a number", ...: for messages */
/* "path.key", or "key" for a top-level member (path ""). */
#define DOT(path) (*(path) ? "." : "")
bool orri_gltf_jarray(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, const cJSON **out);
bool orri_gltf_jobject(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, const cJSON **out);
bool orri_gltf_jbool(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, bool def, bool *out);
bool orri_gltf_jnumber_value(orri_gltf_pctx *c, const cJSON *j, const char *path, const char *key, double *out);
bool orri_gltf_jnum(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, double def, double *out);
bool orri_gltf_jrequired(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path);
bool orri_gltf_jint(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, int64_t def, int64_t lo,
                    int64_t hi, int64_t *out);
bool orri_gltf_jref_value(orri_gltf_pctx *c, const cJSON *j, const char *path, uint32_t count, const char *what,
                          int32_t *out);
bool orri_gltf_jref(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, uint32_t count,
                    const char *what, int32_t *out);
bool orri_gltf_jstring(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, const char **out);
bool orri_gltf_jnums(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, uint32_t n, double *out,
                     bool *present);
void orri_gltf_check_keys(orri_gltf_pctx *c, const cJSON *obj, const char *path, const char *const *known);
bool orri_gltf_top_array(orri_gltf_pctx *c, const char *key, const cJSON **arr, uint32_t *count);

/* ---- files and URIs (gltf_files.c) ---- */

/* An image media type glTF allows: PNG and JPEG, and those of the image extensions the file uses. */
bool orri_gltf_image_type_ok(const orri_gltf_pctx *c, const char *type, size_t n);
/* A data URI's bytes, decoded into *owned. */
bool orri_gltf_decode_data_uri(orri_gltf_pctx *c, const char *uri, const char *path, bool image, uint8_t **owned,
                               size_t *size);
/* The file a relative URI names, joined to base_dir into full[cap]. Refuses schemes, bad percent
 * escapes, and (unless allowed) paths outside the folder. */
bool orri_gltf_uri_file_path(orri_gltf_pctx *c, const char *uri, const char *path, char *full, size_t cap);
/* The document's source (an index of doc->sources) for a file path, made on its first use; -1 having
 * failed the pass. */
int32_t orri_gltf_source_intern(orri_gltf_pctx *c, const char *full, uint64_t max_bytes, const char *upath);
/* Opens a source (once; later calls return the first outcome). */
bool orri_gltf_source_open(const orri_gltf_doc *d, orri_gltf_source *s);
/* A GLB container: its JSON chunk in *json, its BIN chunk kept in the pass (glb_bin). */
bool orri_gltf_parse_glb(orri_gltf_pctx *c, const uint8_t *d, size_t n, const uint8_t **json, size_t *json_n);
/* The external files nothing read while parsing, as orri_gltf_parse_desc.files asks. */
bool orri_gltf_check_files(orri_gltf_pctx *c);

/* ---- the asset and extensions (gltf_extensions.c) ---- */

bool orri_gltf_parse_asset(orri_gltf_pctx *c);

/* ---- buffers and views (gltf_views.c) ---- */

/* Memory the document owns (decoded views and attributes), freed with it. */
uint8_t *orri_gltf_doc_block(orri_gltf_pctx *c, size_t size);
bool orri_gltf_parse_buffers(orri_gltf_pctx *c);
bool orri_gltf_parse_views(orri_gltf_pctx *c); /* and decodes the compressed ones */
/* Fails the pass with the reason a compressed view did not decode (ORR_ERROR_UNSUPPORTED or _PARSE). */
bool orri_gltf_meshopt_failed(orri_gltf_pctx *c, const orri_gltf_meshopt_view *m);
/* The index views decoding beside the load: let their task scan their accessors (go 1) or not (-1),
 * once; wait for the task to end. */
void orri_gltf_late_release(orri_gltf_doc *d, int go);
void orri_gltf_late_join(orri_gltf_doc *d);

/* ---- accessors (gltf_accessors.c) ---- */

bool orri_gltf_parse_accessors(orri_gltf_pctx *c); /* and checks their data (gltf_scan.c) */
/* The largest integer component of an accessor (indices, joints), sparse applied; *at, the element
 * holding it (looked up only when it is at least at_needed_above: for a message). */
uint32_t orri_gltf_accessor_max_uint(const orri_gltf_doc *d, uint32_t index, uint32_t at_needed_above, uint32_t *at);

/* ---- the data scan (gltf_scan.c) ---- */

/* One range of one accessor's elements (a vector of at most 4 components with no sparse part): whether
 * a float in it is NaN or infinite, and each component's extremes in the component's own type (as
 * doubles, the raw values read_comp gives). A job writes only its own record. */
typedef struct orri_gltf_scan_job {
    const orri_gltf_doc *doc;
    uint32_t accessor, first, count;
    bool bad;
    double mn[4], mx[4];
} orri_gltf_scan_job;

/* Every accessor's data (with `late`, only those in views decoded beside the load); see gltf_scan.c. */
bool orri_gltf_scan_data(orri_gltf_pctx *c, bool late);
/* A float accessor's values element by element: NaN and infinity refuse the file (naming the first);
 * min/max that disagree with the data only warn. */
bool orri_gltf_scan_floats(orri_gltf_pctx *c, const orri_gltf_accessor *a, uint32_t index);
/* Whether the accessor lies in a view decoding beside the load. */
bool orri_gltf_on_late_view(const orri_gltf_doc *d, const orri_gltf_accessor *a);
/* Indices whose largest value the triangle decoder found: not scanned. */
bool orri_gltf_decoder_max(const orri_gltf_doc *d, const orri_gltf_accessor *a);
/* The scan's jobs (NULL with *count 0 when there are none, or too many, or no memory for them: *oom),
 * and how many values they read. */
orri_gltf_scan_job *orri_gltf_scan_jobs(orri_gltf_doc *d, bool late, uint32_t *count, uint64_t *values, bool *oom);
/* Whether n jobs reading `values` values are worth sharing out on `threads`. */
bool orri_gltf_scan_shares(uint32_t threads, uint32_t n, uint64_t values);
/* Runs them on `workers`, up to `threads` (NULL: this thread alone). */
void orri_gltf_scan_run(orri_gltf_scan_job *js, uint32_t n, uint32_t threads, orr_workers *workers);
/* The late scan's jobs, made before the late views' decode ended, less those it spared (decoder_max). */
void orri_gltf_late_scan_spared(orri_gltf_doc *d);

/* ---- images, samplers, textures, materials (gltf_materials.c) ---- */

bool orri_gltf_parse_images(orri_gltf_pctx *c);
bool orri_gltf_parse_samplers(orri_gltf_pctx *c);
bool orri_gltf_parse_textures(orri_gltf_pctx *c);
bool orri_gltf_parse_materials(orri_gltf_pctx *c);
/* v clamped to [0, 1]: a violation naming "path.key" when it was outside. */
float orri_gltf_clamp01(orri_gltf_pctx *c, const char *path, const char *key, double v);

/* ---- meshes (gltf_meshes.c) ---- */

/* The formats an attribute may take. */
typedef struct orri_gltf_fmt_rule {
    uint32_t comps_a, comps_b; /* allowed component counts (b may equal a) */
    bool float_ok, ubyte_n, ushort_n, byte_n, short_n, ubyte, ushort, byte_, short_;
} orri_gltf_fmt_rule;
bool orri_gltf_accessor_format_ok(const orri_gltf_accessor *a, const orri_gltf_fmt_rule *r);
/* Fails the pass naming `path` when accessor `acc` breaks the rule. */
bool orri_gltf_check_format(orri_gltf_pctx *c, uint32_t acc, const orri_gltf_fmt_rule *r, const char *path);
/* Whether `name` is prefix + a set number ("JOINTS_1"), in *set. */
bool orri_gltf_parse_attribute_name(const char *name, const char *prefix, uint32_t *set);
/* A primitive's indices lie below its vertex count; the index type's largest value (the primitive
 * restart value, which glTF forbids) is warned about. */
bool orri_gltf_check_index_range(orri_gltf_pctx *c, const orri_gltf_primitive *p, const char *ip);
bool orri_gltf_parse_meshes(orri_gltf_pctx *c);

/* ---- cameras, lights, nodes, skins, scenes (gltf_nodes.c) ---- */

bool orri_gltf_parse_cameras(orri_gltf_pctx *c);
bool orri_gltf_parse_lights(orri_gltf_pctx *c);
bool orri_gltf_parse_skins(orri_gltf_pctx *c);
bool orri_gltf_parse_nodes(orri_gltf_pctx *c);
bool orri_gltf_check_node_range(orri_gltf_pctx *c);  /* world transforms that can be placed */
bool orri_gltf_parse_scenes(orri_gltf_pctx *c);
bool orri_gltf_check_joints(orri_gltf_pctx *c);      /* joint indices against every skin drawn with */
bool orri_gltf_check_skin_roots(orri_gltf_pctx *c);  /* a skin's common root and skeleton */

/* ---- animations (gltf_animations.c) ---- */

bool orri_gltf_parse_animations(orri_gltf_pctx *c);

#endif
