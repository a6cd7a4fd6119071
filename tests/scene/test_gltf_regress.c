/* Inputs kept in tests/scene/regress (fuzzer finds and review cases), replayed under ASan and UBSan:
 * each has its expected outcome recorded below, loaded or refused with a result code and a message
 * that names the place, and the folder holds exactly the inputs listed. */
#include "scene_tests.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One kept input: ORR_OK = loads (and instantiates); otherwise refused with `code`, and the message
 * starts with `where` followed by ": " (the JSON path, "glb" or "JSON"). A new input goes into the
 * folder and into this table (see regress/README.md). */
static const struct {
    const char *file;
    orr_result code;
    const char *where;
} regress_inputs[] = {
    {"abs_uri.gltf", ORR_ERROR_PARSE, "buffers[0].uri"},
    {"anim_dup_target.gltf", ORR_ERROR_PARSE, "animations[0].channels[1].target"},
    {"b64_pad_inside.gltf", ORR_ERROR_PARSE, "buffers[0].uri"},
    {"deep_chain.gltf", ORR_OK, NULL},
    {"deep_json.gltf", ORR_ERROR_PARSE, "JSON"},
    {"degenerate_modes.gltf", ORR_OK, NULL},
    {"dotdot_uri.gltf", ORR_ERROR_PARSE, "buffers[0].uri"},
    {"flat_shared.gltf", ORR_OK, NULL},
    {"fuzz-586c70bf.gltf", ORR_OK, NULL},
    {"glb_chunk_wrap.glb", ORR_ERROR_PARSE, "glb"},
    {"huge_viewless.gltf", ORR_ERROR_CAPACITY, "accessors[0].count"},
    {"inst_info_4.gltf", ORR_ERROR_CAPACITY, "accessors[1].count"},
    {"percent_dotdot_uri.gltf", ORR_ERROR_PARSE, "buffers[0].uri"},
    {"quant_pos_ushort_norm.gltf", ORR_OK, NULL},
    {"sparse_bad.gltf", ORR_ERROR_PARSE, "accessors[0].sparse.indices"},
    {"strip_nonormals.gltf", ORR_OK, NULL},
    {"viewless_amp4.gltf", ORR_ERROR_CAPACITY, "accessors[0].count"},
};
#define REGRESS_COUNT (sizeof regress_inputs / sizeof regress_inputs[0])

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void test_regress_inputs(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/scene/regress", orrt_source_dir());
    DIR *d = opendir(dir);
    if (!d) fail_msg("%s: cannot open the regression folder (it is part of the repository)", dir);
    bool seen[REGRESS_COUNT] = {0};
    unsigned files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
        files++;
        size_t k = 0;
        while (k < REGRESS_COUNT && strcmp(regress_inputs[k].file, e->d_name) != 0) k++;
        if (k == REGRESS_COUNT) fail_msg("regress/%s: not in regress_inputs; record its expected outcome", e->d_name);
        seen[k] = true;

        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size = 0;
        unsigned char *buf = read_file(path, &size);
        if (!buf) fail_msg("regress/%s: cannot be read", e->d_name);
        orr_assets *assets;
        assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        orr_error err = {0};
        orr_result r = orr_gltf_load_memory(assets, buf, size, dir, e->d_name, NULL, &prefab, &err);
        free(buf);
        if (r != regress_inputs[k].code)
            fail_msg("regress/%s: %s (%s), expected %s", e->d_name, orr_result_name(r), r ? err.message : "loaded",
                     orr_result_name(regress_inputs[k].code));
        if (r == ORR_OK) {
            orr_world *w;
            assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
            orr_entity inst;
            assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &inst), ORR_OK);
            assert_true(orr_world_entity_count(w) > 0);
            orr_world_destroy(w);
        } else {
            size_t wl = strlen(regress_inputs[k].where);
            if (strncmp(err.message, regress_inputs[k].where, wl) != 0 || strncmp(err.message + wl, ": ", 2) != 0)
                fail_msg("regress/%s: message '%s' does not start with '%s: '", e->d_name, err.message,
                         regress_inputs[k].where);
        }
        orr_assets_destroy(assets);
    }
    closedir(d);
    for (size_t k = 0; k < REGRESS_COUNT; k++)
        if (!seen[k]) fail_msg("regress/%s: listed in regress_inputs but missing from the folder", regress_inputs[k].file);
    print_message("regression inputs replayed: %u\n", files);
    assert_int_equal(files, REGRESS_COUNT);
}

int orrt_scene_regress(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_regress_inputs)};
    return cmocka_run_group_tests_name("scene: fuzz regressions", tests, NULL, NULL);
}
