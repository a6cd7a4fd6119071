/* glTF 2.0 parse: animations, their samplers (input times, output formats per path and
 * interpolation) and channels (a node and path, each targeted once). */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"
#include "scene/gltf_elements.h"

#include <string.h>

/* ---- animations --------------------------------------------------------------------------------- */

static bool parse_animation_list(orri_gltf_pctx *c, const cJSON *arr, uint32_t **seen_io);

bool orri_gltf_parse_animations(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "animations", &arr, &d->animation_count)) return false;
    d->animations = orri_gltf_palloc(c, d->animation_count, sizeof *d->animations);
    if (d->animation_count && !d->animations) return false;
    uint32_t *seen = NULL; /* per node and path: the animation (+1) that last targeted it */
    bool ok = parse_animation_list(c, arr, &seen);
    orri_gltf_dealloc(&d->allocator, seen, 0);
    return ok;
}

static bool parse_animation_list(orri_gltf_pctx *c, const cJSON *arr, uint32_t **seen_io)
{
    orri_gltf_doc *d = c->doc;
    uint32_t *seen = *seen_io;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "animations[%u]", i);
        orri_gltf_animation *an = &d->animations[i];
        const cJSON *chans, *samps;
        if (!orri_gltf_jstring(c, j, "name", path, &an->name) || !orri_gltf_jrequired(c, j, "channels", path) ||
            !orri_gltf_jarray(c, j, "channels", path, &chans) || !orri_gltf_jrequired(c, j, "samplers", path) ||
            !orri_gltf_jarray(c, j, "samplers", path, &samps))
            return false;
        static const char *const known[] = {"channels", "samplers", NULL};
        orri_gltf_check_keys(c, j, path, known);
        an->channel_count = (uint32_t)cJSON_GetArraySize(chans);
        an->sampler_count = (uint32_t)cJSON_GetArraySize(samps);
        if (!an->channel_count) return PARSE_ERR(c, "%s.channels: empty array", path);
        if (!an->sampler_count) return PARSE_ERR(c, "%s.samplers: empty array", path);
        an->channels = orri_gltf_palloc(c, an->channel_count, sizeof *an->channels);
        an->samplers = orri_gltf_palloc(c, an->sampler_count, sizeof *an->samplers);
        if (!an->channels || !an->samplers) return false;
        uint32_t k = 0;
        for (const cJSON *s = samps->child; s; s = s->next, k++) {
            char sp[96];
            PATHF(c, sp, sizeof sp, "%s.samplers[%u]", path, k);
            if (!cJSON_IsObject(s)) return PARSE_ERR(c, "%s: expected an object, found %s", sp, orri_gltf_jtype(s));
            orri_gltf_sampler *smp = &an->samplers[k];
            const char *interp;
            if (!orri_gltf_jrequired(c, s, "input", sp) || !orri_gltf_jref(c, s, "input", sp, d->accessor_count, "accessors", &smp->input) ||
                !orri_gltf_jrequired(c, s, "output", sp) || !orri_gltf_jref(c, s, "output", sp, d->accessor_count, "accessors", &smp->output) ||
                !orri_gltf_jstring(c, s, "interpolation", sp, &interp))
                return false;
            static const char *const sknown[] = {"input", "output", "interpolation", NULL};
            orri_gltf_check_keys(c, s, sp, sknown);
            if (!interp || strcmp(interp, "LINEAR") == 0) smp->interpolation = ORR_INTERP_LINEAR;
            else if (strcmp(interp, "STEP") == 0) smp->interpolation = ORR_INTERP_STEP;
            else if (strcmp(interp, "CUBICSPLINE") == 0) smp->interpolation = ORR_INTERP_CUBICSPLINE;
            else return PARSE_ERR(c, "%s.interpolation: '%s' is not LINEAR, STEP or CUBICSPLINE", sp, interp);
            const orri_gltf_accessor *in = &d->accessors[smp->input];
            char ip[128];
            PATHF(c, ip, sizeof ip, "%s.input", sp);
            if (in->type != ORRI_GLTF_SCALAR || in->component_type != ORRI_GLTF_FLOAT)
                return PARSE_ERR(c, "%s: accessor %d has format {%s, %s%s}, needs {SCALAR, FLOAT}", ip, smp->input,
                                 type_names[in->type], in->normalized ? "normalized " : "", comp_name(in->component_type));
            if (smp->interpolation == ORR_INTERP_CUBICSPLINE && in->count < 2)
                return PARSE_ERR(c, "%s: CUBICSPLINE needs at least 2 keys, accessor %d has %u", ip, smp->input, in->count);
            if (!in->has_min || !in->has_max)
                orri_gltf_violation(c, "%s: accessor %d has no min/max, which glTF requires of animation inputs", ip, smp->input);
            /* times: non-negative and strictly increasing (decoded when sparse or view-less) */
            float *decoded = NULL;
            if (in->sparse_count || in->view < 0) {
                decoded = orri_gltf_palloc(c, in->count, sizeof(float));
                if (!decoded) return false;
                orri_gltf_read_floats(d, (uint32_t)smp->input, 1, 0, decoded);
            }
            float prev = 0;
            for (uint32_t e = 0; e < in->count; e++) {
                float t;
                if (decoded) t = decoded[e];
                else memcpy(&t, elem_ptr(d, in, e), 4);
                bool bad_time = t < 0 || (e > 0 && !(t > prev));
                if (bad_time) {
                    orri_gltf_dealloc(&d->allocator, decoded, 0);
                    return PARSE_ERR(c, "%s: key %u time %g %s", ip, e, t, t < 0 ? "is negative" : "does not increase");
                }
                prev = t;
            }
            orri_gltf_dealloc(&d->allocator, decoded, 0);
        }
        k = 0;
        for (const cJSON *ch = chans->child; ch; ch = ch->next, k++) {
            char cp[96];
            PATHF(c, cp, sizeof cp, "%s.channels[%u]", path, k);
            if (!cJSON_IsObject(ch)) return PARSE_ERR(c, "%s: expected an object, found %s", cp, orri_gltf_jtype(ch));
            orri_gltf_channel *chan = &an->channels[k];
            const cJSON *target;
            if (!orri_gltf_jrequired(c, ch, "sampler", cp) ||
                !orri_gltf_jref(c, ch, "sampler", cp, an->sampler_count, "samplers in this animation", &chan->sampler) ||
                !orri_gltf_jrequired(c, ch, "target", cp) || !orri_gltf_jobject(c, ch, "target", cp, &target))
                return false;
            char tp[128];
            PATHF(c, tp, sizeof tp, "%s.target", cp);
            const char *tpath;
            if (!orri_gltf_jref(c, target, "node", tp, d->node_count, "nodes", &chan->node) || !orri_gltf_jrequired(c, target, "path", tp) ||
                !orri_gltf_jstring(c, target, "path", tp, &tpath))
                return false;
            if (!tpath) return PARSE_ERR(c, "%s.path: expected a string", tp);
            if (strcmp(tpath, "translation") == 0) chan->path = ORR_ANIM_TRANSLATION;
            else if (strcmp(tpath, "rotation") == 0) chan->path = ORR_ANIM_ROTATION;
            else if (strcmp(tpath, "scale") == 0) chan->path = ORR_ANIM_SCALE;
            else if (strcmp(tpath, "weights") == 0) chan->path = ORR_ANIM_WEIGHTS;
            else if (strcmp(tpath, "pointer") == 0) {
                orri_gltf_warn(c, "%s.path: 'pointer' (KHR_animation_pointer) is not supported; the channel is ignored", tp);
                chan->node = -1;
                continue;
            } else return PARSE_ERR(c, "%s.path: '%s' is not translation, rotation, scale or weights", tp, tpath);
            if (chan->node < 0) {
                orri_gltf_warn(c, "%s: no target node; the channel is ignored", tp);
                continue;
            }
            /* one channel per node and path in an animation (glTF 2.0, 3.11): a second would be decoded
             * and played for nothing */
            if (!seen) {
                seen = *seen_io = orri_gltf_palloc(c, (size_t)d->node_count * 4, sizeof *seen);
                if (!seen) return false;
            }
            uint32_t *mark = &seen[(size_t)chan->node * 4 + (uint32_t)chan->path];
            if (*mark == i + 1) {
                return PARSE_ERR(c, "%s: node %d path '%s' is already the target of another channel of this animation",
                                 tp, chan->node, tpath);
            }
            *mark = i + 1;
            const orri_gltf_sampler *smp = &an->samplers[chan->sampler];
            const orri_gltf_accessor *in = &d->accessors[smp->input], *out = &d->accessors[smp->output];
            char sp[128];
            PATHF(c, sp, sizeof sp, "%s.sampler", cp);
            orri_gltf_fmt_rule rule = {3, 3, true, false, false, false, false, false, false, false, false};
            uint32_t per_key = 1;
            if (chan->path == ORR_ANIM_ROTATION) rule = (orri_gltf_fmt_rule){4, 4, true, true, true, true, true, false, false, false, false};
            if (chan->path == ORR_ANIM_WEIGHTS) {
                rule = (orri_gltf_fmt_rule){1, 1, true, true, true, true, true, false, false, false, false};
                const orri_gltf_node *tn = &d->nodes[chan->node];
                per_key = tn->mesh >= 0 ? d->meshes[tn->mesh].weight_count : 0;
                if (!per_key) return PARSE_ERR(c, "%s.node: node %d has no morph targets to animate", tp, chan->node);
            }
            if (!orri_gltf_accessor_format_ok(out, &rule))
                return PARSE_ERR(c, "%s: output accessor %d has format {%s, %s%s}, not allowed for path '%s'", sp,
                                 smp->output, type_names[out->type], out->normalized ? "normalized " : "",
                                 comp_name(out->component_type), tpath);
            uint64_t expect = (uint64_t)in->count * per_key * (smp->interpolation == ORR_INTERP_CUBICSPLINE ? 3 : 1);
            if (out->count != expect)
                return PARSE_ERR(c, "%s: output accessor %d has %u elements, expected %llu for %u keys", sp, smp->output,
                                 out->count, (unsigned long long)expect, in->count);
        }
    }
    return true;
}
