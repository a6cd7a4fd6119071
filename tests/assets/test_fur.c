/* The fur shading mode of materials (defaults, validation with messages that name the field) and the fur
 * noise texture (deterministic bytes, tileable, white noise with an even histogram, bad sizes refused). */
#include "assets_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_fur_material(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_material m = orr_material_default();
    assert_int_equal(m.shading, ORR_SHADING_PBR);
    assert_true(orr_fur_valid(&m.fur));
    assert_int_equal(m.fur.shell_count, 16);
    m.shading = ORR_SHADING_FUR;
    orr_texture_id noise;
    assert_int_equal(orr_assets_add_fur_noise(a, NULL, &noise), ORR_OK);
    m.fur.noise = noise;
    m.fur.shell_count = 32;
    m.fur.shell_length = 0.02f;
    orr_material_id id, copy;
    assert_int_equal(orr_assets_add_material(a, &m, &id), ORR_OK);
    assert_int_equal(orr_assets_clone_material(a, id, &copy), ORR_OK);
    const orr_material *got = orr_assets_try_get_material(a, copy);
    assert_int_equal(got->shading, ORR_SHADING_FUR);
    assert_int_equal(got->fur.shell_count, 32);
    assert_true(got->fur.shell_length == 0.02f);
    assert_true(orr_id_eq(got->fur.noise, noise));

    struct {
        orr_fur fur;
        const char *names;
    } bad[] = {
        {{.shell_count = 0, .shell_length = 0.01f, .density = 1, .thinning = 0.5f}, "fur.shell_count"},
        {{.shell_count = ORR_FUR_MAX_SHELLS + 1, .shell_length = 0.01f, .density = 1, .thinning = 0.5f}, "fur.shell_count"},
        {{.shell_count = 4, .shell_length = -1.0f, .density = 1, .thinning = 0.5f}, "fur.shell_length"},
        {{.shell_count = 4, .shell_length = NAN, .density = 1, .thinning = 0.5f}, "fur.shell_length"},
        {{.shell_count = 4, .shell_length = 0.01f, .density = 0, .thinning = 0.5f}, "fur.density"},
        {{.shell_count = 4, .shell_length = 0.01f, .density = INFINITY, .thinning = 0.5f}, "fur.density"},
        {{.shell_count = 4, .shell_length = 0.01f, .density = 1, .thinning = 1.5f}, "fur.thinning"},
        {{.shell_count = 4, .shell_length = 0.01f, .density = 1, .thinning = NAN}, "fur.thinning"},
    };
    uint32_t before = orr_assets_material_count(a);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        orr_material b = orr_material_default();
        b.shading = ORR_SHADING_FUR;
        b.fur = bad[i].fur;
        assert_false(orr_fur_valid(&b.fur));
        orr_material_id bid;
        assert_int_equal(orr_assets_add_material(a, &b, &bid), ORR_ERROR_INVALID_ARGUMENT);
        if (!strstr(orr_assets_last_error(a)->message, bad[i].names))
            fail_msg("case %zu: '%s' does not name %s", i, orr_assets_last_error(a)->message, bad[i].names);
        b.shading = ORR_SHADING_PBR; /* the fur values do not matter to a PBR material */
        assert_int_equal(orr_assets_add_material(a, &b, &bid), ORR_OK);
        before++;
    }
    orr_material b = orr_material_default();
    b.shading = (orr_shading)7;
    orr_material_id bid;
    assert_int_equal(orr_assets_add_material(a, &b, &bid), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "shading 7"));
    assert_int_equal(orr_assets_material_count(a), before);
    orr_assets_destroy(a);
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static const orr_texture *noise_of(orr_assets *a, const orr_fur_noise_desc *d)
{
    orr_texture_id id;
    assert_int_equal(orr_assets_add_fur_noise(a, d, &id), ORR_OK);
    return orr_assets_try_get_texture(a, id);
}

/* The same desc gives the same bytes, in another library and on another machine (the checksum is
 * fixed: the noise is integer arithmetic only); another seed gives other bytes. */
static void test_fur_noise_deterministic(void **state)
{
    (void)state;
    orr_assets *a, *b;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    assert_int_equal(orr_assets_create(NULL, &b, NULL), ORR_OK);
    const orr_texture *t = noise_of(a, NULL);
    assert_int_equal(t->width, 64);
    assert_int_equal(t->height, 64);
    assert_string_equal(t->name, "fur noise");
    assert_int_equal(t->color_space, ORR_COLOR_SPACE_LINEAR);
    assert_int_equal(t->sampler.wrap_s, ORR_WRAP_REPEAT);
    assert_int_equal(t->sampler.wrap_t, ORR_WRAP_REPEAT);
    assert_int_equal(t->sampler.mag_filter, ORR_FILTER_NEAREST);
    size_t n = (size_t)t->width * t->height * 4;
    const orr_texture *u = noise_of(b, &(orr_fur_noise_desc){.size = 64, .cells = 64, .seed = 0, .name = "other"});
    assert_memory_equal(t->rgba8, u->rgba8, n);
    for (size_t i = 0; i < n; i += 4) {
        assert_int_equal(t->rgba8[i], t->rgba8[i + 1]);
        assert_int_equal(t->rgba8[i], t->rgba8[i + 2]);
        assert_int_equal(t->rgba8[i + 3], 255);
    }
    const orr_texture *smooth = noise_of(b, &(orr_fur_noise_desc){.size = 128, .cells = 16, .seed = 7});
    print_message("fur noise checksums: default %016llx, 128/16/7 %016llx\n", (unsigned long long)fnv1a(t->rgba8, n),
                  (unsigned long long)fnv1a(smooth->rgba8, (size_t)128 * 128 * 4));
    assert_true(fnv1a(t->rgba8, n) == 0xec8cac1880dc54b9ull); /* looked at: even white noise, tiles */
    assert_true(fnv1a(smooth->rgba8, (size_t)128 * 128 * 4) == 0x34136935e1c5db23ull); /* looked at: smooth clumps, tiles */
    const orr_texture *other = noise_of(b, &(orr_fur_noise_desc){.seed = 1});
    size_t differ = 0;
    for (size_t i = 0; i < n; i += 4) differ += t->rgba8[i] != other->rgba8[i];
    assert_true(differ > n / 4 * 9 / 10);
    orr_assets_destroy(a);
    orr_assets_destroy(b);
}

/* White noise (a cell per texel): every value range about equally common. */
static void test_fur_noise_histogram(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    const orr_texture *t = noise_of(a, &(orr_fur_noise_desc){.size = 64, .seed = 3});
    uint32_t bins[16] = {0};
    double sum = 0;
    for (size_t i = 0; i < 64 * 64; i++) {
        bins[t->rgba8[i * 4] >> 4]++;
        sum += t->rgba8[i * 4];
    }
    for (int k = 0; k < 16; k++)
        if (bins[k] < 160 || bins[k] > 352) fail_msg("bin %d holds %u of 4096 texels (256 expected)", k, bins[k]);
    double mean = sum / 4096.0;
    assert_true(mean > 120.0 && mean < 135.0);
    orr_assets_destroy(a);
}

/* Smooth noise tiles: across the texture's edges (right to left, bottom to top) neighbouring texels differ
 * no more than neighbours across any lattice cell boundary inside it, which they would (by up to 255) if
 * the lattice did not wrap. */
static void test_fur_noise_tiles(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    enum { S = 64, C = 8, STEP = S / C };
    const orr_texture *t = noise_of(a, &(orr_fur_noise_desc){.size = S, .cells = C, .seed = 11});
#define V(x, y) ((int)t->rgba8[((size_t)(y) * S + (x)) * 4])
    int seam = 0, inner = 0, spread = 0;
    for (int y = 0; y < S; y++) {
        int d = abs(V(S - 1, y) - V(0, y));
        seam = d > seam ? d : seam;
        d = abs(V(y, S - 1) - V(y, 0));
        seam = d > seam ? d : seam;
        for (int b = STEP; b < S; b += STEP) {
            d = abs(V(b - 1, y) - V(b, y));
            inner = d > inner ? d : inner;
            d = abs(V(y, b - 1) - V(y, b));
            inner = d > inner ? d : inner;
        }
        for (int x = 0; x < S; x++) {
            d = abs(V(x, y) - V(0, 0));
            spread = d > spread ? d : spread;
        }
    }
#undef V
    print_message("fur noise 64/8: largest step across the edges %d, across inner cell boundaries %d, spread %d\n", seam,
                  inner, spread);
    assert_true(seam <= inner);
    assert_true(inner <= 8); /* the smoothstep is flat at lattice points */
    assert_true(spread > 100); /* and yet it is noise */
    orr_assets_destroy(a);
}

static void test_fur_noise_bad_desc(void **state)
{
    (void)state;
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_texture_id id;
    assert_int_equal(orr_assets_add_fur_noise(a, &(orr_fur_noise_desc){.size = 48}, &id), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "size 48"));
    assert_int_equal(orr_assets_add_fur_noise(a, &(orr_fur_noise_desc){.size = 8192}, &id), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(orr_assets_add_fur_noise(a, &(orr_fur_noise_desc){.size = 32, .cells = 64}, &id), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_assets_last_error(a)->message, "cells 64"));
    assert_int_equal(orr_assets_add_fur_noise(a, &(orr_fur_noise_desc){.size = 32, .cells = 3}, &id), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(orr_assets_texture_count(a), 0);
    assert_int_equal(orr_assets_add_fur_noise(a, &(orr_fur_noise_desc){.size = 1}, &id), ORR_OK);
    orr_assets_destroy(a);
}

int orrt_assets_fur(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fur_material),
        cmocka_unit_test(test_fur_noise_deterministic),
        cmocka_unit_test(test_fur_noise_histogram),
        cmocka_unit_test(test_fur_noise_tiles),
        cmocka_unit_test(test_fur_noise_bad_desc),
    };
    return cmocka_run_group_tests_name("assets: fur", tests, NULL, NULL);
}
