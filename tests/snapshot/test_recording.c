/* Recordings with the snapshot module alone: a sequence of hand-made frames (moves, a rename, a
 * rebinding, joints that move, instances that come and go and change places, lights, cameras and fur
 * that change) is written with key frames every 4 frames and read back, in order, backwards and at
 * random, each frame equal to the one recorded field for field; and a recording truncated at every
 * length or with any one byte flipped is refused, with a message naming a section or header and a
 * byte offset, never read as something else. */
#include "testutil.h"

#include <dirent.h>
#include <orrery/snapshot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_tests.h"

#define FRAMES 24

/* Frame f of the sequence, from frame f - 1 (`s` holds it). Changes keep the snapshot's delta exact:
 * changed and removed against the frame before, delta_base its frame. */
static void step(orr_snapshot *s, uint32_t f)
{
    s->frame = f + 1;
    s->tick = f;
    s->delta_base = f;
    s->changed_count = 0;
    s->removed_count = 0;
    const orr_allocator *a = &s->allocator;
    s->changed = a->realloc(a->user, s->changed, (size_t)s->changed_capacity * 4, 16 * 4);
    s->removed = a->realloc(a->user, s->removed, (size_t)s->removed_capacity * 4, 16 * 4);
    s->changed_capacity = s->removed_capacity = 16;
    /* instance 0 moves every frame */
    s->instances[0].world.m[9] += 0.5;
    s->instances[0].world.m[10] = f * 1e-7;
    s->changed[s->changed_count++] = s->instances[0].id;
    if (s->instance_count > 1 && s->instances[1].joint_count) { /* the skinned one's joints move */
        s->joints[s->instances[1].joint_offset + 1].m[9] = 0.1 * f;
        s->changed[s->changed_count++] = s->instances[1].id;
    }
    if (f == 5) { /* a rename: "lamp" */
        s->instances[2].name = 9;
        s->changed[s->changed_count++] = s->instances[2].id;
    }
    if (f == 7) { /* a rebinding */
        s->material_bindings[s->instances[2].material_offset] = (orr_material_id){8, 3};
        s->layout_version++;
        s->changed[s->changed_count++] = s->instances[2].id;
    }
    if (f % 3 == 1) s->weights[1] = 0.1f * f; /* instance 0's morph weights, listed as it moves */
    if (f == 9) s->lights[0].intensity = 9; /* lights and cameras need no ids */
    if (f == 10) s->cameras[0].world.m[9] = -3;
    if (f == 11) { /* a fur value: the furry one's data, so it is listed (orr_render_fur) */
        s->fur[0].density = 7;
        uint32_t id = s->instances[s->fur[0].instance].id;
        if (s->changed[s->changed_count - 1] != id) s->changed[s->changed_count++] = id;
    }
    if (f == 13) { /* the last two change places: the order changes, their data does not */
        orr_render_instance t = s->instances[1];
        s->instances[1] = s->instances[2];
        s->instances[2] = t;
        s->index_of[s->instances[1].id] = 1;
        s->index_of[s->instances[2].id] = 2;
        s->fur[0].instance = 1; /* the furry one moved */
        s->layout_version++;
    }
    if (f == 17) { /* the first leaves */
        uint32_t gone = s->instances[0].id;
        memmove(&s->instances[0], &s->instances[1], (s->instance_count - 1) * sizeof *s->instances);
        s->instance_count--;
        s->index_of[gone] = UINT32_MAX;
        for (uint32_t i = 0; i < s->instance_count; i++) s->index_of[s->instances[i].id] = i;
        s->fur[0].instance--;
        s->changed_count = 0;
        s->removed[s->removed_count++] = gone;
        s->layout_version++;
    }
    if (f == 19) { /* a new one comes, id 6, at the end, drawn with the first's mesh */
        s->instances[s->instance_count] = s->instances[0];
        orr_render_instance *in = &s->instances[s->instance_count];
        in->id = 6;
        in->entity = (orr_entity){6, 2};
        in->joint_offset = UINT32_MAX;
        in->joint_count = 0;
        in->material_count = 0;
        in->world.m[11] = 42;
        s->index_of[6] = s->instance_count++;
        s->changed[s->changed_count++] = 6;
        s->layout_version++;
    }
}

static char *temp_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", orrt_binary_dir(), name);
    return path;
}

/* Whether instance `i` of `s` changed only its pose (world, joint palette) since `was`: the rest of its
 * record, its bindings, morph weights and the fur sidecar as they were, at the same index. */
static bool pose_only(const orr_snapshot *was, const orr_snapshot *s, uint32_t i)
{
    const orr_render_instance *in = &s->instances[i];
    uint32_t j = orr_snapshot_find(was, in->id);
    if (j != i || j >= was->instance_count) return false;
    const orr_render_instance *o = &was->instances[j];
    if (memcmp((const char *)in + sizeof in->world, (const char *)o + sizeof o->world, sizeof *in - sizeof in->world))
        return false;
    if (in->material_count && memcmp(s->material_bindings + in->material_offset, was->material_bindings + o->material_offset,
                                     in->material_count * sizeof *s->material_bindings))
        return false;
    if (in->weight_count &&
        memcmp(s->weights + in->weight_offset, was->weights + o->weight_offset, in->weight_count * sizeof *s->weights))
        return false;
    return s->fur_count == was->fur_count && !memcmp(s->fur, was->fur, s->fur_count * sizeof *s->fur);
}

/* The extraction's hint (orr_snapshot.changed_at) for frame `s` after `was`, as an extraction gives it;
 * at frame 4 one entry names a wrong index (a stale hint: the recorder looks that one up). Returns the
 * pose-only entries. */
static uint32_t hint(const orr_snapshot *was, orr_snapshot *s)
{
    const orr_allocator *a = &s->allocator;
    s->changed_at = a->realloc(a->user, s->changed_at, (size_t)s->changed_at_capacity * 4, 16 * 4);
    s->changed_at_capacity = 16;
    uint32_t poses = 0;
    for (uint32_t k = 0; k < s->changed_count; k++) {
        uint32_t i = orr_snapshot_find(s, s->changed[k]);
        bool pose = pose_only(was, s, i);
        poses += pose;
        if (s->frame == 4 && k == 0) i = (i + 1) % s->instance_count, pose = true;
        s->changed_at[k] = i | (pose ? ORR_CHANGED_POSE : 0);
    }
    s->changed_at_count = s->changed_count;
    s->changed_at_frame = s->frame;
    return poses;
}

/* Writes FRAMES frames of the sequence (key frames every `interval`, format `version`) to `path`;
 * `frames` gets copies. `hinted`: each frame with the extraction's hint (changed_at); returns its
 * pose-only entries. */
static uint32_t write_sequence(const char *path, uint32_t interval, uint32_t version, orr_snapshot *frames, bool hinted)
{
    uint32_t poses = 0;
    orr_snapshot s;
    orr_snapshot_init(&s, NULL);
    orrt_snapshot_build(&s, 1);
    s.delta_base = 0;
    s.instances = s.allocator.realloc(s.allocator.user, s.instances, 3 * sizeof *s.instances, 8 * sizeof *s.instances);
    s.instance_capacity = 8;
    static const char meta[] = "{\"test\": true}";
    orr_recorder *rec;
    orr_error err = {0};
    assert_int_equal(orr_recorder_create(path, &(orr_recorder_desc){.key_interval = interval, .metadata = meta,
                                                                   .metadata_size = sizeof meta, .format_version = version},
                                         &rec, &err),
                     ORR_OK);
    static const uint8_t blob[5] = {1, 2, 3, 4, 5};
    assert_int_equal(orr_recorder_add_resource(rec, ORR_RESOURCE_MESH, 1, 1, blob, sizeof blob), ORR_OK);
    assert_true(orr_recorder_has_resource(rec, ORR_RESOURCE_MESH, 1, 1));
    assert_false(orr_recorder_has_resource(rec, ORR_RESOURCE_MESH, 1, 2));
    assert_int_equal(orr_recorder_add_resource(rec, ORR_RESOURCE_MESH, 1, 1, blob, sizeof blob), ORR_ERROR_INVALID_ARGUMENT);
    /* an equal mesh under another id: stored as a reference to the first */
    assert_int_equal(orr_recorder_add_resource(rec, ORR_RESOURCE_MESH, 2, 1, blob, sizeof blob), ORR_OK);
    for (uint32_t f = 0; f < FRAMES; f++) {
        if (f) step(&s, f);
        if (f == 3) { /* the same bytes as a texture: another kind, not shared; then the texture again */
            assert_int_equal(orr_recorder_add_resource(rec, ORR_RESOURCE_TEXTURE, 4, 1, blob, sizeof blob), ORR_OK);
            assert_int_equal(orr_recorder_add_resource(rec, ORR_RESOURCE_TEXTURE, 5, 1, blob, sizeof blob), ORR_OK);
        }
        if (f == 21) s.delta_base = 0; /* a delta the recorder cannot trust: it finds the changes itself */
        if (hinted && f) poses += hint(&frames[f - 1], &s);
        assert_int_equal(orr_recorder_add_frame(rec, &s), ORR_OK);
        assert_int_equal(orr_recorder_last_frame(rec), s.frame);
        orr_snapshot_init(&frames[f], NULL);
        assert_int_equal(orr_snapshot_copy(&s, &frames[f]), ORR_OK);
    }
    assert_int_equal(orr_recorder_finish(rec), ORR_OK);
    orr_recording_stats st;
    orr_recorder_get_stats(rec, &st);
    assert_int_equal(st.frames, FRAMES);
    assert_int_equal(st.key_frames, (FRAMES + interval - 1) / interval);
    assert_int_equal(st.resources, 4);
    assert_int_equal(st.resources_shared, 2);
    /* the recorder thread's own CPU time is counted (it encoded and wrote every frame) */
    if (!(st.thread_cpu_ms > 0)) fail_msg("the recorder thread's CPU time is %g ms", st.thread_cpu_ms);
    orr_recorder_destroy(rec);
    orr_snapshot_fini(&s);
    return poses;
}

static void expect_frame(orr_recording *rec, uint64_t p, const orr_snapshot *want, orr_snapshot *got)
{
    orr_error err = {0};
    if (orr_recording_read_frame(rec, p, NULL, got, &err) != ORR_OK) fail_msg("frame %llu: %s", (unsigned long long)p, err.message);
    if (!orr_snapshot_equal(want, got)) fail_msg("frame %llu read back differs from the one recorded", (unsigned long long)p);
}

/* With ORRERY_RECORDING_SEEDS=DIR, a copy of the recording at `path` (the sequence above: joints,
 * morph weights, fur, a rename, a rebinding, a reorder, a removal, an addition, an untrusted delta) goes
 * to DIR as a starting input of the recording fuzzer (tests/fuzz/fuzz_recording.c). */
static uint8_t *read_file(const char *path, size_t *size);
static void keep_seed(const char *path, uint32_t version)
{
    const char *dir = getenv("ORRERY_RECORDING_SEEDS");
    if (!dir) return;
    size_t size;
    uint8_t *bytes = read_file(path, &size);
    char out[4096];
    snprintf(out, sizeof out, "%s/seed_v%u_sequence_key_4.orrec", dir, version);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size) fail_msg("%s: cannot write", out);
    fclose(f);
    free(bytes);
}

/* The sequence written in format `version` (0: the default) and read back in order, backwards and at random. */
static void round_trip(uint32_t version, uint32_t want_version)
{
    const char *path = temp_path("test_recording.orrec");
    orr_snapshot frames[FRAMES];
    write_sequence(path, 4, version, frames, false);
    keep_seed(path, want_version);
    orr_recording *rec;
    orr_error err = {0};
    if (orr_recording_open(path, NULL, &rec, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_recording_info info;
    orr_recording_get_info(rec, &info);
    assert_int_equal(info.format_version, want_version);
    assert_int_equal(info.stats.frames, FRAMES);
    assert_int_equal(info.stats.key_frames, FRAMES / 4);
    assert_true(info.stats.thread_cpu_ms == 0); /* a recording read back has no recorder thread */
    assert_int_equal(info.metadata_size, sizeof "{\"test\": true}");
    assert_string_equal(info.metadata, "{\"test\": true}");
    orr_recording_resource res;
    assert_int_equal(orr_recording_get_resource(rec, 0, &res), ORR_OK);
    assert_int_equal(res.kind, ORR_RESOURCE_MESH);
    assert_int_equal(res.size, 5);
    assert_int_equal(((const uint8_t *)res.bytes)[4], 5);
    const void *first = res.bytes;
    assert_int_equal(orr_recording_get_resource(rec, 1, &res), ORR_OK); /* the shared mesh: the first's bytes */
    assert_int_equal(res.kind, ORR_RESOURCE_MESH);
    assert_int_equal(res.index, 2);
    assert_int_equal(res.size, 5);
    assert_ptr_equal(res.bytes, first);
    assert_int_equal(orr_recording_get_resource(rec, 2, &res), ORR_OK);
    assert_int_equal(res.kind, ORR_RESOURCE_TEXTURE);
    assert_int_equal(res.index, 4);
    assert_int_equal(res.size, 5);
    assert_ptr_not_equal(res.bytes, first); /* equal bytes of another kind are stored again */
    const void *texture = res.bytes;
    assert_int_equal(orr_recording_get_resource(rec, 3, &res), ORR_OK);
    assert_int_equal(res.index, 5);
    assert_int_equal(res.size, 5);
    assert_ptr_equal(res.bytes, texture);
    assert_int_equal(((const uint8_t *)res.bytes)[4], 5);
    assert_int_equal(orr_recording_get_resource(rec, 4, &res), ORR_ERROR_NOT_FOUND);

    orr_snapshot got;
    orr_snapshot_init(&got, NULL);
    for (uint32_t f = 0; f < FRAMES; f++) expect_frame(rec, f, &frames[f], &got); /* in order */
    for (uint32_t f = FRAMES; f-- > 0;) expect_frame(rec, f, &frames[f], &got);   /* backwards: seeks */
    for (uint32_t k = 0; k < 50; k++) {
        uint32_t f = (k * 7919u) % FRAMES;
        expect_frame(rec, f, &frames[f], &got);
    }
    /* a snapshot written in between is not read from: the read seeks */
    expect_frame(rec, 5, &frames[5], &got);
    got.instances[0].world.m[9] = 1234;
    expect_frame(rec, 6, &frames[6], &got);
    assert_int_equal(orr_recording_read_frame(rec, FRAMES, NULL, &got, &err), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "24 frames"));
    orr_snapshot_fini(&got);
    orr_recording_close(rec);
    for (uint32_t f = 0; f < FRAMES; f++) orr_snapshot_fini(&frames[f]);
    remove(path);
}

static void test_round_trip(void **state)
{
    (void)state;
    round_trip(0, 3);
}

/* The previous format is still written on request and read: the same frames, field for field. */
static void test_round_trip_v2(void **state)
{
    (void)state;
    round_trip(2, 2);
    orr_recorder *rec = NULL;
    orr_error err = {0};
    assert_int_equal(orr_recorder_create(temp_path("test_recording_v1.orrec"), &(orr_recorder_desc){.format_version = 1},
                                         &rec, &err),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_null(rec);
    assert_non_null(strstr(err.message, "format_version 1"));
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*size);
    assert_int_equal(fread(d, 1, *size, f), *size);
    fclose(f);
    return d;
}

/* Opens and reads every frame: ORR_OK only when all of it is read. */
static orr_result read_all(const uint8_t *d, size_t size, orr_error *err)
{
    orr_recording *rec;
    orr_result r = orr_recording_open_memory(d, size, NULL, &rec, err);
    if (r != ORR_OK) return r;
    orr_recording_info info;
    orr_recording_get_info(rec, &info);
    orr_snapshot s;
    orr_snapshot_init(&s, NULL);
    for (uint64_t f = 0; r == ORR_OK && f < info.stats.frames; f++) r = orr_recording_read_frame(rec, f, NULL, &s, err);
    orr_snapshot_fini(&s);
    orr_recording_close(rec);
    return r;
}

static void bad_recordings(uint32_t version)
{
    const char *path = temp_path("test_recording_bad.orrec");
    orr_snapshot frames[FRAMES];
    write_sequence(path, 4, version, frames, false);
    for (uint32_t f = 0; f < FRAMES; f++) orr_snapshot_fini(&frames[f]);
    size_t size;
    uint8_t *d = read_file(path, &size);
    orr_error err = {0};
    assert_int_equal(read_all(d, size, &err), ORR_OK);
    /* cut short at every length */
    for (size_t n = 0; n < size; n++) {
        orr_result r = read_all(d, n, &err);
        if (r != ORR_ERROR_PARSE) fail_msg("cut at %zu of %zu bytes: %s (%s)", n, size, orr_result_name(r), err.message);
        if (!strstr(err.message, "byte")) fail_msg("cut at %zu: the message names no byte: %s", n, err.message);
    }
    /* every byte flipped, one at a time: refused, naming where */
    uint8_t *copy = malloc(size);
    uint32_t named = 0;
    for (size_t i = 0; i < size; i++) {
        memcpy(copy, d, size);
        copy[i] ^= (uint8_t)(1u << (i % 8));
        orr_result r = read_all(copy, size, &err);
        if (r == ORR_OK) fail_msg("byte %zu flipped: read as if whole", i);
        if (!strstr(err.message, "byte")) fail_msg("byte %zu flipped: the message names no byte: %s", i, err.message);
        named += strstr(err.message, "section") || strstr(err.message, "header") || strstr(err.message, "trailer");
    }
    assert_int_equal(named, size);
    /* another format version: said so */
    memcpy(copy, d, size);
    copy[8] = 4;
    uint64_t sum = orr_recording_checksum(copy, 16);
    memcpy(copy + 16, &sum, 8);
    assert_int_equal(read_all(copy, size, &err), ORR_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "format version 4"));
    print_message("bad recordings (format %u): %zu bytes, %zu truncations and %zu flips refused\n", version, size,
                  size, size);
    free(copy);
    free(d);
    remove(path);
}

static void test_bad_recordings(void **state)
{
    (void)state;
    bad_recordings(3);
    bad_recordings(2);
}

/* The checksums made right, as the fuzz harness does for inputs of even size (tests/fuzz/fuzz_recording.c),
 * so that those inputs reach the parsers behind the checksums here too. */
static void fix_checksums(uint8_t *d, size_t size)
{
    if (size < 24) return;
    uint64_t sum = orr_recording_checksum(d, 16);
    memcpy(d + 16, &sum, 8);
    size_t end = size >= 48 ? size - 24 : size;
    if (size >= 48) {
        sum = orr_recording_checksum(d + size - 24, 16);
        memcpy(d + size - 8, &sum, 8);
    }
    for (size_t at = 24; at + 24 <= end;) {
        uint32_t type;
        uint64_t length;
        memcpy(&type, d + at, 4);
        memcpy(&length, d + at + 8, 8);
        if (length > end - at - 24) return;
        if (type == 2 && length >= 24) {
            sum = orr_recording_checksum(d + at + 40, length - 24);
            memcpy(d + at + 32, &sum, 8);
        }
        sum = orr_recording_checksum(d + at, 16 + length);
        memcpy(d + at + 16 + length, &sum, 8);
        at += 24 + length;
    }
}

#define ALIKE 1000

/* ALIKE copies of one unnamed cube in a row, ids 3i + 1 (entities {3i + 1, 1}), the first at the origin. */
static void build_alike(orr_snapshot *s)
{
    const orr_allocator *a = &s->allocator;
    s->frame = 1;
    s->layout_version = 1;
    s->instances = a->realloc(a->user, NULL, 0, ALIKE * sizeof *s->instances);
    s->instance_count = s->instance_capacity = ALIKE;
    s->index_capacity = 3 * ALIKE + 1;
    s->index_of = a->realloc(a->user, NULL, 0, s->index_capacity * sizeof *s->index_of);
    memset(s->index_of, 0xff, s->index_capacity * sizeof *s->index_of);
    s->names = a->realloc(a->user, NULL, 0, 1);
    s->names[0] = 0;
    s->names_size = s->names_capacity = 1;
    for (uint32_t i = 0; i < ALIKE; i++) {
        orr_render_instance *in = &s->instances[i];
        memset(in, 0, sizeof *in);
        orr_affine3d_identity(&in->world);
        in->world.m[9] = 2.0 * i;
        in->id = 3 * i + 1;
        in->entity = (orr_entity){in->id, 1};
        in->joint_offset = UINT32_MAX;
        in->layers = 1;
        in->visible = true;
        in->mesh = (orr_mesh_id){1, 1};
        in->bounds = (orr_aabbf){{-1, -1, -1}, {1, 1, 1}};
        s->index_of[in->id] = i;
    }
}

/* Records the alike cubes: frame 1 (a key frame), frame 2 (ten moved: a delta), frame 3 (a key frame
 * again, key_interval 2); returns the key frames' bytes and the file's bytes (`d`, `size`). */
static uint64_t record_alike(uint32_t version, orr_snapshot frames[3], uint8_t **d, size_t *size)
{
    const char *path = temp_path("test_recording_alike.orrec");
    orr_snapshot s;
    orr_snapshot_init(&s, NULL);
    build_alike(&s);
    orr_recorder *rec;
    orr_error err = {0};
    assert_int_equal(orr_recorder_create(path, &(orr_recorder_desc){.key_interval = 2, .format_version = version}, &rec, &err),
                     ORR_OK);
    for (uint32_t f = 0; f < 3; f++) {
        if (f) {
            s.frame = f + 1;
            s.delta_base = f;
            s.changed_count = 0;
            s.changed = s.allocator.realloc(s.allocator.user, s.changed, (size_t)s.changed_capacity * 4, 10 * 4);
            s.changed_capacity = 10;
            for (uint32_t k = 0; k < 10; k++) {
                s.instances[k * 97].world.m[10] += 0.5;
                s.changed[s.changed_count++] = s.instances[k * 97].id;
            }
        }
        assert_int_equal(orr_recorder_add_frame(rec, &s), ORR_OK);
        orr_snapshot_init(&frames[f], NULL);
        assert_int_equal(orr_snapshot_copy(&s, &frames[f]), ORR_OK);
    }
    assert_int_equal(orr_recorder_finish(rec), ORR_OK);
    orr_recording_stats st;
    orr_recorder_get_stats(rec, &st);
    assert_int_equal(st.key_frames, 2);
    orr_recorder_destroy(rec);
    orr_snapshot_fini(&s);
    *d = read_file(path, size);
    remove(path);
    return st.key_frame_bytes;
}

/* Where the first frame's records start in an alike recording (no metadata, no resources; the order
 * only): after the header, the metadata section, the frame's section head, its 64 bytes and the order. */
static size_t alike_records(const uint8_t *d)
{
    uint64_t meta;
    memcpy(&meta, d + 24 + 8, 8);
    size_t frame = 24 + 24 + (size_t)meta;
    uint32_t type;
    memcpy(&type, d + frame, 4);
    assert_int_equal(type, 3);
    assert_int_equal(d[frame + 16], 0); /* a key frame */
    assert_int_equal(d[frame + 17], 1); /* with its order and nothing else */
    return frame + 16 + 64 + 4 * ALIKE;
}

/* Version 3 key frames: each record against the one before it. Copies of one mesh take a fraction of
 * version 2's bytes, read back the same; a first record lacking fields, or two records for one
 * instance, are refused naming the byte. */
static void test_key_frames_v3(void **state)
{
    (void)state;
    orr_snapshot f2[3], f3[3];
    uint8_t *d2, *d3;
    size_t size2, size3;
    uint64_t key2 = record_alike(2, f2, &d2, &size2), key3 = record_alike(3, f3, &d3, &size3);
    print_message("key frames of %u alike instances: %.1f bytes an instance in version 2, %.1f in version 3\n", ALIKE,
                  key2 / (2.0 * ALIKE), key3 / (2.0 * ALIKE));
    /* the order's 4 bytes, then id, fields, entity and the world's mask and translation */
    if (key3 / (2 * ALIKE) > 32) fail_msg("version 3 key frames take %llu bytes an instance", (unsigned long long)(key3 / (2 * ALIKE)));
    if (key3 * 3 > key2) fail_msg("version 3 key frames (%llu bytes) are not a third of version 2's (%llu)",
                                  (unsigned long long)key3, (unsigned long long)key2);
    const uint8_t *files[2] = {d2, d3};
    const size_t sizes[2] = {size2, size3};
    orr_snapshot *want[2] = {f2, f3};
    orr_snapshot got;
    orr_snapshot_init(&got, NULL);
    for (int v = 0; v < 2; v++) {
        orr_recording *rec;
        orr_error err = {0};
        if (orr_recording_open_memory(files[v], sizes[v], NULL, &rec, &err) != ORR_OK) fail_msg("%s", err.message);
        for (uint32_t f = 0; f < 3; f++) expect_frame(rec, f, &want[v][f], &got);
        expect_frame(rec, 1, &want[v][1], &got); /* a seek: from the key frame before */
        orr_recording_close(rec);
    }
    orr_snapshot_fini(&got);
    /* the first record without its name: refused where its fields are */
    size_t at = alike_records(d3);
    uint32_t id;
    memcpy(&id, d3 + at, 4);
    assert_int_equal(id, 1);
    assert_int_equal(d3[at + 4], 2 | 4 | 8 | 64 | 1);
    uint8_t *copy = malloc(size2 > size3 ? size2 : size3);
    orr_error err = {0};
    memcpy(copy, d3, size3);
    copy[at + 4] &= (uint8_t)~4;
    fix_checksums(copy, size3);
    assert_int_equal(read_all(copy, size3, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "lacks fields") || !strstr(err.message, "frame section")) fail_msg("%s", err.message);
    char where[64];
    snprintf(where, sizeof where, " at byte %zu", at + 4);
    size_t ml = strlen(err.message), wl = strlen(where);
    if (ml < wl || strcmp(err.message + ml - wl, where)) fail_msg("not%s: %s", where, err.message);
    /* the second record for the first's instance: refused */
    size_t second = at + 4 + 1 + 2 + 3 * 8 + 8 + 70 + 4 + 4; /* the first: id, fields, world (3 entries), entity, core, "", no overrides */
    memcpy(&id, d3 + second, 4);
    assert_int_equal(id, 4);
    assert_int_equal(d3[second + 4], 1 | 64); /* as the one before but its translation and entity */
    memcpy(copy, d3, size3);
    copy[second] = 1;
    fix_checksums(copy, size3);
    assert_int_equal(read_all(copy, size3, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "two records in a key frame")) fail_msg("%s", err.message);
    /* the entity field in a version 2 file: unknown there */
    at = alike_records(d2);
    memcpy(copy, d2, size2);
    copy[at + 4] |= 64;
    fix_checksums(copy, size2);
    assert_int_equal(read_all(copy, size2, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "unknown bits in format version 2")) fail_msg("%s", err.message);
    free(copy);
    free(d2);
    free(d3);
    for (int f = 0; f < 3; f++) {
        orr_snapshot_fini(&f2[f]);
        orr_snapshot_fini(&f3[f]);
    }
}

/* The fuzzer's minimised corpus (tests/fuzz/recording_corpus), kept as regression inputs: each is read
 * whole or refused with a message naming a byte (even-sized ones with their checksums made right, as
 * the harness read them), and the seeds among them (whole recordings) read. */
/* A delta that breaks the snapshot contract (two instances change places, layout_version kept): the
 * recorder's thread finds it, and a later call says so; the recording stops there. */
static void test_broken_delta(void **state)
{
    (void)state;
    const char *path = temp_path("test_broken_delta.orrec");
    orr_snapshot s;
    orr_snapshot_init(&s, NULL);
    orrt_snapshot_build(&s, 1);
    s.delta_base = 0;
    orr_recorder *rec;
    orr_error err = {0};
    assert_int_equal(orr_recorder_create(path, NULL, &rec, &err), ORR_OK);
    assert_int_equal(orr_recorder_add_frame(rec, &s), ORR_OK);
    step(&s, 1);
    assert_true(orr_recorder_same_layout(rec, &s));
    orr_render_instance t = s.instances[0];
    s.instances[0] = s.instances[1];
    s.instances[1] = t;
    s.index_of[s.instances[0].id] = 0;
    s.index_of[s.instances[1].id] = 1;
    assert_int_equal(orr_recorder_add_frame(rec, &s), ORR_OK); /* queued: checked on the recorder's thread */
    orr_result r = orr_recorder_finish(rec);
    assert_int_equal(r, ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_recorder_last_error(rec)->message, "no new layout_version"));
    orr_recorder_destroy(rec);
    orr_recording *bad = NULL;
    assert_int_not_equal(orr_recording_open(path, NULL, &bad, &err), ORR_OK); /* no index: refused */
    assert_non_null(strstr(err.message, "trailer"));
    orr_snapshot_fini(&s);
    remove(path);
}

/* The extraction's hint (changed_at: indices, pose-only changes) changes how the recorder copies and
 * compares, not what it writes: the sequence recorded with it, one entry stale, is the same bytes as
 * without it. */
static void test_pose_hint(void **state)
{
    (void)state;
    char plain[4096];
    snprintf(plain, sizeof plain, "%s", temp_path("test_pose_hint_plain.orrec"));
    const char *hinted = temp_path("test_pose_hint.orrec");
    orr_snapshot frames[FRAMES], again[FRAMES];
    write_sequence(plain, 4, 0, frames, false);
    uint32_t poses = write_sequence(hinted, 4, 0, again, true);
    if (poses < FRAMES / 2) fail_msg("only %u pose-only changes in the sequence", poses);
    size_t a_size, b_size;
    uint8_t *a = read_file(plain, &a_size), *b = read_file(hinted, &b_size);
    assert_int_equal(a_size, b_size);
    assert_memory_equal(a, b, a_size);
    free(a);
    free(b);
    for (uint32_t f = 0; f < FRAMES; f++) orr_snapshot_fini(&frames[f]), orr_snapshot_fini(&again[f]);
    remove(plain);
    remove(hinted);
}

static void test_fuzz_corpus(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/recording_corpus", orrt_source_dir());
    DIR *d = opendir(dir);
    if (!d) fail_msg("%s is missing", dir);
    uint32_t files = 0, whole = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        uint8_t *bytes = read_file(path, &size);
        if (size % 2 == 0) fix_checksums(bytes, size);
        orr_error err = {0};
        orr_result r = read_all(bytes, size, &err);
        if (r != ORR_OK && !strstr(err.message, "byte")) fail_msg("%s: refused without a byte offset: %s", path, err.message);
        if (!strncmp(e->d_name, "seed_", 5) && r != ORR_OK) fail_msg("%s: a seed is refused: %s", path, err.message);
        whole += r == ORR_OK;
        files++;
        free(bytes);
    }
    closedir(d);
    print_message("fuzz corpus: %u inputs, %u read whole, the others refused with a message\n", files, whole);
    assert_true(files >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_v2),
        cmocka_unit_test(test_bad_recordings),
        cmocka_unit_test(test_key_frames_v3),
        cmocka_unit_test(test_broken_delta),
        cmocka_unit_test(test_pose_hint),
        cmocka_unit_test(test_fuzz_corpus),
    };
    int failed = cmocka_run_group_tests_name("recording", tests, NULL, NULL);
    failed += orrt_snapshot_basic_tests();
    return orrt_exit_status(failed);
}
