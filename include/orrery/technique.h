/* Orrery techniques: passes a host adds to a renderer's frame, among the built-in ones.
 *
 *   orr_renderer_set_techniques      a target's list of techniques: checked whole, compiled and built
 *                                    at once, or refused with a message (the old list then stays)
 *   orr_renderer_set_technique_data  a technique's host data (its push constants), kept until set again
 *   orr_renderer_describe_techniques  the frame graph of a target's list: passes, resources, barriers
 *
 * Three kinds (orr_technique_desc.kind):
 *   full-screen  a fragment shader run over a full-screen triangle, over the whole target or over one
 *                view's rectangle, that samples attachments and writes others;
 *   scene        the shared scene drawn again with the host's shaders and pipeline state: the instances
 *                its view's cull found, filtered by layers and passes, with the view's camera, lights
 *                and draw order, into the view's depth and the attachments it writes;
 *   compute      a compute shader dispatched after the views (per pixel of its writes, a fixed count of
 *                workgroups, or per instance slot), which samples attachments and writes transients as
 *                storage images, and sees the scene's buffers.
 *
 * Per frame of a target: the scene updates; per view, in slot order, its list: the built-in look is
 * four techniques of the library's, one per orr_pass (opaque; cutout; custom: its meshes, then the fur
 * adapter's shells on the shell path; blended, back to front), each drawn through the view's strategy
 * (the meshlet strategy included) with the built-in pipelines, and the host's scene techniques placed
 * in the list run among them: before the first (ORR_PLACE_BEFORE_VIEW: a depth pre-pass), right before
 * any one of them (ORR_PLACE_BEFORE_PASS, orr_technique_desc.pass: before the blended pass, say), or
 * after the last (ORR_PLACE_AFTER_VIEW), in list order where several share a place; then the
 * techniques placed after the views, in list order; then read-back, presentation or (texture targets)
 * the copy materials sample. Built-in passes with nothing placed between them are drawn as one pass
 * (one rendering and one walk of the view's strategy, as a view without techniques is); a technique
 * between two of them splits them there, and the second loads the colour and depth the first stored.
 * A technique with replaces_view takes the four built-in passes out of its view's list.
 *
 * Attachments are named:
 *   "color"  the target's colour after its views (resolved when multisampled; RGBA8 sRGB: a shader
 *            reads and writes linear values). Readable and writable.
 *   "depth"  the depth of the technique's view (D32 float, reversed Z: 1 at the near plane, 0 at
 *            infinity). Sampled by a technique with a view, on a single-sampled target; a scene
 *            technique tests and writes it through its orr_technique_scene state (not a write).
 *   others   transient images of the target, made at its size (or a fraction of it: divisor) with the
 *            format their writers declare, remade when it is resized; their contents do not outlast
 *            the frame.
 *
 * A read sees what the last technique listed before it wrote (the built-in passes for "color" and
 * "depth"); a read of a transient that only techniques listed after it write moves the first of those
 * writers (and what it needs) before it: the list runs in the host's order except where a read needs
 * another. A technique that reads an attachment it also writes reads a copy made just before it.
 *
 * On a multisampled target a scene technique draws with the target's sample count into its samples
 * (where the views drew) and the view's multisampled depth, and resolves them over its view's
 * rectangle into "color", as the views do: it writes "color" and depth only, and runs before any
 * technique that writes "color" otherwise (its resolve would replace what that one wrote).
 * On a view drawn by the meshlet strategy a scene technique draws the view's records, whole, with its
 * own vertex pipeline through the indexed commands the view's cull wrote (the same on a device with
 * mesh shaders as on the fallback): the meshlets the view's test drops (back-facing for the material's
 * culling) are not the technique's to drop, whose face culling and vertex stage are its own.
 *
 * Scene techniques' shaders include the installed header "orrery/scene.glsl" (GLSL given to the library
 * finds it; SPIR-V built offline: add the include folder), which declares the scene's bindings exactly
 * as the built-in shaders see them: set 0 the view block, records, instances, materials, joints,
 * lights, morph targets and weights; set 1 the textures (orr_scene_texture()). A scene technique's
 * reads are sampler2D at set 2, binding i. Its vertex shader is the library's (the built-in passes'
 * vertex stage; its outputs are scene.glsl's ORR_SCENE_VARYINGS) unless the host gives one, which reads
 * the pool vertex at the locations scene.glsl names and honours a layer filter by calling
 * orr_scene_layer_kept(). Its fragment shader writes writes[i] at location i; a depth-only pass (no
 * writes) needs none.
 *
 * Full-screen shaders: GLSL (version 450, compiled at registration) or SPIR-V, for Vulkan 1.3. The library's
 * vertex shader draws one triangle over the pass's rectangle and passes
 *     layout(location = 0) out vec2 uv;    0,0 at the rectangle's top left, 1,1 at its bottom right
 * and the fragment shader declares, and is checked (by reflection of its SPIR-V) to declare exactly:
 *     layout(set = 0, binding = i) uniform sampler2D ...;   reads[i] (nearest, clamped to the edge;
 *                                                           gl_FragCoord.xy is the target pixel)
 *     layout(location = i) out vec4 ...;                     writes[i] (float components)
 *     layout(push_constant) uniform ... { ... };            push_constant_size bytes, when nonzero
 *
 * Compute shaders (GLSL 450 or SPIR-V, entry point "main", any local size) declare, and are checked to
 * declare only:
 *     layout(set = 2, binding = i) uniform sampler2D ...;    reads[i] (texelFetch at the pixel)
 *     layout(set = 2, binding = 8 + i, FORMAT) writeonly uniform image2D ...;
 *                                                           writes[i] (FORMAT: the transient's, as
 *                                                           rgba16f, rgba8, r32f; "color": rgba16f;
 *                                                           ORR_TECHNIQUE_STORAGE_BINDING)
 *     the scene's buffers at set 0 (define ORR_SCENE_COMPUTE, include "orrery/scene.glsl"): its view's
 *     block (a technique with a view only); set 1 (textures) is not bound for compute
 *     layout(push_constant) ...                             push_constant_size bytes (+ 4, per instance)
 * A compute technique writes transients, whose format the device must support as a storage image
 * (else ORR_ERROR_UNSUPPORTED), and "color": sRGB is no storage format, so its write is an rgba16f
 * image of the target's size (declared layout(rgba16f); linear values, as a fragment shader writes),
 * "color.storage" in the graph, into which "color" is blitted (decoded) before the dispatch unless
 * the load op is CLEAR or DONT_CARE, and which is blitted (encoded) into "color" after it. A write's
 * load op applies before the dispatch (CLEAR: the whole image; DEFAULT: a transient cleared at its
 * first write of the frame, else, and "color" always, kept).
 *
 * Refused at registration with ORR_ERROR_INVALID_ARGUMENT and a message naming the technique (never
 * later, at a frame): GLSL that does not compile (the compiler's lines), SPIR-V that is not a fragment
 * shader with an entry point "main", a shader whose reflected interface differs from the declaration
 * (a binding, an output, a push constant block of another size), a format the device cannot render to
 * and sample (ORR_ERROR_UNSUPPORTED), a read of an attachment that nothing writes, reads of each
 * other's writes (a dependency cycle), writers of one transient that disagree on its format, "depth"
 * without a view, a stale target or view; for scene techniques also: no view, a write of a transient
 * on a multisampled target (ORR_ERROR_UNSUPPORTED) or one that would resolve over another technique's
 * "color", edges on a device without fillModeNonSolid (ORR_ERROR_UNSUPPORTED), a shader that declares a scene binding the library does not provide or an
 * input its vertex stage does not pass, a layer filter with a host vertex shader that does not read
 * it, a technique placed in a view's list (before, among or after its built-in passes) that reads
 * anything or writes a transient, ORR_PLACE_BEFORE_PASS with a pass that is no orr_pass; for compute
 * techniques: a shader that is no compute shader, a storage image whose format qualifier is not its
 * transient's (rgba16f for "color"), set 0 without a view, a dispatch out of range.
 *
 * Mesh techniques: a scene technique may give a mesh shader (orr_technique_scene.mesh), with a task
 * shader before it or not, in place of its vertex stage (GLSL 450 with GL_EXT_mesh_shader, compiled
 * for Vulkan 1.3, or SPIR-V; entry points "main"). They draw what their shaders emit, not the scene's
 * meshes (the geometry pool is not bound): markers, billboards, boxes, generated geometry per
 * instance. Everything else is a scene technique's: its view, place, writes, depth, blend, face
 * culling, layer filter, passes and order, its fragment shader (whose inputs the mesh shader writes)
 * and its host data. The task and mesh stages see set 0 (define ORR_SCENE_TASK or ORR_SCENE_MESH before
 * including "orrery/scene.glsl": the scene's buffers, the view block, the layer filter and placement
 * helpers) and the push block; they sample nothing (set 1 and the reads are the fragment stage's).
 * What is dispatched (orr_technique_scene.mesh_dispatch), in workgroups of the first stage (the task
 * shader, else the mesh shader):
 *     ORR_MESH_PER_RECORD  one per record the technique would draw with a vertex stage (its view's
 *                          records the CPU's cull kept, of its passes, in its order): a dispatch per run
 *                          of one batch, whose first record's position the library appends to the push
 *                          block as a uint (after push_constant_size bytes; the first stage must declare
 *                          it); orr_scene_group_record(that uint) is the workgroup's record. A view culled
 *                          on the GPU only tells the GPU which records it keeps: refused at registration
 *                          (a view whose settings change later draws only its blended records).
 *     ORR_MESH_FIXED       mesh_groups, once per frame: the shader finds its own work in the scene's
 *                          buffers (no material: faces culled as ORR_FACE_CULL_NONE says, unless the
 *                          technique names a mode; the fragment stage samples no scene texture; no
 *                          records, so orr_technique_scene.order does not apply).
 * Refused at registration, naming the technique (a renderer without mesh shaders last, once the
 * shaders compiled and matched, so that a shader is checked on any device): a renderer without mesh
 * shaders (orr_renderer_uses_mesh_shaders false: lavapipe, or meshlet_fallback; ORR_ERROR_UNSUPPORTED),
 * both a vertex and a mesh shader, a task shader without a
 * mesh shader, a task or mesh shader given as both GLSL and SPIR-V or with a spirv_size that is no
 * whole number of SPIR-V words, a stage that is not the one its field names, a fragment input the
 * mesh shader does not write, a push block of another size (the first stage: push_constant_size, + 4
 * per record), per record a push_constant_size above ORR_TECHNIQUE_MAX_PUSH - 4 (the uint must fit in
 * what every device offers), a sampler in the task or mesh stage, workgroups of more invocations or a
 * mesh shader of more output vertices or primitives than the device's (ORR_ERROR_UNSUPPORTED), a
 * topology other than FILLED (the mesh shader chooses its primitives), a strategy other than the
 * view's, a fixed count with an axis out of 1..65535 or more workgroups in all (x * y * z) than the
 * device's draw may launch (maxTaskWorkGroupTotalCount, without a task stage maxMeshWorkGroupTotalCount;
 * ORR_ERROR_UNSUPPORTED). Not checked by the library (the validation layer reports them): the task
 * payload's size, the per-axis workgroup sizes, the mesh outputs' per-primitive qualifiers.
 *
 * Replacing a target's list (a new set) waits for the frames in flight that used the old one; the old
 * ids then fail. A shader's new source (hot reload) goes through orr_renderer_reload_technique (a mesh
 * technique's: orr_renderer_reload_technique_mesh). Destroying the target destroys its techniques.
 * A technique whose view is destroyed is skipped from then on, with every technique that reads what
 * it writes (one warning). A target with techniques records its frame's commands every frame.
 */
#ifndef ORRERY_TECHNIQUE_H
#define ORRERY_TECHNIQUE_H

#include <orrery/gpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORR_TECHNIQUE_MAX_READS 8       /* sampled attachments of one technique */
#define ORR_TECHNIQUE_MAX_WRITES 4      /* colour outputs of one technique */
#define ORR_TECHNIQUE_MAX_PUSH 128      /* bytes of host data: what every Vulkan device offers */
#define ORR_TECHNIQUE_MAX 32            /* techniques of one target */
#define ORR_TECHNIQUE_MAX_DIVISOR 16    /* a transient at 1/16 of the target's size at the least */
#define ORR_TECHNIQUE_STORAGE_BINDING 8 /* a compute technique's writes[i]: set 2, binding 8 + i */

/* Formats of transient attachments. */
typedef enum orr_format {
    ORR_FORMAT_DEFAULT = 0,      /* the target's colour format (RGBA8 sRGB); for a transient's later
                                    writers: as its first writer declared it */
    ORR_FORMAT_RGBA8_UNORM = 1,
    ORR_FORMAT_RGBA8_SRGB = 2,
    ORR_FORMAT_RGBA16F = 3,
    ORR_FORMAT_RGBA32F = 4,
    ORR_FORMAT_R32F = 5,
    ORR_FORMAT_RG16F = 6,
    ORR_FORMAT_R8_UNORM = 7,
    ORR_FORMAT_B10G11R11F = 8,
    ORR_FORMAT_E5B9G9R9F = 9,    /* sampled everywhere, rendered to by few devices */
    ORR_FORMAT_COUNT,
} orr_format;
const char *orr_format_name(orr_format format); /* "rgba16f", ... */

/* What a write finds in its attachment before the pass draws. */
typedef enum orr_load_op {
    ORR_LOAD_DEFAULT = 0,   /* "color", and a transient already written this frame: KEEP; a transient's
                               first write of the frame: CLEAR */
    ORR_LOAD_KEEP = 1,      /* what was there (undefined for a transient not written yet this frame) */
    ORR_LOAD_CLEAR = 2,     /* `clear`, over the pass's rectangle */
    ORR_LOAD_DONT_CARE = 3, /* anything: the shader writes every pixel of the rectangle */
} orr_load_op;

typedef struct orr_technique_write {
    const char *name;  /* "color" or a transient's name (copied); not "depth" */
    orr_format format; /* a transient's; every writer that names one names the same. "color": DEFAULT */
    orr_load_op load;
    float clear[4];    /* ORR_LOAD_CLEAR (and a transient's first write): linear values */
    uint32_t divisor;  /* a transient's size: the target's divided by this, rounded up (2: half, 4: a
                          quarter), 1..ORR_TECHNIQUE_MAX_DIVISOR; 0: as its first writer declared it (1
                          for that one). A pass's writes share one size; it draws over the same part of
                          each as of the target (its view's rectangle, divided). Scene techniques: 1 */
} orr_technique_write;

/* A shader: GLSL source or SPIR-V, one of the two. */
typedef struct orr_shader_desc {
    const char *glsl;       /* NUL-terminated GLSL, compiled at registration; or NULL */
    const uint32_t *spirv;  /* SPIR-V words; or NULL. Copied */
    size_t spirv_size;      /* bytes, a multiple of 4 */
    const char *name;       /* NULL-able: names the shader in the compiler's messages ("grade.frag") */
} orr_shader_desc;

typedef enum orr_technique_kind {
    ORR_TECHNIQUE_FULLSCREEN = 0, /* a full-screen triangle */
    ORR_TECHNIQUE_SCENE = 1,      /* the view's visible instances, drawn with the technique's shaders */
    ORR_TECHNIQUE_COMPUTE = 2,    /* a compute shader dispatched over its writes, as storage images */
} orr_technique_kind;

/* How many workgroups a compute technique dispatches. */
typedef enum orr_dispatch {
    ORR_DISPATCH_PER_PIXEL = 0,    /* one invocation per pixel of its writes (the target's size divided by
                                      their divisor): ceil(width / local_size_x) x ceil(height /
                                      local_size_y) workgroups; gl_GlobalInvocationID.xy is the pixel (the
                                      last groups reach past the edge: check imageSize) */
    ORR_DISPATCH_FIXED = 1,        /* orr_technique_compute.groups */
    ORR_DISPATCH_PER_INSTANCE = 2, /* one invocation per instance slot of the scene (removed instances' slots
                                      among them): ceil(slots / local_size_x) workgroups. The shader's push
                                      block ends with a uint after the host's push_constant_size bytes that
                                      the library sets to the slot count (invocations at or past it return) */
} orr_dispatch;

/* A compute technique's shader and dispatch. */
typedef struct orr_technique_compute {
    orr_shader_desc shader;  /* GLSL (compiled at registration) or SPIR-V; its local size is reflected */
    orr_dispatch dispatch;
    uint32_t groups[3];      /* ORR_DISPATCH_FIXED: workgroups in x, y, z, each 1..65535 */
} orr_technique_compute;

/* When a scene technique runs (full-screen ones: after the views). */
typedef enum orr_technique_place {
    ORR_PLACE_AFTER_VIEWS = 0, /* after the target's views, in list order with the other techniques */
    ORR_PLACE_BEFORE_VIEW = 1, /* before its view's built-in passes, which then keep (load) the depth it
                                  wrote instead of clearing it; writes only "color" and depth, reads nothing */
    ORR_PLACE_AFTER_VIEW = 2,  /* right after its view's built-in passes, before the target's next view
                                  (which draws over it where they overlap); writes only "color" and depth,
                                  reads nothing */
    ORR_PLACE_BEFORE_PASS = 3, /* right before its view's built-in pass orr_technique_desc.pass, after
                                  those before it (ORR_PASS_TRANSPARENT: between the opaque passes and the
                                  blended one; ORR_PASS_OPAQUE is ORR_PLACE_BEFORE_VIEW); writes only
                                  "color" and depth, reads nothing */
} orr_technique_place;

/* Depth test against the view's depth (reversed Z is the library's business: these say nearer). */
typedef enum orr_depth_test {
    ORR_DEPTH_NEARER_OR_EQUAL = 0, /* what the built-in passes use */
    ORR_DEPTH_NEARER = 1,
    ORR_DEPTH_EQUAL = 2,          /* only what is exactly at the stored depth (after a pre-pass) */
    ORR_DEPTH_FARTHER = 3,        /* behind what is there (hidden parts) */
    ORR_DEPTH_ALWAYS = 4,         /* no test */
} orr_depth_test;

typedef enum orr_blend {
    ORR_BLEND_NONE = 0,  /* the output replaces what is there */
    ORR_BLEND_ALPHA = 1, /* over: src.a x src + (1 - src.a) x dst */
    ORR_BLEND_ADD = 2,   /* dst + src.a x src */
} orr_blend;

typedef enum orr_face_cull {
    ORR_FACE_CULL_MATERIAL = 0, /* as the built-in passes: back faces, none for double-sided materials,
                                   the other way round for mirrored instances */
    ORR_FACE_CULL_NONE = 1,
    ORR_FACE_CULL_BACK = 2,     /* of the instance as placed (a mirrored one's front faces show) */
    ORR_FACE_CULL_FRONT = 3,    /* the inside: outlines by inverted hulls */
} orr_face_cull;

/* How a scene technique draws its records (the view's batches and records either way). */
typedef enum orr_technique_strategy {
    ORR_TECHNIQUE_STRATEGY_VIEW = 0, /* the view's (direct, batched or indirect; shell and meshlet views:
                                        batched, or indirect where the GPU culls, as meshlet views do by
                                        default) */
    ORR_TECHNIQUE_DIRECT = 1,        /* a draw per record */
    ORR_TECHNIQUE_BATCHED = 2,       /* an instanced draw per batch */
    ORR_TECHNIQUE_INDIRECT = 3,      /* a multi-draw indirect per run of batches. A view culled on the GPU
                                        is drawn indirect whatever is asked: only the GPU knows its counts */
} orr_technique_strategy;

/* What a scene technique rasterises of the scene's triangles (the geometry pool holds triangle lists:
 * glTF strips and fans are converted at load, and the draw module draws no point or line primitive). */
typedef enum orr_technique_topology {
    ORR_TECHNIQUE_FILLED = 0,  /* the triangles, filled */
    ORR_TECHNIQUE_EDGES = 1,  /* each triangle's three edges, one pixel wide (a wireframe; the rules of line
                                rasterisation: the pixels differ from a filled triangle's edge). Refused with
                                ORR_ERROR_UNSUPPORTED on a device without fillModeNonSolid */
    ORR_TECHNIQUE_CORNERS = 2, /* each triangle's corners as points (a point list over the same indices: a
                                 vertex shared by n triangles is drawn n times), gl_PointSize pixels wide:
                                 the library's vertex shader writes 1.0; a host vertex shader must write it */
} orr_technique_topology;

/* The order a scene technique draws its records in. */
typedef enum orr_technique_order {
    ORR_TECHNIQUE_ORDER_VIEW = 0,     /* the view's: its batches in the scene's order, in runs of one
                                         pipeline state (the fewest state changes and draws), then the
                                         blended ones back to front */
    ORR_TECHNIQUE_ORDER_NEAR_FIRST = 1, /* every record it draws by the view-space depth of its instance's
                                         bounds' centre, nearest first (a depth pre-pass's early rejection),
                                         equal depths in the view's order; a draw per run of records of one
                                         batch that stay adjacent */
    ORR_TECHNIQUE_ORDER_FAR_FIRST = 2, /* the same, farthest first (blending without a depth test) */
} orr_technique_order;
/* On a view culled on the GPU only the GPU knows which records of the passes before the blended one are
 * visible: those are drawn in the view's order whatever is asked (the blended ones, culled on the CPU,
 * take the order asked). Sorting costs the technique's visible records each frame on the CPU. */

/* What a mesh technique dispatches: workgroups of its first stage (the task shader, else the mesh shader). */
typedef enum orr_mesh_dispatch {
    ORR_MESH_PER_RECORD = 0, /* one per record of its draw list (see "Mesh techniques" above) */
    ORR_MESH_FIXED = 1,      /* orr_technique_scene.mesh_groups, once per frame */
} orr_mesh_dispatch;

/* A scene technique's pipeline state and draw filter. Zero-initialised: the library's vertex shader,
 * depth tested nearer-or-equal and not written, the view's depth kept, no blending, faces culled as
 * the material says, filled triangles, every layer of the view, the opaque and cut-out passes, the
 * view's order and strategy; a mesh technique dispatched per record (ORR_MESH_PER_RECORD). */
typedef struct orr_technique_scene {
    orr_shader_desc vertex;        /* none: the library's (or a mesh technique's task and mesh stages) */
    orr_shader_desc task;          /* a mesh technique's task stage; none: its mesh stage is dispatched */
    orr_shader_desc mesh;          /* a mesh stage in place of the vertex stage: a mesh technique */
    /* task, mesh, mesh_dispatch and mesh_groups sit before the older fields below: a host built against
     * an orrery/technique.h without them must be rebuilt (the struct's layout changed) */
    orr_mesh_dispatch mesh_dispatch; /* a mesh technique's workgroups */
    uint32_t mesh_groups[3];       /* ORR_MESH_FIXED: workgroups in x, y, z, each 1..65535, their product
                                      at most the device's total (see "Mesh techniques") */
    orr_depth_test depth_test;
    bool depth_write;
    orr_load_op depth_load;        /* DEFAULT, KEEP: what the view (or a technique before) left; CLEAR:
                                      depth_clear over the view's rectangle */
    float depth_clear;             /* 1 = the near plane, 0 = infinitely far (reversed Z) */
    orr_blend blend;               /* every colour write */
    orr_face_cull cull;
    orr_technique_topology topology;
    uint32_t layer_mask;           /* 0 = every layer the view draws; else those of them in the mask */
    uint32_t passes;               /* bit (1 << orr_pass) per pass; 0 = opaque and cut-out. The custom
                                      pass's fur is the fur adapter's: never drawn by a technique */
    orr_technique_strategy strategy; /* an order other than the view's draws direct (CPU-culled records) */
    orr_technique_order order;
    bool replaces_view;            /* the view's built-in passes are not drawn: this technique draws what its
                                      cull keeps instead (a deferred renderer's G-buffer). Placed after the
                                      views, with depth_load CLEAR (the view's depth is not cleared then);
                                      "color" keeps the target's clear colour where nothing else writes */
} orr_technique_scene;

/* A technique. Zero-initialised apart from name, fragment and one write: a full-screen pass over the
 * whole target, no reads, no host data. */
typedef struct orr_technique_desc {
    const char *name;            /* required, unique in the list; names it in messages and the graph */
    orr_view_id view;            /* none: the whole target; else the view's rectangle, and "depth" is its
                                    depth. The view must be the target's. Scene techniques: required */
    orr_shader_desc fragment;    /* scene techniques without writes: none */
    const char *const *reads;    /* attachment names, sampled at set 0, binding i */
    uint32_t read_count;         /* 0..ORR_TECHNIQUE_MAX_READS */
    const orr_technique_write *writes; /* at location i */
    uint32_t write_count;        /* 1..ORR_TECHNIQUE_MAX_WRITES; scene techniques 0 (depth only) too */
    uint32_t push_constant_size; /* bytes of host data, a multiple of 4, 0..ORR_TECHNIQUE_MAX_PUSH (a
                                    scene technique's: seen by both its stages) */
    orr_technique_kind kind;
    orr_technique_place place;   /* scene techniques */
    orr_pass pass;               /* ORR_PLACE_BEFORE_PASS: the built-in pass it runs before */
    orr_technique_scene scene;   /* scene techniques: state and filter */
    orr_technique_compute compute; /* compute techniques: shader and dispatch (fragment stays empty) */
} orr_technique_desc;

typedef struct orr_technique_id {
    uint32_t index, generation;
} orr_technique_id;
static inline bool orr_technique_id_eq(orr_technique_id a, orr_technique_id b)
{
    return a.index == b.index && a.generation == b.generation;
}
static inline bool orr_technique_id_is_none(orr_technique_id id) { return id.generation == 0; }

/* Replaces the target's techniques with `techniques` (count of them, 0 = none; the descs stay the
 * caller's). `ids` (NULL-able) receives one id per desc, in the same order. Everything is checked and
 * built before anything changes: on failure the old list stays, and the renderer's last error (and the
 * result) says what and where. */
orr_result orr_renderer_set_techniques(orr_renderer *renderer, orr_target_id target,
                                       const orr_technique_desc *techniques, uint32_t count, orr_technique_id *ids);
/* The technique's host data, exactly its push_constant_size bytes, used by every frame from the next
 * orr_renderer_render on (zeros until set). ORR_ERROR_STALE_HANDLE for an old id. */
orr_result orr_renderer_set_technique_data(orr_renderer *renderer, orr_technique_id technique, const void *data,
                                           uint32_t size);
/* Where a technique's last reload stands. */
typedef enum orr_reload_state {
    ORR_RELOAD_NONE = 0,    /* never reloaded */
    ORR_RELOAD_PENDING = 1, /* built at the next orr_renderer_render of its target, before it records */
    ORR_RELOAD_DONE = 2,    /* the new shaders draw */
    ORR_RELOAD_FAILED = 3,  /* they did not compile or do not match the technique's declarations: the old
                               ones still draw (the message says why; the renderer logged it as a warning) */
} orr_reload_state;

/* Hot reload: new GLSL or SPIR-V (copied) for the technique's fragment shader and, for a scene
 * technique with a vertex shader of its own, its vertex shader; NULL or a zeroed orr_shader_desc keeps
 * that stage. Checked as at registration and built at the next frame of its target; until then, and
 * for good when it fails, the old shaders draw. A reload of a stage the technique does not have (a
 * depth-only pass, the library's vertex stage) is refused: its declarations would change (set the list
 * again). A second reload before the frame replaces the first. ORR_ERROR_STALE_HANDLE for an old id. */
orr_result orr_renderer_reload_technique(orr_renderer *renderer, orr_technique_id technique,
                                         const orr_shader_desc *fragment, const orr_shader_desc *vertex);
/* Hot reload of a mesh technique (orr_technique_scene.mesh): new shaders for its fragment, task and mesh
 * stages (NULL or zeroed: kept), as orr_renderer_reload_technique reloads the others'. A task stage it
 * does not have is refused (set the list again). */
orr_result orr_renderer_reload_technique_mesh(orr_renderer *renderer, orr_technique_id technique,
                                              const orr_shader_desc *fragment, const orr_shader_desc *task,
                                              const orr_shader_desc *mesh);
/* The technique's reload state; `message` (NULL-able, `size` bytes) receives a failed one's reason.
 * ORR_RELOAD_NONE for a stale id. */
orr_reload_state orr_renderer_technique_reload_state(orr_renderer *renderer, orr_technique_id technique,
                                                     char *message, size_t size);

/* The frame graph of the target as text, NUL-terminated into `text` (`size` bytes, cut short if needed):
 * each view's list (its built-in passes and the scene techniques placed among them, a line each with
 * what it writes), then the techniques after the views (passes in running order with their reads,
 * writes and the barriers before them), then the resources. Returns the length the whole text needs,
 * without the NUL; 0 for a stale id. */
size_t orr_renderer_describe_techniques(orr_renderer *renderer, orr_target_id target, char *text, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_TECHNIQUE_H */
