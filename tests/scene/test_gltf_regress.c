/* Inputs the fuzzer (tests/fuzz/fuzz_gltf.c) once crashed on, replayed: each must load or be refused
 * with a message, under ASan and UBSan, without leaking. */
#include "scene_tests.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_regress_inputs(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/scene/regress", orrt_source_dir());
    DIR *d = opendir(dir);
    if (!d) skip();
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0)) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *buf = malloc((size_t)size + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
        fclose(f);
        orr_assets *assets;
        assert_int_equal(orr_assets_create(NULL, &assets), ORR_OK);
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load_memory(assets, buf, (size_t)size, dir, e->d_name, NULL, &prefab, &err);
        if (r != ORR_OK) assert_true(err.message[0] != 0);
        orr_assets_destroy(assets);
        free(buf);
        n++;
    }
    closedir(d);
    print_message("regression inputs replayed: %d\n", n);
}

int orrt_scene_regress(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_regress_inputs)};
    return cmocka_run_group_tests_name("scene: fuzz regressions", tests, NULL, NULL);
}
