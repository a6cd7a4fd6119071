/* Orrery scene: prefabs (a world used as a template) and the glTF 2.0 loader.
 *
 *   orr_gltf_load       file -> resources in the asset library + a prefab: a world whose root holds one
 *                       child per glTF scene (one implicit child of all root nodes when the file has
 *                       nodes but no scenes); scene i gives its MeshRenderers layer bit i, scenes 31
 *                       and above all bit 31 (32 layer bits)
 *   orr_prefab_instantiate  cross-world subtree clone of the prefab into a live world; resources shared
 *   orr_scene_bounds    world-space box of a subtree's renderables (zoom-to-fit)
 *
 * What the template holds: nodes become entities (Name when named; TRS, or a matrix node decomposed to
 * TRS, kept as the local matrix when it has shear), meshes MeshRenderers, cameras Camera, lights of
 * KHR_lights_punctual Light (lux for directional, candela for point and spot), skins SkinnedMesh (joints
 * are the entities of that scene's copy), EXT_mesh_gpu_instancing one child entity per instance, a
 * node's MSFT_lod levels one mesh's levels of detail (docs/gltf.md). The
 * root carries an AnimationPlayer for animation 0 whose targets are the entities of the glTF nodes in
 * node index order (channel target = glTF node index; the default scene's copy of a node in several
 * scenes; one target per glTF node, however many).
 *
 * Loading the same path twice returns the same prefab (keyed by the real path). Inside one file meshes,
 * materials and skins are deduplicated by glTF index, textures by (image, sampler, colour space): an
 * image is read and decoded only when a texture uses it, once. A texture whose image cannot be used
 * becomes white, except as a normal map, where the material gets none.
 *
 * Errors: a file that breaks the glTF 2.0 spec is refused with one message naming the JSON path
 * (`accessors[3].bufferView: 9 is out of range, 7 bufferViews`) and adds nothing (a load failing later,
 * out of memory or over a budget, takes back what it had added). Where the loader can step around a
 * fault it loads the file and logs each place at ORR_LOG_ERROR, with its path and what was done instead;
 * untidy input loads with a warning. Both go through the asset library's logger. Files are read, never
 * mapped. Allocation goes through the library's allocator, except what cJSON, the image decoders and
 * libdraco allocate internally. Compressed data (meshopt, Draco, WebP; orr_gltf_extensions lists what is
 * read) decodes while loading, on orr_gltf_options.threads threads. docs/gltf.md lists what is read,
 * refused and warned about.
 */
#ifndef ORRERY_SCENE_H
#define ORRERY_SCENE_H

#include <orrery/assets.h>
#include <orrery/core.h>
#include <orrery/world.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a load's time went (orr_gltf_options.stats), in nanoseconds of wall time. */
typedef struct orr_gltf_stats {
    uint64_t read_ns;     /* opening the file, checking its header and reading it */
    uint64_t json_ns;     /* parsing the JSON text */
    uint64_t decode_ns;   /* decoding buffers: EXT/KHR_meshopt_compression views, KHR_draco_mesh_compression */
    uint64_t validate_ns; /* the rest of parsing: every object checked, external buffers opened, data scanned */
    uint64_t image_ns;    /* decoding images to RGBA8, on `threads` threads */
    uint64_t build_ns;    /* the rest: meshes, materials, textures, skins, clips and the prefab world */
    uint64_t total_ns;
    uint32_t threads;     /* decoding threads used */
    uint32_t parses;      /* 2 when a warning or a refusal made the loader parse again to spell out JSON paths */
    uint32_t deferred_views; /* large compressed index views decoded beside validation and the build (more than
                                one thread; their time is in decode_ns, so the phases then overlap) */
    uint32_t split_views;    /* compressed triangle and attribute views cut into pieces that decoded at once
                                (large ones, at more than one thread) */
    uint32_t unplaceable_nodes; /* nodes whose world transform overflows binary64 or lies beyond DBL_MAX / 2 (where
                                   subtracting a camera position may overflow), each warned about; loaded as written */
} orr_gltf_stats;

/* The phases a load goes through, in order, as orr_gltf_options.progress reports them. */
typedef enum orr_gltf_phase {
    ORR_GLTF_PHASE_PARSE = 0,  /* JSON, buffers, every object checked: 0 of the bytes read */
    ORR_GLTF_PHASE_IMAGES = 1, /* images decoding: 0 of N before, N of N after (N = images a texture uses) */
    ORR_GLTF_PHASE_MESHES = 2, /* meshes built: i of N before each, N of N after the last */
    ORR_GLTF_PHASE_WORLD = 3,  /* the prefab world: 0 of the entities it will hold */
} orr_gltf_phase;
/* Called on the loading thread (never on a decoding thread), at most once per mesh and a few times
 * per phase besides, so it costs nothing measurable. It must not call into the asset library or the
 * loader. A refused load stops calling it at the phase where it was refused. */
typedef void (*orr_gltf_progress_fn)(void *user, orr_gltf_phase phase, uint64_t done, uint64_t total);

/* Defaults (zero-initialised): layers per scene, no meshlets, at most 2^22 prefab entities, at most
 * max(1 GiB, 4 x input) decoded bytes, URIs only inside the file's folder, external files opened
 * only when something reads them, decoding on one thread per core, no progress reports. */
typedef struct orr_gltf_options {
    bool single_layer;     /* every scene's MeshRenderers get layer bit 0 instead of bit i (scenes 31 and
                            * above all share bit 31: a view of bit 31 shows them all together) */
    bool build_meshlets;   /* build meshlets for every mesh */
    uint32_t lod_levels;   /* levels of detail for every mesh (orr_mesh_desc.lod_levels); 0 = none */
    uint32_t max_entities; /* refuse (ORR_ERROR_CAPACITY) a file whose prefab would hold more, every 256
                            * bytes of names, skinned entities' joint lists (8 bytes a joint) and animation
                            * targets (8 bytes a node) counting as one entity more; 0 = 2^22 */
    uint64_t max_decoded_bytes; /* refuse (ORR_ERROR_CAPACITY) a load that would add more bytes of decoded
                                 * vertices, indices, animation keys and texture pixels to the library; 0 = the
                                 * larger of 1 GiB and 4 x the bytes read (the file and its external buffers) */
    bool allow_outside_uris; /* follow URIs that are absolute or climb out of the file's folder ("../x",
                              * "%2e%2e/x"), and symlinks that lead out of it; by default such a file is
                              * refused (ORR_ERROR_PARSE, `buffers[0].uri: "DIR/plink.bin" resolves to
                              * "/etc/passwd", outside the model's folder "DIR"`). Every external file's
                              * real path is checked, used or not, when the file is parsed; a folder
                              * changed while it loads is not defended against. */
    bool require_files;      /* open every external file a buffer or image names, used or not (by default
                              * an unused buffer is never opened, and a missing image is a warning and a
                              * white texture), and refuse the load (ORR_ERROR_IO) when one is missing,
                              * unreadable, or shorter than its buffer's byteLength; each such file is
                              * also logged at ORR_LOG_ERROR through the library's logger, so that a
                              * checker sees them all ("NAME: images[2].uri: cannot open ..."), and the
                              * message names the first and how many more */
    bool check_images;       /* also decode each image no texture uses (by default never read), only to
                              * check it, its pixels dropped at once: one whose data is damaged is logged
                              * at ORR_LOG_ERROR, as a used one always is (for checkers: `orrery validate`) */
    uint32_t threads;        /* threads that decode images and compressed buffers: 0 = one per online core,
                              * 1 = the caller's thread alone, N = N (at most 256). Each image decodes into its
                              * own slot, so the library's contents are the same bytes whatever the count */
    orr_workers *workers;    /* NULL, or threads kept by the caller that the load runs on (up to `threads` of
                              * them, and no more than they have); without, the load starts its own at its
                              * first parallel pass and stops them at its end */
    orr_gltf_stats *stats;   /* NULL, or filled with where the load's time went (orr_gltf_load and
                              * orr_gltf_load_memory, also when they fail) */
    orr_gltf_progress_fn progress; /* NULL, or told how the load advances (a progress bar) */
    void *progress_user;
} orr_gltf_options;

/* Loads the glTF 2.0 file at `path` (.gltf or .glb) into `assets`: its meshes, materials, textures,
 * skins and clips, and a prefab of its nodes into *out (instantiate it with orr_prefab_instantiate).
 * `options` NULL-able: the defaults above. Loading a path already loaded returns its prefab. On failure
 * nothing is added, *out is untouched and `err` (NULL-able) says what and where: ORR_ERROR_IO (a file
 * that cannot be read), ORR_ERROR_PARSE (the JSON path of what breaks the specification),
 * ORR_ERROR_UNSUPPORTED (a required extension this build does not read), ORR_ERROR_CAPACITY (over a
 * budget of `options`), ORR_ERROR_OUT_OF_MEMORY. Warnings go to the asset library's logger. */
orr_result orr_gltf_load(orr_assets *assets, const char *path, const orr_gltf_options *options,
                         orr_prefab_id *out, orr_error *err);
/* From memory (.gltf JSON or .glb). External URIs are resolved against base_dir; NULL = refused. */
orr_result orr_gltf_load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir,
                                const char *key, const orr_gltf_options *options, orr_prefab_id *out,
                                orr_error *err);

/* Whether the loader reads the glTF extension `name` (a file that requires another is refused, naming
 * it). */
bool orr_gltf_extension_supported(const char *name);
/* The extensions the loader reads: writes up to `max` names (static strings) to `out` (NULL-able when
 * max is 0) and returns how many there are. */
uint32_t orr_gltf_extensions(const char **out, uint32_t max);

/* Counts as the file declares them, plus totals over the loaded data. */
typedef struct orr_gltf_info {
    uint32_t scenes, nodes, meshes, primitives, materials, textures, skins, animations, cameras, lights;
    uint64_t vertices, indices;
    orr_aabbd bounds; /* of the default scene (or scene 0), in world space; an instanced node's is its
                       * instances' box under the node's transform (conservative under rotation) */
    uint64_t instances; /* mesh instances the default scene (or scene 0) draws: each node with a mesh once,
                         * a node with EXT_mesh_gpu_instancing once per instance */
} orr_gltf_info;

/* Parses the file (no asset library, nothing decoded) with `options` (NULL = defaults; of them
 * allow_outside_uris and max_entities apply: a file whose prefab would exceed the budget is refused).
 * `logger` (NULL-able) receives the parse's warnings, and one for each external file that is missing,
 * unreadable or too short (the counts do not need them, a load would). */
orr_result orr_gltf_info_file(const char *path, const orr_gltf_options *options, const orr_logger *logger,
                              orr_gltf_info *out, orr_error *err);

/* The prefab's template world and its root (NULL / none when stale). Read-only. */
const orr_world *orr_prefab_world(const orr_assets *assets, orr_prefab_id prefab);
orr_entity orr_prefab_root(const orr_assets *assets, orr_prefab_id prefab);
/* The file's default scene (its `scene`, or 0): a view whose layer mask is that scene's bit shows what
 * the file shows by default. And the number of scene children under the root (1 for a file with nodes
 * but no scenes). 0 when stale. */
uint32_t orr_prefab_default_scene(const orr_assets *assets, orr_prefab_id prefab);
uint32_t orr_prefab_scene_count(const orr_assets *assets, orr_prefab_id prefab);
/* Clip ids of the file's animations, in glTF order (none for an animation without usable channels);
 * writes up to max, returns the total. */
uint32_t orr_prefab_clips(const orr_assets *assets, orr_prefab_id prefab, orr_clip_id *out, uint32_t max);

/* Instantiates the prefab under `parent` (none = a root) with `local` (NULL = identity): a deep copy
 * of the template (orr_world_clone across worlds) that shares every resource id. ORR_ERROR_STALE_HANDLE
 * for a stale prefab; the world's error (orr_world_last_error) otherwise. */
orr_result orr_prefab_instantiate(orr_world *world, const orr_assets *assets, orr_prefab_id prefab,
                                  orr_entity parent, const orr_transform *local, orr_entity *out);

/* ---- bounds ------------------------------------------------------------------------------ */

/* The world-space box of the renderables in the subtree of `root` (root included; none = the whole
 * world), for zoom-to-fit: the union, over every entity with a visible MeshRenderer whose mesh is in
 * `assets` (and not empty), of the mesh's local box under the entity's world matrix. A skinned entity
 * (a SkinnedMesh with a skin in `assets`) counts the box under each live joint's world x inverse bind
 * matrix instead, the pose it is drawn in, which holds every blend of them. Hidden renderables, lights
 * and cameras count for nothing. Propagates the world's dirty transforms first, so the box is that of
 * the poses as they are now. *out is empty (orr_aabbd_is_empty) when nothing counts, and on
 * ORR_ERROR_STALE_HANDLE for a root that is not alive. It lives here rather than in the world module
 * because it reads mesh bounds from the asset library, which the world does not link. */
orr_result orr_scene_bounds(orr_world *world, const orr_assets *assets, orr_entity root, orr_aabbd *out);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_SCENE_H */
