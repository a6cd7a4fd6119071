/* The asset library's skins and animation clips. */
#include "core/internal.h"
#include "assets/assets_internal.h"

#include <string.h>

/* ---- skins and clips --------------------------------------------------------------------- */

void orri_assets_skin_release(orr_assets *a, orr_skin *s)
{
    orri_free(&a->allocator, s->inverse_bind, (size_t)s->joint_count * sizeof(orr_mat4d));
    orri_strfree(&a->allocator, s->name);
}

orr_result orr_assets_add_skin(orr_assets *a, const orr_skin_desc *desc, orr_skin_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_skin: assets is NULL");
    ORRI_REQUIRE(desc && out, &a->error, "orr_assets_add_skin: desc and out are required");
    orr_handle h = {0, 0};
    orr_skin *s = NULL;
    orr_result r = orri_assets_pool_add(a, &a->skins, &h, (void **)&s);
    if (r != ORR_OK) return r;
    s->name = orri_strdup(&a->allocator, desc->name ? desc->name : "");
    s->inverse_bind = orri_alloc(&a->allocator, (size_t)desc->joint_count * sizeof(orr_mat4d));
    if (!s->name || !s->inverse_bind) {
        orri_strfree(&a->allocator, s->name);
        orri_free(&a->allocator, s->inverse_bind, (size_t)desc->joint_count * sizeof(orr_mat4d));
        orr_handle_pool_free(&a->skins.handles, h);
        return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "skin: out of memory");
    }
    s->joint_count = desc->joint_count;
    for (uint32_t i = 0; i < desc->joint_count; i++) {
        if (desc->inverse_bind) s->inverse_bind[i] = desc->inverse_bind[i];
        else orr_mat4d_identity(&s->inverse_bind[i]);
    }
    *out = (orr_skin_id){h.index, h.generation};
    return ORR_OK;
}

const orr_skin *orr_assets_try_get_skin(const orr_assets *a, orr_skin_id id) { return pool_item(&a->skins, AS_HANDLE(id)); }

static size_t channel_value_count(const orr_anim_channel *c)
{
    return (size_t)c->key_count * c->components * (c->interpolation == ORR_INTERP_CUBICSPLINE ? 3 : 1);
}

void orri_assets_clip_release(orr_assets *a, orr_clip *c)
{
    for (uint32_t i = 0; i < c->channel_count && c->channels; i++) {
        orr_anim_channel *ch = &c->channels[i];
        orri_free(&a->allocator, (void *)ch->times, (size_t)ch->key_count * sizeof(float));
        orri_free(&a->allocator, (void *)ch->values, channel_value_count(ch) * sizeof(float));
    }
    orri_free(&a->allocator, c->channels, (size_t)c->channel_count * sizeof(orr_anim_channel));
    orri_strfree(&a->allocator, c->name);
}

orr_result orr_assets_add_clip(orr_assets *a, const orr_clip_desc *desc, orr_clip_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_clip: assets is NULL");
    ORRI_REQUIRE(desc && out, &a->error, "orr_assets_add_clip: desc and out are required");
    for (uint32_t i = 0; i < desc->channel_count; i++) {
        const orr_anim_channel *c = &desc->channels[i];
        if (!c->key_count || !c->components || !c->times || !c->values)
            return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "clip '%s' channel %u: empty",
                              desc->name ? desc->name : "", i);
        for (uint32_t k = 1; k < c->key_count; k++) {
            if (!(c->times[k] > c->times[k - 1]))
                return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT,
                                  "clip '%s' channel %u: key %u time does not increase", desc->name ? desc->name : "", i, k);
        }
    }
    orr_handle h = {0, 0};
    orr_clip *c = NULL;
    orr_result r = orri_assets_pool_add(a, &a->clips, &h, (void **)&c);
    if (r != ORR_OK) return r;
    c->name = orri_strdup(&a->allocator, desc->name ? desc->name : "");
    c->channels = orri_alloc(&a->allocator, (size_t)desc->channel_count * sizeof(orr_anim_channel));
    if (c->channels) c->channel_count = desc->channel_count; /* zeroed: clip_release frees what is filled */
    if (!c->name || !c->channels) goto oom;
    for (uint32_t i = 0; i < desc->channel_count; i++) {
        const orr_anim_channel *s = &desc->channels[i];
        orr_anim_channel *d = &c->channels[i];
        *d = *s;
        d->times = NULL;
        d->values = NULL;
        float *times = orri_alloc(&a->allocator, (size_t)s->key_count * sizeof(float));
        float *values = orri_alloc(&a->allocator, channel_value_count(s) * sizeof(float));
        d->times = times;
        d->values = values;
        if (!times || !values) goto oom;
        memcpy(times, s->times, (size_t)s->key_count * sizeof(float));
        memcpy(values, s->values, channel_value_count(s) * sizeof(float));
        if (s->target + 1 > c->target_count) c->target_count = s->target + 1;
        if (s->times[s->key_count - 1] > c->duration) c->duration = s->times[s->key_count - 1];
    }
    *out = (orr_clip_id){h.index, h.generation};
    return ORR_OK;
oom:
    orri_assets_clip_release(a, c);
    orr_handle_pool_free(&a->clips.handles, h);
    return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "clip: out of memory");
}

const orr_clip *orr_assets_try_get_clip(const orr_assets *a, orr_clip_id id) { return pool_item(&a->clips, AS_HANDLE(id)); }
