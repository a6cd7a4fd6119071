/* Orrery assets: the library of meshes, materials, textures, skins, animation clips and prefabs,
 * addressed by typed generational ids.
 *
 * Data flow: the glTF loader (scene module) or the host adds resources; the world refers to them by id
 * (MeshRenderer, SkinnedMesh, AnimationPlayer); the renderer borrows the library for a frame to upload
 * what is not resident yet. Resources may be added at any time, also after a renderer has started.
 *
 * Ownership: every `const T *` passed in is copied and stays the caller's; every `const T *` returned
 * stays the library's and is valid until the next call that adds or removes a resource of that kind.
 * Edits go through orr_assets_try_edit_material, which bumps the material's revision so the renderer
 * re-uploads it.
 */
#ifndef ORRERY_ASSETS_H
#define ORRERY_ASSETS_H

#include <orrery/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Typed ids (orr_mesh_id, orr_material_id, orr_texture_id, orr_skin_id, orr_clip_id, orr_prefab_id) are
 * declared in core.h with their comparisons: a zero id is none; a stale id is refused. */

typedef struct orr_assets orr_assets;

/* Zero-initialised = libc allocator, no logging. */
typedef struct orr_assets_desc {
    orr_allocator allocator;
    orr_logger logger;
} orr_assets_desc;

orr_result orr_assets_create(const orr_assets_desc *desc, orr_assets **out, orr_error *err);
void orr_assets_destroy(orr_assets *assets); /* NULL is a no-op */
/* The message of the last failed call on this library. */
const orr_error *orr_assets_last_error(const orr_assets *assets);
/* The hooks the library was created with (libc filled in), so that loaders that add to it allocate
 * and report warnings through the same ones. */
orr_allocator orr_assets_allocator(const orr_assets *assets);
orr_logger orr_assets_logger(const orr_assets *assets);

/* Library-wide counters for readers that cache what they looked up by id (extraction, the renderer):
 * revision bumps on every add, removal and material edit; removals only on removals (a cached lookup
 * of a removed id is then stale). Meshes, textures and skins never change once added. */
uint64_t orr_assets_revision(const orr_assets *assets);
uint64_t orr_assets_removals(const orr_assets *assets);

/* ---- meshes ------------------------------------------------------------------------------- */

typedef enum orr_topology {
    ORR_TOPOLOGY_TRIANGLES = 0,
    ORR_TOPOLOGY_TRIANGLE_STRIP,
    ORR_TOPOLOGY_TRIANGLE_FAN, /* converted to a triangle list when added */
    ORR_TOPOLOGY_POINTS,
    ORR_TOPOLOGY_LINES,
    ORR_TOPOLOGY_LINE_STRIP,
    ORR_TOPOLOGY_LINE_LOOP, /* converted to a line list when added */
} orr_topology;

/* One primitive to add. Streams are tightly packed floats; NULL streams are absent (read as zeros,
 * colors as opaque white; see orr_primitive), except normals. Indices NULL = non-indexed
 * (0..vertex_count-1 is generated).
 *
 * Missing normals on triangles (lists, strips, fans) are generated flat, as glTF requires: the stored
 * primitive is unwelded, one vertex per triangle corner (vertex_count = index_count = 3 x triangles,
 * indices 0..n-1, topology triangles; strips and fans converted with glTF's corner order, a list's
 * incomplete last triangle dropped), each corner carrying its face's normal (+Z for a degenerate
 * face); tangents are then ignored (zeros), since they belong to the normals they were made for.
 * Missing normals on points and lines are +Z. A fan, loop or unwelded primitive that would need
 * more than UINT32_MAX indices or vertices is refused (ORR_ERROR_CAPACITY). */
/* One morph target of a primitive: displacements added to the base streams, each scaled by the
 * target's weight (glTF 2.0 3.7.2.2). NULL streams are zero. */
typedef struct orr_morph_target_desc {
    const float *positions; /* 3 per vertex */
    const float *normals;   /* 3 per vertex */
    const float *tangents;  /* 3 per vertex (the tangent's xyz; its handedness does not move) */
} orr_morph_target_desc;

/* How a packed stream stores its components (orr_packed_stream): glTF's integer component types, read as
 * their values (KHR_mesh_quantization's positions) or normalized (unsigned c / (2^n - 1), signed
 * max(c / (2^(n-1) - 1), -1)), each rounded once to binary32, as the glTF loader converts them. */
typedef enum orr_packing {
    ORR_PACKING_NONE = 0, /* no packed stream */
    ORR_PACKING_U8,
    ORR_PACKING_I8,
    ORR_PACKING_U16,
    ORR_PACKING_I16,
    ORR_PACKING_U8_NORM,
    ORR_PACKING_I8_NORM,
    ORR_PACKING_U16_NORM,
    ORR_PACKING_I16_NORM,
} orr_packing;

/* Positions or normals as quantized files hold them (gltfpack's output, KHR_mesh_quantization): four
 * components a vertex of one integer type, the fourth padding and ignored, so 4 or 8 bytes a vertex
 * (orr_packing_bytes). Kept packed, a stream takes a third (16-bit) or a sixth (8-bit) of the floats'
 * memory and is not converted when a file loads; readers get floats from orr_primitive_read_positions
 * and orr_primitive_read_normals, the renderer as it uploads the vertices. */
typedef struct orr_packed_stream {
    const void *data;    /* NULL = none */
    orr_packing packing;
} orr_packed_stream;

/* Bytes of one packed vertex: 4 (8-bit packings), 8 (16-bit) or 0 (ORR_PACKING_NONE, or not a packing). */
uint32_t orr_packing_bytes(orr_packing packing);
/* Vertices [first, first + count) of a packed stream as floats, 3 each (the conversion above). */
void orr_packed_stream_read(const orr_packed_stream *stream, uint32_t first, uint32_t count, float *out);

/* Levels of detail a mesh may have, level 0 (the mesh as given) included; see orr_primitive_lod. */
#define ORR_MESH_MAX_LODS 8

typedef struct orr_primitive_desc {
    uint32_t vertex_count;
    const float *positions;  /* 3 per vertex; required, unless packed_positions gives them */
    const float *normals;    /* 3 per vertex (or packed_normals) */
    const float *tangents;   /* 4 per vertex (w = handedness) */
    const float *texcoords0; /* 2 per vertex */
    const float *texcoords1; /* 2 per vertex */
    const float *colors;     /* 4 per vertex, linear RGBA */
    const uint16_t *joints;  /* 4 per vertex */
    const float *weights;    /* 4 per vertex */
    uint32_t index_count;
    const uint32_t *indices;
    orr_topology topology;   /* default triangles */
    orr_material_id material; /* none = the library's default material */
    uint32_t target_count;   /* morph targets; every primitive of a mesh should have the mesh's count */
    const orr_morph_target_desc *targets;
    uint32_t owned; /* ORR_OWN_* bits: those streams come from orr_assets_stream_alloc of this library at
                       exactly their size (vertex_count x 12 bytes for positions, x 16 for tangents...,
                       index_count x 4 for indices) and are taken over instead of copied. When the add
                       succeeds they are the library's (kept, or released where the primitive is rebuilt:
                       flat normals, fans and loops; not to be touched again); when it fails they stay the
                       caller's. */
    const orr_aabbf *box; /* NULL, or the positions' box as the caller found it while making them (each
                             coordinate's least and greatest value, +0 or -0 as it first occurs), so
                             that the add does not read them again for it; debug builds check it */
    const uint32_t *max_index; /* NULL, or the largest of the indices as the caller found it (checking them,
                                  say), so that the add does not read them again to check them; debug
                                  builds check it */
    orr_packed_stream packed_positions; /* instead of positions (then NULL): kept packed. A primitive with
                                           packed positions has no morph targets and, for triangles,
                                           normals (float or packed: flat ones are made from floats);
                                           ORR_ERROR_INVALID_ARGUMENT otherwise */
    orr_packed_stream packed_normals;   /* instead of normals (then NULL): kept packed, made unit length as
                                           they are read (glTF requires unit normals; 8-bit ones are up
                                           to 0.7% off); no morph targets either. ORR_OWN_POSITIONS and
                                           ORR_OWN_NORMALS hand a packed stream over, from
                                           orr_assets_stream_alloc at vertex_count x orr_packing_bytes */
    const uint32_t *lod_indices; /* the caller's levels of detail (orr_mesh_desc.lod_given): NULL, or the
                                    indices of levels 1 .. lod_given - 1 one after another, into this
                                    primitive's vertices; copied. A triangle list (topology triangles,
                                    indices given) with normals only; NULL repeats level 0 at each level */
    uint32_t lod_index_counts[ORR_MESH_MAX_LODS]; /* [l]: level l's indices in lod_indices, a multiple of 3
                                                     (l in 1 .. lod_given - 1; [0] is unused) */
} orr_primitive_desc;

/* Which streams of an orr_primitive_desc the library takes over (orr_primitive_desc.owned). */
enum {
    ORR_OWN_POSITIONS = 1u << 0,
    ORR_OWN_NORMALS = 1u << 1,
    ORR_OWN_TANGENTS = 1u << 2,
    ORR_OWN_TEXCOORDS0 = 1u << 3,
    ORR_OWN_TEXCOORDS1 = 1u << 4,
    ORR_OWN_COLORS = 1u << 5,
    ORR_OWN_JOINTS = 1u << 6,
    ORR_OWN_WEIGHTS = 1u << 7,
    ORR_OWN_INDICES = 1u << 8,
};

typedef struct orr_mesh_desc {
    const char *name; /* NULL-able; copied */
    uint32_t primitive_count;
    const orr_primitive_desc *primitives;
    uint32_t weight_count;  /* the default morph weights (glTF mesh.weights); targets past the count
                               weigh 0 */
    const float *weights;
    bool build_meshlets; /* build meshlets with meshoptimizer (triangle primitives only); see orr_meshlet */
    uint32_t lod_levels; /* levels of detail to build beyond the full one with meshoptimizer's simplifier,
                            at most ORR_MESH_MAX_LODS - 1; 0 = none. See orr_primitive_lod. */
    float lod_ratio;     /* each level aims at this fraction of the full level's triangles times the
                            previous level's aim; 0 = 0.25. In (0, 1). */
    uint32_t lod_given;  /* levels of detail the caller made, level 0 included (each primitive's
                            lod_indices), at most ORR_MESH_MAX_LODS; 0 or 1 = none. lod_levels must then
                            be 0. The vertices of every level are the primitive's: a level the caller
                            made apart has its vertices appended to level 0's. */
    const float *lod_errors; /* NULL, or lod_given errors in local units (0 first, non-decreasing; see
                                orr_mesh.lod_error). NULL: each level's is estimated from its geometry:
                                the larger of meshoptimizer's error when it simplifies level 0 to the
                                level's triangle count and how far the level's box departs from level 0's */
    uint32_t threads;    /* threads (the caller's among them) for a large primitive's index check, bounds
                            and bounding sphere; 0 or 1 = the caller's alone. The results do not depend on it. */
    orr_workers *workers; /* NULL, or where those threads come from (else they start for each pass) */
    const float *sphere_r2; /* NULL, or the bounding sphere's squared radius as the caller found it while
                               making the positions: the largest (x-cx)^2 + (y-cy)^2 + (z-cz)^2 (binary32,
                               no fused multiply-add) over every primitive's positions, c the center of
                               the union of their boxes (binary64, then rounded to binary32); taken where
                               every primitive with vertices gives its box and has no morph targets, else
                               found again; debug builds check it */
} orr_mesh_desc;

/* Meshlets (build_meshlets): each triangle-list primitive is split by meshoptimizer into meshlets of at
 * most ORR_MESHLET_MAX_VERTICES vertices and ORR_MESHLET_MAX_TRIANGLES triangles, stored once per mesh:
 * primitive p's meshlets are orr_mesh.meshlets[p.meshlet_offset .. + p.meshlet_count), and the mesh's
 * arrays hold exactly the meshlets of its primitives (their sizes grow linearly with the triangles).
 *
 * The primitive's index buffer is rewritten into meshlet order: the same triangles, each once, each
 * with its corners in their original order (so the winding is kept), meshlet after meshlet, the
 * triangles of a meshlet in its own order; a trailing incomplete triangle stays last. Meshlet k's
 * triangles are therefore also the indices [first_index, first_index + 3 x triangle_count) of its
 * primitive: an indexed draw of that range draws exactly what a mesh shader emits for the meshlet (the
 * fallback for devices without mesh shaders), and an indexed draw of the whole primitive draws the
 * meshlets in order. */
#define ORR_MESHLET_MAX_VERTICES 64
#define ORR_MESHLET_MAX_TRIANGLES 124

typedef struct orr_meshlet {
    uint32_t vertex_offset;   /* into orr_mesh.meshlet_vertices: primitive-local vertex indices */
    uint32_t triangle_offset; /* into orr_mesh.meshlet_triangles: 3 bytes per triangle */
    uint32_t vertex_count;
    uint32_t triangle_count;
    uint32_t first_index;     /* into the primitive's indices: its triangles as an index range */
} orr_meshlet;

/* meshoptimizer's culling bounds of one meshlet (meshopt_computeMeshletBounds), in the primitive's own
 * (mesh-local) coordinates, laid out as three vec4 (48 bytes, std430-compatible):
 *   sphere   every vertex of the meshlet lies inside it (the radius is widened by a relative 1e-6 so
 *            that rounding cannot leave one outside)
 *   cone     every triangle faces away from a viewer at P when
 *              dot(normalize(cone_apex - P), cone_axis) >= cone_cutoff     (perspective)
 *              dot(view_direction, cone_axis) >= cone_cutoff                (orthographic)
 *            A meshlet whose normals spread too wide for a cone has cone_axis 0 and cone_cutoff 1, which
 *            the test never passes. orr_draw_meshlet_classify (draw module) applies both with an instance's
 *            pose. */
typedef struct orr_meshlet_bounds {
    float center[3];
    float radius;
    float cone_apex[3];
    float cone_cutoff;  /* sin of the normal cone's half angle (meshoptimizer's "cos(angle/2)") */
    float cone_axis[3]; /* unit, or zero */
    float reserved;     /* 0 */
} orr_meshlet_bounds;

/* Levels of detail (orr_mesh_desc.lod_levels): level 0 is the mesh as given, each further level the
 * same vertices with fewer triangles (meshoptimizer's simplifier, from level 0 each time, borders of
 * the vertex streams kept), or the caller's own (orr_mesh_desc.lod_given). A mesh has lod_count levels
 * (1 without any); every triangle primitive has that many ranges, a primitive that could not be reduced
 * further repeating its last one (other topologies repeat level 0). Level l's error (orr_mesh.lod_error[l],
 * in the mesh's local units) is meshoptimizer's estimate of how far its surface lies from level 0's (a
 * quadric measure: on a sphere the largest departure is about twice it), or the caller's
 * (orr_mesh_desc.lod_errors); errors never decrease with the level and level 0's is 0.
 * An unwelded mesh (flat normals generated: no vertex shared) does not simplify.
 * A level's triangles are the indices [first_index, first_index + index_count) of the primitive's
 * indices followed by its lod_indices (level 0: [0, orr_primitive.index_count)). With meshlets, each
 * level has its own, built from its triangles (level 0's are meshlet_offset/meshlet_count). */

typedef struct orr_primitive_lod {
    uint32_t first_index;    /* into indices ++ lod_indices */
    uint32_t index_count;
    uint32_t meshlet_offset; /* into orr_mesh.meshlets */
    uint32_t meshlet_count;  /* 0 without meshlets */
} orr_primitive_lod;

/* A stored morph target: every stream present (zeros where the source had none), as many entries as
 * the primitive's vertices (unwelded with it when its normals were generated flat; its normal and
 * tangent deltas are then zeros). */
typedef struct orr_morph_target {
    float *positions, *normals, *tangents; /* 3 per vertex */
    orr_aabbf delta_bounds; /* box of the position deltas and zero (non-finite deltas left out): with
                               orr_primitive.bounds it bounds the shape at any weights */
} orr_morph_target;

/* A stored primitive. Positions, normals (generated where the source had none) and indices (generated
 * for non-indexed sources) are always present: positions and normals as floats, or packed (then the
 * float pointer is NULL: orr_primitive_read_positions and _normals read either); tangents, texture
 * coordinates, colors, weights and joints are NULL where the source had none, and read as zeros
 * (colors as opaque white). A morph target's absent streams point into one block of zeros shared by
 * many primitives: read them, never write through them. */
typedef struct orr_primitive {
    uint32_t vertex_count;
    uint32_t index_count;
    float *positions, *normals, *tangents, *texcoords0, *texcoords1, *colors, *weights;
    orr_packed_stream packed_positions, packed_normals; /* where positions (normals) is NULL */
    uint16_t *joints;
    uint32_t *indices;
    orr_topology topology;
    orr_material_id material; /* the default material when the source named none */
    orr_aabbf bounds;         /* local box of the positions, morphed by any weights in [0, 1] */
    uint32_t target_count;    /* morph targets */
    orr_morph_target *targets;
    uint32_t meshlet_offset;  /* into orr_mesh.meshlets */
    uint32_t meshlet_count;   /* 0 when meshlets were not asked for */
    uint32_t lod_index_count; /* length of lod_indices */
    uint32_t *lod_indices;    /* the indices of levels 1 and on, NULL without levels */
    orr_primitive_lod lods[ORR_MESH_MAX_LODS]; /* orr_mesh.lod_count of them */
} orr_primitive;

typedef struct orr_mesh {
    char *name;
    uint32_t primitive_count;
    orr_primitive *primitives;
    orr_aabbd bounds;      /* local box over every primitive (morph targets included, as above) */
    uint32_t weight_count; /* default morph weights: one per target of the mesh's first primitive */
    float *weights;
    orr_vec3d sphere_center; /* local bounding sphere */
    double sphere_radius;
    uint32_t meshlet_count;
    orr_meshlet *meshlets;
    uint32_t *meshlet_vertices;
    uint8_t *meshlet_triangles;
    uint32_t meshlet_vertex_count;   /* length of meshlet_vertices */
    uint32_t meshlet_triangle_bytes; /* length of meshlet_triangles (each meshlet's range is 4-byte padded) */
    uint64_t vertex_bytes; /* bytes of the streams held, for stats */
    orr_meshlet_bounds *meshlet_bounds; /* meshlet_count, one per meshlet */
    uint32_t lod_count;                 /* levels of detail, 1 without any (see orr_primitive_lod) */
    float lod_error[ORR_MESH_MAX_LODS]; /* each level's error in local units: 0, then non-decreasing */
    uint32_t lod_triangles[ORR_MESH_MAX_LODS]; /* each level's triangles over every primitive */
} orr_mesh;

orr_result orr_assets_add_mesh(orr_assets *assets, const orr_mesh_desc *desc, orr_mesh_id *out);
/* Vertices [first, first + count) of a stored primitive's positions, 3 floats each, however they are
 * stored (packed ones converted as orr_packing says). The range must lie within its vertices. */
void orr_primitive_read_positions(const orr_primitive *primitive, uint32_t first, uint32_t count, float *out);
/* Likewise its normals, 3 floats each: packed ones converted, then made unit length (those of length 0
 * stay 0), the bits the glTF loader gives normals it converts itself. */
void orr_primitive_read_normals(const orr_primitive *primitive, uint32_t first, uint32_t count, float *out);
/* Memory for a stream the library is to take over (orr_primitive_desc.owned): `bytes` from its allocator,
 * not zeroed; NULL when out of memory. A host that writes a large mesh there saves the copy (and the fresh
 * memory it would take). A stream not handed over is released with orr_assets_stream_free. */
void *orr_assets_stream_alloc(orr_assets *assets, size_t bytes);
void orr_assets_stream_free(orr_assets *assets, void *stream, size_t bytes);
const orr_mesh *orr_assets_try_get_mesh(const orr_assets *assets, orr_mesh_id id); /* NULL when stale */
/* Live resources of each kind (the default material counts as one). */
uint32_t orr_assets_mesh_count(const orr_assets *assets);
uint32_t orr_assets_material_count(const orr_assets *assets);
uint32_t orr_assets_texture_count(const orr_assets *assets);
uint32_t orr_assets_skin_count(const orr_assets *assets);
uint32_t orr_assets_clip_count(const orr_assets *assets);
uint32_t orr_assets_prefab_count(const orr_assets *assets);

/* ---- textures ----------------------------------------------------------------------------- */

typedef enum orr_color_space { ORR_COLOR_SPACE_LINEAR = 0, ORR_COLOR_SPACE_SRGB = 1 } orr_color_space;
typedef enum orr_filter { ORR_FILTER_LINEAR = 0, ORR_FILTER_NEAREST = 1 } orr_filter;
typedef enum orr_wrap { ORR_WRAP_REPEAT = 0, ORR_WRAP_CLAMP = 1, ORR_WRAP_MIRROR = 2 } orr_wrap;

typedef struct orr_sampler {
    orr_filter mag_filter, min_filter; /* default linear */
    bool mipmaps;                      /* min filter uses mipmaps */
    orr_wrap wrap_s, wrap_t;           /* default repeat */
} orr_sampler;

typedef struct orr_texture_desc {
    const char *name;
    uint32_t width, height;
    const uint8_t *rgba8; /* width * height * 4 bytes; copied, unless owned */
    orr_color_space color_space;
    orr_sampler sampler;
    bool owned; /* rgba8 comes from orr_assets_stream_alloc of this library at exactly width * height * 4
                   bytes and is taken over instead of copied (a decoder that writes there saves the copy):
                   when the add succeeds it is the library's, not to be touched again; when it fails it
                   stays the caller's */
} orr_texture_desc;

typedef struct orr_texture {
    char *name;
    uint32_t width, height; /* 0 x 0 for a target texture */
    uint8_t *rgba8;         /* NULL for a target texture */
    orr_color_space color_space;
    orr_sampler sampler;
    uint64_t target_key;    /* nonzero: a target texture (orr_assets_add_target_texture), no pixels here */
} orr_texture;

orr_result orr_assets_add_texture(orr_assets *assets, const orr_texture_desc *desc, orr_texture_id *out);
const orr_texture *orr_assets_try_get_texture(const orr_assets *assets, orr_texture_id id);

/* A target texture: a texture whose pixels are a render target's colour image, drawn by a renderer
 * (a texture target, gpu.h: orr_target_desc.texture_key). The library knows nothing of renderers: the
 * texture carries only the key, an opaque number the host chooses, and each renderer binds it to its
 * live texture target made with the same key, frame by frame (the target may be made before or after
 * the texture, destroyed and made again). Materials name it like any texture, in any slot (base colour,
 * emissive, ...), instances included. Its texels are the target's sRGB-encoded colour, sampled as
 * linear values like an sRGB texture's, through `sampler` (one level: mipmaps is ignored). While a
 * renderer has no target with the key, the slot samples white there, counted
 * (orr_render_stats.views.texture_target_fallbacks). ORR_ERROR_INVALID_ARGUMENT for a zero key. */
typedef struct orr_target_texture_desc {
    const char *name;    /* NULL-able; copied; named in the renderer's messages */
    uint64_t target_key; /* nonzero */
    orr_sampler sampler; /* default linear, repeat */
} orr_target_texture_desc;

orr_result orr_assets_add_target_texture(orr_assets *assets, const orr_target_texture_desc *desc, orr_texture_id *out);

/* A tileable value-noise texture for fur thinning (orr_fur.noise). Lattice values come from an integer
 * hash of (lattice x mod cells, lattice y mod cells, seed) and are blended with a smoothstep in fixed
 * point, so the bytes depend only on the desc (the same on every machine and compiler) and the texture
 * repeats seamlessly. With cells = size every texel is its own strand (white noise); fewer cells give
 * clumps. The value is in r, g and b (a = 255), linear; sampler: repeat, nearest magnification (crisp
 * strands), linear minification with mipmaps. Zero-initialised = 64 x 64, cells = size, seed 0. */
typedef struct orr_fur_noise_desc {
    const char *name;  /* NULL = "fur noise" */
    uint32_t size;     /* width and height: a power of two, 1..4096; 0 = 64 */
    uint32_t cells;    /* lattice cells per side: a power of two, 1..size; 0 = size */
    uint32_t seed;
} orr_fur_noise_desc;

/* desc NULL = the defaults. ORR_ERROR_INVALID_ARGUMENT names a size or cells outside its range. */
orr_result orr_assets_add_fur_noise(orr_assets *assets, const orr_fur_noise_desc *desc, orr_texture_id *out);

/* ---- materials ---------------------------------------------------------------------------- */

typedef enum orr_alpha_mode { ORR_ALPHA_OPAQUE = 0, ORR_ALPHA_MASK = 1, ORR_ALPHA_BLEND = 2 } orr_alpha_mode;

typedef struct orr_texture_ref {
    orr_texture_id texture; /* none = no texture in this slot */
    uint32_t texcoord;      /* which set: 0 or 1 */
    float scale;            /* normalTexture.scale or occlusionTexture.strength; default 1 */
    /* KHR_texture_transform: uv' = T x R x S x uv */
    float offset[2];
    float rotation;
    float uv_scale[2]; /* default 1, 1 */
} orr_texture_ref;

/* How a material shades. Fur is the protocol's second payload kind (draw module): a surface whose
 * material shades fur and whose instance has a fur entry in the snapshot's sidecar (orr_render_fur) is
 * drawn as shells in the custom pass through the fur adapter; without an entry it is drawn as a plain
 * mesh in its alpha mode's pass and counted (orr_draw_stats.fur_fallbacks). */
typedef enum orr_shading {
    ORR_SHADING_PBR = 0, /* glTF metallic-roughness */
    ORR_SHADING_FUR = 1, /* metallic-roughness on shells along the normal, thinned by a noise texture */
} orr_shading;

#define ORR_FUR_MAX_SHELLS 256

/* A fur look (ORR_SHADING_FUR). Shell i of n (0 = the surface itself) sits at height h = i / (n - 1)
 * (0 when n = 1) and is offset by h x shell_length along the world-space normal, after the instance's
 * transform (metres, whatever the instance's scale). The noise texture is sampled at texcoords0 x
 * density, at its full resolution (mip level 0: strands keep their width however small or oblique, so
 * that the kept fraction stays what thinning says); a shell keeps a fragment whose noise value v (the
 * red channel, 0..1) satisfies
 * v >= thinning x h, so the surface itself (h = 0) is always solid and, with thinning t, a fraction
 * 1 - t of the strands reaches the tip. With more than one shell the light a shell reflects is scaled
 * from 0.3 at the root to 1 at the tip (the strands shade each other). One shell is the plain surface. Instances override any of these
 * through their sidecar entry. Defaults (orr_material_default): 16 shells, 0.01 m, density 32, thinning
 * 0.75, no noise texture (every shell solid: give it one from orr_assets_add_fur_noise). */
typedef struct orr_fur {
    uint32_t shell_count; /* 1..ORR_FUR_MAX_SHELLS */
    float shell_length;   /* metres, finite, >= 0 */
    float density;        /* noise repeats per texture-coordinate unit; finite, > 0 */
    float thinning;       /* 0..1 */
    orr_texture_id noise; /* none = no thinning */
} orr_fur;

/* Whether the values are in the ranges above. */
bool orr_fur_valid(const orr_fur *fur);

/* Which of a fur look's values an instance overrides (orr_render_fur.set in the snapshot's sidecar,
 * orr_fur_instance.set on a world entity). */
enum {
    ORR_FUR_SET_SHELL_COUNT = 1u << 0,
    ORR_FUR_SET_SHELL_LENGTH = 1u << 1,
    ORR_FUR_SET_DENSITY = 1u << 2,
    ORR_FUR_SET_THINNING = 1u << 3,
    ORR_FUR_SET_ALL = 0xfu,
};

/* Whether an override is usable: `set` has no bit outside ORR_FUR_SET_ALL and each value it names is in
 * orr_fur's range (the others are not looked at). */
bool orr_fur_override_valid(uint32_t set, uint32_t shell_count, float shell_length, float density, float thinning);

/* glTF metallic-roughness (and the fur shading mode). orr_material_default() gives the glTF defaults.
 * orr_assets_add_material refuses a fur material whose orr_fur is not valid; one made invalid through
 * orr_assets_try_edit_material is dropped by the draw module (material_mode). */
typedef struct orr_material {
    float base_color[4];  /* linear RGBA; default 1 1 1 1 */
    float metallic;       /* default 1 */
    float roughness;      /* default 1 */
    float emissive[3];    /* default 0 */
    float emissive_strength; /* KHR_materials_emissive_strength; default 1 */
    float alpha_cutoff;   /* default 0.5, used by ORR_ALPHA_MASK */
    orr_alpha_mode alpha_mode;
    bool double_sided;
    bool unlit;           /* KHR_materials_unlit */
    orr_texture_ref base_color_texture;
    orr_texture_ref metallic_roughness_texture;
    orr_texture_ref normal_texture;
    orr_texture_ref occlusion_texture;
    orr_texture_ref emissive_texture;
    orr_shading shading;  /* default PBR */
    orr_fur fur;          /* used when shading is ORR_SHADING_FUR */
} orr_material;

orr_material orr_material_default(void);

orr_result orr_assets_add_material(orr_assets *assets, const orr_material *material, orr_material_id *out);
/* A new material with the source's values (a material instance). */
orr_result orr_assets_clone_material(orr_assets *assets, orr_material_id source, orr_material_id *out);
const orr_material *orr_assets_try_get_material(const orr_assets *assets, orr_material_id id);
/* Mutable access; bumps the material's revision. NULL when stale. */
orr_material *orr_assets_try_edit_material(orr_assets *assets, orr_material_id id);
/* Bumps on every edit of that material; 0 for a stale id. */
uint64_t orr_assets_material_revision(const orr_assets *assets, orr_material_id id);
/* The material used by primitives that name none; always valid. */
orr_material_id orr_assets_default_material(const orr_assets *assets);

/* ---- skins and animation clips ------------------------------------------------------------ */

typedef struct orr_skin_desc {
    const char *name;
    uint32_t joint_count;
    const orr_mat4d *inverse_bind; /* joint_count matrices; NULL = identity */
} orr_skin_desc;

typedef struct orr_skin {
    char *name;
    uint32_t joint_count;
    orr_mat4d *inverse_bind;
} orr_skin;

orr_result orr_assets_add_skin(orr_assets *assets, const orr_skin_desc *desc, orr_skin_id *out);
const orr_skin *orr_assets_try_get_skin(const orr_assets *assets, orr_skin_id id);

typedef enum orr_anim_path {
    ORR_ANIM_TRANSLATION = 0,
    ORR_ANIM_ROTATION = 1,
    ORR_ANIM_SCALE = 2,
    ORR_ANIM_WEIGHTS = 3,
} orr_anim_path;

typedef enum orr_interpolation {
    ORR_INTERP_LINEAR = 0,
    ORR_INTERP_STEP = 1,
    ORR_INTERP_CUBICSPLINE = 2,
} orr_interpolation;

/* One channel: keyframes for one property of one target. `target` indexes the AnimationPlayer's
 * target entities. values holds key_count x components floats (x3 for cubic spline: in-tangent,
 * value, out-tangent per key, as glTF stores them). */
typedef struct orr_anim_channel {
    uint32_t target;
    orr_anim_path path;
    orr_interpolation interpolation;
    uint32_t key_count;
    uint32_t components; /* 3 (T, S), 4 (R), morph target count (weights) */
    const float *times;  /* strictly increasing, seconds */
    const float *values;
} orr_anim_channel;

typedef struct orr_clip_desc {
    const char *name;
    uint32_t channel_count;
    const orr_anim_channel *channels;
} orr_clip_desc;

typedef struct orr_clip {
    char *name;
    uint32_t channel_count;
    orr_anim_channel *channels; /* times and values owned by the library */
    uint32_t target_count;      /* 1 + the largest channel target */
    double duration;            /* the last key time over all channels */
} orr_clip;

orr_result orr_assets_add_clip(orr_assets *assets, const orr_clip_desc *desc, orr_clip_id *out);
const orr_clip *orr_assets_try_get_clip(const orr_assets *assets, orr_clip_id id);

/* ---- resources as bytes (recordings) -------------------------------------------------------- */
/* A mesh, material or texture as little-endian bytes and back: the resource payloads of a recording
 * (docs/recording.md, "Resources"), written by the recording glue (orrery/frame.h) and read by a replay
 * host into its own library. The bytes hold what the renderer draws: a mesh's stored streams (packed
 * ones as they are kept), indices, morph targets, default weights and whether it has meshlets (they
 * are built again from the stored indices); a material's values; a texture's pixels and sampler, or
 * a target texture's key. Ids inside (a primitive's material, a material's textures) are the
 * recording library's, translated through `remap` when decoded: what they name must be decoded first.
 *
 * encode: writes at most `capacity` bytes at `out` (NULL-able with capacity 0) and returns the size the
 * whole encoding takes (0 for a stale id): call once to size, once to write.
 * decode: adds the resource to `assets`; a payload that breaks the layout is refused
 * (ORR_ERROR_PARSE, `err` naming the field and its byte offset in the payload), and so is one the
 * library refuses to add (its own result and message). Nothing is added on failure. */
typedef struct orr_resource_remap {
    orr_material_id (*material)(void *user, orr_material_id recorded); /* NULL-able: kept as is */
    orr_texture_id (*texture)(void *user, orr_texture_id recorded);    /* NULL-able: kept as is */
    void *user;
} orr_resource_remap;

size_t orr_assets_encode_mesh(const orr_assets *assets, orr_mesh_id id, void *out, size_t capacity);
size_t orr_assets_encode_material(const orr_assets *assets, orr_material_id id, void *out, size_t capacity);
size_t orr_assets_encode_texture(const orr_assets *assets, orr_texture_id id, void *out, size_t capacity);
orr_result orr_assets_decode_mesh(orr_assets *assets, const void *bytes, size_t size, const orr_resource_remap *remap,
                                  orr_mesh_id *out, orr_error *err);
orr_result orr_assets_decode_material(orr_assets *assets, const void *bytes, size_t size,
                                      const orr_resource_remap *remap, orr_material_id *out, orr_error *err);
orr_result orr_assets_decode_texture(orr_assets *assets, const void *bytes, size_t size, orr_texture_id *out,
                                     orr_error *err);

/* ---- removal ------------------------------------------------------------------------------ */
/* Releases a resource and frees its id: later lookups of it return NULL, and a new resource never
 * reuses it (the generation changes). Whoever still refers to it (a material naming a texture, a
 * MeshRenderer, a renderer's resident copy) sees a stale id, which every consumer refuses or skips;
 * removing what is in use is the caller's decision. ORR_ERROR_STALE_HANDLE for a stale or none id;
 * the default material cannot be removed (ORR_ERROR_INVALID_ARGUMENT). The glTF loader uses these
 * to take back what a failed load had added. */
orr_result orr_assets_remove_mesh(orr_assets *assets, orr_mesh_id id);
orr_result orr_assets_remove_material(orr_assets *assets, orr_material_id id);
orr_result orr_assets_remove_texture(orr_assets *assets, orr_texture_id id);
orr_result orr_assets_remove_skin(orr_assets *assets, orr_skin_id id);
orr_result orr_assets_remove_clip(orr_assets *assets, orr_clip_id id);

/* ---- prefabs ------------------------------------------------------------------------------ */
/* The library keeps prefabs by path so that a second load returns the first prefab; the prefab
 * itself (a world used as a template) is built and read by the scene module, which registers it
 * here with a destructor. */
typedef void (*orr_prefab_destroy_fn)(void *payload);

orr_result orr_assets_add_prefab(orr_assets *assets, const char *path, void *payload,
                                 orr_prefab_destroy_fn destroy, orr_prefab_id *out);
orr_prefab_id orr_assets_find_prefab(const orr_assets *assets, const char *path); /* none when absent */
void *orr_assets_try_get_prefab(const orr_assets *assets, orr_prefab_id id);         /* NULL when stale */

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_ASSETS_H */
