/* Orrery anim: animation players and joint palettes.
 *
 * orr_anim_apply samples every AnimationPlayer's clip at the time given by the tick count alone
 * (never the wall clock) and writes the local transforms of its targets and, for channels of path
 * weights, their MorphWeights (orr_morph_weights_write: only the targets that have one). Joint palettes are built
 * during extraction (frame module) from the propagated world matrices.
 */
#ifndef ORRERY_ANIM_H
#define ORRERY_ANIM_H

#include <orrery/assets.h>
#include <orrery/world.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Samples one channel at `time` (seconds, clamped to the key range) into out[channel->components].
 * Linear rotation uses shortest-path slerp; cubic spline uses glTF's Hermite form; step holds. */
void orr_anim_sample(const orr_anim_channel *channel, double time, float *out);

/* Applies every AnimationPlayer of `world` at time = start_time + tick * step * speed (looped when the
 * player loops, else clamped). Stale clips or targets are skipped. Returns the number of channels
 * written. */
uint32_t orr_anim_apply(orr_world *world, const orr_assets *assets, uint64_t tick, double step);

/* The clip time a player shows at `tick`. */
double orr_anim_player_time(const orr_animation_player *player, const orr_clip *clip, uint64_t tick, double step);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_ANIM_H */
