/* Internal to the scene module: the parsed and validated glTF document.
 *
 * orri_gltf_parse reads a .gltf or .glb (from memory, with external URIs resolved against a folder),
 * checks everything the loader relies on (references, sizes, strides, alignment, accessor formats,
 * node graph, finite floats) and keeps the decoded buffers. After a successful parse every index in
 * the document is in range and every accessor can be read without further bounds checks, so the
 * builder (gltf_build.c) and the info pass never re-check. A failed parse leaves one message naming
 * the JSON path in `err` and frees everything.
 *
 * Untidy input (unknown properties, unsupported optional extensions, min/max that disagree) is only
 * reported through the logger as a warning.
 */
#ifndef ORRI_SCENE_GLTF_INTERNAL_H
#define ORRI_SCENE_GLTF_INTERNAL_H

#include <orrery/assets.h>
#include <orrery/core.h>
#include <orrery/world.h>

#include "core/internal.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdarg.h>

/* Accessor component types (glTF enums). */
enum {
    ORRI_GLTF_BYTE = 5120,
    ORRI_GLTF_UNSIGNED_BYTE = 5121,
    ORRI_GLTF_SHORT = 5122,
    ORRI_GLTF_UNSIGNED_SHORT = 5123,
    ORRI_GLTF_UNSIGNED_INT = 5125,
    ORRI_GLTF_FLOAT = 5126,
};

/* Accessor types as component counts; matrices keep their column count for padding. */
typedef enum orri_gltf_type {
    ORRI_GLTF_SCALAR = 0,
    ORRI_GLTF_VEC2,
    ORRI_GLTF_VEC3,
    ORRI_GLTF_VEC4,
    ORRI_GLTF_MAT2,
    ORRI_GLTF_MAT3,
    ORRI_GLTF_MAT4,
} orri_gltf_type;

typedef struct orri_gltf_pool orri_gltf_pool; /* a load's workers (below) */

/* A file's bytes, read into memory (never mapped: gltf_files.c says why). */
typedef struct orri_gltf_file {
    const uint8_t *data;
    size_t size;
    uint8_t *heap;   /* the read copy (data), or NULL */
} orri_gltf_file;

/* At most max_bytes of the file (UINT64_MAX = all of it). Refuses anything but a regular file. */
orr_result orri_gltf_file_open(const orr_allocator *a, const char *path, uint64_t max_bytes, orri_gltf_file *out,
                               orr_error *err);
void orri_gltf_file_close(const orr_allocator *a, orri_gltf_file *f);
/* A model file (.gltf or .glb): its header is read and checked first (a GLB's declared length must be
 * the file's; a large JSON file must start with '{'), so that a wrong or oversized file is refused
 * before the rest of it is read; then read whole. */
orr_result orri_gltf_model_open(const orr_allocator *a, const char *path, orri_gltf_file *out, orr_error *err);

/* An external file named by one or more URIs: opened at most once (buffers while parsing, images
 * when a texture first uses them), at most max_bytes of it. */
typedef struct orri_gltf_source {
    char *path;         /* base_dir joined with the decoded URI (for messages, and the dedup key) */
    const char *real;   /* its real path, checked to lie inside the model's folder, and what is opened;
                         * NULL when not resolved (allow_outside_uris, or missing: opening says why) */
    uint64_t max_bytes; /* the most any buffer or image naming it needs */
    bool opened, ok;
    orri_gltf_file file;
    orr_error error; /* why opening failed */
} orri_gltf_source;

typedef struct orri_gltf_buffer {
    const uint8_t *data; /* at least byte_length bytes; NULL when missing */
    uint64_t byte_length;
    uint8_t *owned;      /* decoded base64; NULL when data points into the input or a source */
    bool missing;        /* no uri outside a GLB: refused once a buffer view uses it */
    bool fallback;       /* EXT/KHR_meshopt_compression fallback: never read; only compressed views name it */
    int32_t source;      /* external file (doc->sources), -1 = none */
} orri_gltf_buffer;

typedef struct orri_gltf_view {
    const uint8_t *data; /* the view's first byte: in its buffer, or decoded (EXT/KHR_meshopt_compression,
                          * KHR_draco_mesh_compression); NULL while its buffer has no data (refused once
                          * an accessor or image uses it) */
    uint32_t buffer;
    uint64_t offset, length;
    uint32_t stride; /* 0 = tightly packed */
    uint32_t target; /* 0, 34962 (vertices) or 34963 (indices) */
    bool late;       /* decoding beside the load until orri_gltf_finish (read only as indices) */
    uint32_t block;  /* the doc block it was decoded into alone (index + 1), 0 = none */
    bool max_known;  /* a decoded index view's largest element, found by its decoder, */
    uint32_t max, max_size; /* and the size of its elements */
} orri_gltf_view;

typedef struct orri_gltf_accessor {
    int32_t view;  /* -1 = no buffer view: zeros (then sparse) */
    uint64_t offset;
    uint32_t component_type;
    uint32_t comp_size;
    orri_gltf_type type;
    uint32_t components;   /* 1, 2, 3, 4, 4, 9, 16 */
    uint32_t columns, rows; /* 1 x components for vectors; n x n for matrices */
    uint32_t column_stride; /* bytes between matrix columns (4-byte aligned), or the element size */
    uint32_t elem_size;    /* bytes of one element, with matrix column padding */
    uint32_t stride;       /* bytes between elements */
    bool normalized;
    uint32_t count;
    uint32_t sparse_count; /* 0 = not sparse */
    int32_t sparse_indices_view;
    uint64_t sparse_indices_offset;
    uint32_t sparse_indices_type;
    int32_t sparse_values_view;
    uint64_t sparse_values_offset;
    bool has_min, has_max;
    double min[16], max[16];
    bool draco_target;   /* named by a KHR_draco_mesh_compression primitive: its data comes from the decoder */
    int32_t draco_view;  /* once decoded: the Draco bufferView and attribute id it came from (-1 = indices) */
    int32_t draco_id;
    bool max_known;    /* an unsigned integer accessor's largest component, found by the data scan */
    uint32_t max_uint;
    bool range_known;  /* each component's least and greatest value (the first of equal ones), found by the data scan */
    double range_min[4], range_max[4];
} orri_gltf_accessor;

#define ORRI_GLTF_MAX_SETS 2
#define ORRI_GLTF_MAX_LODS 7u /* MSFT_lod levels beyond a node's own (ORR_MESH_MAX_LODS - 1) */

typedef struct orri_gltf_primitive {
    int32_t position, normal, tangent, texcoord[ORRI_GLTF_MAX_SETS], color, joints, weights; /* accessors; -1 = absent */
    int32_t indices;  /* -1 = non-indexed */
    int32_t material; /* -1 = default */
    uint32_t mode;    /* glTF mode 0..6 */
    uint32_t vertex_count; /* the POSITION count (0 when absent) */
    uint32_t target_count; /* morph targets */
    const cJSON *attributes; /* the JSON object (every set, e.g. JOINTS_1), borrowed from the doc's tree */
    const cJSON *targets;    /* the morph targets (validated), borrowed likewise; NULL = none */
} orri_gltf_primitive;

typedef struct orri_gltf_mesh {
    const char *name; /* borrowed from the JSON tree; NULL-able */
    uint32_t primitive_count;
    orri_gltf_primitive *primitives;
    uint32_t weight_count; /* morph weights */
    const cJSON *weights;  /* mesh.weights (validated numbers), borrowed from the doc's tree; NULL = none */
} orri_gltf_mesh;

typedef struct orri_gltf_texref {
    int32_t texture; /* -1 = none */
    uint32_t texcoord;
    float scale;
    float offset[2], rotation, uv_scale[2];
} orri_gltf_texref;

typedef struct orri_gltf_material {
    const char *name;
    orr_material value; /* texture ids left none; see the texrefs */
    orri_gltf_texref base_color, metallic_roughness, normal, occlusion, emissive;
    /* an extension the loader does not read whose texture needs a tangent space (its name and the
     * texture's key, static strings), NULL = none: set by orri_gltf_check_unread_extensions */
    const char *tangent_need, *tangent_texture;
} orri_gltf_material;

typedef struct orri_gltf_texture {
    int32_t source;  /* image; -1 = none */
    int32_t sampler; /* -1 = default sampler */
} orri_gltf_texture;

typedef struct orri_gltf_image {
    const char *name;
    const uint8_t *bytes; /* encoded, from a data URI or a buffer view; NULL when absent (warned) */
    size_t size;
    uint8_t *owned;
    int32_t source; /* external file (doc->sources), opened lazily; -1 = bytes above */
    int32_t view;   /* the bufferView the bytes are in; -1 = none */
} orri_gltf_image;

typedef struct orri_gltf_camera {
    orr_projection projection;
    double yfov, aspect, xmag, ymag, znear, zfar;
} orri_gltf_camera;

typedef struct orri_gltf_light {
    const char *name;
    orr_light value;
} orri_gltf_light;

typedef struct orri_gltf_node {
    const char *name;
    int32_t mesh, skin, camera, light;
    int32_t parent;          /* -1 = root */
    uint32_t child_count;
    uint32_t *children;
    bool has_matrix;
    orr_mat4d matrix;
    orr_vec3d t, s;
    orr_quatd r;
    /* EXT_mesh_gpu_instancing: accessors, -1 = absent; instance_count 0 = not instanced */
    int32_t inst_t, inst_r, inst_s;
    uint32_t instance_count;
    const cJSON *weights; /* node.weights (validated numbers), borrowed from the doc's tree; NULL = none */
    uint32_t lod_count;   /* MSFT_lod: its coarser levels' nodes, finest first (gltf_build_lods.c) */
    uint32_t *lod_ids;
    const cJSON *lod_coverage; /* extras.MSFT_screencoverage (validated shares), borrowed from the doc's
                                  tree; NULL = none */
} orri_gltf_node;

typedef struct orri_gltf_skin {
    const char *name;
    int32_t inverse_bind; /* accessor; -1 = identity */
    int32_t skeleton;
    uint32_t joint_count;
    uint32_t *joints; /* node indices */
} orri_gltf_skin;

typedef struct orri_gltf_sampler {
    int32_t input, output; /* accessors */
    orr_interpolation interpolation;
} orri_gltf_sampler;

typedef struct orri_gltf_channel {
    int32_t sampler;
    int32_t node; /* -1 = no target: ignored */
    orr_anim_path path;
} orri_gltf_channel;

typedef struct orri_gltf_animation {
    const char *name;
    uint32_t channel_count, sampler_count;
    orri_gltf_channel *channels;
    orri_gltf_sampler *samplers;
} orri_gltf_animation;

typedef struct orri_gltf_scene {
    const char *name;
    uint32_t node_count;
    uint32_t *nodes;
} orri_gltf_scene;

typedef struct orri_gltf_doc {
    orr_allocator allocator;
    orr_logger logger;
    cJSON *json;
    uint32_t buffer_count, view_count, accessor_count, mesh_count, material_count, texture_count,
        image_count, sampler_count, node_count, skin_count, animation_count, scene_count, camera_count,
        light_count;
    orri_gltf_buffer *buffers;
    orri_gltf_view *views;
    orri_gltf_accessor *accessors;
    orri_gltf_mesh *meshes;
    orri_gltf_material *materials;
    orri_gltf_texture *textures;
    orri_gltf_image *images;
    orr_sampler *samplers;
    orri_gltf_node *nodes;
    orri_gltf_skin *skins;
    orri_gltf_animation *animations;
    orri_gltf_scene *scenes;
    orri_gltf_camera *cameras;
    orri_gltf_light *lights;
    orri_gltf_source *sources; /* distinct external files; entries are opened through a const doc */
    uint32_t source_count;
    uint32_t view_cap; /* views beyond view_count hold decoded Draco attributes (accessors point at them) */
    uint32_t view_extra;
    int32_t *source_hash; /* open addressing over sources by path, -1 = empty */
    uint32_t source_hash_cap;
    struct orri_gltf_block { /* decoded data (compressed views, Draco attributes), freed with the doc */
        uint8_t *data;         /* from the allocator itself, at exactly `bytes` (what the asset library frees) */
        size_t bytes;
        bool lent;             /* handed over to the asset library (orri_gltf_lend_block): not freed here */
    } *blocks;
    uint32_t block_count, block_cap;
    uint64_t decoded_bytes; /* what the blocks hold */
    struct orri_gltf_meshopt_view *late; /* index views decoding on a thread of their own (late_n) */
    uint32_t late_n;
    bool late_started, late_joined, late_checked;
    uint64_t late_ns, late_wait_ns; /* the thread's decoding time; how long orri_gltf_finish waited for it */
    orri_pool_task late_task; /* their decoding, on the workers */
    pthread_mutex_t late_lock; /* with late_cond: late_go, set once (with late_started) */
    pthread_cond_t late_cond;
    int late_go; /* 0 until the parse has validated the rest: 1, the thread scans; -1, it does not */
    uint32_t late_threads;            /* the scan's, beside the load, on late_workers (NULL: that thread alone) */
    struct orr_workers *late_workers;
    struct orri_gltf_scan_job *late_scan; /* the late accessors' scan jobs, run (late_scanned) */
    uint32_t late_scan_n;
    bool late_scanned;
    uint32_t split_views; /* orr_gltf_stats.split_views, the late ones counted once joined */
    orri_gltf_pool *pool; /* orri_gltf_parse_desc.pool */
    int32_t default_scene; /* -1 = none declared */
    uint32_t primitive_total;
} orri_gltf_doc;

/* External files a parse does not need (unused buffers, every image): left for later (images are
 * opened when a texture uses them), or each opened now and, when it is missing, unreadable or (a
 * buffer) shorter than its byteLength, a warning, or an error that refuses the file. */
typedef enum orri_gltf_files {
    ORRI_GLTF_FILES_LAZY = 0,
    ORRI_GLTF_FILES_WARN,    /* orr_gltf_info_file */
    ORRI_GLTF_FILES_REQUIRE, /* orr_gltf_options.require_files: each logged at ORR_LOG_ERROR too */
} orri_gltf_files;

typedef struct orri_gltf_parse_desc {
    const void *data;
    size_t size;
    const char *base_dir; /* NULL = external URIs are refused */
    bool allow_outside_uris; /* orr_gltf_options.allow_outside_uris */
    orri_gltf_files files;
    const char *name;     /* for warnings (the file name) */
    uint32_t threads;     /* decoding threads (orri_gltf_threads); 0 = one per core */
    orri_gltf_pool *pool; /* where they run; NULL: threads started per pass */
    struct orr_gltf_stats *stats; /* NULL, or where json, decode and validate times are added */
    bool defer;           /* large index views may decode beside the rest: orri_gltf_finish before reading them */
    orr_allocator allocator;
    orr_logger logger;
} orri_gltf_parse_desc;

/* Reading a file's JSON text (gltf_json.c). Before cJSON builds its tree the text is scanned: strict
 * RFC 8259 syntax as cJSON reads it (so that a cJSON failure after it can only be out of memory),
 * nesting at most CJSON_NESTING_LIMIT, numbers of at most 63 characters (cJSON cuts longer ones), a
 * \u0000 in a URI refused (elsewhere warned: cJSON's string is cut there), and what the tree and the
 * document's structs will take: more than ORRI_GLTF_JSON_AMPLIFICATION times the text (at least
 * ORRI_GLTF_JSON_MIN_BUDGET) is refused (ORR_ERROR_CAPACITY) before anything is allocated. The tree is
 * then checked: a key twice in an object is refused (glTF 2.0, 3.2: keys MUST be unique; cJSON would
 * silently take the first), invalid UTF-8 in a string or key is warned about and each invalid byte
 * replaced by U+FFFD (3.2: JSON MUST be UTF-8), so that everything read from the tree is UTF-8.
 * Messages name the JSON path. Valid files take at most 11 times their text in this corpus. */
#define ORRI_GLTF_JSON_AMPLIFICATION 24u
#define ORRI_GLTF_JSON_MIN_BUDGET (64u << 20)
typedef struct orri_gltf_json_desc {
    const uint8_t *text; /* after any byte order mark */
    size_t size;
    orr_allocator allocator; /* the scanner's and checker's scratch (cJSON allocates its own) */
    void (*warn)(void *user, const char *fmt, ...) ORRI_PRINTF(2, 3);
    void *user;
} orri_gltf_json_desc;
/* The tree in *out (cJSON_Delete) and where the root value ends in *end; an error names the path. */
orr_result orri_gltf_json_read(const orri_gltf_json_desc *desc, cJSON **out, size_t *end, orr_error *err);

/* Parses and validates; on success *out must be released with orri_gltf_free. */
orr_result orri_gltf_parse(const orri_gltf_parse_desc *desc, orri_gltf_doc **out, orr_error *err);
void orri_gltf_free(orri_gltf_doc *doc); /* NULL is a no-op */
/* After a parse with `defer`: waits for the index views decoding beside it, then checks them as the
 * parse would have (their decoding, their accessors' data, the primitives' index ranges), warning
 * through the doc's logger. Idempotent. */
orr_result orri_gltf_finish(orri_gltf_doc *doc, const char *name, uint32_t threads, orr_error *err);
/* Whether accessor `index` lies in a view still decoding (orri_gltf_finish not yet called). */
bool orri_gltf_late(const orri_gltf_doc *doc, int32_t accessor);

/* An image's encoded bytes: given, or its file, opened on first use (shared with every image and
 * buffer naming the same file). false when it has none, with *why naming the I/O failure if any. */
bool orri_gltf_image_data(const orri_gltf_doc *doc, uint32_t image, const uint8_t **bytes, size_t *size,
                          const char **why);

/* Reads a whole file through the allocator (*out freed with orri_gltf_dealloc). */
orr_result orri_gltf_read_file(const orr_allocator *a, const char *path, uint64_t max_bytes, uint8_t **out, size_t *size,
                               orr_error *err);

void *orri_gltf_alloc(const orr_allocator *a, size_t size); /* zero-filled; NULL on failure or size 0 */
void *orri_gltf_alloc_uninit(const orr_allocator *a, size_t size); /* the same, not zeroed (decoder outputs) */
/* The block that view `view` was decoded into alone, when it starts at `data` and holds exactly `bytes` (a
 * decoded index view, allocated as the asset library allocates a stream of that size), lent to the
 * library: the doc no longer frees it. False when there is no such block or it is lent already.
 * orri_gltf_unlend_block gives it back (the add that was to take it failed). The data stays where it
 * is, so views into it still read it. */
bool orri_gltf_lend_block(orri_gltf_doc *doc, int32_t view, const void *data, size_t bytes);
void orri_gltf_unlend_block(orri_gltf_doc *doc, int32_t view);
void orri_gltf_dealloc(const orr_allocator *a, void *p, size_t size);

/* Decodes an accessor (sparse applied) into count x out_components floats; components missing from
 * the accessor are filled with `fill` (e.g. alpha 1), extra ones dropped. Normalized integers map to
 * [0,1] / [-1,1]; other integers convert to their value. */
void orri_gltf_read_floats(const orri_gltf_doc *doc, uint32_t accessor, uint32_t out_components, float fill, float *out);
/* The same for `count` elements from element `first` on (e.g. the inverse bind matrices of the joints,
 * or one range of a stream, read on a worker): `out` receives element `first`. */
/* The box of a 3-component accessor's values as orri_gltf_read_floats converts them (a conversion that
 * keeps their order), from what the data scan found, without reading them again; false when the scan
 * did not find it (sparse, no view, or not scanned). */
bool orri_gltf_scanned_box(const orri_gltf_doc *doc, int32_t accessor, orr_aabbf *box);
void orri_gltf_read_floats_range(const orri_gltf_doc *doc, uint32_t accessor, uint32_t first, uint32_t count,
                                 uint32_t out_components, float fill, float *out);
/* Integer components (indices, joints): count x out_components values. */
void orri_gltf_read_uints(const orri_gltf_doc *doc, uint32_t accessor, uint32_t out_components, uint32_t *out);
/* The same for `count` elements from element `first` on, into `out` (a worker's share); false, having
 * read nothing, for an accessor that does not read in pieces (sparse, or no view). */
bool orri_gltf_read_uints_range(const orri_gltf_doc *doc, uint32_t accessor, uint32_t first, uint32_t count,
                                uint32_t out_components, uint32_t *out);

/* Counts and totals of a parsed document (orr_gltf_info_file without the file). */
struct orr_gltf_info;
orr_result orri_gltf_info(const orri_gltf_doc *doc, struct orr_gltf_info *out);

/* Entities one prefab may hold unless orr_gltf_options.max_entities says otherwise. */
#define ORRI_GLTF_DEFAULT_MAX_ENTITIES (1u << 22)

/* Bytes of variable-length data (names, joint lists, animation targets) that count as one entity
 * against max_entities: about what an entity with a MeshRenderer costs (world.h), so that the default
 * budget bounds them to about 1 GiB. */
#define ORRI_GLTF_LIST_UNIT 256u

/* The entities a prefab of the document would hold (*entities), refused with ORR_ERROR_CAPACITY and a
 * message (naming the skin when one skin's joint lists are most of it) when they, with every
 * ORRI_GLTF_LIST_UNIT bytes of their names, joint lists and animation targets counting as one more,
 * exceed max_entities (0 = the default). orr_gltf_info_file applies the same budget, since its bounds
 * pass visits every instance. */
orr_result orri_gltf_entity_budget(const orri_gltf_doc *doc, uint32_t max_entities, uint64_t *entities, orr_error *err);

/* Rewrites control characters (names, URIs and keys copied from the file) as \xNN in place, cut to
 * cap, so that a message stays one printable line. */
void orri_gltf_escape(char *msg, size_t cap);
/* Logs one message "NAME: message" (control characters escaped) through `logger`, if it has one. */
void orri_gltf_vlog(const orr_logger *logger, orr_log_level level, const char *name, const char *fmt, va_list ap);
void orri_gltf_vwarn(const orr_logger *logger, const char *name, const char *fmt, va_list ap); /* ORR_LOG_WARNING */

/* ---- clock and threads (gltf_pool.c); jobs run on orri_pool_run ---- */

uint64_t orri_gltf_now_ns(void); /* monotonic clock, for orr_gltf_stats */

/* Threads for a load: `requested`, or one per online core when 0; at most ORRI_MAX_THREADS. */
uint32_t orri_gltf_threads(uint32_t requested);

/* The workers of one load: the caller's (orr_gltf_options.workers), or started for the load at its
 * first parallel pass and stopped at its end (so a small file starts none). Only the loading thread
 * calls these; a job hands the workers on to the work it starts itself. */
typedef struct orri_gltf_pool {
    orr_workers *given, *own;
    uint32_t threads; /* the load's (orri_gltf_threads): how many it starts */
    orr_allocator allocator; /* theirs */
    bool failed; /* they could not be started: each pass starts threads of its own */
} orri_gltf_pool;
orr_workers *orri_gltf_pool_get(orri_gltf_pool *p); /* NULL p: NULL (threads started per pass) */
void orri_gltf_pool_fini(orri_gltf_pool *p);
/* orri_pool_run on the load's workers (started here if need be), or on the caller's thread alone
 * when threads or count is 1. */
void orri_gltf_run(orri_gltf_pool *p, uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index),
                   void *ctx);

/* ---- EXT_meshopt_compression / KHR_meshopt_compression (gltf_meshopt.c) ---- */

enum { ORRI_MESHOPT_ATTRIBUTES, ORRI_MESHOPT_TRIANGLES, ORRI_MESHOPT_INDICES };
enum {
    ORRI_MESHOPT_FILTER_NONE,
    ORRI_MESHOPT_FILTER_OCTAHEDRAL,
    ORRI_MESHOPT_FILTER_QUATERNION,
    ORRI_MESHOPT_FILTER_EXPONENTIAL,
};

/* One compressed view, checked against the spec's layout rules: count x stride bytes decode from src
 * into dst (both sized by the caller). */
typedef struct orri_gltf_meshopt_view {
    const uint8_t *src;
    size_t src_size;
    uint8_t *dst;
    uint32_t count, stride;
    uint8_t mode, filter;
    uint32_t view; /* bufferViews index, for the message */
    uint32_t threads; /* a large triangle or attribute view decodes on this many (with `tri` or `vtx`), on `workers` */
    orr_workers *workers;
    struct orri_meshopt_tri_scratch *tri; /* orri_meshopt_tri_scratch_size(count, tri_chunks), or NULL: one thread */
    uint32_t tri_chunks; /* the chunks `tri` has room for */
    struct orri_meshopt_vtx_scratch *vtx; /* orri_meshopt_vtx_scratch_size(src_size, count, stride), or NULL */
    bool split; /* after the decode: it was cut into chunks (triangles) or parts (attributes) */
    bool max_known; /* after a triangle decode: the largest index was found ... */
    uint32_t max;   /* ... and is this */
    const char *why; /* after a failed decode: the reason */
    char why_buf[112];
} orri_gltf_meshopt_view;

/* Decodes and applies the filter; false with v->why set when the stream is malformed. Runs on a
 * worker (no allocation, no logging). */
bool orri_gltf_meshopt_decode(orri_gltf_meshopt_view *v);

/* meshopt_decodeIndexBuffer(dst, index_count, index_size, src, size) computed on several threads: the
 * same return code, and on success the same bytes (on failure dst holds anything, as callers discard
 * it). A stream it cannot split (a bad one above all) is decoded by meshopt_decodeIndexBuffer itself.
 * Allocates nothing, logs nothing. (gltf_meshopt_tri.c) */
typedef struct orri_meshopt_tri_scratch orri_meshopt_tri_scratch;
/* The chunks a stream is cut into on `threads` (chunk_triangles as in the desc), and the scratch
 * bytes for that many (at most 64) */
uint32_t orri_meshopt_tri_chunks(size_t index_count, uint32_t threads, uint32_t chunk_triangles);
size_t orri_meshopt_tri_scratch_size(size_t index_count, uint32_t chunks);
typedef struct orri_meshopt_tri_desc {
    void *dst;
    size_t index_count, index_size; /* a multiple of 3; 2 or 4 */
    const uint8_t *src;
    size_t size;
    uint32_t threads;                  /* at most; 0 or 1: meshopt_decodeIndexBuffer */
    orr_workers *workers;              /* where they run; NULL: threads started per pass */
    uint32_t chunk_triangles;          /* the fewest per chunk; 0: a default fit for large streams */
    orri_meshopt_tri_scratch *scratch; /* orri_meshopt_tri_scratch_size(index_count, scratch_chunks) bytes;
                                        * NULL: one thread */
    uint32_t scratch_chunks;           /* as given to orri_meshopt_tri_scratch_size (above 64: 64): at most
                                        * these are decoded apart */
    uint32_t split;                    /* out: chunks decoded apart, 0 when decoded in one piece */
    uint32_t redone;                   /* out: of those, chunks decoded twice (too many symbols) */
    bool max_known;                    /* out: the largest index was found while decoding apart ... */
    uint32_t max;                      /* ... and is this */
} orri_meshopt_tri_desc;
int orri_meshopt_decode_triangles(orri_meshopt_tri_desc *d);

/* meshopt_decodeVertexBuffer(dst, vertex_count, vertex_size, src, size) and then `filter`, computed on
 * several threads: the same return code, and on success the same bytes (on failure dst holds anything).
 * A stream it cannot split (a bad one above all) is decoded by meshopt_decodeVertexBuffer itself.
 * Allocates nothing, logs nothing. (gltf_meshopt_vtx.c) */
typedef struct orri_meshopt_vtx_scratch orri_meshopt_vtx_scratch;
size_t orri_meshopt_vtx_scratch_size(size_t size, size_t vertex_count, size_t vertex_size);
typedef struct orri_meshopt_vtx_desc {
    void *dst;
    size_t vertex_count, vertex_size; /* a multiple of 4, at most 256 */
    const uint8_t *src;
    size_t size;
    void (*filter)(void *dst, size_t count, size_t stride); /* a meshopt_decodeFilter*, or NULL */
    uint32_t threads;                  /* at most; 0 or 1: meshopt_decodeVertexBuffer */
    orr_workers *workers;              /* where they run; NULL: threads started per pass */
    uint32_t part_blocks;              /* the fewest blocks per part; 0: a default fit for large streams */
    uint32_t walk_runs;                /* the fewest runs per walker of step 1; 0: the default */
    orri_meshopt_vtx_scratch *scratch; /* orri_meshopt_vtx_scratch_size(size, vertex_count, vertex_size) bytes;
                                        * NULL: one thread */
    uint32_t split;                    /* out: parts decoded apart, 0 when decoded in one piece */
    uint32_t walkers;                  /* out: walkers that found the parts, 0 when one walk did */
} orri_meshopt_vtx_desc;
int orri_meshopt_decode_vertices(orri_meshopt_vtx_desc *d);

/* ---- image decoding (gltf_image.c) ---- */

enum { ORRI_IMAGE_OTHER, ORRI_IMAGE_PNG, ORRI_IMAGE_JPEG, ORRI_IMAGE_WEBP };

typedef struct orri_gltf_image_job {
    const uint8_t *bytes; /* encoded */
    size_t size;
    int format;              /* ORRI_IMAGE_*, from the bytes */
    uint32_t width, height;  /* from the header */
    uint8_t *rgba;           /* width x height x 4 bytes, allocated by the caller before decoding */
    bool ok;                 /* decoded; with `why` set, as far as damaged data decodes (a truncated JPEG) */
    bool unsupported;        /* not decoded, though the data may be a valid image (an animated WebP, out of
                              * memory); otherwise a failed decode means the data is damaged */
    char why[128];           /* why not, or what was damaged */
} orri_gltf_image_job;

/* Format and size from the header, on the caller's thread; false (why set) when it cannot be read. */
bool orri_gltf_image_header(orri_gltf_image_job *j);
/* Decodes into j->rgba (RGBA8, rows top first); sets j->ok, or j->why. Runs on a worker. */
void orri_gltf_image_decode(orri_gltf_image_job *j);

/* ---- extensions known but not read (gltf_extcheck.c) ---- */

typedef struct orri_gltf_check {
    orri_gltf_doc *doc; /* parsed: every core index in range */
    const char *name;   /* the file's name in messages */
    bool paths;         /* false: only set `found` (the parse's fast pass), log nothing */
    bool found;         /* out: a violation was seen */
} orri_gltf_check;

/* Checks what the extensions the loader knows but does not read hold (ranges, types, required
 * members, references, the tangent space some of their textures need); each violation is logged
 * at ORR_LOG_ERROR with its JSON path. Never refuses: their content is not used. */
void orri_gltf_check_unread_extensions(orri_gltf_check *k);

/* Local matrix of a node (walks its parents). */
void orri_gltf_node_local(const orri_gltf_node *node, orr_mat4d *out);

#endif
