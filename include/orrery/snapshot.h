/* Orrery render snapshot: what one presented frame hands to the renderer, as a value.
 *
 * The snapshot module (this header, its own library: the replay component of the installed package)
 * owns the snapshot types and what can be done with a snapshot without a world: init, fini, copy,
 * equality, a diff by instance id, and recordings (below: a file of snapshots with the resources they
 * draw, written and read here). It depends on core and asset ids only. The frame module
 * extracts snapshots from a world (orrery/frame.h); the draw and gpu modules read them; a replay host
 * reads them from a recording; none of them needs the world.
 *
 * Ownership, one rule: a snapshot owns every array it points to, allocated with its `allocator`;
 * orr_snapshot_fini frees them all (and a hand-built snapshot released with orr_snapshot_fini hands its
 * arrays over, each of its `_capacity` entries; one built on the stack and never passed to fini stays
 * the caller's). A `const orr_snapshot *` passed to a call is only read during the call. A snapshot
 * carries no GPU object and no pointer into the world, and is updated in place by the next extraction
 * (or recording read) into it. Hidden instances stay in it (visible = false) and are not submitted.
 *
 * Change tracking, for readers that keep state across frames (the renderer uploads only what changed):
 *   changed / removed   the instance ids whose data differs from the snapshot of frame `delta_base`
 *                       (new ones included), and the ids that left since then; both exact, in snapshot
 *                       order (removed: in the earlier snapshot's order). delta_base 0 = no delta: a
 *                       reader takes every instance as changed (a snapshot built by hand leaves it 0).
 *   layout_version      bumps when anything the prepared draw protocol's retained output depends on
 *                       changes: the set or order of instances, or an instance's mesh, material
 *                       bindings, skinning, shadow flag or fur entry (having one, and its being usable).
 *                       Poses, visibility, layers and fur values do not bump it.
 *
 * A reader that saw the snapshot of frame delta_base applies the delta; any other reader starts over.
 */
#ifndef ORRERY_SNAPSHOT_H
#define ORRERY_SNAPSHOT_H

#include <orrery/assets.h>
#include <orrery/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 192 bytes, three cache lines (168 used): what a moved instance changes (its pose) and what is read with
 * it come first, in the first two lines of an array that starts on a line (the snapshot's large arrays
 * do); at 168 bytes a record would straddle four lines in every second place. */
typedef struct orr_render_instance {
    orr_affine3d world;       /* resolved binary64 pose, scale included */
    orr_entity entity;        /* diagnostic link to the world; never dereferenced by the renderer */
    uint32_t id;              /* stable instance id: the same entity keeps it while it lives */
    uint32_t joint_offset;    /* into orr_snapshot.joints */
    uint32_t joint_count;     /* 0 = not skinned */
    uint32_t layers;
    bool visible;
    bool casts_shadows;
    orr_mesh_id mesh;
    orr_aabbf bounds;         /* local bounds of the mesh as drawn: the mesh's, grown where a morph weight
                                 lies outside [0, 1] (orr_morph_target.delta_bounds) */
    uint32_t name;            /* offset of the entity's name in orr_snapshot.names */
    uint32_t material_offset; /* into orr_snapshot.material_bindings */
    uint32_t material_count;  /* override slots, one per primitive from 0; none (or past the count) =
                                 the primitive's own material */
    uint32_t weight_offset;   /* into orr_snapshot.weights (like joint_offset: a move lists the instance
                                 as changed) */
    uint32_t weight_count;    /* morph weights: one per morph target of the mesh (orr_mesh.weight_count);
                                 0 = the mesh has none */
    union {
        struct {
            uint32_t reserved_flags;                   /* = reserved[0] */
            float range_near, range_far, range_margin; /* the MeshRenderer's visibility range
                                                          (orr_visibility_range; zeros: none) */
        };
        uint32_t reserved[4]; /* reserved[0]: ORR_RENDER_INSTANCE_* flags; [1..3] the range (the
                                 recording format copies the 16 bytes) */
    };
} orr_render_instance;

/* orr_render_instance.reserved[0] */
#define ORR_RENDER_INSTANCE_TELEPORT 1u /* its pose jumped at this snapshot's tick: a renderer that interpolates
                                           between ticks draws it where it is now, never on the way */

typedef struct orr_render_light {
    orr_entity entity;
    uint32_t name;
    orr_light_type type;
    orr_affine3d world; /* the light shines along its -Z */
    float color[3];     /* linear */
    float intensity;    /* lux (directional) or candela (point, spot) */
    float range;        /* 0 = infinite */
    float cos_inner, cos_outer;
    bool casts_shadows; /* the Light component's */
} orr_render_light;

typedef struct orr_render_camera {
    orr_entity entity;
    uint32_t name;
    orr_affine3d world; /* camera looks along its -Z, +Y up */
    orr_projection projection;
    double yfov, aspect, xmag, ymag, znear, zfar;
} orr_render_camera;

/* The fur sidecar (payload ORR_PAYLOAD_FUR, draw module): one entry per instance that wears fur, beside
 * the common instance stream rather than in it, keyed by instance index. The entries are in the order of
 * the instances (`instance` strictly ascending, each below instance_count); a sidecar that breaks the
 * order is ignored whole, and an entry with an unknown `set` bit or a value outside orr_fur's ranges is
 * ignored, each counted as ORR_DROP_SIDECAR. An instance with an entry draws the surfaces of its fur
 * materials as fur; the entry overrides the material's values named in `set` (zero-initialised: none,
 * the material's look). Which instances have entries, and whether each entry is usable, is part of the
 * draw protocol's layout: a change there must bump layout_version, like a material binding. An entry's
 * values are the instance's data: a change there lists the instance in `changed` (extraction does both).
 * A hand-built snapshot that sets `fur` itself and is released with orr_snapshot_fini hands the array
 * over (it is freed with the snapshot's allocator, fur_capacity entries). */
typedef struct orr_render_fur {
    uint32_t instance;    /* index into orr_snapshot.instances */
    uint32_t set;         /* ORR_FUR_SET_* bits: which of the values below override the material's */
    uint32_t shell_count; /* 1..ORR_FUR_MAX_SHELLS */
    float shell_length;   /* metres, finite, >= 0 */
    float density;        /* noise repeats per texture-coordinate unit; finite, > 0 */
    float thinning;       /* 0..1 */
} orr_render_fur;

typedef struct orr_snapshot {
    uint64_t frame;    /* counts extractions, not ticks */
    uint64_t tick;     /* the simulation tick that produced it */
    uint64_t revision; /* the world revision */
    uint64_t structure_version; /* the world's */
    uint64_t layout_version;    /* see the top of this header */
    uint64_t delta_base;        /* the frame changed/removed are relative to; 0 = none */
    float lag;                  /* for a renderer that interpolates between ticks: how far, in ticks, the
                                   frame is presented before this tick's poses, in [0, 1] (1: the poses the
                                   instances had before they last changed, at the tick before; 0, the
                                   default: the poses now, as without interpolation) */
    uint32_t instance_count;
    orr_render_instance *instances; /* pre-order: the default draw order */
    uint32_t light_count;
    orr_render_light *lights; /* enabled lights only */
    uint32_t camera_count;
    orr_render_camera *cameras;
    uint32_t joint_count;
    orr_affine3d *joints; /* per skinned instance: inverse(instance world) x joint world x inverse bind */
    uint32_t material_binding_count;
    orr_material_id *material_bindings; /* per instance, its override slots (material_offset, count) */
    uint32_t weight_count;
    float *weights; /* per morphed instance (weight_offset, weight_count): its entity's MorphWeights, the
                       mesh's default weights past their end (orrery/world.h) */
    uint32_t fur_count;
    orr_render_fur *fur; /* the fur sidecar, see orr_render_fur: extracted from the world's Fur components
                            (one entry per instance whose entity has one), copied and freed with the
                            other arrays */
    uint32_t changed_count;
    uint32_t *changed; /* instance ids, see above */
    uint32_t removed_count;
    uint32_t *removed; /* instance ids, see above */
    /* Beside `changed`, an extraction's hint for readers that copy what changed (the recorder): each
     * changed instance's index in `instances`, with ORR_CHANGED_POSE set when only its pose changed (its
     * world and joint palette; no other field, name, binding, morph weight or fur value). Trusted only while
     * changed_at_frame == frame and changed_at_count == changed_count, and an entry only when the instance
     * at its index has its id; a host that edits `changed` itself sets changed_at_count to 0. Copied by
     * orr_snapshot_copy; a recording read gives none. */
    uint32_t *changed_at;
    uint32_t changed_at_count;
    uint64_t changed_at_frame;
    uint32_t names_size;
    char *names;       /* NUL-terminated names, indexed by the `name` offsets */
    uint32_t index_capacity;
    uint32_t *index_of; /* instance id -> index into instances, UINT32_MAX when absent (ids below
                           index_capacity; use orr_snapshot_find) */

    /* Storage: the arrays above are allocated with `allocator` and reused by the next extraction (or
     * copy, or recording read) into the same snapshot. Release with orr_snapshot_fini. */
    orr_allocator allocator;
    uint32_t instance_capacity, light_capacity, camera_capacity, joint_capacity, material_binding_capacity,
        changed_capacity, removed_capacity, names_capacity, fur_capacity, weight_capacity, changed_at_capacity;
} orr_snapshot;

/* orr_snapshot.changed_at: the index's flag saying that only the instance's pose changed. */
#define ORR_CHANGED_POSE 0x80000000u

static inline const char *orr_snapshot_name(const orr_snapshot *s, uint32_t offset)
{
    return s->names && offset < s->names_size ? s->names + offset : "";
}

/* The index of instance `id` in s->instances, or UINT32_MAX when it is not in the snapshot. */
static inline uint32_t orr_snapshot_find(const orr_snapshot *s, uint32_t id)
{
    return s->index_of && id < s->index_capacity ? s->index_of[id] : UINT32_MAX;
}

/* The material an instance draws primitive `primitive` with: its override, or `own` (the primitive's). */
static inline orr_material_id orr_snapshot_material(const orr_snapshot *s, const orr_render_instance *in,
                                                    uint32_t primitive, orr_material_id own)
{
    if (primitive < in->material_count && in->material_offset + primitive < s->material_binding_count) {
        orr_material_id m = s->material_bindings[in->material_offset + primitive];
        if (m.generation != 0) return m;
    }
    return own;
}


/* ---- storage, copy, comparison ------------------------------------------------------------ */

/* An empty snapshot (frame 0, no arrays) whose arrays will come from `allocator` (NULL: the default). */
void orr_snapshot_init(orr_snapshot *snapshot, const orr_allocator *allocator);
/* Frees every array (see the ownership rule above) and leaves the snapshot empty, still initialised
 * with its allocator. NULL, or a snapshot never initialised (zeroed), is a no-op. */
void orr_snapshot_fini(orr_snapshot *snapshot);
/* Deep copy of `src` into `dst` (initialised; its storage reused): every field, the delta included. */
orr_result orr_snapshot_copy(const orr_snapshot *src, orr_snapshot *dst);

/* Whether two instances hold the same extracted data: every field of the records, offsets into the
 * shared arrays compared by what they point at (names, material bindings, the joint palette) except
 * the joint offset, which is compared itself (a renderer's instance record holds it), and their fur
 * sidecar entries (both none, or equal values). Floats and doubles compare by their bits. */
bool orr_snapshot_instance_equal(const orr_snapshot *a, const orr_render_instance *ia, const orr_snapshot *b,
                                 const orr_render_instance *ib);
/* Whether two snapshots are the same frame field for field: frame, tick, revision, structure and layout
 * versions, delta_base; the instances in order (orr_snapshot_instance_equal) and joint_count; the
 * lights and cameras in order (names by content); the fur sidecar; changed and removed. Storage
 * (capacities, where a name or binding lies, index_of past the ids present) is not compared. */
bool orr_snapshot_equal(const orr_snapshot *a, const orr_snapshot *b);

/* What differs from `from` to `to`, by instance id (orr_snapshot_diff). The arrays are allocated with
 * `allocator` and reused by the next orr_snapshot_diff into the same value; release with
 * orr_snapshot_delta_fini. */
typedef struct orr_snapshot_delta {
    uint32_t changed_count;
    uint32_t *changed; /* ids of `to` whose data differs from `from` (orr_snapshot_instance_equal), new
                          ones included, in `to`'s order */
    uint32_t removed_count;
    uint32_t *removed; /* ids of `from` that `to` lacks, in `from`'s order */
    bool layout;       /* something layout_version covers differs (the set or order of the instances, or
                          an instance's mesh, bindings, skinning, shadow flag or having a fur entry; an
                          entry's usability is the asset library's to judge, orr_fur_override_valid) */
    bool lights;       /* the lights differ (count, order or any field) */
    bool cameras;      /* likewise the cameras */
    bool fur;          /* the fur sidecars differ (entries, their instance indices or values) */
    orr_allocator allocator;
    uint32_t changed_capacity, removed_capacity;
} orr_snapshot_delta;

void orr_snapshot_delta_init(orr_snapshot_delta *delta, const orr_allocator *allocator);
void orr_snapshot_delta_fini(orr_snapshot_delta *delta);
/* Fills `delta` with what differs from `from` to `to` (NULL `from`: every instance of `to` is new, and
 * layout, lights, cameras and fur are set where `to` has any). Walks every instance of both: O(n).
 * ORR_ERROR_OUT_OF_MEMORY leaves `delta` empty. */
orr_result orr_snapshot_diff(const orr_snapshot *from, const orr_snapshot *to, orr_snapshot_delta *delta);
/* orr_snapshot_diff on up to `threads` threads, the caller's among them, of `workers` (NULL: threads
 * started for the call), in chunks of a fixed size: the same delta, `changed` and `removed` in the same
 * order, at any thread count. threads <= 1 (or no `from`) is orr_snapshot_diff. */
orr_result orr_snapshot_diff_threads(const orr_snapshot *from, const orr_snapshot *to, orr_snapshot_delta *delta,
                                     orr_workers *workers, uint32_t threads);

/* ---- recordings ------------------------------------------------------------------------------ */
/* A recording is a file of presented frames with the resources they draw (docs/recording.md): a
 * header, the host's metadata, resource sections (each resource once, before the first frame that
 * draws it), one frame section per recorded snapshot (a key frame holds the whole snapshot, a delta
 * what changed since the frame before; a key frame at least every key_interval frames), and an index
 * of key frames and resources at the end. Little-endian, every section with its length and checksum.
 *
 * The snapshot module knows resources as kinds, ids and bytes only; the asset library encodes and
 * decodes them (orr_assets_encode_*, orr_assets_decode_*), and the frame module records a snapshot
 * with the resources it draws (orr_frame_record, orrery/frame.h). A replay host reads the resources
 * into its own library, then frames, with no world present. */

typedef enum orr_resource_kind {
    ORR_RESOURCE_TEXTURE = 1,
    ORR_RESOURCE_MATERIAL = 2, /* names textures */
    ORR_RESOURCE_MESH = 3,     /* names materials */
} orr_resource_kind;

/* The format's checksum of `size` bytes: a 64-bit hash (docs/recording.md gives it); every section's
 * last 8 bytes hold it, and a resource's content hash is it too. */
uint64_t orr_recording_checksum(const void *bytes, size_t size);

typedef struct orr_recorder orr_recorder;

/* Zero = defaults. */
typedef struct orr_recorder_desc {
    orr_allocator allocator;
    uint32_t key_interval;    /* a key frame at least every this many frames: 1..300; 0 = 300 */
    const void *metadata;     /* the host's bytes (the tool writes JSON), kept in the recording; NULL-able */
    uint32_t metadata_size;   /* at most 65536 */
    uint32_t format_version;  /* the format written: 2 or 3; 0 = the newest (3). A reader takes 1 to 3 */
} orr_recorder_desc;

/* Creates (truncates) the file and writes its header and metadata. ORR_ERROR_IO names the path. */
orr_result orr_recorder_create(const char *path, const orr_recorder_desc *desc, orr_recorder **out, orr_error *err);
/* Without orr_recorder_finish the file has no index and a reader refuses it. NULL: no-op. */
void orr_recorder_destroy(orr_recorder *recorder);
const orr_error *orr_recorder_last_error(const orr_recorder *recorder);
/* Whether a resource of that kind and id is in the recording already. */
bool orr_recorder_has_resource(const orr_recorder *recorder, orr_resource_kind kind, uint32_t index, uint32_t generation);
/* Appends a resource (its payload as the asset library encodes it, copied) before the next frame: each
 * kind and id once (a second time is ORR_ERROR_INVALID_ARGUMENT), those it names first. */
orr_result orr_recorder_add_resource(orr_recorder *recorder, orr_resource_kind kind, uint32_t index, uint32_t generation,
                                     const void *bytes, size_t size);
/* Appends one frame: a key frame when it is the first, when key_interval frames have passed since the
 * last one, or when the instances' order changed; else a delta against the frame recorded before it.
 * The snapshot's changed and removed lists are trusted when its delta_base is the frame recorded last
 * (an extracted snapshot's are exact: a fur value or a joint that changed lists its instance); otherwise
 * the recorder finds the changes itself (O(n)).
 * The recorder has a thread of its own that compares, encodes and writes. This call only copies: the
 * changed instances (with their names, bindings, joints, weights and fur entries) and the lights and
 * cameras when orr_recorder_same_layout holds, else the whole snapshot (O(n), as the rebuild that made
 * it). Key frames are the recorder thread's work. The snapshot may change as soon as this returns. An
 * error of the recorder thread (a full disk) is returned by a later call (this one, add_resource or
 * finish) and stops the recording; the calls that would wait for it (when frames come faster than the
 * disk takes them) wait without spinning. */
orr_result orr_recorder_add_frame(orr_recorder *recorder, const orr_snapshot *snapshot);
/* The frame number (orr_snapshot.frame) of the last frame recorded; 0 before any. */
uint64_t orr_recorder_last_frame(const orr_recorder *recorder);
/* Whether `snapshot` is a delta against the last frame recorded (its delta_base) with no removal, the
 * same instance count and the same layout_version: then its instances are those of that frame, in the
 * same order, drawing the same meshes with the same bindings (what layout_version covers), and
 * orr_recorder_add_frame queues only its changed instances. */
bool orr_recorder_same_layout(const orr_recorder *recorder, const orr_snapshot *snapshot);
/* Waits for the recorder thread to write every frame given, writes the index and closes the file. The
 * recorder is then done: only destroy remains (which, without finish, drops what is not written yet). */
orr_result orr_recorder_finish(orr_recorder *recorder);

typedef struct orr_recording_stats {
    uint64_t frames, key_frames, resources;
    uint64_t bytes;          /* the file so far */
    uint64_t key_frame_bytes, delta_bytes, resource_bytes; /* sections of each kind, framing included */
    uint64_t delta_records;  /* instance records in deltas */
    uint64_t resources_shared; /* resources stored as a reference to an equal one of their kind before
                                  them (orr_recording_get_resource gives that one's bytes) */
    double thread_cpu_ms;      /* a recorder's: the CPU time its own thread has spent (comparing, encoding,
                                  checksumming, writing), beside the caller's in orr_recorder_add_frame;
                                  0 in a recording read back */
    double key_frame_cpu_ms;   /* of thread_cpu_ms, what the frames written as key frames took (the rest is
                                  the deltas' and the resources'), so that a host can count a key frame once
                                  per key interval rather than once per run */
} orr_recording_stats;
/* What is written so far (the recorder thread may be behind the frames given; after finish: all). */
void orr_recorder_get_stats(const orr_recorder *recorder, orr_recording_stats *stats);

typedef struct orr_recording orr_recording;

/* Reads a whole recording into memory (from a file, or a copy of `bytes`) and checks its header, its
 * framing (every section's length), its index and every resource's checksum; frames are checked as
 * they are read. A recording that breaks the format is refused (ORR_ERROR_PARSE; wrong format version:
 * ORR_ERROR_UNSUPPORTED), `err` naming the section and its byte offset. Allocation is bounded by the
 * input's size (times a small factor). */
orr_result orr_recording_open(const char *path, const orr_allocator *allocator, orr_recording **out, orr_error *err);
orr_result orr_recording_open_memory(const void *bytes, size_t size, const orr_allocator *allocator, orr_recording **out,
                                     orr_error *err);
void orr_recording_close(orr_recording *recording); /* NULL: no-op */

typedef struct orr_recording_info {
    uint32_t format_version;
    uint32_t library_version; /* major << 16 | minor << 8 | patch of the library that wrote it */
    const void *metadata;     /* the host's bytes, valid while the recording is open */
    uint32_t metadata_size;
    orr_recording_stats stats;
} orr_recording_info;
void orr_recording_get_info(const orr_recording *recording, orr_recording_info *info);

typedef struct orr_recording_resource {
    orr_resource_kind kind;
    uint32_t index, generation; /* its id in the recording library */
    uint64_t hash;              /* orr_recording_checksum of the payload */
    const void *bytes;          /* the payload, valid while the recording is open */
    size_t size;
} orr_recording_resource;
/* Resource `i` (0..stats.resources - 1) in file order: each after those it names. */
orr_result orr_recording_get_resource(const orr_recording *recording, uint32_t i, orr_recording_resource *out);

/* Ids a replay host gives the recorded ones in its own library (NULL members: kept as recorded). */
typedef struct orr_snapshot_remap {
    orr_mesh_id (*mesh)(void *user, orr_mesh_id recorded);
    orr_material_id (*material)(void *user, orr_material_id recorded);
    void *user;
} orr_snapshot_remap;

/* Reads frame `position` (0 = the first recorded) into `dst` (initialised; its storage reused), ids
 * translated through `remap` (NULL-able: as recorded, then the snapshot equals the recorded one field
 * for field). Reading position p + 1 after p into the same snapshot, untouched in between and with the
 * same remap, applies one record; any other read seeks: the key frame at or before the position, then
 * the deltas after it (at most key_interval - 1). A frame that breaks the format is refused as open
 * says, and `dst` is then left empty (frame 0). */
orr_result orr_recording_read_frame(orr_recording *recording, uint64_t position, const orr_snapshot_remap *remap,
                                    orr_snapshot *dst, orr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_SNAPSHOT_H */
