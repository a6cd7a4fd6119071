/* Recordings: snapshots and the resources they draw, written to a file and read back (the layout is
 * docs/recording.md; this file follows it section by section). Little-endian hosts only. */
#include "core/internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "snapshot/snapshot_internal.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "recordings are read and written in the host's byte order");

#define NONE UINT32_MAX
#define FORMAT_VERSION 3u /* written by default; read: 1 to 3 (2 adds shared resources, 3 the entity field and
                             key frame records against the record before them) */
#define MIN_FORMAT_VERSION 1u
#define MIN_WRITTEN_VERSION 2u /* orr_recorder_desc.format_version takes 2 and 3 */
/* A light's type word: bit 8 is its casts_shadows (files written before shadows have it clear). */
#define LIGHT_CASTS_SHADOWS 0x100u
#define RES_SHARED 1u /* a resource section's flag: its payload names an earlier, equal resource */
#define FILE_MAGIC "ORRYREC\n"
#define END_MAGIC "ORRYEND\n"
#define HEADER_BYTES 24u  /* magic, format version, library version, checksum */
#define TRAILER_BYTES 24u /* magic, index offset, checksum */
#define SECTION_HEAD 16u  /* type, reserved, payload length */
#define SECTION_TAIL 8u   /* checksum */
#define MAX_KEY_INTERVAL 300u
#define MAX_METADATA 65536u
#define WRITE_BUFFER (1u << 20)
#define MAX_ID (1u << 24) /* instance ids (entity indices) a reader accepts (the 16,777,216 entities of the tool's limit): its index takes 4 bytes an id */

enum { SEC_META = 1, SEC_RESOURCE = 2, SEC_FRAME = 3, SEC_INDEX = 4 };
enum { FRAME_KEY = 0, FRAME_DELTA = 1 };
enum { HAS_ORDER = 1, HAS_LIGHTS = 2, HAS_CAMERAS = 4, HAS_FUR = 8, HAS_WEIGHTS = 16, HAS_ALL = 31 };
enum { F_WORLD = 1, F_CORE = 2, F_NAME = 4, F_MATERIALS = 8, F_JOINTS = 16, F_WEIGHTS = 32, F_ALL = 63 };
enum { F_ENTITY = 64, F_ALL3 = 127 }; /* version 3: the entity is a field of its own, no longer in the core */
#define F_NEW (F_WORLD | F_CORE | F_NAME | F_MATERIALS) /* what a new instance's record must hold (3: and its entity) */
#define CORE_BYTES 70u /* version 3's core field; version 1 and 2's holds the 8-byte entity too */

static const char *const section_names[5] = {"?", "metadata", "resource", "frame", "index"};

/* ---- the checksum ---------------------------------------------------------------------------- */

static uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

static uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* Four lanes over 32-byte blocks, each step h = rotl(h ^ word, 29) x odd (a bijection of h for a given
 * word, so that any one word changed changes its lane's result), then the tail zero-padded and the
 * lanes folded by the same bijections: a single changed word (a flipped byte) always changes the sum. */
uint64_t orr_recording_checksum(const void *bytes, size_t size)
{
    const uint8_t *p = bytes;
    const uint64_t m = 0x9E3779B97F4A7C15ull | 1u;
    uint64_t h[4] = {size, size ^ 0x6a09e667f3bcc909ull, size ^ 0xbb67ae8584caa73bull, size ^ 0x3c6ef372fe94f82bull};
    size_t i = 0;
    for (; i + 32 <= size; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, 32);
        for (int k = 0; k < 4; k++) h[k] = rotl(h[k] ^ w[k], 29) * m;
    }
    for (int k = 0; i < size; k++, i += 8) {
        uint64_t w = 0;
        memcpy(&w, p + i, size - i < 8 ? size - i : 8);
        h[k] = rotl(h[k] ^ w, 29) * m;
    }
    uint64_t r = fmix(h[0]);
    for (int k = 1; k < 4; k++) r = fmix(r ^ h[k]);
    return r;
}

/* ---- bytes out ------------------------------------------------------------------------------- */

typedef struct buf {
    uint8_t *data;
    size_t size, capacity;
    bool failed; /* out of memory */
} buf;

static void buf_free(const orr_allocator *a, buf *b)
{
    orri_free(a, b->data, b->capacity);
    *b = (buf){0};
}

static bool buf_reserve(const orr_allocator *a, buf *b, size_t more)
{
    if (b->failed) return false;
    if (b->size + more <= b->capacity) return true;
    size_t cap = b->capacity ? b->capacity : 4096;
    while (cap < b->size + more) cap *= 2;
    uint8_t *d = orri_realloc(a, b->data, b->capacity, cap);
    if (!d) return !(b->failed = true);
    b->data = d;
    b->capacity = cap;
    return true;
}

static void put(const orr_allocator *a, buf *b, const void *bytes, size_t n)
{
    if (!n || !buf_reserve(a, b, n)) return;
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
}

#define PUT(a, b, v) put((a), (b), &(v), sizeof(v))

static void put_u8(const orr_allocator *a, buf *b, uint8_t v) { PUT(a, b, v); }
static void put_u16(const orr_allocator *a, buf *b, uint16_t v) { PUT(a, b, v); }
static void put_u32(const orr_allocator *a, buf *b, uint32_t v) { PUT(a, b, v); }
static void put_u64(const orr_allocator *a, buf *b, uint64_t v) { PUT(a, b, v); }

static void put_string(const orr_allocator *a, buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    put_u32(a, b, n);
    put(a, b, s, n);
}

/* Whether `n` bytes (a multiple of 8) are the same, compared a 64-bit word at a time: inline, where a
 * memcmp call of a small size is a library call per field. */
static inline bool same_words(const void *x, const void *y, size_t n)
{
    uint64_t diff = 0;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t u, v;
        memcpy(&u, (const uint8_t *)x + i, 8);
        memcpy(&v, (const uint8_t *)y + i, 8);
        diff |= u ^ v;
    }
    return diff == 0;
}

/* The 16-bit mask of an affine's entries whose bits differ from `base`'s (NULL: zeros). */
static inline uint16_t affine_mask(const orr_affine3d *m, const orr_affine3d *base)
{
    uint32_t mask = 0;
    for (int i = 0; i < 12; i++) {
        uint64_t u, v = 0;
        memcpy(&u, &m->m[i], 8);
        if (base) memcpy(&v, &base->m[i], 8);
        mask |= (uint32_t)(u != v) << i;
    }
    return (uint16_t)mask;
}

/* ---- the writer ------------------------------------------------------------------------------ */
/*
 * Two threads. The caller's (the frame path) copies what a frame hands over into a packet and queues it;
 * the recorder's own thread diffs it against the frame recorded before (what a reader holds: `prev`),
 * encodes, checksums and writes. A delta packet holds only the changed instances (each record copied
 * whole, with its name, bindings, joints, weights and fur entry), the lights and cameras (a scene's few,
 * not its instances) and the changed list: the caller's work follows what changed, and the cold reads of
 * the frame before, the comparisons, the encoding and the writes are the recorder thread's. A frame whose
 * delta is not against the frame queued before, or whose instances may stand in another order (the
 * first, a rebuild, a removal, a new layout), is queued as a whole copy: O(n), as the extraction that
 * made it. Key frames are written by the recorder thread from `prev` once a delta is applied to it: the
 * caller never pays for them. At most MAX_PACKETS packets exist; a caller that runs ahead of the disk
 * waits for one (waiting, not working). The recorder thread is woken once WAKE_AT packets are queued,
 * not for each one: a wake is a system call (and on a virtual machine an interrupt to another processor),
 * which costs the caller more than copying a frame's few changes.
 */

#define MAX_PACKETS 8u
#define WAKE_AT 4u

typedef struct id_set { /* generations by index, one array per resource kind */
    uint32_t *gen;
    uint32_t capacity;
} id_set;

typedef struct key_entry {
    uint64_t position, offset;
} key_entry;

enum { PK_FULL, PK_DELTA, PK_RESOURCE };

/* One changed instance of a delta packet (its record, as the snapshot holds it, is the packet's
 * records[k] for entries[k]): its index in the snapshot (and in the frame before: the order is the
 * same), and where its shared data went in the packet. */
typedef struct entry {
    uint32_t index;
    uint32_t name;                   /* offset in the packet's names */
    uint32_t bindings, binding_count; /* in the packet's bindings */
    uint32_t joints;                 /* in the packet's joints; NONE: none valid */
    uint32_t weights;                /* in the packet's weights; NONE: none valid */
    uint32_t fur;                    /* in the packet's fur; NONE: no entry */
    uint32_t poses_before;           /* the packet's pose entries that come before it in the change list */
} entry;

/* One changed instance of a delta packet whose pose only changed (orr_snapshot.changed_at's flag): its
 * world, its index and id, and where its palette went in the packet. Everything else of its record (the
 * joint range included) is the frame before's: the recorder thread takes it from there. 112 bytes
 * written by the caller instead of a whole entry and a record's two first lines (160). */
typedef struct pose_entry {
    orr_affine3d world;
    uint32_t index, id;
    uint32_t joints; /* in the packet's joints; NONE: none valid */
    uint32_t unused;
} pose_entry;

typedef struct packet {
    int kind;
    /* PK_FULL: the frame. PK_DELTA: its header fields and counts (instance, joint, weight, fur), its
     * lights and cameras, its changed list, and the names of the lights, cameras and entries; the
     * instances array is not used. */
    orr_snapshot s;
    entry *entries;
    uint32_t entry_count, entry_capacity;
    pose_entry *poses; /* PK_DELTA: the pose-only changes, in change-list order among the entries */
    uint32_t pose_count, pose_capacity;
    orr_render_instance *records; /* PK_DELTA: the changed records, in `records_block` on a cache line */
    void *records_block;
    size_t records_block_size;
    orr_affine3d *joints;
    uint32_t joint_used, joint_capacity;
    float *weights;
    uint32_t weight_used, weight_capacity;
    orr_material_id *bindings;
    uint32_t binding_used, binding_capacity;
    orr_render_fur *fur;
    uint32_t fur_used, fur_capacity;
    orr_resource_kind res_kind; /* PK_RESOURCE: the resource and its payload */
    uint32_t res_index, res_generation;
    uint8_t *bytes;
    size_t size, capacity;
    struct packet *next;
} packet;

struct orr_recorder {
    orr_allocator allocator;
    char *path;
    uint32_t key_interval;
    uint32_t version; /* the format version written: 2 or 3 */
    /* the caller's */
    orr_error error;
    id_set recorded[4];
    bool have_last; /* a frame was queued: the last one's frame, instance count and layout version */
    uint64_t last_frame, last_layout;
    uint32_t last_count;
    bool finished;
    /* shared, under mu */
    pthread_mutex_t mu;
    pthread_cond_t work; /* WAKE_AT packets queued, or the caller waits, or quit */
    pthread_cond_t room; /* a packet freed */
    pthread_t thread;
    bool thread_started;
    packet *head, *tail, *free_list;
    uint32_t packet_count, queued;
    bool caller_waits;
    bool quit, abandon;
    orr_result failure; /* the recorder thread's first error (sticky) */
    orr_error failure_error;
    orr_recording_stats shared_stats;
    /* the recorder thread's (and finish's, once it has stopped) */
    orr_error werr;
    FILE *file;
    char *write_buffer; /* the stream's (WRITE_BUFFER bytes), NULL: stdio's own */
    uint64_t offset;    /* bytes written */
    buf section;        /* the section being built */
    orr_snapshot prev;  /* the last frame as recorded (what a reader holds after it) */
    orr_snapshot_delta delta;
    bool have_prev;
    uint64_t since_key; /* frames since the last key frame */
    key_entry *keys;
    uint32_t key_count, key_capacity;
    uint64_t *resources; /* offsets of resource sections */
    uint32_t resource_count, resource_capacity;
    uint64_t *hashes; /* per resource section: its content hash and kind (0 and 0 for a shared one: never named) */
    uint32_t hash_capacity;
    uint32_t *pairs; /* per candidate of a whole frame: its index in the snapshot, then in prev (NONE: new) */
    uint32_t pair_capacity;
    orr_recording_stats stats;
};

static uint32_t library_version(void)
{
    return (uint32_t)ORRI_LIBRARY_VERSION;
}

static orr_result write_bytes(orr_recorder *r, const void *bytes, size_t n)
{
    if (n && fwrite(bytes, 1, n, r->file) != n)
        return orri_error(&r->werr, ORR_ERROR_IO, "%s: writing %zu bytes at offset %llu failed: %s", r->path, n,
                          (unsigned long long)r->offset, strerror(errno));
    r->offset += n;
    return ORR_OK;
}

/* Writes the section built in r->section (its payload after SECTION_HEAD reserved bytes). */
static orr_result write_section(orr_recorder *r, uint32_t type, uint64_t *offset)
{
    buf *b = &r->section;
    uint64_t zero = 0;
    put(&r->allocator, b, &zero, SECTION_TAIL);
    if (b->failed) return orri_error(&r->werr, ORR_ERROR_OUT_OF_MEMORY, "recording: out of memory building a %s section",
                                     section_names[type]);
    uint64_t payload = b->size - SECTION_HEAD - SECTION_TAIL;
    uint32_t reserved = 0;
    memcpy(b->data, &type, 4);
    memcpy(b->data + 4, &reserved, 4);
    memcpy(b->data + 8, &payload, 8);
    uint64_t sum = orr_recording_checksum(b->data, b->size - SECTION_TAIL);
    memcpy(b->data + b->size - SECTION_TAIL, &sum, 8);
    if (offset) *offset = r->offset;
    return write_bytes(r, b->data, b->size);
}

static void section_begin(orr_recorder *r)
{
    r->section.size = 0;
    r->section.failed = false;
    uint8_t head[SECTION_HEAD] = {0};
    put(&r->allocator, &r->section, head, sizeof head);
}

/* ---- the recorder thread: records ------------------------------------------------------------- */

/* The joints an instance's record is encoded against: the previous record's own, when it had the same
 * range (a reader holds the same), else none (zeros). */
static bool joints_valid(const orr_snapshot *s, const orr_render_instance *in)
{
    return in->joint_count && in->joint_offset != NONE && (uint64_t)in->joint_offset + in->joint_count <= s->joint_count;
}

static bool weights_valid(const orr_snapshot *s, const orr_render_instance *in)
{
    return in->weight_count && (uint64_t)in->weight_offset + in->weight_count <= s->weight_count;
}

static uint32_t bindings_count(const orr_snapshot *s, const orr_render_instance *in)
{
    return in->material_count && (uint64_t)in->material_offset + in->material_count <= s->material_binding_count
               ? in->material_count
               : 0;
}

/* An instance's record with its shared data resolved, from a snapshot or a packet's entry. */
typedef struct inst_src {
    const orr_render_instance *in;
    const char *name;
    const orr_material_id *bindings;
    uint32_t binding_count;
    const orr_affine3d *joints; /* NULL: none valid */
    const float *weights;       /* NULL: none valid */
} inst_src;

static inst_src src_of(const orr_snapshot *s, const orr_render_instance *in)
{
    inst_src c = {in, orr_snapshot_name(s, in->name), NULL, bindings_count(s, in), NULL, NULL};
    if (c.binding_count) c.bindings = s->material_bindings + in->material_offset;
    if (joints_valid(s, in)) c.joints = s->joints + in->joint_offset;
    if (weights_valid(s, in)) c.weights = s->weights + in->weight_offset;
    return c;
}

static inst_src src_of_entry(const packet *pk, uint32_t k)
{
    const entry *e = &pk->entries[k];
    return (inst_src){&pk->records[k], pk->s.names + e->name, e->binding_count ? pk->bindings + e->bindings : NULL, e->binding_count,
                      e->joints == NONE ? NULL : pk->joints + e->joints,
                      e->weights == NONE ? NULL : pk->weights + e->weights};
}

static const orr_affine3d *joint_base(const inst_src *p, const inst_src *c)
{
    return p && p->joints && p->in->joint_count == c->in->joint_count && p->in->joint_offset == c->in->joint_offset
               ? p->joints
               : NULL;
}

static inline uint8_t *w_u32(uint8_t *o, uint32_t v)
{
    memcpy(o, &v, 4);
    return o + 4;
}

/* An affine by its mask against a base (affine_mask), at `o`; returns the end. */
static inline uint8_t *w_affine(uint8_t *o, const orr_affine3d *m, uint16_t mask)
{
    memcpy(o, &mask, 2);
    o += 2;
    for (int i = 0; i < 12; i++)
        if (mask & (1u << i)) {
            memcpy(o, &m->m[i], 8);
            o += 8;
        }
    return o;
}

/* One instance's record against a base record `ps` (NULL: none, a new instance). In a delta the base is
 * the instance's own previous record and nothing is written when nothing differs. In a version 3 key
 * frame (`key`) it is the record before it in the frame (a reader copies what is left out from there):
 * the record is always written, its joints against zeros, its weights always and its material overrides
 * whenever it has some (a reader gives a record without them none: they are never shared). Encoded in
 * one pass: the record's largest size reserved once, then written through a pointer. Returns the
 * fields written (a key frame's record may have none: its id then says "as the one before"). */
static uint8_t put_record(orr_recorder *r, const inst_src *cs, const inst_src *ps, bool key, bool pose)
{
    buf *b = &r->section;
    const orr_render_instance *c = cs->in, *p = ps ? ps->in : NULL;
    const bool v3 = r->version >= 3;
    uint32_t nc = cs->binding_count;
    uint8_t f = v3 ? F_NEW | F_ENTITY : F_NEW;
    uint16_t world_mask = 0;
    if (p) {
        f = 0;
        world_mask = affine_mask(&c->world, &p->world);
        if (world_mask) f |= F_WORLD;
    }
    if (p && !pose) { /* (a pose-only change: the rest is the record before's, unread) */
        _Static_assert(sizeof c->bounds == 24 && sizeof c->reserved == 16, "compared as 64-bit words");
        bool entity = !orr_entity_eq(c->entity, p->entity);
        if (entity && v3) f |= F_ENTITY;
        if ((entity && !v3) || !orr_id_eq(c->mesh, p->mesh) || c->layers != p->layers || c->visible != p->visible ||
            c->casts_shadows != p->casts_shadows || !same_words(&c->bounds, &p->bounds, sizeof c->bounds) ||
            c->joint_offset != p->joint_offset || c->joint_count != p->joint_count ||
            c->weight_offset != p->weight_offset || c->weight_count != p->weight_count ||
            !same_words(c->reserved, p->reserved, sizeof c->reserved))
            f |= F_CORE;
        if (cs->name != ps->name && (cs->name[0] != ps->name[0] || strcmp(cs->name, ps->name) != 0)) f |= F_NAME;
        if (key ? nc != 0
                : nc != ps->binding_count ||
                      (nc && memcmp(cs->bindings, ps->bindings, nc * sizeof(orr_material_id)) != 0))
            f |= F_MATERIALS;
    }
    const orr_affine3d *base = key ? NULL : joint_base(ps, cs);
    if (cs->joints && (!base || memcmp(base, cs->joints, c->joint_count * sizeof *base) != 0)) f |= F_JOINTS;
    if (cs->weights && (key || !p || p->weight_offset != c->weight_offset || p->weight_count != c->weight_count ||
                        !ps->weights || memcmp(ps->weights, cs->weights, c->weight_count * sizeof(float)) != 0))
        f |= F_WEIGHTS;
    if (!f && !key) return 0;
    size_t name_len = (f & F_NAME) ? strlen(cs->name) : 0;
    size_t most = 4 + 1 + 98 + 8 + CORE_BYTES + 8 + 4 + name_len + 4 + (size_t)nc * 8 +
                  ((f & F_JOINTS) ? (size_t)c->joint_count * 98 : 0) + ((f & F_WEIGHTS) ? (size_t)c->weight_count * 4 : 0);
    if (!buf_reserve(&r->allocator, b, most)) return f;
    uint8_t *o = b->data + b->size;
    o = w_u32(o, c->id);
    *o++ = f;
    if (f & F_WORLD) o = w_affine(o, &c->world, p ? world_mask : affine_mask(&c->world, NULL));
    if (f & F_ENTITY) {
        o = w_u32(o, c->entity.index);
        o = w_u32(o, c->entity.generation);
    }
    if (f & F_CORE) {
        if (!v3) {
            o = w_u32(o, c->entity.index);
            o = w_u32(o, c->entity.generation);
        }
        o = w_u32(o, c->mesh.index);
        o = w_u32(o, c->mesh.generation);
        o = w_u32(o, c->layers);
        *o++ = c->visible ? 1 : 0;
        *o++ = c->casts_shadows ? 1 : 0;
        memcpy(o, &c->bounds, sizeof c->bounds);
        o += sizeof c->bounds;
        o = w_u32(o, c->joint_offset);
        o = w_u32(o, c->joint_count);
        o = w_u32(o, c->weight_offset);
        o = w_u32(o, c->weight_count);
        memcpy(o, c->reserved, sizeof c->reserved);
        o += sizeof c->reserved;
    }
    if (f & F_NAME) {
        o = w_u32(o, (uint32_t)name_len);
        memcpy(o, cs->name, name_len);
        o += name_len;
    }
    if (f & F_MATERIALS) {
        o = w_u32(o, nc);
        for (uint32_t k = 0; k < nc; k++) {
            o = w_u32(o, cs->bindings[k].index);
            o = w_u32(o, cs->bindings[k].generation);
        }
    }
    if (f & F_JOINTS)
        for (uint32_t j = 0; j < c->joint_count; j++)
            o = w_affine(o, &cs->joints[j], affine_mask(&cs->joints[j], base ? &base[j] : NULL));
    if (f & F_WEIGHTS) {
        memcpy(o, cs->weights, c->weight_count * sizeof(float));
        o += c->weight_count * sizeof(float);
    }
    b->size = (size_t)(o - b->data);
    r->stats.delta_records++;
    return f;
}

static bool same_lights(const orr_snapshot *x, const orr_snapshot *y)
{
    if (x->light_count != y->light_count) return false;
    for (uint32_t i = 0; i < x->light_count; i++) {
        const orr_render_light *a = &x->lights[i], *b = &y->lights[i];
        if (!orr_entity_eq(a->entity, b->entity) || a->type != b->type || a->casts_shadows != b->casts_shadows || memcmp(&a->world, &b->world, sizeof a->world) ||
            memcmp(a->color, b->color, 28) || strcmp(orr_snapshot_name(x, a->name), orr_snapshot_name(y, b->name)))
            return false;
    }
    return true;
}

static bool same_cameras(const orr_snapshot *x, const orr_snapshot *y)
{
    if (x->camera_count != y->camera_count) return false;
    for (uint32_t i = 0; i < x->camera_count; i++) {
        const orr_render_camera *a = &x->cameras[i], *b = &y->cameras[i];
        if (!orr_entity_eq(a->entity, b->entity) || a->projection != b->projection ||
            memcmp(&a->world, &b->world, sizeof a->world) || memcmp(&a->yfov, &b->yfov, 48) ||
            strcmp(orr_snapshot_name(x, a->name), orr_snapshot_name(y, b->name)))
            return false;
    }
    return true;
}

static bool same_fur_entry(const orr_render_fur *a, const orr_render_fur *b)
{
    return a->instance == b->instance && a->set == b->set && a->shell_count == b->shell_count &&
           !memcmp(&a->shell_length, &b->shell_length, 12);
}

static bool same_fur(const orr_snapshot *x, const orr_snapshot *y)
{
    if (x->fur_count != y->fur_count) return false;
    for (uint32_t i = 0; i < x->fur_count; i++)
        if (!same_fur_entry(&x->fur[i], &y->fur[i])) return false;
    return true;
}

/* The fur entry of instance `index` in entries in instance order (orr_render_fur), or NONE. */
static uint32_t fur_find(const orr_render_fur *fur, uint32_t count, uint32_t index)
{
    uint32_t lo = 0, hi = fur ? count : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (fur[mid].instance < index) lo = mid + 1;
        else hi = mid;
    }
    return lo < count && fur && fur[lo].instance == index ? lo : NONE;
}

/* Whether the instances are the same ids in the same order. */
static bool same_order(const orr_snapshot *x, const orr_snapshot *y)
{
    if (x->instance_count != y->instance_count) return false;
    /* only after a layout change: a key frame's cost, rare */
    for (uint32_t i = 0; i < x->instance_count; i++)
        if (x->instances[i].id != y->instances[i].id) return false;
    return true;
}

static bool push_name(const orr_allocator *a, orr_snapshot *s, const char *name, uint32_t *offset)
{
    uint32_t len = (uint32_t)strlen(name) + 1;
    if ((uint64_t)s->names_size + len > UINT32_MAX ||
        !orri_grow(a, (void **)&s->names, &s->names_capacity, s->names_size + len, 1))
        return false;
    memcpy(s->names + s->names_size, name, len);
    *offset = s->names_size;
    s->names_size += len;
    return true;
}

/* Lights and cameras of `src` into `dst`, their names pushed into dst's names. */
static bool copy_sources(const orr_allocator *a, orr_snapshot *dst, const orr_snapshot *src, bool lights, bool cameras)
{
    if (lights) {
        if (!ORRI_GROW(a, dst->lights, dst->light_capacity, src->light_count)) return false;
        dst->light_count = src->light_count;
        for (uint32_t i = 0; i < src->light_count; i++) {
            dst->lights[i] = src->lights[i];
            if (!push_name(a, dst, orr_snapshot_name(src, src->lights[i].name), &dst->lights[i].name)) return false;
        }
    }
    if (cameras) {
        if (!ORRI_GROW(a, dst->cameras, dst->camera_capacity, src->camera_count)) return false;
        dst->camera_count = src->camera_count;
        for (uint32_t i = 0; i < src->camera_count; i++) {
            dst->cameras[i] = src->cameras[i];
            if (!push_name(a, dst, orr_snapshot_name(src, src->cameras[i].name), &dst->cameras[i].name)) return false;
        }
    }
    return true;
}

/* prev's joint and weight arrays as long as frame `h`'s (new entries zero: a reader's are). */
static bool patch_arrays(orr_recorder *r, const orr_snapshot *h)
{
    const orr_allocator *a = &r->allocator;
    orr_snapshot *p = &r->prev;
    if (!ORRI_GROW(a, p->joints, p->joint_capacity, h->joint_count)) return false;
    if (h->joint_count > p->joint_count)
        memset(p->joints + p->joint_count, 0, (size_t)(h->joint_count - p->joint_count) * sizeof *p->joints);
    p->joint_count = h->joint_count;
    if (!ORRI_GROW(a, p->weights, p->weight_capacity, h->weight_count)) return false;
    if (h->weight_count > p->weight_count)
        memset(p->weights + p->weight_count, 0, (size_t)(h->weight_count - p->weight_count) * sizeof *p->weights);
    p->weight_count = h->weight_count;
    return true;
}

/* prev's instance `i` := `c`, for the fields `f` its record held (as a reader places them). */
static bool patch_instance(orr_recorder *r, uint32_t i, const inst_src *cs, uint32_t f)
{
    const orr_allocator *a = &r->allocator;
    orr_snapshot *p = &r->prev;
    const orr_render_instance *c = cs->in;
    orr_render_instance *d = &p->instances[i];
    uint32_t name = d->name, mo = d->material_offset, mc = d->material_count;
    *d = *c;
    d->name = name;
    d->material_offset = mo;
    d->material_count = mc;
    if ((f & F_NAME) && !push_name(a, p, cs->name, &d->name)) return false;
    if ((f & F_JOINTS) && cs->joints) memcpy(p->joints + c->joint_offset, cs->joints, c->joint_count * sizeof *p->joints);
    if ((f & F_WEIGHTS) && cs->weights)
        memcpy(p->weights + c->weight_offset, cs->weights, c->weight_count * sizeof *p->weights);
    if (!(f & F_MATERIALS)) return true;
    uint32_t n = cs->binding_count;
    if (n > mc) {
        if (!ORRI_GROW(a, p->material_bindings, p->material_binding_capacity, p->material_binding_count + n)) return false;
        mo = p->material_binding_count;
        p->material_binding_count += n;
    }
    if (n) memcpy(p->material_bindings + mo, cs->bindings, n * sizeof(orr_material_id));
    d->material_offset = n ? mo : 0;
    d->material_count = n;
    return true;
}

/* prev's instance `i` := `c` where only its pose changed: its world, and its palette when the record held it. */
static void patch_pose(orr_recorder *r, uint32_t i, const inst_src *cs, uint32_t f)
{
    r->prev.instances[i].world = cs->in->world;
    if ((f & F_JOINTS) && cs->joints)
        memcpy(r->prev.joints + cs->in->joint_offset, cs->joints, cs->in->joint_count * sizeof *r->prev.joints);
}

/* prev's header fields and change lists := h's. */
static bool patch_header(orr_recorder *r, const orr_snapshot *h)
{
    const orr_allocator *a = &r->allocator;
    orr_snapshot *p = &r->prev;
    if (!ORRI_GROW(a, p->changed, p->changed_capacity, h->changed_count) ||
        !ORRI_GROW(a, p->removed, p->removed_capacity, h->removed_count))
        return false;
    if (h->changed_count) memcpy(p->changed, h->changed, h->changed_count * 4);
    if (h->removed_count) memcpy(p->removed, h->removed, h->removed_count * 4);
    p->changed_count = h->changed_count;
    p->removed_count = h->removed_count;
    p->frame = h->frame;
    p->tick = h->tick;
    p->revision = h->revision;
    p->structure_version = h->structure_version;
    p->layout_version = h->layout_version;
    p->delta_base = h->delta_base;
    return true;
}

static orr_result oom(orr_recorder *r, const orr_snapshot *h)
{
    return orri_error(&r->werr, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory at frame %llu",
                      (unsigned long long)h->frame);
}

/* A frame section's head, up to its records (the order too when `order`); returns where the record
 * count goes. */
static size_t frame_head(orr_recorder *r, const orr_snapshot *h, bool key, uint8_t flags)
{
    const orr_allocator *a = &r->allocator;
    section_begin(r);
    buf *b = &r->section;
    put_u8(a, b, key ? FRAME_KEY : FRAME_DELTA);
    put_u8(a, b, flags);
    put_u16(a, b, 0);
    put_u64(a, b, h->frame);
    put_u64(a, b, h->tick);
    put_u64(a, b, h->revision);
    put_u64(a, b, h->structure_version);
    put_u64(a, b, h->layout_version);
    put_u64(a, b, h->delta_base);
    put_u32(a, b, h->instance_count);
    put_u32(a, b, h->joint_count);
    size_t records_at = b->size;
    put_u32(a, b, 0); /* the record count, written by frame_tail */
    if (flags & HAS_WEIGHTS) put_u32(a, b, h->weight_count);
    if (flags & HAS_ORDER)
        for (uint32_t i = 0; i < h->instance_count; i++) put_u32(a, b, h->instances[i].id);
    return records_at;
}

/* A frame section's tail after its records: the lights and cameras of `src`, the fur given, the change
 * lists of `h`; then the section is written and counted. */
static orr_result frame_tail(orr_recorder *r, const orr_snapshot *h, const orr_snapshot *src, const orr_render_fur *fur,
                             uint32_t fur_count, bool key, uint8_t flags, size_t records_at, uint32_t records)
{
    const orr_allocator *a = &r->allocator;
    buf *b = &r->section;
    if (!b->failed) memcpy(b->data + records_at, &records, 4);
    if (flags & HAS_LIGHTS) {
        put_u32(a, b, src->light_count);
        for (uint32_t i = 0; i < src->light_count; i++) {
            const orr_render_light *l = &src->lights[i];
            put_u32(a, b, l->entity.index);
            put_u32(a, b, l->entity.generation);
            put_u32(a, b, (uint32_t)l->type | (l->casts_shadows ? LIGHT_CASTS_SHADOWS : 0u));
            put(a, b, &l->world, sizeof l->world);
            put(a, b, l->color, 28); /* color, intensity, range, cos_inner, cos_outer */
            put_string(a, b, orr_snapshot_name(src, l->name));
        }
    }
    if (flags & HAS_CAMERAS) {
        put_u32(a, b, src->camera_count);
        for (uint32_t i = 0; i < src->camera_count; i++) {
            const orr_render_camera *c = &src->cameras[i];
            put_u32(a, b, c->entity.index);
            put_u32(a, b, c->entity.generation);
            put_u32(a, b, (uint32_t)c->projection);
            put(a, b, &c->world, sizeof c->world);
            put(a, b, &c->yfov, 48); /* yfov, aspect, xmag, ymag, znear, zfar */
            put_string(a, b, orr_snapshot_name(src, c->name));
        }
    }
    if (flags & HAS_FUR) {
        put_u32(a, b, fur_count);
        for (uint32_t i = 0; i < fur_count; i++) put(a, b, &fur[i], sizeof fur[i]);
    }
    put_u32(a, b, h->changed_count);
    put(a, b, h->changed, (size_t)h->changed_count * 4);
    put_u32(a, b, h->removed_count);
    put(a, b, h->removed, (size_t)h->removed_count * 4);
    uint64_t offset, before = r->offset;
    orr_result res = write_section(r, SEC_FRAME, &offset);
    if (res != ORR_OK) return res;
    if (key) {
        if (!ORRI_GROW(a, r->keys, r->key_capacity, r->key_count + 1)) return oom(r, h);
        r->keys[r->key_count++] = (key_entry){r->stats.frames, offset};
        r->stats.key_frames++;
        r->stats.key_frame_bytes += r->offset - before;
        r->since_key = 0;
    } else {
        r->stats.delta_bytes += r->offset - before;
        r->since_key++;
    }
    r->stats.frames++;
    return ORR_OK;
}

/* A key frame: the whole of `s`. */
static orr_result write_key(orr_recorder *r, const orr_snapshot *s)
{
    uint8_t flags = (uint8_t)(HAS_ORDER | (s->light_count ? HAS_LIGHTS : 0) | (s->camera_count ? HAS_CAMERAS : 0) |
                              (s->fur_count ? HAS_FUR : 0) | (s->weight_count ? HAS_WEIGHTS : 0));
    size_t records_at = frame_head(r, s, true, flags);
    uint64_t before = r->stats.delta_records;
    /* Version 3: each record against the one before it (instances of a scene are much alike: often only
     * the entity and the translation differ), about a quarter of the bytes to encode, checksum and write. */
    const bool v3 = r->version >= 3;
    inst_src p = {0};
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (i + ORRI_AHEAD < s->instance_count && s->names) {
            uint32_t name = s->instances[i + ORRI_AHEAD].name;
            if (name < s->names_size) __builtin_prefetch(s->names + name);
        }
        inst_src c = src_of(s, &s->instances[i]);
        put_record(r, &c, v3 && i ? &p : NULL, v3, false);
        p = c;
    }
    return frame_tail(r, s, s, s->fur, s->fur_count, true, flags, records_at,
                      (uint32_t)(r->stats.delta_records - before));
}

/* A whole frame (a PK_FULL packet's): a key frame, or a delta against prev found from the snapshot's own
 * change list when it is against prev, else by the diff (O(n)). prev then holds it; `s` may be emptied. */
static orr_result emit_full(orr_recorder *r, orr_snapshot *s)
{
    const orr_allocator *a = &r->allocator;
    bool key = !r->have_prev || r->since_key + 1 >= r->key_interval;
    r->have_prev = false; /* until prev holds this frame */
    if (key) {
        orr_result res = write_key(r, s);
        if (res != ORR_OK) return res;
        orr_snapshot t = r->prev; /* prev := s, s takes prev's old storage */
        r->prev = *s;
        *s = t;
        r->have_prev = true;
        return ORR_OK;
    }
    orr_snapshot *ps = &r->prev;
    const uint32_t *ids;
    uint32_t n;
    bool order;
    if (s->delta_base != 0 && s->delta_base == ps->frame) {
        ids = s->changed;
        n = s->changed_count;
        order = s->removed_count != 0 || s->instance_count != ps->instance_count ||
                (s->layout_version != ps->layout_version && !same_order(s, ps));
    } else {
        if (orr_snapshot_diff(ps, s, &r->delta) != ORR_OK) return oom(r, s);
        ids = r->delta.changed;
        n = r->delta.changed_count;
        order = !same_order(s, ps);
    }
    if (!ORRI_GROW(a, r->pairs, r->pair_capacity, 2 * (n ? n : 1))) return oom(r, s);
    uint32_t count = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = orr_snapshot_find(s, ids[k]), j = orr_snapshot_find(ps, ids[k]);
        if (i == NONE || i >= s->instance_count) continue; /* not in the snapshot: nothing to record */
        if (j >= ps->instance_count) j = NONE;
        if (!order && j != i) order = true;
        r->pairs[2 * count] = i;
        r->pairs[2 * count + 1] = j;
        count++;
    }
    bool lights = !same_lights(s, ps), cameras = !same_cameras(s, ps), fur = !same_fur(s, ps);
    uint8_t flags = (uint8_t)((order ? HAS_ORDER : 0) | (lights ? HAS_LIGHTS : 0) | (cameras ? HAS_CAMERAS : 0) |
                              (fur ? HAS_FUR : 0) | (s->weight_count != ps->weight_count ? HAS_WEIGHTS : 0));
    size_t records_at = frame_head(r, s, false, flags);
    uint64_t before = r->stats.delta_records;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t i = r->pairs[2 * k], j = r->pairs[2 * k + 1];
        inst_src c = src_of(s, &s->instances[i]), p;
        if (j != NONE) p = src_of(ps, &ps->instances[j]);
        r->pairs[2 * k + 1] = put_record(r, &c, j != NONE ? &p : NULL, false, false); /* what the patch below copies */
    }
    orr_result res = frame_tail(r, s, s, s->fur, s->fur_count, false, flags, records_at,
                                (uint32_t)(r->stats.delta_records - before));
    if (res != ORR_OK) return res;
    /* what a reader now holds */
    if (order) {
        orr_snapshot t = r->prev;
        r->prev = *s;
        *s = t;
    } else {
        if (!patch_arrays(r, s)) return oom(r, s);
        for (uint32_t k = 0; k < count; k++) {
            inst_src c = src_of(s, &s->instances[r->pairs[2 * k]]);
            if (r->pairs[2 * k + 1] && !patch_instance(r, r->pairs[2 * k], &c, r->pairs[2 * k + 1])) return oom(r, s);
        }
        if (!copy_sources(a, ps, s, lights, cameras)) return oom(r, s);
        if (fur) {
            if (!ORRI_GROW(a, ps->fur, ps->fur_capacity, s->fur_count)) return oom(r, s);
            if (s->fur_count) memcpy(ps->fur, s->fur, s->fur_count * sizeof *ps->fur);
            ps->fur_count = s->fur_count;
        }
        if (!patch_header(r, s)) return oom(r, s);
    }
    r->have_prev = true;
    return ORR_OK;
}

static orr_result moved(orr_recorder *r, const orr_snapshot *h, uint32_t id, uint32_t index)
{
    return orri_error(&r->werr, ORR_ERROR_INVALID_ARGUMENT,
                      "recorder: frame %llu moves instance %u to index %u with no new layout_version",
                      (unsigned long long)h->frame, id, index);
}

/* Pose entry `q` of a delta packet: compared with prev's world and palette (the rest of prev's record,
 * which a pose-only change leaves as it was, unread) and written unless `key`, then patched into prev. */
static orr_result emit_pose(orr_recorder *r, const packet *pk, uint32_t q, bool key)
{
    const orr_snapshot *p = &r->prev;
    const pose_entry *e = &pk->poses[q];
    if (e->index >= p->instance_count || p->instances[e->index].id != e->id) return moved(r, &pk->s, e->id, e->index);
    const orr_render_instance *in = &p->instances[e->index];
    /* the record as it is now: prev's with the new world (put_record reads no other field of a pose) */
    orr_render_instance now = {.world = e->world, .id = e->id, .joint_offset = in->joint_offset, .joint_count = in->joint_count};
    inst_src c = {&now, "", NULL, 0, e->joints == NONE ? NULL : pk->joints + e->joints, NULL};
    inst_src old = {in, NULL, NULL, 0, joints_valid(p, in) ? p->joints + in->joint_offset : NULL, NULL};
    uint32_t f = key ? F_ALL : put_record(r, &c, &old, false, true);
    if (f) patch_pose(r, e->index, &c, f);
    return ORR_OK;
}

/* A delta packet: its changed instances against prev (the same order), or, when a key frame is due,
 * prev patched with them and written whole. */
static orr_result emit_delta(orr_recorder *r, const packet *pk)
{
    const orr_allocator *a = &r->allocator;
    orr_snapshot *p = &r->prev;
    const orr_snapshot *h = &pk->s;
    if (!r->have_prev || h->instance_count != p->instance_count || h->fur_count != p->fur_count)
        return orri_error(&r->werr, ORR_ERROR_INVALID_ARGUMENT,
                          "recorder: frame %llu is a delta against frame %llu with %u instances and %u fur entries, "
                          "but that frame had %u and %u",
                          (unsigned long long)h->frame, (unsigned long long)h->delta_base, h->instance_count,
                          h->fur_count, p->instance_count, p->fur_count);
    bool key = r->since_key + 1 >= r->key_interval;
    r->have_prev = false; /* until prev holds this frame */
    bool lights = !same_lights(h, p), cameras = !same_cameras(h, p), weights = h->weight_count != p->weight_count;
    bool fur = false;
    for (uint32_t k = 0; k < pk->entry_count && !fur; k++) {
        const entry *e = &pk->entries[k];
        if (e->fur == NONE) continue;
        uint32_t at = fur_find(p->fur, p->fur_count, e->index);
        fur = at == NONE || !same_fur_entry(&p->fur[at], &pk->fur[e->fur]);
    }
    uint8_t flags = (uint8_t)((lights ? HAS_LIGHTS : 0) | (cameras ? HAS_CAMERAS : 0) | (fur ? HAS_FUR : 0) |
                              (weights ? HAS_WEIGHTS : 0));
    size_t records_at = key ? 0 : frame_head(r, h, false, flags);
    uint64_t before = r->stats.delta_records;
    if (!patch_arrays(r, h)) return oom(r, h);
    uint32_t q = 0; /* the next pose entry */
    for (uint32_t k = 0; k <= pk->entry_count; k++) {
        /* the pose entries before this entry (after the last one: those left) */
        uint32_t to = k < pk->entry_count ? pk->entries[k].poses_before : pk->pose_count;
        for (; q < to; q++) {
            if (q + ORRI_AHEAD < pk->pose_count) { /* prev's records, scattered: their first two lines,
                                                      what a pose compares and patches, fetched ahead */
                const char *ahead = (const char *)&p->instances[pk->poses[q + ORRI_AHEAD].index];
                __builtin_prefetch(ahead, 1), __builtin_prefetch(ahead + 64, 1);
            }
            orr_result res = emit_pose(r, pk, q, key);
            if (res != ORR_OK) return res;
        }
        if (k == pk->entry_count) break;
        const entry *e = &pk->entries[k];
        if (k + ORRI_AHEAD < pk->entry_count) { /* prev's records, scattered: fetched ahead */
            const char *ahead = (const char *)&p->instances[pk->entries[k + ORRI_AHEAD].index];
            __builtin_prefetch(ahead, 1), __builtin_prefetch(ahead + 64, 1), __builtin_prefetch(ahead + 128, 1);
        }
        if (k + 2 < pk->entry_count && p->names) { /* then their names, compared too (a record's name
                                                      offset read once its line, fetched a stride before, is in) */
            uint32_t at = pk->entries[k + 2].index;
            if (at < p->instance_count && p->instances[at].name < p->names_size)
                __builtin_prefetch(p->names + p->instances[at].name);
        }
        if (e->index >= p->instance_count || p->instances[e->index].id != pk->records[k].id)
            return moved(r, h, pk->records[k].id, e->index);
        inst_src c = src_of_entry(pk, k);
        uint32_t f = F_ALL;
        if (!key) {
            inst_src old = src_of(p, &p->instances[e->index]);
            f = put_record(r, &c, &old, false, false);
        }
        if (f && !patch_instance(r, e->index, &c, f)) return oom(r, h);
        if (e->fur != NONE) {
            uint32_t at = fur_find(p->fur, p->fur_count, e->index);
            if (at != NONE) p->fur[at] = pk->fur[e->fur];
        }
    }
    if (!copy_sources(a, p, h, lights, cameras) || !patch_header(r, h)) return oom(r, h);
    orr_result res = key ? write_key(r, p)
                         : frame_tail(r, h, h, p->fur, p->fur_count, false, flags, records_at,
                                      (uint32_t)(r->stats.delta_records - before));
    if (res == ORR_OK) r->have_prev = true;
    return res;
}

/* Whether resource section `k` (not shared) holds exactly `bytes`: read back from the file. */
static bool same_payload(orr_recorder *r, uint32_t k, const uint8_t *bytes, size_t size)
{
    uint64_t at = r->resources[k] + 8, length = 0;
    uint8_t chunk[4096];
    bool same = fflush(r->file) == 0 && fseeko(r->file, (off_t)at, SEEK_SET) == 0 && fread(&length, 8, 1, r->file) == 1 &&
                length == (uint64_t)size + 24 && fseeko(r->file, (off_t)(at + 8 + 24), SEEK_SET) == 0;
    for (size_t done = 0; same && done < size;) {
        size_t n = size - done < sizeof chunk ? size - done : sizeof chunk;
        same = fread(chunk, 1, n, r->file) == n && memcmp(chunk, bytes + done, n) == 0;
        done += n;
    }
    return same;
}

static orr_result emit_resource(orr_recorder *r, const packet *pk)
{
    if (!ORRI_GROW(&r->allocator, r->resources, r->resource_capacity, r->resource_count + 1) ||
        !ORRI_GROW(&r->allocator, r->hashes, r->hash_capacity, 2 * (r->resource_count + 1)))
        return orri_error(&r->werr, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory");
    const orr_allocator *a = &r->allocator;
    uint64_t hash = orr_recording_checksum(pk->bytes, pk->size);
    /* An equal resource of the same kind written before (its hash, then its bytes read back): this one
     * names it. A scan of the recording's resources, which are a scene's meshes, materials and textures
     * (few next to its instances), each once. */
    uint32_t shared = NONE;
    for (uint32_t k = 0; k < r->resource_count && shared == NONE; k++)
        if (r->hashes[2 * k] == hash && r->hashes[2 * k + 1] == (uint64_t)pk->res_kind &&
            same_payload(r, k, pk->bytes, pk->size))
            shared = k;
    if (fseeko(r->file, (off_t)r->offset, SEEK_SET) != 0)
        return orri_error(&r->werr, ORR_ERROR_IO, "%s: seeking to byte %llu failed: %s", r->path,
                          (unsigned long long)r->offset, strerror(errno));
    section_begin(r);
    put_u32(a, &r->section, (uint32_t)pk->res_kind);
    put_u32(a, &r->section, pk->res_index);
    put_u32(a, &r->section, pk->res_generation);
    put_u32(a, &r->section, shared == NONE ? 0 : RES_SHARED);
    put_u64(a, &r->section, hash);
    if (shared == NONE) put(a, &r->section, pk->bytes, pk->size);
    else put_u32(a, &r->section, shared);
    uint64_t before = r->offset;
    orr_result res = write_section(r, SEC_RESOURCE, &r->resources[r->resource_count]);
    if (res != ORR_OK) return res;
    /* a shared one is never named: the first of its content is */
    r->hashes[2 * r->resource_count] = shared == NONE ? hash : 0;
    r->hashes[2 * r->resource_count + 1] = shared == NONE ? (uint64_t)pk->res_kind : 0;
    r->resource_count++;
    r->stats.resources++;
    if (shared != NONE) r->stats.resources_shared++;
    r->stats.resource_bytes += r->offset - before;
    return ORR_OK;
}

static void *recorder_main(void *arg)
{
    orr_recorder *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->head && !r->quit) pthread_cond_wait(&r->work, &r->mu);
        packet *pk = r->head;
        if (!pk) break; /* quit, and nothing left */
        r->head = pk->next;
        if (!r->head) r->tail = NULL;
        r->queued--;
        bool skip = r->failure != ORR_OK || r->abandon;
        pthread_mutex_unlock(&r->mu);
        orr_result res = ORR_OK;
        uint64_t keys_before = r->stats.key_frames;
        if (!skip)
            res = pk->kind == PK_RESOURCE ? emit_resource(r, pk) : pk->kind == PK_DELTA ? emit_delta(r, pk)
                                                                                       : emit_full(r, &pk->s);
        if (pk->kind == PK_FULL) orr_snapshot_fini(&pk->s); /* a whole frame's storage: not kept */
        pthread_mutex_lock(&r->mu);
        if (res != ORR_OK && r->failure == ORR_OK) {
            r->failure = res;
            r->failure_error = r->werr;
        }
        struct timespec cpu;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0) {
            double now = cpu.tv_sec * 1e3 + cpu.tv_nsec * 1e-6;
            if (r->stats.key_frames != keys_before) r->stats.key_frame_cpu_ms += now - r->stats.thread_cpu_ms;
            r->stats.thread_cpu_ms = now;
        }
        r->shared_stats = r->stats;
        r->shared_stats.bytes = r->offset;
        pk->next = r->free_list;
        r->free_list = pk;
        if (r->caller_waits) pthread_cond_signal(&r->room);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* ---- the caller's side ------------------------------------------------------------------------ */

static void packet_free(const orr_allocator *a, packet *pk)
{
    orr_snapshot_fini(&pk->s);
    orri_free(a, pk->entries, (size_t)pk->entry_capacity * sizeof *pk->entries);
    orri_free(a, pk->poses, (size_t)pk->pose_capacity * sizeof *pk->poses);
    orri_free(a, pk->records_block, pk->records_block_size);
    orri_free(a, pk->joints, (size_t)pk->joint_capacity * sizeof *pk->joints);
    orri_free(a, pk->weights, (size_t)pk->weight_capacity * sizeof *pk->weights);
    orri_free(a, pk->bindings, (size_t)pk->binding_capacity * sizeof *pk->bindings);
    orri_free(a, pk->fur, (size_t)pk->fur_capacity * sizeof *pk->fur);
    orri_free(a, pk->bytes, pk->capacity);
    orri_free(a, pk, sizeof *pk);
}

/* The recorder thread's error, when it had one: the caller's error from then on. */
static orr_result failed(orr_recorder *r)
{
    pthread_mutex_lock(&r->mu);
    orr_result res = r->failure;
    if (res != ORR_OK) r->error = r->failure_error;
    pthread_mutex_unlock(&r->mu);
    return res;
}

/* A free packet (waiting for one when MAX_PACKETS are queued), or NULL with r->error set. */
static packet *take_packet(orr_recorder *r)
{
    pthread_mutex_lock(&r->mu);
    while (!r->free_list && r->packet_count >= MAX_PACKETS && r->failure == ORR_OK) {
        r->caller_waits = true;
        pthread_cond_signal(&r->work);
        pthread_cond_wait(&r->room, &r->mu);
        r->caller_waits = false;
    }
    packet *pk = NULL;
    if (r->failure != ORR_OK) {
        r->error = r->failure_error;
    } else if (r->free_list) {
        pk = r->free_list;
        r->free_list = pk->next;
    } else if ((pk = orri_alloc(&r->allocator, sizeof *pk)) != NULL) {
        orr_snapshot_init(&pk->s, &r->allocator);
        r->packet_count++;
    } else {
        orri_error(&r->error, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory");
    }
    pthread_mutex_unlock(&r->mu);
    return pk;
}

static void give_back(orr_recorder *r, packet *pk, bool queue)
{
    pthread_mutex_lock(&r->mu);
    pk->next = NULL;
    if (!queue) {
        if (pk->kind == PK_FULL) orr_snapshot_fini(&pk->s);
        pk->next = r->free_list;
        r->free_list = pk;
    } else {
        if (r->tail) r->tail = r->tail->next = pk;
        else r->head = r->tail = pk;
        if (++r->queued >= WAKE_AT) pthread_cond_signal(&r->work);
    }
    pthread_mutex_unlock(&r->mu);
}

/* Stops the recorder thread once it has written what is queued (or dropped it: abandon). */
static void stop(orr_recorder *r, bool abandon)
{
    if (!r->thread_started) return;
    pthread_mutex_lock(&r->mu);
    r->quit = true;
    r->abandon = abandon;
    pthread_cond_signal(&r->work);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    r->thread_started = false;
}

orr_result orr_recorder_create(const char *path, const orr_recorder_desc *desc, orr_recorder **out, orr_error *err)
{
    ORRI_ASSERT(path && out, "orr_recorder_create: a path and out");
    orr_recorder_desc d = desc ? *desc : (orr_recorder_desc){0};
    if (d.key_interval > MAX_KEY_INTERVAL)
        return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "recorder: key_interval %u is more than %u", d.key_interval,
                          MAX_KEY_INTERVAL);
    if (d.format_version && (d.format_version < MIN_WRITTEN_VERSION || d.format_version > FORMAT_VERSION))
        return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "recorder: format_version %u (it writes %u to %u; 0: %u)",
                          d.format_version, MIN_WRITTEN_VERSION, FORMAT_VERSION, FORMAT_VERSION);
    if (d.metadata_size > MAX_METADATA || (d.metadata_size && !d.metadata))
        return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "recorder: metadata of %u bytes (at most %u, and given)",
                          d.metadata_size, MAX_METADATA);
    orr_allocator a = orri_allocator_or_default(&d.allocator);
    orr_recorder *r = orri_alloc(&a, sizeof *r);
    size_t path_len = strlen(path) + 1;
    char *copy = r ? orri_alloc(&a, path_len) : NULL;
    if (!copy) {
        orri_free(&a, r, sizeof *r);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory");
    }
    memcpy(copy, path, path_len);
    r->allocator = a;
    r->path = copy;
    r->key_interval = d.key_interval ? d.key_interval : MAX_KEY_INTERVAL;
    r->version = d.format_version ? d.format_version : FORMAT_VERSION;
    orr_snapshot_init(&r->prev, &a);
    orr_snapshot_delta_init(&r->delta, &a);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work, NULL);
    pthread_cond_init(&r->room, NULL);
    r->file = fopen(path, "w+b"); /* read too: a resource is compared with an equal-looking one written before */
    if (!r->file) {
        orri_error(err, ORR_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
        orr_recorder_destroy(r);
        return ORR_ERROR_IO;
    }
    /* One write call per WRITE_BUFFER bytes rather than one (or more) per frame: a delta is a few kB, and a
     * system call costs more than encoding one. Without the buffer, stdio's own small one. */
    r->write_buffer = orri_alloc(&a, WRITE_BUFFER);
    if (r->write_buffer && setvbuf(r->file, r->write_buffer, _IOFBF, WRITE_BUFFER) != 0) {
        orri_free(&a, r->write_buffer, WRITE_BUFFER);
        r->write_buffer = NULL;
    }
    uint8_t head[HEADER_BYTES];
    uint32_t format = r->version, lib = library_version();
    memcpy(head, FILE_MAGIC, 8);
    memcpy(head + 8, &format, 4);
    memcpy(head + 12, &lib, 4);
    uint64_t sum = orr_recording_checksum(head, 16);
    memcpy(head + 16, &sum, 8);
    orr_result res = write_bytes(r, head, sizeof head);
    if (res == ORR_OK) {
        section_begin(r);
        put(&a, &r->section, d.metadata, d.metadata_size);
        res = write_section(r, SEC_META, NULL);
    }
    r->shared_stats.bytes = r->offset;
    if (res == ORR_OK) {
        pthread_attr_t attr;
        bool started = pthread_attr_init(&attr) == 0;
        started = started && pthread_attr_setstacksize(&attr, (size_t)1 << 20) == 0 &&
                  pthread_create(&r->thread, &attr, recorder_main, r) == 0;
        pthread_attr_destroy(&attr);
        if (!started) res = orri_error(&r->werr, ORR_ERROR_OUT_OF_MEMORY, "recorder: cannot start its thread");
        r->thread_started = started;
    }
    if (res != ORR_OK) {
        orri_error(err, res, "%s", r->werr.message);
        orr_recorder_destroy(r);
        return res;
    }
    *out = r;
    return ORR_OK;
}

void orr_recorder_destroy(orr_recorder *r)
{
    if (!r) return;
    const orr_allocator a = r->allocator;
    stop(r, true);
    while (r->head) {
        packet *pk = r->head;
        r->head = pk->next;
        packet_free(&a, pk);
    }
    while (r->free_list) {
        packet *pk = r->free_list;
        r->free_list = pk->next;
        packet_free(&a, pk);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->room);
    if (r->file) fclose(r->file);
    orri_free(&a, r->write_buffer, WRITE_BUFFER); /* after fclose: the stream wrote through it */
    orri_free(&a, r->path, strlen(r->path) + 1);
    buf_free(&a, &r->section);
    orr_snapshot_fini(&r->prev);
    orr_snapshot_delta_fini(&r->delta);
    for (int k = 0; k < 4; k++) orri_free(&a, r->recorded[k].gen, (size_t)r->recorded[k].capacity * 4);
    orri_free(&a, r->keys, (size_t)r->key_capacity * sizeof *r->keys);
    orri_free(&a, r->resources, (size_t)r->resource_capacity * sizeof *r->resources);
    orri_free(&a, r->hashes, (size_t)r->hash_capacity * sizeof *r->hashes);
    orri_free(&a, r->pairs, (size_t)r->pair_capacity * sizeof *r->pairs);
    orri_free(&a, r, sizeof *r);
}

const orr_error *orr_recorder_last_error(const orr_recorder *r) { return &r->error; }
uint64_t orr_recorder_last_frame(const orr_recorder *r) { return r->have_last ? r->last_frame : 0; }
bool orr_recorder_same_layout(const orr_recorder *r, const orr_snapshot *s)
{
    return r->have_last && s->delta_base != 0 && s->delta_base == r->last_frame && s->removed_count == 0 &&
           s->instance_count == r->last_count && s->layout_version == r->last_layout;
}
void orr_recorder_get_stats(const orr_recorder *r, orr_recording_stats *stats)
{
    orr_recorder *m = (orr_recorder *)r; /* the lock only */
    pthread_mutex_lock(&m->mu);
    *stats = r->shared_stats;
    pthread_mutex_unlock(&m->mu);
}

bool orr_recorder_has_resource(const orr_recorder *r, orr_resource_kind kind, uint32_t index, uint32_t generation)
{
    if (kind < ORR_RESOURCE_TEXTURE || kind > ORR_RESOURCE_MESH || generation == 0) return false;
    const id_set *s = &r->recorded[kind];
    return index < s->capacity && s->gen[index] == generation;
}

orr_result orr_recorder_add_resource(orr_recorder *r, orr_resource_kind kind, uint32_t index, uint32_t generation,
                                     const void *bytes, size_t size)
{
    ORRI_ASSERT(!r->finished, "orr_recorder_add_resource: the recorder is finished");
    orr_result res = failed(r);
    if (res != ORR_OK) return res;
    if (kind < ORR_RESOURCE_TEXTURE || kind > ORR_RESOURCE_MESH || generation == 0 || (size && !bytes))
        return orri_error(&r->error, ORR_ERROR_INVALID_ARGUMENT, "recorder: resource kind %d, id %u:%u, %zu bytes",
                          (int)kind, index, generation, size);
    if (orr_recorder_has_resource(r, kind, index, generation))
        return orri_error(&r->error, ORR_ERROR_INVALID_ARGUMENT, "recorder: resource kind %d, id %u:%u is recorded already",
                          (int)kind, index, generation);
    id_set *s = &r->recorded[kind];
    if (index == UINT32_MAX || !ORRI_GROW(&r->allocator, s->gen, s->capacity, index + 1))
        return orri_error(&r->error, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory");
    packet *pk = take_packet(r);
    if (!pk) return r->error.code ? r->error.code : ORR_ERROR_OUT_OF_MEMORY;
    pk->kind = PK_RESOURCE;
    if (size > pk->capacity) {
        uint8_t *grown = orri_realloc(&r->allocator, pk->bytes, pk->capacity, size);
        if (!grown) {
            give_back(r, pk, false);
            return orri_error(&r->error, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory for a %zu-byte resource", size);
        }
        pk->bytes = grown;
        pk->capacity = size;
    }
    if (size) memcpy(pk->bytes, bytes, size);
    pk->size = size;
    pk->res_kind = kind;
    pk->res_index = index;
    pk->res_generation = generation;
    give_back(r, pk, true);
    s->gen[index] = generation;
    return ORR_OK;
}

/* Asks for the large pages of [p, p + n) (a hint; where the system has none, nothing): the whole copy a
 * key frame starts from becomes the recorder's frame before (`prev`), whose records each delta reads at
 * random, one cache miss each, and with 4 KiB pages a page-table walk each too (100k records: 19 MB). */
static void huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t big = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + big - 1) & ~(big - 1), hi = ((uintptr_t)p + n) & ~(big - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* The packet's records array for `n` records, on a cache line: each record fills three lines whole
 * (beside its side data, a record took parts of four or five). */
static bool grow_records(const orr_allocator *a, packet *pk, uint32_t n)
{
    const size_t line = 64;
    size_t need = (size_t)n * sizeof(orr_render_instance) + line;
    if (need <= pk->records_block_size) return true;
    size_t size = pk->records_block_size ? pk->records_block_size : 64 * sizeof(orr_render_instance);
    while (size < need) size *= 2;
    void *block = orri_realloc(a, pk->records_block, pk->records_block_size, size); /* nothing in it to keep */
    if (!block) return false;
    pk->records_block = block;
    pk->records_block_size = size;
    pk->records = (orr_render_instance *)(((uintptr_t)block + line - 1) & ~(uintptr_t)(line - 1));
    return true;
}

/* Fills a delta packet from `s`, whose change list is against the frame queued last, with the same
 * instances in the same order. */
static bool fill_delta(orr_recorder *r, packet *pk, const orr_snapshot *s)
{
    const orr_allocator *a = &r->allocator;
    orr_snapshot *h = &pk->s;
    pk->kind = PK_DELTA;
    h->frame = s->frame;
    h->tick = s->tick;
    h->revision = s->revision;
    h->structure_version = s->structure_version;
    h->layout_version = s->layout_version;
    h->delta_base = s->delta_base;
    h->instance_count = s->instance_count;
    h->joint_count = s->joint_count;
    h->weight_count = s->weight_count;
    h->fur_count = s->fur_count;
    h->removed_count = 0;
    /* names[0] is "": the unnamed (most instances of a large scene) point there, nothing copied */
    if (!h->names_capacity && !orri_grow(a, (void **)&h->names, &h->names_capacity, 4096, 1)) return false;
    h->names[0] = 0;
    h->names_size = 1;
    pk->entry_count = pk->pose_count = pk->joint_used = pk->weight_used = pk->binding_used = pk->fur_used = 0;
    if (!ORRI_GROW(a, pk->entries, pk->entry_capacity, s->changed_count) || !grow_records(a, pk, s->changed_count) ||
        !ORRI_GROW(a, h->changed, h->changed_capacity, s->changed_count) ||
        (s->changed_at && !ORRI_GROW(a, pk->poses, pk->pose_capacity, s->changed_count)))
        return false;
    if (s->changed_count) memcpy(h->changed, s->changed, (size_t)s->changed_count * 4);
    h->changed_count = s->changed_count;
    /* One pass, fetching ahead what it reads scattered: an id's index two strides ahead (unless the
     * extraction gave it: changed_at), its record (just written by the extraction: its last line was
     * not) one stride ahead, its name half a stride; each index looked up once (kept in `at` from the
     * stride ahead). A pose-only change (changed_at's flag) copies its world and its palette into a pose
     * entry: nothing else of it changed, the recorder thread takes the rest from the frame before. */
    uint32_t n = s->changed_count;
    const uint32_t *ids = s->changed;
    const uint32_t *hint = s->changed_at && s->changed_at_count == n && s->changed_at_frame == s->frame ? s->changed_at : NULL;
    uint32_t at[ORRI_AHEAD];
    for (uint32_t k = 0; k < n && k < ORRI_AHEAD; k++) at[k] = hint ? hint[k] : orr_snapshot_find(s, ids[k]);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = at[k % ORRI_AHEAD];
        if (!hint && k + 2 * ORRI_AHEAD < n && ids[k + 2 * ORRI_AHEAD] < s->index_capacity)
            __builtin_prefetch(&s->index_of[ids[k + 2 * ORRI_AHEAD]]);
        if (k + ORRI_AHEAD < n) {
            uint32_t ahead = at[k % ORRI_AHEAD] = hint ? hint[k + ORRI_AHEAD] : orr_snapshot_find(s, ids[k + ORRI_AHEAD]);
            uint32_t index = ahead & ~ORR_CHANGED_POSE;
            if (index < s->instance_count) {
                const char *c = (const char *)&s->instances[index];
                __builtin_prefetch(c), __builtin_prefetch(c + 64);
                if (!(ahead & ORR_CHANGED_POSE)) __builtin_prefetch(c + 128);
            }
        }
        if (k + ORRI_AHEAD / 2 < n && s->names) {
            uint32_t ahead = at[(k + ORRI_AHEAD / 2) % ORRI_AHEAD];
            if (ahead < s->instance_count && s->instances[ahead].name < s->names_size) /* (a pose-only one: not) */
                __builtin_prefetch(s->names + s->instances[ahead].name);
        }
        bool pose = hint && (i & ORR_CHANGED_POSE);
        if (hint) i &= ~ORR_CHANGED_POSE;
        if (hint && (i >= s->instance_count || s->instances[i].id != ids[k])) { /* a stale hint: looked up */
            i = orr_snapshot_find(s, ids[k]);
            pose = false;
        }
        if (i >= s->instance_count) continue; /* not in the snapshot: nothing to record */
        const orr_render_instance *in = &s->instances[i];
        if (pose) {
            pose_entry *q = &pk->poses[pk->pose_count++];
            q->world = in->world;
            q->index = i;
            q->id = in->id;
            q->joints = NONE;
            if (joints_valid(s, in)) {
                if ((uint64_t)pk->joint_used + in->joint_count > UINT32_MAX ||
                    !ORRI_GROW(a, pk->joints, pk->joint_capacity, pk->joint_used + in->joint_count))
                    return false;
                memcpy(pk->joints + pk->joint_used, s->joints + in->joint_offset, in->joint_count * sizeof *pk->joints);
                q->joints = pk->joint_used;
                pk->joint_used += in->joint_count;
            }
            continue;
        }
        entry *e = &pk->entries[pk->entry_count];
        e->index = i;
        e->poses_before = pk->pose_count;
        pk->records[pk->entry_count++] = *in; /* (streaming stores measured no faster here) */
        const char *name = orr_snapshot_name(s, in->name);
        size_t len = name[0] ? strlen(name) + 1 : 0;
        if (!len) {
            e->name = 0;
        } else if (h->names_size + len <= h->names_capacity) { /* the common case, inline */
            memcpy(h->names + h->names_size, name, len);
            e->name = h->names_size;
            h->names_size += (uint32_t)len;
        } else if (!push_name(a, h, name, &e->name)) {
            return false;
        }
        e->binding_count = bindings_count(s, in);
        e->bindings = pk->binding_used;
        if (e->binding_count) {
            if (!ORRI_GROW(a, pk->bindings, pk->binding_capacity, pk->binding_used + e->binding_count)) return false;
            memcpy(pk->bindings + pk->binding_used, s->material_bindings + in->material_offset,
                   e->binding_count * sizeof *pk->bindings);
            pk->binding_used += e->binding_count;
        }
        e->joints = e->weights = e->fur = NONE;
        if (joints_valid(s, in)) {
            if ((uint64_t)pk->joint_used + in->joint_count > UINT32_MAX ||
                !ORRI_GROW(a, pk->joints, pk->joint_capacity, pk->joint_used + in->joint_count))
                return false;
            memcpy(pk->joints + pk->joint_used, s->joints + in->joint_offset, in->joint_count * sizeof *pk->joints);
            e->joints = pk->joint_used;
            pk->joint_used += in->joint_count;
        }
        if (weights_valid(s, in)) {
            if ((uint64_t)pk->weight_used + in->weight_count > UINT32_MAX ||
                !ORRI_GROW(a, pk->weights, pk->weight_capacity, pk->weight_used + in->weight_count))
                return false;
            memcpy(pk->weights + pk->weight_used, s->weights + in->weight_offset, in->weight_count * sizeof *pk->weights);
            e->weights = pk->weight_used;
            pk->weight_used += in->weight_count;
        }
        uint32_t fur = s->fur_count ? fur_find(s->fur, s->fur_count, i) : NONE;
        if (fur != NONE) {
            if (!ORRI_GROW(a, pk->fur, pk->fur_capacity, pk->fur_used + 1)) return false;
            pk->fur[pk->fur_used] = s->fur[fur];
            e->fur = pk->fur_used++;
        }
    }
    /* the lights and cameras whole: a scene's few (the recorder thread compares them) */
    return copy_sources(a, h, s, true, true);
}

orr_result orr_recorder_add_frame(orr_recorder *r, const orr_snapshot *s)
{
    ORRI_ASSERT(r && s && !r->finished, "orr_recorder_add_frame: a recorder not finished and a snapshot");
    /* A delta packet when the snapshot's change list is against the frame queued last and its instances
     * stand as they did (layout_version covers their set and order); else the whole frame. */
    bool delta = orr_recorder_same_layout(r, s);
    packet *pk = take_packet(r);
    if (!pk) return r->error.code ? r->error.code : ORR_ERROR_OUT_OF_MEMORY;
    bool ok;
    if (delta) {
        ok = fill_delta(r, pk, s);
    } else {
        pk->kind = PK_FULL;
        ok = ORRI_GROW(&r->allocator, pk->s.instances, pk->s.instance_capacity, s->instance_count);
        if (ok) huge_pages(pk->s.instances, (size_t)pk->s.instance_capacity * sizeof *pk->s.instances);
        ok = ok && orr_snapshot_copy(s, &pk->s) == ORR_OK;
    }
    if (!ok) {
        give_back(r, pk, false);
        return orri_error(&r->error, ORR_ERROR_OUT_OF_MEMORY, "recorder: out of memory keeping frame %llu",
                          (unsigned long long)s->frame);
    }
    give_back(r, pk, true);
    r->have_last = true;
    r->last_frame = s->frame;
    r->last_count = s->instance_count;
    r->last_layout = s->layout_version;
    return ORR_OK;
}

orr_result orr_recorder_finish(orr_recorder *r)
{
    ORRI_ASSERT(r && !r->finished, "orr_recorder_finish: a recorder not finished");
    r->finished = true;
    stop(r, false);
    if (r->failure != ORR_OK) {
        r->error = r->failure_error;
        return r->failure;
    }
    const orr_allocator *a = &r->allocator;
    section_begin(r);
    put_u64(a, &r->section, r->stats.frames);
    put_u32(a, &r->section, r->key_count);
    put_u32(a, &r->section, r->resource_count);
    put(a, &r->section, r->keys, (size_t)r->key_count * sizeof *r->keys);
    put(a, &r->section, r->resources, (size_t)r->resource_count * 8);
    uint64_t index;
    orr_result res = write_section(r, SEC_INDEX, &index);
    if (res == ORR_OK) {
        uint8_t tail[TRAILER_BYTES];
        memcpy(tail, END_MAGIC, 8);
        memcpy(tail + 8, &index, 8);
        uint64_t sum = orr_recording_checksum(tail, 16);
        memcpy(tail + 16, &sum, 8);
        res = write_bytes(r, tail, sizeof tail);
    }
    if (res == ORR_OK) {
        FILE *f = r->file;
        r->file = NULL;
        if (fclose(f) != 0) res = orri_error(&r->werr, ORR_ERROR_IO, "%s: closing failed: %s", r->path, strerror(errno));
    }
    r->shared_stats = r->stats;
    r->shared_stats.bytes = r->offset;
    if (res != ORR_OK) r->error = r->werr;
    return res;
}

/* ---- the reader ------------------------------------------------------------------------------ */

struct orr_recording {
    orr_allocator allocator;
    uint8_t *data;
    size_t size;
    uint32_t format_version, library_version;
    const uint8_t *metadata;
    uint32_t metadata_size;
    uint64_t *frames; /* section offsets, by position */
    uint8_t *frame_key;
    uint64_t frame_count;
    uint32_t frame_capacity, frame_key_capacity;
    uint64_t *resources; /* section offsets */
    uint32_t resource_count, resource_capacity;
    key_entry *keys;
    uint32_t key_count;
    orr_recording_stats stats;
    /* what the last read left in its snapshot, to read the next frame from it */
    bool last_valid;
    uint64_t last_position;
    uint64_t stamp_frame;
    uint32_t stamp_instances, stamp_joints, stamp_names, stamp_changed;
    orr_snapshot_remap last_remap;
    /* scratch of a frame with a new order */
    orr_render_instance *scratch;
    uint8_t *fresh;
    uint32_t scratch_capacity, fresh_capacity;
};

/* A cursor over one section's payload; messages name the section and absolute byte offsets. */
typedef struct cursor {
    const uint8_t *data; /* the whole file */
    uint64_t at, end;    /* absolute offsets: the cursor and the payload's end */
    const char *section;
    uint64_t section_at;
    orr_error *err;
    orr_result failed;
} cursor;

static bool c_fail(cursor *c, uint64_t at, const char *fmt, ...) ORRI_PRINTF(3, 4);
static bool c_fail(cursor *c, uint64_t at, const char *fmt, ...)
{
    if (c->failed != ORR_OK) return false;
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->failed = orri_error(c->err, ORR_ERROR_PARSE, "%s section at byte %llu: %s at byte %llu", c->section,
                           (unsigned long long)c->section_at, what, (unsigned long long)at);
    return false;
}

static const uint8_t *c_take(cursor *c, uint64_t n, const char *field)
{
    if (c->failed != ORR_OK) return NULL;
    if (n > c->end - c->at) {
        c_fail(c, c->at, "%s (%llu bytes) runs past the section's end", field, (unsigned long long)n);
        return NULL;
    }
    const uint8_t *p = c->data + c->at;
    c->at += n;
    return p;
}

#define C_GET(type, name)                                                                                  \
    static type c_##name(cursor *c, const char *field)                                                     \
    {                                                                                                      \
        type v = 0;                                                                                        \
        const uint8_t *p = c_take(c, sizeof v, field);                                                     \
        if (p) memcpy(&v, p, sizeof v);                                                                    \
        return v;                                                                                          \
    }
C_GET(uint8_t, u8)
C_GET(uint16_t, u16)
C_GET(uint32_t, u32)
C_GET(uint64_t, u64)
#undef C_GET

static uint64_t c_left(const cursor *c) { return c->end - c->at; }

static void c_affine(cursor *c, orr_affine3d *m, const orr_affine3d *base, const char *field)
{
    static const orr_affine3d zero;
    uint16_t mask = c_u16(c, field);
    if (mask >> 12) c_fail(c, c->at - 2, "%s: mask %#x has bits past the 12 entries", field, mask);
    orr_affine3d out = base ? *base : zero;
    for (int i = 0; i < 12; i++) {
        if (!(mask & (1u << i))) continue;
        const uint8_t *p = c_take(c, 8, field);
        if (p) memcpy(&out.m[i], p, 8);
    }
    if (c->failed == ORR_OK) *m = out;
}

/* A string's bytes (length-prefixed; a NUL inside refused), NUL-terminated into the snapshot's names. */
static bool c_name(cursor *c, const orr_allocator *a, orr_snapshot *s, uint32_t *offset, const char *field)
{
    uint64_t at = c->at;
    uint32_t n = c_u32(c, field);
    const uint8_t *p = c_take(c, n, field);
    if (!p) return false;
    if (memchr(p, 0, n)) return c_fail(c, at + 4, "%s holds a NUL byte", field);
    if ((uint64_t)s->names_size + n + 1 > UINT32_MAX ||
        !orri_grow(a, (void **)&s->names, &s->names_capacity, s->names_size + n + 1, 1)) {
        c->failed = orri_error(c->err, ORR_ERROR_OUT_OF_MEMORY, "%s section at byte %llu: out of memory for names",
                               c->section, (unsigned long long)c->section_at);
        return false;
    }
    memcpy(s->names + s->names_size, p, n);
    s->names[s->names_size + n] = 0;
    *offset = s->names_size;
    s->names_size += n + 1;
    return true;
}

static bool c_oom(cursor *c)
{
    if (c->failed == ORR_OK)
        c->failed = orri_error(c->err, ORR_ERROR_OUT_OF_MEMORY, "%s section at byte %llu: out of memory", c->section,
                               (unsigned long long)c->section_at);
    return false;
}

/* A section at `offset` (its framing within the file checked by open): a cursor over its payload after
 * its checksum is verified. */
static bool open_section(const orr_recording *rec, uint64_t offset, uint32_t want, cursor *c, orr_error *err)
{
    uint64_t length;
    memcpy(&length, rec->data + offset + 8, 8);
    *c = (cursor){rec->data, offset + SECTION_HEAD, offset + SECTION_HEAD + length, section_names[want], offset, err, ORR_OK};
    uint64_t sum, stored;
    sum = orr_recording_checksum(rec->data + offset, SECTION_HEAD + length);
    memcpy(&stored, rec->data + offset + SECTION_HEAD + length, 8);
    if (sum != stored)
        return c_fail(c, offset + SECTION_HEAD + length, "the checksum %016llx does not match the content's %016llx",
                      (unsigned long long)stored, (unsigned long long)sum);
    return true;
}

void orr_recording_close(orr_recording *rec)
{
    if (!rec) return;
    const orr_allocator a = rec->allocator;
    orri_free(&a, rec->data, rec->size);
    orri_free(&a, rec->frames, (size_t)rec->frame_capacity * sizeof *rec->frames);
    orri_free(&a, rec->frame_key, rec->frame_key_capacity);
    orri_free(&a, rec->resources, (size_t)rec->resource_capacity * sizeof *rec->resources);
    orri_free(&a, rec->keys, (size_t)rec->key_count * sizeof *rec->keys);
    orri_free(&a, rec->scratch, (size_t)rec->scratch_capacity * sizeof *rec->scratch);
    orri_free(&a, rec->fresh, rec->fresh_capacity);
    orri_free(&a, rec, sizeof *rec);
}

static orr_result refuse(orr_error *err, uint64_t at, const char *what)
{
    return orri_error(err, ORR_ERROR_PARSE, "recording: %s at byte %llu", what, (unsigned long long)at);
}

/* Checks the framing and the index of rec->data, and every resource. */
static orr_result parse(orr_recording *rec, orr_error *err)
{
    const uint8_t *d = rec->data;
    uint64_t size = rec->size;
    if (size < HEADER_BYTES || memcmp(d, FILE_MAGIC, 8) != 0)
        return refuse(err, 0, "the file header (an Orrery recording begins with \"ORRYREC\\n\") is missing");
    uint64_t sum;
    memcpy(&sum, d + 16, 8);
    if (sum != orr_recording_checksum(d, 16)) return refuse(err, 16, "the file header's checksum does not match");
    memcpy(&rec->format_version, d + 8, 4);
    memcpy(&rec->library_version, d + 12, 4);
    if (rec->format_version < MIN_FORMAT_VERSION || rec->format_version > FORMAT_VERSION)
        return orri_error(err, ORR_ERROR_UNSUPPORTED,
                          "recording: file header at byte 8: format version %u, this library reads versions %u to %u",
                          rec->format_version, MIN_FORMAT_VERSION, FORMAT_VERSION);
    if (size < HEADER_BYTES + TRAILER_BYTES || memcmp(d + size - TRAILER_BYTES, END_MAGIC, 8) != 0)
        return refuse(err, size < TRAILER_BYTES ? 0 : size - TRAILER_BYTES,
                      "the trailer is missing (a recording cut short, or not finished)");
    const uint8_t *t = d + size - TRAILER_BYTES;
    memcpy(&sum, t + 16, 8);
    if (sum != orr_recording_checksum(t, 16)) return refuse(err, size - 8, "the trailer's checksum does not match");
    uint64_t index;
    memcpy(&index, t + 8, 8);
    if (index < HEADER_BYTES || index > size - TRAILER_BYTES - SECTION_HEAD - SECTION_TAIL)
        return refuse(err, size - 16, "the trailer's index offset lies outside the sections");
    /* the sections, by their lengths, up to the index */
    const orr_allocator *a = &rec->allocator;
    bool meta = false;
    for (uint64_t at = HEADER_BYTES; at <= index;) {
        uint64_t limit = at == index ? size - TRAILER_BYTES : index;
        if (limit - at < SECTION_HEAD) return refuse(err, at, "a section header runs into the index");
        uint32_t type, reserved;
        uint64_t length;
        memcpy(&type, d + at, 4);
        memcpy(&reserved, d + at + 4, 4);
        memcpy(&length, d + at + 8, 8);
        uint64_t room = limit - at - SECTION_HEAD;
        if (type < SEC_META || type > SEC_INDEX || reserved != 0) return refuse(err, at, "a section of unknown type");
        if (length > room || room - length < SECTION_TAIL) return refuse(err, at + 8, "a section's length runs past its room");
        if ((type == SEC_INDEX) != (at == index))
            return refuse(err, at, type == SEC_INDEX ? "an index section before the index" : "the trailer's index offset names no index section");
        if ((type == SEC_META) != (at == HEADER_BYTES))
            return refuse(err, at, "the metadata section is not the first section, or not alone");
        uint64_t total = SECTION_HEAD + length + SECTION_TAIL;
        if (type == SEC_META) {
            cursor c;
            if (!open_section(rec, at, SEC_META, &c, err)) return c.failed;
            if (length > MAX_METADATA) return refuse(err, at + 8, "metadata longer than 65536 bytes");
            rec->metadata = d + at + SECTION_HEAD;
            rec->metadata_size = (uint32_t)length;
            meta = true;
        } else if (type == SEC_RESOURCE) {
            if (!ORRI_GROW(a, rec->resources, rec->resource_capacity, rec->resource_count + 1))
                return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "recording: out of memory");
            rec->resources[rec->resource_count++] = at;
            rec->stats.resource_bytes += total;
        } else if (type == SEC_FRAME) {
            if (length < 1) return refuse(err, at + 8, "an empty frame section");
            if (rec->frame_count >= UINT32_MAX - 1 || !ORRI_GROW(a, rec->frames, rec->frame_capacity, (uint32_t)rec->frame_count + 1) ||
                !ORRI_GROW(a, rec->frame_key, rec->frame_key_capacity, (uint32_t)rec->frame_count + 1))
                return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "recording: out of memory");
            uint8_t kind = d[at + SECTION_HEAD];
            rec->frames[rec->frame_count] = at;
            rec->frame_key[rec->frame_count] = kind == FRAME_KEY;
            rec->frame_count++;
            if (kind == FRAME_KEY) rec->stats.key_frame_bytes += total, rec->stats.key_frames++;
            else rec->stats.delta_bytes += total;
        }
        if (at == index) break;
        at += total;
        if (at > index) return refuse(err, at, "the sections run past the index");
    }
    if (!meta) return refuse(err, HEADER_BYTES, "the metadata section is missing");
    /* the index */
    cursor c;
    if (!open_section(rec, index, SEC_INDEX, &c, err)) return c.failed;
    uint64_t frames = c_u64(&c, "frame count");
    uint32_t keys = c_u32(&c, "key frame count"), resources = c_u32(&c, "resource count");
    if (c.failed != ORR_OK) return c.failed;
    if (frames != rec->frame_count)
        return c_fail(&c, index + SECTION_HEAD, "the index counts %llu frames, the file holds %llu",
                      (unsigned long long)frames, (unsigned long long)rec->frame_count), c.failed;
    if (resources != rec->resource_count)
        return c_fail(&c, index + SECTION_HEAD + 12, "the index counts %u resources, the file holds %u", resources,
                      rec->resource_count), c.failed;
    if ((uint64_t)keys * 16 + (uint64_t)resources * 8 != c_left(&c))
        return c_fail(&c, c.at, "the index's entries are not %u key frames and %u resources", keys, resources), c.failed;
    rec->keys = orri_alloc(a, (size_t)(keys ? keys : 1) * sizeof *rec->keys);
    if (!rec->keys) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "recording: out of memory");
    rec->key_count = keys;
    uint32_t walked = 0;
    for (uint64_t p = 0; p < rec->frame_count; p++) walked += rec->frame_key[p];
    if (walked != keys)
        return c_fail(&c, index + SECTION_HEAD + 8, "the index lists %u key frames, the file holds %u", keys, walked), c.failed;
    for (uint32_t k = 0; k < keys; k++) {
        uint64_t at = c.at;
        key_entry e = {c_u64(&c, "key position"), c_u64(&c, "key offset")};
        if (e.position >= rec->frame_count || (k && e.position <= rec->keys[k - 1].position) ||
            rec->frames[e.position] != e.offset || !rec->frame_key[e.position] || (k == 0 && e.position != 0))
            return c_fail(&c, at, "key frame entry %u (frame %llu at byte %llu) is not a key frame of the file", k,
                          (unsigned long long)e.position, (unsigned long long)e.offset), c.failed;
        rec->keys[k] = e;
    }
    if (rec->frame_count && !keys) return c_fail(&c, index, "the index lists no key frame"), c.failed;
    for (uint32_t k = 0; k < resources; k++) {
        uint64_t at = c.at, off = c_u64(&c, "resource offset");
        if (off != rec->resources[k])
            return c_fail(&c, at, "resource entry %u names byte %llu, not a resource section", k, (unsigned long long)off),
                   c.failed;
    }
    /* every resource, whole */
    for (uint32_t k = 0; k < rec->resource_count; k++) {
        cursor r;
        if (!open_section(rec, rec->resources[k], SEC_RESOURCE, &r, err)) return r.failed;
        uint64_t at = r.at;
        uint32_t kind = c_u32(&r, "kind"), idx = c_u32(&r, "id"), gen = c_u32(&r, "id"), flags = c_u32(&r, "flags");
        uint64_t hash = c_u64(&r, "content hash");
        if (r.failed != ORR_OK) return r.failed;
        (void)idx;
        if (kind < ORR_RESOURCE_TEXTURE || kind > ORR_RESOURCE_MESH) return c_fail(&r, at, "kind %u is no resource kind", kind), r.failed;
        if (gen == 0) return c_fail(&r, at + 8, "the id's generation is 0"), r.failed;
        if (flags & ~(rec->format_version >= 2 ? RES_SHARED : 0u))
            return c_fail(&r, at + 12, "flags %#x: unknown in format version %u", flags, rec->format_version), r.failed;
        if (flags & RES_SHARED) { /* names an earlier, unshared resource of the same kind and hash */
            uint32_t first = c_left(&r) == 4 ? c_u32(&r, "shared resource") : NONE;
            orr_recording_resource named = {0};
            if (first >= k || orr_recording_get_resource(rec, first, &named) != ORR_OK || named.kind != (orr_resource_kind)kind ||
                named.hash != hash || (rec->data[rec->resources[first] + SECTION_HEAD + 12] & RES_SHARED))
                return c_fail(&r, at + 24, "a shared resource names no earlier resource of its kind and content"),
                       r.failed;
            rec->stats.resources_shared++;
        } else if (hash != orr_recording_checksum(rec->data + r.at, c_left(&r))) {
            return c_fail(&r, at + 16, "the content hash does not match the payload"), r.failed;
        }
    }
    rec->stats.frames = rec->frame_count;
    rec->stats.resources = rec->resource_count;
    rec->stats.bytes = size;
    return ORR_OK;
}

orr_result orr_recording_open_memory(const void *bytes, size_t size, const orr_allocator *allocator, orr_recording **out,
                                     orr_error *err)
{
    ORRI_ASSERT(out && (bytes || !size), "orr_recording_open_memory: bytes and out");
    orr_allocator a = orri_allocator_or_default(allocator);
    orr_recording *rec = orri_alloc(&a, sizeof *rec);
    if (!rec) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "recording: out of memory");
    rec->allocator = a;
    rec->data = orri_alloc(&a, size ? size : 1);
    if (!rec->data) {
        orri_free(&a, rec, sizeof *rec);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "recording: out of memory for %zu bytes", size);
    }
    rec->size = size ? size : 1;
    if (size) memcpy(rec->data, bytes, size);
    rec->size = size;
    orr_result r = parse(rec, err);
    if (r != ORR_OK) {
        rec->size = size ? size : 1;
        orr_recording_close(rec);
        return r;
    }
    *out = rec;
    return ORR_OK;
}

orr_result orr_recording_open(const char *path, const orr_allocator *allocator, orr_recording **out, orr_error *err)
{
    ORRI_ASSERT(path && out, "orr_recording_open: a path and out");
    FILE *f = fopen(path, "rb");
    if (!f) return orri_error(err, ORR_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    orr_allocator a = orri_allocator_or_default(allocator);
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return orri_error(err, ORR_ERROR_IO, "%s: cannot read its size", path);
    }
    uint8_t *data = orri_alloc(&a, size ? (size_t)size : 1);
    if (!data) {
        fclose(f);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %ld bytes", path, size);
    }
    size_t got = size ? fread(data, 1, (size_t)size, f) : 0;
    fclose(f);
    orr_result r = ORR_OK;
    if (got != (size_t)size) r = orri_error(err, ORR_ERROR_IO, "%s: read %zu of %ld bytes", path, got, size);
    else r = orr_recording_open_memory(data, (size_t)size, &a, out, err);
    orri_free(&a, data, size ? (size_t)size : 1);
    if (r != ORR_OK && err && strncmp(err->message, path, strlen(path)) != 0) {
        char msg[sizeof err->message];
        memcpy(msg, err->message, sizeof msg);
        orri_error(err, r, "%s: %.400s", path, msg);
    }
    return r;
}

void orr_recording_get_info(const orr_recording *rec, orr_recording_info *info)
{
    *info = (orr_recording_info){.format_version = rec->format_version, .library_version = rec->library_version,
                                 .metadata = rec->metadata, .metadata_size = rec->metadata_size, .stats = rec->stats};
}

orr_result orr_recording_get_resource(const orr_recording *rec, uint32_t i, orr_recording_resource *out)
{
    if (i >= rec->resource_count) return ORR_ERROR_NOT_FOUND;
    const uint8_t *p = rec->data + rec->resources[i] + SECTION_HEAD;
    uint64_t length;
    memcpy(&length, rec->data + rec->resources[i] + 8, 8);
    uint32_t kind;
    memcpy(&kind, p, 4);
    out->kind = (orr_resource_kind)kind;
    memcpy(&out->index, p + 4, 4);
    memcpy(&out->generation, p + 8, 4);
    memcpy(&out->hash, p + 16, 8);
    out->bytes = p + 24;
    out->size = (size_t)(length - 24);
    uint32_t flags, first;
    memcpy(&flags, p + 12, 4);
    if ((flags & RES_SHARED) && out->size == 4 && (memcpy(&first, p + 24, 4), first < i)) {
        /* the payload of the resource it names (checked when the recording was opened) */
        const uint8_t *q = rec->data + rec->resources[first] + SECTION_HEAD;
        memcpy(&length, rec->data + rec->resources[first] + 8, 8);
        out->bytes = q + 24;
        out->size = (size_t)(length - 24);
    }
    return ORR_OK;
}

/* Empty (frame 0, no instances), storage kept: the index entries of its instances cleared (the reader
 * keeps index_of naming exactly the instances present, and checks every entry it reads against the
 * instance it names, so that a stale entry of a snapshot made elsewhere is never taken for one). */
static void reset(orr_snapshot *s)
{
    for (uint32_t i = 0; i < s->instance_count; i++) {
        uint32_t id = s->instances[i].id;
        if (id < s->index_capacity && s->index_of[id] == i) s->index_of[id] = NONE;
    }
    s->frame = s->tick = s->revision = s->structure_version = s->layout_version = s->delta_base = 0;
    s->instance_count = s->light_count = s->camera_count = s->joint_count = s->material_binding_count = 0;
    s->fur_count = s->changed_count = s->removed_count = s->names_size = s->weight_count = 0;
}

/* The index of instance `id` in `s`, or NONE: an index entry is taken only when it names that id. */
static uint32_t find(const orr_snapshot *s, uint32_t id)
{
    uint32_t i = orr_snapshot_find(s, id);
    return i < s->instance_count && s->instances[i].id == id ? i : NONE;
}

static orr_mesh_id map_mesh(const orr_snapshot_remap *m, orr_mesh_id id)
{
    return m && m->mesh && !orr_id_is_none(id) ? m->mesh(m->user, id) : id;
}

static orr_material_id map_material(const orr_snapshot_remap *m, orr_material_id id)
{
    return m && m->material && !orr_id_is_none(id) ? m->material(m->user, id) : id;
}

/* The instances in the order the frame lists (ids new to it zeroed and marked fresh). */
static bool read_order(orr_recording *rec, cursor *c, orr_snapshot *s, uint32_t count)
{
    const orr_allocator *a = &s->allocator;
    if ((uint64_t)count * 4 > c_left(c)) return c_fail(c, c->at, "the order of %u instances runs past the section", count);
    if (!ORRI_GROW(&rec->allocator, rec->scratch, rec->scratch_capacity, count) ||
        !ORRI_GROW(&rec->allocator, rec->fresh, rec->fresh_capacity, count))
        return c_oom(c);
    uint32_t top = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t at = c->at;
        uint32_t id = c_u32(c, "instance id");
        if (id >= MAX_ID) return c_fail(c, at, "instance id %u is not below %u", id, MAX_ID);
        uint32_t j = find(s, id);
        if (j != NONE) {
            rec->scratch[i] = s->instances[j];
            rec->fresh[i] = 0;
        } else {
            memset(&rec->scratch[i], 0, sizeof rec->scratch[i]);
            rec->scratch[i].id = id;
            rec->scratch[i].joint_offset = NONE;
            rec->fresh[i] = 1;
        }
        if (id + 1 > top) top = id + 1;
    }
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (s->instances[i].id < s->index_capacity && s->index_of[s->instances[i].id] == i)
            s->index_of[s->instances[i].id] = NONE;
    if (top > s->index_capacity) {
        uint32_t old = s->index_capacity;
        if (!ORRI_GROW(a, s->index_of, s->index_capacity, top)) return c_oom(c);
        memset(s->index_of + old, 0xff, (size_t)(s->index_capacity - old) * sizeof *s->index_of);
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t id = rec->scratch[i].id, e = s->index_of[id];
        if (e < i && rec->scratch[e].id == id) {
            for (uint32_t k = 0; k < i; k++) s->index_of[rec->scratch[k].id] = NONE;
            s->instance_count = 0; /* the ids are gone from the index: the snapshot is emptied by the caller */
            return c_fail(c, c->at - 4 * (uint64_t)(count - i), "instance id %u is listed twice", id);
        }
        s->index_of[id] = i;
    }
    /* the scratch becomes the instances */
    orr_render_instance *t = s->instances;
    uint32_t cap = s->instance_capacity;
    s->instances = rec->scratch;
    s->instance_capacity = rec->scratch_capacity;
    rec->scratch = t;
    rec->scratch_capacity = cap;
    s->instance_count = count;
    return true;
}

/* One record. `base`: in a version 3 key frame, the index of the record read before it in the frame
 * (NONE for the first): what the record leaves out is that one's, except material overrides. */
static bool read_record(orr_recording *rec, cursor *c, orr_snapshot *s, bool order, uint32_t old_joints,
                        const orr_snapshot_remap *remap, uint32_t *base)
{
    const orr_allocator *a = &s->allocator;
    const bool v3 = rec->format_version >= 3;
    uint64_t at = c->at;
    uint32_t id = c_u32(c, "record id");
    uint8_t f = c_u8(c, "record fields");
    if (c->failed != ORR_OK) return false;
    if (f & ~(v3 ? F_ALL3 : F_ALL))
        return c_fail(c, at + 4, "record fields %#x has unknown bits in format version %u", f, rec->format_version);
    uint32_t i = find(s, id);
    if (i == NONE) return c_fail(c, at, "a record for instance id %u, which the frame does not hold", id);
    orr_render_instance *in = &s->instances[i];
    bool fresh = order && rec->fresh[i];
    if (base && !fresh) return c_fail(c, at, "instance id %u has two records in a key frame", id);
    uint8_t need = v3 ? F_NEW | F_ENTITY : F_NEW;
    if (base && *base != NONE) { /* a key frame's: what it leaves out is the record before's */
        const orr_render_instance *b = &s->instances[*base];
        *in = *b;
        in->id = id;
        in->material_offset = in->material_count = 0; /* overrides are never shared (a later delta writes them in place) */
        need = 0;
    }
    if (fresh && (f & need) != need) return c_fail(c, at + 4, "instance id %u is new and its record lacks fields", id);
    if (order) rec->fresh[i] = 0;
    if (base) *base = i;
    uint32_t old_offset = in->joint_offset, old_count = in->joint_count, old_materials = in->material_count;
    if (f & F_WORLD) c_affine(c, &in->world, &in->world, "world");
    if (f & F_ENTITY) {
        in->entity.index = c_u32(c, "entity");
        in->entity.generation = c_u32(c, "entity");
    }
    if (f & F_CORE) {
        if (!v3) {
            in->entity.index = c_u32(c, "entity");
            in->entity.generation = c_u32(c, "entity");
        }
        orr_mesh_id mesh = {c_u32(c, "mesh"), 0};
        mesh.generation = c_u32(c, "mesh");
        in->layers = c_u32(c, "layers");
        uint64_t flags_at = c->at;
        uint8_t visible = c_u8(c, "visible"), shadows = c_u8(c, "casts shadows");
        const uint8_t *p = c_take(c, sizeof in->bounds, "bounds");
        if (p) memcpy(&in->bounds, p, sizeof in->bounds);
        in->joint_offset = c_u32(c, "joint offset");
        in->joint_count = c_u32(c, "joint count");
        in->weight_offset = c_u32(c, "weight offset");
        in->weight_count = c_u32(c, "weight count");
        p = c_take(c, sizeof in->reserved, "reserved");
        if (p) memcpy(in->reserved, p, sizeof in->reserved);
        if (c->failed != ORR_OK) return false;
        if (visible > 1 || shadows > 1) return c_fail(c, flags_at, "visible or casts shadows is neither 0 nor 1");
        in->visible = visible;
        in->casts_shadows = shadows;
        in->mesh = map_mesh(remap, mesh);
    }
    if ((f & F_NAME) && !c_name(c, a, s, &in->name, "name")) return false;
    if (f & F_MATERIALS) {
        uint64_t mat_at = c->at;
        uint32_t n = c_u32(c, "material count");
        if ((uint64_t)n * 8 > c_left(c)) return c_fail(c, mat_at, "%u material bindings run past the section", n);
        uint32_t offset = in->material_offset;
        if (n > old_materials || (uint64_t)offset + n > s->material_binding_count) {
            if ((uint64_t)s->material_binding_count + n > UINT32_MAX ||
                !ORRI_GROW(a, s->material_bindings, s->material_binding_capacity, s->material_binding_count + n))
                return c_oom(c);
            offset = s->material_binding_count;
            s->material_binding_count += n;
        }
        for (uint32_t k = 0; k < n; k++) {
            orr_material_id m = {c_u32(c, "material"), 0};
            m.generation = c_u32(c, "material");
            s->material_bindings[offset + k] = map_material(remap, m);
        }
        in->material_offset = n ? offset : 0;
        in->material_count = n;
    }
    bool ranged = !in->joint_count || (in->joint_offset != NONE && (uint64_t)in->joint_offset + in->joint_count <= s->joint_count);
    if (!ranged)
        return c_fail(c, at, "instance id %u's joints %u..+%u lie outside the frame's %u", id, in->joint_offset,
                      in->joint_count, s->joint_count);
    if (f & F_JOINTS) {
        if (!in->joint_count) return c_fail(c, at + 4, "instance id %u has joints in its record and none in its range", id);
        bool based = old_count == in->joint_count && old_offset == in->joint_offset && old_offset != NONE &&
                     (uint64_t)old_offset + old_count <= old_joints;
        orr_affine3d *dst = s->joints + in->joint_offset;
        for (uint32_t j = 0; j < in->joint_count && c->failed == ORR_OK; j++) c_affine(c, &dst[j], based ? &dst[j] : NULL, "joint");
    }
    if (in->weight_count && (uint64_t)in->weight_offset + in->weight_count > s->weight_count)
        return c_fail(c, at, "instance id %u's morph weights %u..+%u lie outside the frame's %u", id, in->weight_offset,
                      in->weight_count, s->weight_count);
    if (fresh && in->weight_count && !(f & F_WEIGHTS))
        return c_fail(c, at + 4, "instance id %u is new and its record lacks its morph weights", id);
    if (f & F_WEIGHTS) {
        if (!in->weight_count) return c_fail(c, at + 4, "instance id %u has weights in its record and none in its range", id);
        const uint8_t *w = c_take(c, (uint64_t)in->weight_count * 4, "morph weights");
        if (w) memcpy(s->weights + in->weight_offset, w, (size_t)in->weight_count * 4);
    }
    return c->failed == ORR_OK;
}

static bool read_sources(cursor *c, orr_snapshot *s, uint8_t flags)
{
    const orr_allocator *a = &s->allocator;
    if (flags & HAS_LIGHTS) {
        uint64_t at = c->at;
        uint32_t n = c_u32(c, "light count");
        if ((uint64_t)n * 140 > c_left(c)) return c_fail(c, at, "%u lights run past the section", n);
        if (!ORRI_GROW(a, s->lights, s->light_capacity, n)) return c_oom(c);
        s->light_count = 0;
        for (uint32_t i = 0; i < n; i++) {
            orr_render_light *l = &s->lights[i];
            memset(l, 0, sizeof *l);
            l->entity.index = c_u32(c, "light entity");
            l->entity.generation = c_u32(c, "light entity");
            uint64_t type_at = c->at;
            uint32_t type = c_u32(c, "light type");
            const uint8_t *p = c_take(c, sizeof l->world, "light world");
            if (p) memcpy(&l->world, p, sizeof l->world);
            p = c_take(c, 28, "light values");
            if (p) memcpy(l->color, p, 28);
            if (!c_name(c, a, s, &l->name, "light name")) return false;
            l->casts_shadows = (type & LIGHT_CASTS_SHADOWS) != 0;
            type &= ~LIGHT_CASTS_SHADOWS;
            if (type > ORR_LIGHT_SPOT) return c_fail(c, type_at, "light type %u", type);
            l->type = (orr_light_type)type;
            s->light_count = i + 1;
        }
    }
    if (flags & HAS_CAMERAS) {
        uint64_t at = c->at;
        uint32_t n = c_u32(c, "camera count");
        if ((uint64_t)n * 160 > c_left(c)) return c_fail(c, at, "%u cameras run past the section", n);
        if (!ORRI_GROW(a, s->cameras, s->camera_capacity, n)) return c_oom(c);
        s->camera_count = 0;
        for (uint32_t i = 0; i < n; i++) {
            orr_render_camera *cam = &s->cameras[i];
            memset(cam, 0, sizeof *cam);
            cam->entity.index = c_u32(c, "camera entity");
            cam->entity.generation = c_u32(c, "camera entity");
            uint64_t type_at = c->at;
            uint32_t projection = c_u32(c, "projection");
            const uint8_t *p = c_take(c, sizeof cam->world, "camera world");
            if (p) memcpy(&cam->world, p, sizeof cam->world);
            p = c_take(c, 48, "camera values");
            if (p) memcpy(&cam->yfov, p, 48);
            if (!c_name(c, a, s, &cam->name, "camera name")) return false;
            if (projection > ORR_ORTHOGRAPHIC) return c_fail(c, type_at, "projection %u", projection);
            cam->projection = (orr_projection)projection;
            s->camera_count = i + 1;
        }
    }
    if (flags & HAS_FUR) {
        uint64_t at = c->at;
        uint32_t n = c_u32(c, "fur count");
        if ((uint64_t)n * sizeof(orr_render_fur) > c_left(c)) return c_fail(c, at, "%u fur entries run past the section", n);
        if (!ORRI_GROW(a, s->fur, s->fur_capacity, n)) return c_oom(c);
        const uint8_t *p = c_take(c, (uint64_t)n * sizeof(orr_render_fur), "fur entries");
        if (p && n) memcpy(s->fur, p, (size_t)n * sizeof(orr_render_fur));
        s->fur_count = n;
    }
    for (uint32_t k = 0; k < s->fur_count; k++)
        if (s->fur[k].instance >= s->instance_count || (k && s->fur[k].instance <= s->fur[k - 1].instance))
            return c_fail(c, c->at, "fur entry %u names instance %u (of %u), out of order or range", k, s->fur[k].instance,
                          s->instance_count);
    return c->failed == ORR_OK;
}

static bool read_ids(cursor *c, const orr_allocator *a, uint32_t **ids, uint32_t *count, uint32_t *capacity,
                     const char *what)
{
    uint64_t at = c->at;
    uint32_t n = c_u32(c, what);
    if ((uint64_t)n * 4 > c_left(c)) return c_fail(c, at, "%u %s ids run past the section", n, what);
    if (!orri_grow(a, (void **)ids, capacity, n, 4)) return c_oom(c);
    const uint8_t *p = c_take(c, (uint64_t)n * 4, what);
    if (p && n) memcpy(*ids, p, (size_t)n * 4);
    *count = n;
    return c->failed == ORR_OK;
}

/* Applies frame `position` to `s`, which holds the frame before it (or anything, for a key frame). */
static orr_result apply(orr_recording *rec, uint64_t position, const orr_snapshot_remap *remap, orr_snapshot *s,
                        orr_error *err)
{
    cursor c;
    if (!open_section(rec, rec->frames[position], SEC_FRAME, &c, err)) return c.failed;
    const orr_allocator *a = &s->allocator;
    uint64_t start = c.at;
    uint8_t kind = c_u8(&c, "kind"), flags = c_u8(&c, "flags");
    uint16_t pad = c_u16(&c, "reserved");
    uint64_t head[6];
    for (int k = 0; k < 6; k++) head[k] = c_u64(&c, "frame numbers");
    uint32_t count = c_u32(&c, "instance count"), joints = c_u32(&c, "joint count"), records = c_u32(&c, "record count");
    if (c.failed != ORR_OK) return c.failed;
    if (kind > FRAME_DELTA || pad) return c_fail(&c, start, "kind %u is neither key (0) nor delta (1)", kind), c.failed;
    if (flags & ~HAS_ALL) return c_fail(&c, start + 1, "flags %#x has unknown bits", flags), c.failed;
    if (kind == FRAME_KEY) {
        if (!(flags & HAS_ORDER)) return c_fail(&c, start + 1, "a key frame without its order"), c.failed;
        reset(s);
    }
    if (!(flags & HAS_ORDER) && count != s->instance_count)
        return c_fail(&c, start + 52, "%u instances, the frame before held %u and no order is given", count,
                      s->instance_count), c.failed;
    /* every referenced joint takes at least its 2-byte mask in some record of this or an earlier frame */
    uint64_t joint_room = (uint64_t)s->joint_count + (c.end - start) / 2;
    if (joints > joint_room)
        return c_fail(&c, start + 56, "%u joints, more than the frames so far can hold (%llu)", joints,
                      (unsigned long long)joint_room), c.failed;
    uint32_t weights = s->weight_count, old_weights = s->weight_count;
    if (flags & HAS_WEIGHTS) {
        weights = c_u32(&c, "weight count");
        if (c.failed != ORR_OK) return c.failed;
        if (weights > (uint64_t)s->weight_count + (c.end - start) / 4)
            return c_fail(&c, start + 64, "%u morph weights, more than the frames so far can hold", weights), c.failed;
    }
    if (!ORRI_GROW(a, s->weights, s->weight_capacity, weights)) return c_oom(&c), c.failed;
    if (weights > s->weight_count) memset(s->weights + s->weight_count, 0, (size_t)(weights - s->weight_count) * sizeof *s->weights);
    s->weight_count = weights;
    uint32_t old_joints = s->joint_count;
    if (!ORRI_GROW(a, s->joints, s->joint_capacity, joints)) return c_oom(&c), c.failed;
    if (joints > s->joint_count) memset(s->joints + s->joint_count, 0, (size_t)(joints - s->joint_count) * sizeof *s->joints);
    s->joint_count = joints;
    bool order = flags & HAS_ORDER;
    if (order && !read_order(rec, &c, s, count)) return c.failed;
    if ((uint64_t)records * 5 > c_left(&c)) return c_fail(&c, start + 60, "%u records run past the section", records), c.failed;
    uint64_t records_at = c.at;
    uint32_t key_base = NONE, *base = kind == FRAME_KEY && rec->format_version >= 3 ? &key_base : NULL;
    for (uint32_t k = 0; k < records; k++)
        if (!read_record(rec, &c, s, order, old_joints, remap, base)) return c.failed;
    if (order)
        for (uint32_t i = 0; i < count; i++)
            if (rec->fresh[i])
                return c_fail(&c, records_at, "instance id %u is new in this frame and has no record", s->instances[i].id),
                       c.failed;
    if (order || joints < old_joints || weights < old_weights) /* ranges of instances without a record: only when an
                                                                array shrank */
        for (uint32_t i = 0; i < count; i++) {
            const orr_render_instance *in = &s->instances[i];
            if (in->joint_count && (in->joint_offset == NONE || (uint64_t)in->joint_offset + in->joint_count > joints))
                return c_fail(&c, start + 56, "instance id %u's joints lie outside the frame's %u", in->id, joints), c.failed;
            if (in->weight_count && (uint64_t)in->weight_offset + in->weight_count > weights)
                return c_fail(&c, start + 60, "instance id %u's morph weights lie outside the frame's %u", in->id, weights),
                       c.failed;
        }
    if (!read_sources(&c, s, flags)) return c.failed;
    s->changed_at_count = 0; /* the extraction's hint: a recording holds none */
    if (!read_ids(&c, a, &s->changed, &s->changed_count, &s->changed_capacity, "changed") ||
        !read_ids(&c, a, &s->removed, &s->removed_count, &s->removed_capacity, "removed"))
        return c.failed;
    if (c.at != c.end) return c_fail(&c, c.at, "the frame ends before its section does"), c.failed;
    s->frame = head[0];
    s->tick = head[1];
    s->revision = head[2];
    s->structure_version = head[3];
    s->layout_version = head[4];
    s->delta_base = head[5];
    return ORR_OK;
}

static bool same_remap(const orr_snapshot_remap *x, const orr_snapshot_remap *y)
{
    return x->mesh == y->mesh && x->material == y->material && x->user == y->user;
}

orr_result orr_recording_read_frame(orr_recording *rec, uint64_t position, const orr_snapshot_remap *remap,
                                    orr_snapshot *s, orr_error *err)
{
    ORRI_ASSERT(rec && s && s->allocator.realloc, "orr_recording_read_frame: a recording and an initialised snapshot");
    if (position >= rec->frame_count)
        return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "recording: frame %llu asked for, it holds %llu frames (0..%llu)",
                          (unsigned long long)position, (unsigned long long)rec->frame_count,
                          (unsigned long long)(rec->frame_count ? rec->frame_count - 1 : 0));
    orr_snapshot_remap want = remap ? *remap : (orr_snapshot_remap){0};
    bool next = rec->last_valid && position == rec->last_position + 1 && !rec->frame_key[position] &&
                s->frame == rec->stamp_frame && s->instance_count == rec->stamp_instances &&
                s->joint_count == rec->stamp_joints && s->names_size == rec->stamp_names &&
                s->changed_count == rec->stamp_changed && same_remap(&want, &rec->last_remap);
    rec->last_valid = false;
    orr_result r = ORR_OK;
    if (next) {
        r = apply(rec, position, remap, s, err);
    } else {
        uint32_t lo = 0, hi = rec->key_count; /* the last key at or before the position */
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (rec->keys[mid].position <= position) lo = mid;
            else hi = mid;
        }
        for (uint64_t p = rec->keys[lo].position; r == ORR_OK && p <= position; p++) r = apply(rec, p, remap, s, err);
    }
    if (r != ORR_OK) {
        reset(s);
        return r;
    }
    rec->last_valid = true;
    rec->last_position = position;
    rec->stamp_frame = s->frame;
    rec->stamp_instances = s->instance_count;
    rec->stamp_joints = s->joint_count;
    rec->stamp_names = s->names_size;
    rec->stamp_changed = s->changed_count;
    rec->last_remap = want;
    return ORR_OK;
}
