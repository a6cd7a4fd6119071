/* What `render --pick` and a click in `view` print of a pick's answer (pick.h): the name of what the
 * view shows at the pixel, its handle and its binary64 world position. */
#include "tool.h"

#include <orrery/pick.h>

#include <stdio.h>
#include <string.h>

/* The snapshot's name of the camera entity `camera` ("" when none). */
static const char *camera_name(const orr_snapshot *snap, orr_entity camera)
{
    for (uint32_t c = 0; c < snap->camera_count; c++)
        if (orr_entity_eq(snap->cameras[c].entity, camera)) return orr_snapshot_name(snap, snap->cameras[c].name);
    return "";
}

int tool_parse_debug(const char *cmd, const char *list, uint32_t *flags)
{
    static const struct {
        const char *name;
        uint32_t flag;
    } names[] = {{"bounds", ORR_DEBUG_BOUNDS}, {"frusta", ORR_DEBUG_FRUSTA}, {"cascades", ORR_DEBUG_CASCADES}};
    *flags = 0;
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        uint32_t k = 0;
        while (k < 3 && (strlen(names[k].name) != n || strncmp(p, names[k].name, n))) k++;
        if (k == 3) {
            fprintf(stderr, "orrery %s: --debug takes bounds, frusta and cascades, comma-separated (got '%.*s')\n", cmd,
                    (int)n, p);
            return 2;
        }
        *flags |= names[k].flag;
        if (!p[n]) return 0;
        p += n + 1;
    }
}

const char *tool_pick_name(const orr_snapshot *snap, const orr_pick_hit *hit)
{
    if (hit->gone) return "(gone)";
    uint32_t i = orr_snapshot_find(snap, hit->instance_id);
    if (i == UINT32_MAX || !orr_entity_eq(snap->instances[i].entity, hit->entity)) return "(gone)";
    const char *name = orr_snapshot_name(snap, snap->instances[i].name);
    return name && *name ? name : "(unnamed)";
}

void tool_print_pick(FILE *f, const orr_snapshot *snap, uint32_t view, orr_entity camera, uint32_t x, uint32_t y,
                     const orr_pick_result *res, const orr_pick_hit *hit)
{
    const char *cam = camera_name(snap, camera);
    fprintf(f, "pick view %u%s%s%s pixel %u,%u: ", view, *cam ? " (" : "", cam, *cam ? ")" : "", x, y);
    if (res->state == ORR_PICK_VIEW_GONE) {
        fprintf(f, "its view is gone\n");
        return;
    }
    if (!res->hit_count) {
        fprintf(f, "nothing\n");
        return;
    }
    fprintf(f, "%s (entity %u:%u, instance %u, mesh %u primitive %u) at (%.9g, %.9g, %.9g) m, %.6g m away\n",
            tool_pick_name(snap, hit), hit->entity.index, hit->entity.generation, hit->instance_id, hit->mesh.index,
            hit->primitive, hit->position.x, hit->position.y, hit->position.z, hit->distance);
}
