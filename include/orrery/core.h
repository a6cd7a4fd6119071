/* Orrery core: results and error messages, allocator and logger hooks, generational handle pools,
 * growable arrays, and binary64/binary32 math.
 *
 * Every context (world, assets, session, renderer) is created with an optional orr_allocator and
 * orr_logger; zero-initialised hooks mean libc malloc/free and no logging. Nothing here holds global
 * mutable state but the default allocator's cache of freed large blocks (orr_allocator_default_trim,
 * orr_allocator_default_set_cache_limit). Math functions write their result through the last argument (destination last) and
 * accept aliasing between inputs and the destination.
 *
 * Names: a public function is prefixed by its module (orr_draw_, orr_gltf_, orr_scene_, orr_frame_,
 * orr_gpu_, orr_anim_, orr_assets_) or by the object or type it acts on, declared in the same header
 * (orr_entity_, orr_renderer_, orr_session_, orr_snapshot_, orr_mat4d_); types are orr_<thing>,
 * macros and enumerators ORR_, internals shared between files orri_.
 *
 * API misuse: every call that returns orr_result checks its context and the pointers it cannot do
 * without (a NULL world, a NULL out); a debug build stops there with an "API misuse" message, a release
 * build returns ORR_ERROR_INVALID_ARGUMENT (with the message where the call has an error to set).
 * Destroying a context twice, or using it after its destroy, is undefined; debug builds catch a second
 * destroy of a world, asset library, session or renderer (sanitizer builds any use after it).
 *
 * Index
 *   results ........ orr_result, orr_error, orr_result_name
 *   hooks .......... orr_allocator, orr_logger
 *   handles ........ orr_handle_pool (index + generation, lowest free index first)
 *   workers ........ orr_workers (threads kept for the parallel work of many loads)
 *   math ........... orr_vec3d, orr_quatd, orr_mat4d, orr_affine3d (binary64, column-major), orr_mat4f
 */
#ifndef ORRERY_CORE_H
#define ORRERY_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- results ------------------------------------------------------------------------------ */

typedef enum orr_result {
    ORR_OK = 0,
    ORR_ERROR_INVALID_ARGUMENT = 1, /* a value the call cannot accept (names the parameter) */
    ORR_ERROR_OUT_OF_MEMORY = 2,    /* the allocator returned NULL */
    ORR_ERROR_IO = 3,               /* a file could not be opened or read */
    ORR_ERROR_PARSE = 4,            /* a file breaks its format (message names the JSON path or offset) */
    ORR_ERROR_STALE_HANDLE = 5,     /* a handle whose object was destroyed, or that never existed */
    ORR_ERROR_NOT_FOUND = 6,        /* a lookup by name or path found nothing */
    ORR_ERROR_CAPACITY = 7,         /* a caller-set capacity would be exceeded (message names it) */
    ORR_ERROR_UNSUPPORTED = 8,      /* valid input that Orrery does not handle (required extension, ...) */
    ORR_ERROR_VULKAN = 9,           /* a Vulkan call failed (message names the call and VkResult) */
    ORR_ERROR_NO_DEVICE = 10,       /* no Vulkan device could be found or created */
    ORR_ERROR_CYCLE = 11,           /* parenting to self or a descendant */
} orr_result;

/* A stable, lower-case name for a result ("ok", "parse error", ...). Never NULL. */
const char *orr_result_name(orr_result result);

/* A result with its message. The one error convention of the API:
 *   - every call that can fail at run time returns orr_result (ORR_OK = 0), and a message a caller can
 *     read says what failed and where;
 *   - a call made on a context (a world, asset library, session, renderer, recorder, window) keeps that
 *     message in the context, read with orr_<context>_last_error until the context's next failing call;
 *   - a call with no context to keep it (every _create, orr_gltf_load, orr_gpu_write_png, the recording
 *     readers) writes it to its last parameter, `orr_error *err` (NULL-able: then only the code);
 *   - calls on caller-owned storage (draw lists and scenes, snapshots and deltas, handle pools) fail
 *     only for want of memory or a caller-set capacity: their result code is the whole message.
 * Misuse of the API (a NULL context, a NULL out) is not a run-time failure: see above. */
typedef struct orr_error {
    orr_result code;   /* ORR_OK when nothing failed */
    char message[512]; /* one line, no trailing newline: what failed and where */
} orr_error;

/* ---- hooks -------------------------------------------------------------------------------- */

/* One function for every allocation, after Lua's lua_Alloc:
 *   ptr == NULL, new_size > 0  -> allocate
 *   ptr != NULL, new_size > 0  -> resize (old_size is the size it was allocated with)
 *   new_size == 0              -> free ptr (NULL is harmless); returns NULL
 * Returned memory must be aligned for any C type (like malloc). Zero-initialised = the default. */
typedef struct orr_allocator {
    void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
    void *user;
} orr_allocator;

/* The default: libc's malloc family, with blocks of ORR_LARGE_BLOCK bytes and more aligned to 2 MiB and
 * offered transparent huge pages (Linux: madvise MADV_HUGEPAGE; elsewhere plain blocks), resized by
 * a fresh block and a copy (a moved block would keep the small pages it had). The tables of a large
 * world are read and written at scattered places every frame: on small pages nearly each of those
 * costs a TLB miss too. A host allocator that wraps this one keeps that (the bench's counting one does). */
#define ORR_LARGE_BLOCK ((size_t)4 << 20)
orr_allocator orr_allocator_default(void);
/* The one process-wide state of the library (the other: the window module's count of GLFW users, GLFW
 * being process-wide itself). The default allocator keeps freed large blocks (up to 32 of them, 256
 * MiB in all by default; glibc only; not those a resize leaves behind) for the next large requests of
 * about their size, which then take pages already mapped instead of faulting in and zeroing fresh
 * ones: a library destroyed and loaded again, or a load's decoding scratch, reuses them. It is shared
 * by every context made with the default allocator and guarded by a lock. A host that wants none
 * sets the limit to 0, or passes an allocator of its own.
 * trim gives the kept blocks back to the system and returns how many bytes they held (a host that
 * is done loading, or short of memory, calls it). set_cache_limit sets the most bytes kept (0: none),
 * gives back the blocks above it, and returns the previous limit (0 where blocks are never kept). */
size_t orr_allocator_default_trim(void);
size_t orr_allocator_default_set_cache_limit(size_t bytes);

typedef enum orr_log_level {
    ORR_LOG_DEBUG = 0,
    ORR_LOG_INFO = 1,
    ORR_LOG_WARNING = 2, /* input was untidy and a fallback was used */
    ORR_LOG_ERROR = 3,
} orr_log_level;

/* Receives one line per message, without a trailing newline. Zero-initialised = silent. */
typedef struct orr_logger {
    void (*log)(void *user, orr_log_level level, const char *message);
    void *user;
} orr_logger;

/* ---- workers ------------------------------------------------------------------------------ */

/* Threads kept between calls. A load given them (orr_gltf_options.workers, orr_mesh_desc.workers)
 * runs its parallel work on them instead of starting threads of its own for every pass; one set can
 * serve an application's every load. Several threads may give them work at once, and a job may give
 * them more (a decoder inside a load does): the thread that gives the work takes part in it, so the
 * work finishes even when every worker is busy elsewhere. Results never depend on which thread ran
 * what. orr_workers_destroy must not run while work is being given to them. */
typedef struct orr_workers orr_workers;

typedef struct orr_workers_desc {
    uint32_t threads;        /* 0: one per core. Counts the calling thread: threads - 1 are started */
    orr_allocator allocator; /* for the object itself; zero: libc */
} orr_workers_desc;

orr_result orr_workers_create(const orr_workers_desc *desc, orr_workers **out, orr_error *err);
void orr_workers_destroy(orr_workers *workers); /* NULL: no-op */
uint32_t orr_workers_threads(const orr_workers *workers); /* desc.threads resolved; 1 for NULL */

/* ---- handles ------------------------------------------------------------------------------ */

/* Every pooled thing is addressed by a 32-bit index and a 32-bit generation. Generation 0 never
 * names a live object, so a zero-initialised handle is invalid. */
typedef struct orr_handle {
    uint32_t index;
    uint32_t generation;
} orr_handle;

/* A pool of generational slots. Freed indices are reused lowest first (a min-heap), so the order
 * in which handles are handed out depends only on the order of calls. */
typedef struct orr_handle_pool {
    uint32_t *generations; /* per index; odd = alive, even = free (so 0 is never alive) */
    uint32_t *free_heap;   /* min-heap of free indices below `count` */
    uint32_t count;        /* indices ever handed out */
    uint32_t capacity;     /* allocated length of `generations` */
    uint32_t free_count;
    uint32_t free_capacity;
    uint32_t alive;
    uint32_t limit; /* 0 = unlimited; otherwise allocation beyond it fails with ORR_ERROR_CAPACITY */
    orr_allocator allocator;
} orr_handle_pool;

void orr_handle_pool_init(orr_handle_pool *pool, const orr_allocator *allocator, uint32_t limit);
void orr_handle_pool_fini(orr_handle_pool *pool);
/* Hands out the lowest free index (or a new one). ORR_ERROR_CAPACITY past `limit`. */
orr_result orr_handle_pool_alloc(orr_handle_pool *pool, orr_handle *out);
/* Frees a live handle; a stale or invalid one returns ORR_ERROR_STALE_HANDLE and changes nothing.
 * Never allocates (the room was reserved when the index was first handed out), so it cannot fail
 * for want of memory. */
orr_result orr_handle_pool_free(orr_handle_pool *pool, orr_handle handle);
bool orr_handle_pool_is_alive(const orr_handle_pool *pool, orr_handle handle);

/* ---- sorting ------------------------------------------------------------------------------ */

/* Sorts n values ascending: insertion sort below 64, else an LSD radix sort (11 bits a pass, only as
 * many passes as `max`, the largest value, needs). `scratch` holds n values. */
void orr_sort_u32(uint32_t *values, uint32_t *scratch, uint32_t n, uint32_t max);
/* Reorders the n indices in `perm` stably by keys[perm[i]] ascending (an LSD radix sort with the same
 * passes; keys is indexed by the values in perm, each at most `max`). Sorting by several keys is a
 * call per key, least significant first. `scratch` holds n indices. */
void orr_sort_by_key_u32(uint32_t *perm, uint32_t *scratch, const uint32_t *keys, uint32_t n, uint32_t max);

/* ---- shared vocabulary ------------------------------------------------------------------- */
/* Types that both the world and the render snapshot speak, so that the renderer can name them
 * without including the world. */

/* An entity of a world: 32-bit index, 32-bit generation; zero = none. */
typedef struct orr_entity {
    uint32_t index;
    uint32_t generation;
} orr_entity;

#define ORR_ENTITY_NONE ((orr_entity){0, 0})

/* Typed ids of the asset library (assets.h) and the renderer (gpu.h): index + generation, a zero
 * generation is none, a stale id is refused by whoever is handed it. They are declared here, with the
 * entity, so that one comparison serves every module. Each type has its own eq and is_none; the
 * orr_id_eq / orr_id_is_none conveniences pick them by type, so comparing a mesh id with a material
 * id does not compile. */
#define ORR_DECLARE_ID(T)                                                                                      \
    typedef struct T {                                                                                         \
        uint32_t index, generation;                                                                            \
    } T;                                                                                                       \
    static inline bool T##_eq(T a, T b) { return a.index == b.index && a.generation == b.generation; }         \
    static inline bool T##_is_none(T id) { return id.generation == 0; }
ORR_DECLARE_ID(orr_mesh_id)
ORR_DECLARE_ID(orr_material_id)
ORR_DECLARE_ID(orr_texture_id)
ORR_DECLARE_ID(orr_skin_id)
ORR_DECLARE_ID(orr_clip_id)
ORR_DECLARE_ID(orr_prefab_id)
ORR_DECLARE_ID(orr_target_id)
ORR_DECLARE_ID(orr_view_id)
ORR_DECLARE_ID(orr_library_id)
#undef ORR_DECLARE_ID
static inline bool orr_entity_eq(orr_entity a, orr_entity b) { return a.index == b.index && a.generation == b.generation; }
static inline bool orr_entity_is_none(orr_entity e) { return e.generation == 0; }

#ifndef __cplusplus
/* clang-format off */
#define ORRI_ID_FN(x, op) _Generic((x),                                                                        \
    orr_entity: orr_entity_##op, orr_mesh_id: orr_mesh_id_##op, orr_material_id: orr_material_id_##op,          \
    orr_texture_id: orr_texture_id_##op, orr_skin_id: orr_skin_id_##op, orr_clip_id: orr_clip_id_##op,          \
    orr_prefab_id: orr_prefab_id_##op, orr_target_id: orr_target_id_##op, orr_view_id: orr_view_id_##op,        \
    orr_library_id: orr_library_id_##op)
/* clang-format on */
#define orr_id_eq(a, b) ORRI_ID_FN((a), eq)((a), (b))
#define orr_id_is_none(id) ORRI_ID_FN((id), is_none)(id)
#endif

typedef enum orr_light_type { ORR_LIGHT_DIRECTIONAL = 0, ORR_LIGHT_POINT = 1, ORR_LIGHT_SPOT = 2 } orr_light_type;
typedef enum orr_projection { ORR_PERSPECTIVE = 0, ORR_ORTHOGRAPHIC = 1 } orr_projection;

/* ---- math: binary64 ----------------------------------------------------------------------- */

typedef struct orr_vec3d { double x, y, z; } orr_vec3d;
typedef struct orr_quatd { double x, y, z, w; } orr_quatd; /* unit quaternion, w last (glTF order) */
typedef struct orr_mat4d { double m[16]; } orr_mat4d;      /* column-major: m[col * 4 + row] */
/* An affine transform: the first three rows of a 4x4 whose last row is 0 0 0 1, column-major
 * (m[col * 3 + row]; m[9..11] is the translation). 96 bytes instead of 128: world matrices and
 * snapshot poses are stored so. */
typedef struct orr_affine3d { double m[12]; } orr_affine3d;
typedef struct orr_aabbd { orr_vec3d min, max; } orr_aabbd;

typedef struct orr_vec3f { float x, y, z; } orr_vec3f;
typedef struct orr_mat4f { float m[16]; } orr_mat4f; /* column-major */
typedef struct orr_aabbf { orr_vec3f min, max; } orr_aabbf;

#define ORR_PI 3.14159265358979323846
#define ORR_QUAT_IDENTITY ((orr_quatd){0.0, 0.0, 0.0, 1.0})
#define ORR_VEC3_ONE ((orr_vec3d){1.0, 1.0, 1.0})

orr_vec3d orr_vec3d_add(orr_vec3d a, orr_vec3d b);
orr_vec3d orr_vec3d_sub(orr_vec3d a, orr_vec3d b);
orr_vec3d orr_vec3d_scale(orr_vec3d a, double s);
double orr_vec3d_dot(orr_vec3d a, orr_vec3d b);
orr_vec3d orr_vec3d_cross(orr_vec3d a, orr_vec3d b);
double orr_vec3d_length(orr_vec3d a);
orr_vec3d orr_vec3d_normalize(orr_vec3d a); /* zero stays zero */

orr_quatd orr_quatd_mul(orr_quatd a, orr_quatd b);
orr_quatd orr_quatd_normalize(orr_quatd q); /* zero becomes identity */
orr_quatd orr_quatd_from_axis_angle(orr_vec3d axis, double radians);
orr_quatd orr_quatd_slerp(orr_quatd a, orr_quatd b, double t); /* shortest path */
orr_vec3d orr_quatd_rotate(orr_quatd q, orr_vec3d v);

void orr_mat4d_identity(orr_mat4d *dest);
void orr_mat4d_mul(const orr_mat4d *a, const orr_mat4d *b, orr_mat4d *dest); /* dest = a x b */
/* dest = T x R x S */
void orr_mat4d_from_trs(orr_vec3d t, orr_quatd r, orr_vec3d s, orr_mat4d *dest);
/* General inverse; returns false (dest = identity) when the matrix is singular. */
bool orr_mat4d_inverse(const orr_mat4d *m, orr_mat4d *dest);
/* Affine inverse (last row 0 0 0 1); returns false when the 3x3 part is singular. */
bool orr_mat4d_inverse_affine(const orr_mat4d *m, orr_mat4d *dest);
/* Splits an affine matrix into T, R, S. Returns false when the matrix has shear (or a projective
 * row) so that T x R x S would not reproduce it within a relative tolerance of 1e-9. */
bool orr_mat4d_decompose(const orr_mat4d *m, orr_vec3d *t, orr_quatd *r, orr_vec3d *s);
orr_vec3d orr_mat4d_transform_point(const orr_mat4d *m, orr_vec3d p);
orr_vec3d orr_mat4d_transform_dir(const orr_mat4d *m, orr_vec3d d);
orr_vec3d orr_mat4d_translation(const orr_mat4d *m);
/* A box in the space `m` maps to: the box around the eight transformed corners. */
orr_aabbd orr_aabbd_transform(const orr_mat4d *m, orr_aabbd box);
orr_aabbd orr_aabbd_empty(void); /* min = +inf, max = -inf */
orr_aabbd orr_aabbd_union(orr_aabbd a, orr_aabbd b);
bool orr_aabbd_is_empty(orr_aabbd box);
/* A binary32 box grown by count points (3 floats each), and two boxes merged, by plain compares: of
 * equal extremes (-0 and +0) the one found first stays, so growing by ranges and merging them in order
 * gives the same bits as growing by all the points at once. The points hold no NaN. Start from
 * orr_aabbf_empty(). */
orr_aabbf orr_aabbf_empty(void);
orr_aabbf orr_aabbf_grow(orr_aabbf box, const float *xyz, size_t count);
orr_aabbf orr_aabbf_merge(orr_aabbf first, orr_aabbf then);

/* Reversed-Z perspective with an infinite far plane (depth 1 at near, 0 at infinity), Vulkan clip
 * space (y down, depth 0..1). aspect = width / height. */
void orr_mat4d_perspective_reversed_infinite(double fovy, double aspect, double znear, orr_mat4d *dest);
/* A view matrix (world -> camera) looking from eye to target with the given up (right-handed, -Z forward). */
void orr_mat4d_look_at(orr_vec3d eye, orr_vec3d target, orr_vec3d up, orr_mat4d *dest);
/* The camera's pose (camera -> world: what orr_view_desc.pose and a camera entity's world matrix hold)
 * at eye looking at target with the given up: the inverse of orr_mat4d_look_at's matrix. Its -Z axis
 * points from eye to target, its translation is eye. eye == target, or up along the line of sight,
 * gives a pose looking down -Z. */
void orr_mat4d_look_at_pose(orr_vec3d eye, orr_vec3d target, orr_vec3d up, orr_mat4d *dest);
orr_quatd orr_quatd_look_rotation(orr_vec3d forward, orr_vec3d up); /* -Z maps to forward */

void orr_affine3d_identity(orr_affine3d *dest);
void orr_affine3d_to_mat4d(const orr_affine3d *a, orr_mat4d *dest);
void orr_affine3d_from_mat4d(const orr_mat4d *m, orr_affine3d *dest); /* drops the last row */
static inline orr_vec3d orr_affine3d_translation(const orr_affine3d *a)
{
    return (orr_vec3d){a->m[9], a->m[10], a->m[11]};
}
orr_vec3d orr_affine3d_transform_point(const orr_affine3d *a, orr_vec3d p);
/* The box around the eight corners of `box` mapped by `a`. */
orr_aabbd orr_aabbd_transform_affine(const orr_affine3d *a, orr_aabbd box);

void orr_mat4f_from_mat4d(const orr_mat4d *m, orr_mat4f *dest);

/* Splits a binary64 value into two floats whose sum is the value to about 2^-48 relative: hi is the
 * nearest float, lo the nearest float to what hi misses. */
void orr_split_double(double v, float *hi, float *lo);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_CORE_H */
