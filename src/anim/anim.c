/* Animation sampling and players. Time comes from the tick count only, so replays are exact. */
#include "core/internal.h"

#include <math.h>
#include <orrery/anim.h>
#include <string.h>

/* The key k with times[k] <= t < times[k + 1] (t already clamped inside the range). */
static uint32_t find_key(const float *times, uint32_t count, double t)
{
    uint32_t lo = 0, hi = count - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)times[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

static void normalize4(float *q)
{
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (len > 0.0) {
        for (int i = 0; i < 4; i++) q[i] = (float)(q[i] / len);
    }
}

/* Components [first, first + n) of channel c at time t into out[0..n): rotations need all four
 * (first 0, n 4: slerp and normalisation look at the whole quaternion); other paths take any span. */
static void sample_span(const orr_anim_channel *c, double t, uint32_t first, uint32_t n, float *out)
{
    uint32_t w = c->components;
    bool cubic = c->interpolation == ORR_INTERP_CUBICSPLINE;
    /* cubic spline stores (in-tangent, value, out-tangent) per key */
#define VALUE(k) (c->values + ((size_t)(k) * (cubic ? 3 : 1) + (cubic ? 1 : 0)) * w + first)
    if (c->key_count == 1 || t <= (double)c->times[0]) {
        memcpy(out, VALUE(0), n * sizeof(float));
        return;
    }
    if (t >= (double)c->times[c->key_count - 1]) {
        memcpy(out, VALUE(c->key_count - 1), n * sizeof(float));
        return;
    }
    uint32_t k = find_key(c->times, c->key_count, t);
    double t0 = c->times[k], t1 = c->times[k + 1], dt = t1 - t0;
    double u = dt > 0.0 ? (t - t0) / dt : 0.0;
    const float *a = VALUE(k), *b = VALUE(k + 1);
    bool rotation = c->path == ORR_ANIM_ROTATION && w == 4;
    switch (c->interpolation) {
    case ORR_INTERP_STEP: memcpy(out, a, n * sizeof(float)); break;
    case ORR_INTERP_LINEAR:
        if (rotation) {
            orr_quatd q = orr_quatd_slerp((orr_quatd){a[0], a[1], a[2], a[3]}, (orr_quatd){b[0], b[1], b[2], b[3]}, u);
            out[0] = (float)q.x, out[1] = (float)q.y, out[2] = (float)q.z, out[3] = (float)q.w;
        } else {
            for (uint32_t i = 0; i < n; i++) out[i] = (float)(a[i] + (b[i] - a[i]) * u);
        }
        break;
    case ORR_INTERP_CUBICSPLINE: {
        const float *out_tangent = a + w; /* b_k of key k */
        const float *in_tangent = b - w;  /* a_{k+1} of key k + 1 */
        double u2 = u * u, u3 = u2 * u;
        double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
        for (uint32_t i = 0; i < n; i++)
            out[i] = (float)(h00 * a[i] + h10 * dt * out_tangent[i] + h01 * b[i] + h11 * dt * in_tangent[i]);
        if (rotation) normalize4(out);
        break;
    }
    }
#undef VALUE
}

void orr_anim_sample(const orr_anim_channel *c, double t, float *out) { sample_span(c, t, 0, c->components, out); }

double orr_anim_player_time(const orr_animation_player *p, const orr_clip *clip, uint64_t tick, double step)
{
    double t = p->start_time + (double)tick * step * p->speed;
    double d = clip->duration;
    if (d <= 0.0) return 0.0;
    if (p->loop) {
        t = fmod(t, d);
        if (t < 0.0) t += d;
        return t;
    }
    return t < 0.0 ? 0.0 : (t > d ? d : t);
}

uint32_t orr_anim_apply(orr_world *world, const orr_assets *assets, uint64_t tick, double step)
{
    uint32_t written = 0;
    orr_component_type type = ORR_COMPONENT_ANIMATION_PLAYER;
    orr_query q;
    orr_query_begin(world, &type, 1, &q);
    /* Writing a transform inside the query is allowed: it is a value edit, not a structural change. */
    while (orr_query_next(&q)) {
        const orr_animation_player *p = q.components[0];
        const orr_clip *clip = orr_assets_try_get_clip(assets, p->clip);
        if (!clip) continue;
        uint32_t targets;
        const orr_entity *target_of = orr_animation_player_targets(world, q.entity, &targets);
        double t = orr_anim_player_time(p, clip, tick, step);
        for (uint32_t c = 0; c < clip->channel_count; c++) {
            const orr_anim_channel *ch = &clip->channels[c];
            if (ch->target >= targets) continue;
            orr_entity target = target_of[ch->target];
            if (!orr_entity_is_alive(world, target)) continue;
            if (ch->path == ORR_ANIM_WEIGHTS) {
                /* Any number of targets, in spans; the MorphWeights list logs an edit only where a value
                 * changed. A target without the component (none to write) is skipped. */
                if (!orr_component_has(world, target, ORR_COMPONENT_MORPH_WEIGHTS)) continue;
                float span[32];
                for (uint32_t first = 0; first < ch->components; first += 32) {
                    uint32_t n = ch->components - first < 32 ? ch->components - first : 32;
                    sample_span(ch, t, first, n, span);
                    (void)orr_morph_weights_write(world, target, first, span, n);
                }
                written++;
                continue;
            }
            /* a channel whose width does not fit its path is skipped rather than read past its values */
            uint32_t width = ch->path == ORR_ANIM_ROTATION ? 4u : 3u;
            if (ch->components != width) continue;
            float v[4];
            orr_anim_sample(ch, t, v);
            switch (ch->path) {
            case ORR_ANIM_TRANSLATION: orr_entity_set_translation(world, target, (orr_vec3d){v[0], v[1], v[2]}); break;
            case ORR_ANIM_ROTATION:
                orr_entity_set_rotation(world, target, orr_quatd_normalize((orr_quatd){v[0], v[1], v[2], v[3]}));
                break;
            case ORR_ANIM_SCALE: orr_entity_set_scale(world, target, (orr_vec3d){v[0], v[1], v[2]}); break;
            case ORR_ANIM_WEIGHTS: break;
            }
            written++;
        }
    }
    orr_query_end(&q);
    return written;
}
