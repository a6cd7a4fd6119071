/* glTF 2.0 parse: the entry (orri_gltf_parse, orri_gltf_finish, orri_gltf_free). A pass reads the
 * container and the JSON, then each part of the document in order, each in a file of its own (listed
 * in gltf_parse_internal.h); gltf_internal.h states the contract. */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"

#include <orrery/scene.h>

#include <stdio.h>
#include <string.h>

/* ---- entry -------------------------------------------------------------------------------------- */

void orri_gltf_free(orri_gltf_doc *d)
{
    if (!d) return;
    orri_gltf_late_join(d); /* its thread writes into the doc's blocks */
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
    for (uint32_t i = 0; i < d->node_count && d->nodes; i++) FREE(d->nodes[i].children), FREE(d->nodes[i].lod_ids);
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
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vviolation(user, fmt, ap);
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
    orri_gltf_pctx c = {.doc = d, .err = err ? err : &local, .name = desc->name, .base_dir = desc->base_dir,
               .allow_outside = desc->allow_outside_uris, .files = desc->files, .paths = paths,
               .threads = orri_gltf_threads(desc->threads), .defer = defer};
    const uint8_t *bytes = desc->data;
    size_t size = desc->size;
    const uint8_t *json = bytes;
    size_t json_n = size;
    if (size == 0) {
        orri_gltf_fail(&c, ORR_ERROR_PARSE, "file is empty");
        goto done;
    }
    if (size >= 4 && memcmp(bytes, "glTF", 4) == 0) {
        c.is_glb = true;
        if (!orri_gltf_parse_glb(&c, bytes, size, &json, &json_n)) goto done;
    }
    if (json_n >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) {
        orri_gltf_violation(&c, "JSON: starts with a UTF-8 byte order mark, skipped");
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
            orri_gltf_fail(&c, ORR_ERROR_PARSE, "JSON: unexpected data after the root object at byte %zu", p);
            goto done;
        }
    }
    if (!cJSON_IsObject(d->json)) {
        orri_gltf_fail(&c, ORR_ERROR_PARSE, "JSON: the root is %s, expected an object", orri_gltf_jtype(d->json));
        goto done;
    }
    bool ok = orri_gltf_parse_asset(&c) && orri_gltf_parse_buffers(&c) && orri_gltf_parse_views(&c) && orri_gltf_parse_accessors(&c) && orri_gltf_parse_images(&c) &&
              orri_gltf_parse_samplers(&c) && orri_gltf_parse_textures(&c) && orri_gltf_parse_materials(&c) && orri_gltf_parse_meshes(&c) &&
              orri_gltf_parse_cameras(&c) && orri_gltf_parse_lights(&c) && orri_gltf_parse_skins(&c) && orri_gltf_parse_nodes(&c) && orri_gltf_check_node_range(&c) && orri_gltf_parse_scenes(&c) &&
              orri_gltf_parse_animations(&c) && orri_gltf_check_joints(&c) && orri_gltf_check_skin_roots(&c) && orri_gltf_check_files(&c);
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
        orri_gltf_late_release(d, 1); /* the rest is validated: the late views' accessors may be scanned */
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
           orri_gltf_on_late_view(d, &d->accessors[accessor]);
}

orr_result orri_gltf_finish(orri_gltf_doc *d, const char *name, uint32_t threads, orr_error *err)
{
    if (!d->late_n || d->late_checked) return ORR_OK;
    uint64_t t0 = orri_gltf_now_ns();
    orri_gltf_late_join(d);
    d->late_wait_ns = orri_gltf_now_ns() - t0;
    d->late_checked = true;
    orr_error local = {0};
    orri_gltf_pctx c = {.doc = d, .err = err ? err : &local, .name = name, .paths = true, .threads = orri_gltf_threads(threads)};
    for (uint32_t k = 0; k < d->late_n && !c.failed; k++)
        if (d->late[k].why) orri_gltf_meshopt_failed(&c, &d->late[k]);
        else d->split_views += d->late[k].split;
    if (!c.failed) orri_gltf_scan_data(&c, true);
    for (uint32_t mi = 0; mi < d->mesh_count && !c.failed; mi++)
        for (uint32_t pi = 0; pi < d->meshes[mi].primitive_count && !c.failed; pi++) {
            const orri_gltf_primitive *p = &d->meshes[mi].primitives[pi];
            if (p->indices < 0 || p->position < 0 || !orri_gltf_on_late_view(d, &d->accessors[p->indices])) continue;
            char ip[96];
            snprintf(ip, sizeof ip, "meshes[%u].primitives[%u].indices", mi, pi);
            orri_gltf_check_index_range(&c, p, ip);
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
