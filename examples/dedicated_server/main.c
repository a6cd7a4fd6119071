/* A dedicated server: the authoritative world, ticked at a fixed step, with no renderer.
 *
 * It links only the world side of Orrery and the glTF loader (find_package(orrery COMPONENTS scene),
 * or pkg-config orrery-scene; a server that loads no model links the world component alone): the
 * session runs with ORR_PROFILE_DEDICATED_SERVER, so it never extracts a snapshot, compiles a
 * pipeline or touches a GPU, and the binary does not link Vulkan.
 *
 * The world: a fleet (a root that drifts along +Z) of four ships (its children, each flying along +X
 * at its own speed), moved by one user system from the tick count alone, so that any replay of the
 * same ticks gives the same positions. With --model FILE, every ship carries an instance of a glTF
 * model, as a server loads models for their hierarchy and bounds.
 *
 *   dedicated_server [--ticks N] [--model FILE]
 *
 * prints one JSON object, like `orrery serve --json`: ticks, extractions (always 0), entities, and
 * the world position of each ship. */
#include <orrery/frame.h>
#include <orrery/scene.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIPS 4
#define FLEET_SPEED 2.0 /* m/s along +Z */

typedef struct fleet {
    orr_entity root;
    orr_entity ships[SHIPS];
} fleet;

/* The user system: positions from the tick count (tick t has run t x step seconds). */
static void fly(void *user, orr_world *world, orr_assets *assets, uint64_t tick, double step)
{
    (void)assets;
    const fleet *f = user;
    double t = (double)tick * step;
    orr_entity_set_translation(world, f->root, (orr_vec3d){0, 0, FLEET_SPEED * t});
    for (uint32_t i = 0; i < SHIPS; i++)
        orr_entity_set_translation(world, f->ships[i], (orr_vec3d){(double)(i + 1) * t, 10.0 * i, 0});
}

static int usage(void)
{
    fprintf(stderr, "usage: dedicated_server [--ticks N] [--model FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned long ticks = 600;
    const char *model = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ticks") && i + 1 < argc) {
            char *end;
            ticks = strtoul(argv[++i], &end, 10);
            if (*end || ticks > 10000000) return usage();
        } else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            model = argv[++i];
        } else {
            return usage();
        }
    }

    orr_session *session;
    if (orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_DEDICATED_SERVER}, &session, NULL) != ORR_OK) {
        fprintf(stderr, "dedicated_server: cannot create a session (out of memory)\n");
        return 1;
    }
    orr_world *world = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    int status = 1;

    orr_prefab_id prefab = {0, 0};
    orr_error err;
    if (model && orr_gltf_load(assets, model, NULL, &prefab, &err) != ORR_OK) {
        fprintf(stderr, "%s: %s\n", model, err.message);
        goto done;
    }
    fleet *f = calloc(1, sizeof *f);
    if (!f) goto done;
    /* The system's state lives as long as the session: the session calls `release` with it. */
    if (orr_session_add_system(session, &(orr_system_desc){.fn = fly, .user = f, .release = free}) != ORR_OK) {
        free(f);
        fprintf(stderr, "dedicated_server: %s\n", orr_session_last_error(session)->message);
        goto done;
    }
    if (orr_entity_create(world, &(orr_entity_desc){.name = "fleet"}, &f->root) != ORR_OK) goto world_error;
    for (uint32_t i = 0; i < SHIPS; i++) {
        char name[16];
        snprintf(name, sizeof name, "ship_%u", i);
        if (orr_entity_create(world, &(orr_entity_desc){.name = name, .parent = f->root}, &f->ships[i]) != ORR_OK)
            goto world_error;
        orr_entity copy;
        if (model && orr_prefab_instantiate(world, assets, prefab, f->ships[i], NULL, &copy) != ORR_OK) goto world_error;
    }

    /* The server loop: one 1/60 s frame per tick (a real server sleeps until the next one is due). */
    for (unsigned long t = 0; t < ticks; t++) {
        if (orr_session_run_frame(session, 1.0 / 60.0) != ORR_OK) {
            fprintf(stderr, "dedicated_server: %s\n", orr_session_last_error(session)->message);
            goto done;
        }
    }

    printf("{\"ticks\": %llu, \"extractions\": %llu, \"entities\": %u, \"ships\": [",
           (unsigned long long)orr_session_tick(session), (unsigned long long)orr_session_extractions(session),
           orr_world_entity_count(world));
    for (uint32_t i = 0; i < SHIPS; i++) {
        orr_mat4d m;
        if (orr_entity_world_matrix(world, f->ships[i], &m) != ORR_OK) goto world_error;
        printf("%s{\"name\": \"ship_%u\", \"world\": [%.17g, %.17g, %.17g]}", i ? ", " : "", i, m.m[12], m.m[13],
               m.m[14]);
    }
    printf("]}\n");
    status = 0;
    goto done;
world_error:
    fprintf(stderr, "dedicated_server: %s\n", orr_world_last_error(world)->message);
done:
    orr_session_destroy(session);
    return status;
}
