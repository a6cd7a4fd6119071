/* The shell strategy and fur through the command-line tool, validation on: on several sample models and
 * two views, `--strategy shell` renders the bytes `--strategy batched` does; a model dressed in fur with
 * one shell renders the bytes of the model without fur, under every strategy; with shells it does not,
 * and --stats names the fur draws and shells (a skinned model too); snapshot --json shows the Fur
 * entries. */
#include "e2e_tests.h"

#include <cjson/cJSON.h>
#include <stb/stb_image.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Renders FILE with `extra` (validation on: any message fails the tool) into a PNG, read back. */
static image render(const char *file, const char *extra)
{
    char png[256], args[8192];
    snprintf(png, sizeof png, "%s/shell.png", orrt_scratch("shell"));
    snprintf(args, sizeof args, "render '%s' -o %s --validation --size 256x128 %s 2>&1", file, png, extra);
    int status = run(args);
    if (status != 0) fail_msg("render %s %s failed (%d): %s", file, extra, status, out);
    image im = load_png(png);
    remove(png);
    return im;
}

static bool same(image a, image b) { return a.w == b.w && a.h == b.h && !memcmp(a.rgba, b.rgba, (size_t)a.w * a.h * 4); }

static long drawn(image im)
{
    long n = 0;
    for (long i = 0; i < (long)im.w * im.h; i++) n += memcmp(im.rgba + i * 4, im.rgba, 3) != 0;
    return n;
}

/* --stats of a render, parsed. */
static cJSON *stats(const char *file, const char *extra)
{
    char args[8192];
    snprintf(args, sizeof args, "render '%s' -o /dev/null --validation --size 128x64 --stats %s", file, extra);
    if (run(args) != 0) fail_msg("render %s %s: %s", file, extra, out);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("--stats did not print JSON: %s", out);
    return j;
}

/* A value of --stats by its path: "draws.calls" is the draws group's calls. */
static const cJSON *stat_at(const cJSON *j, const char *path)
{
    char key[64];
    for (const char *p = path; j && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        j = cJSON_GetObjectItem(j, key);
        p += n + (p[n] == '.');
    }
    return j;
}

static double num(cJSON *j, const char *key)
{
    const cJSON *v = stat_at(j, key);
    if (!cJSON_IsNumber(v)) fail_msg("--stats has no number '%s'", key);
    return v->valuedouble;
}

void test_shell_strategy_samples(void **state)
{
    (void)state;
    static const struct {
        const char *file, *extra;
    } samples[] = {
        {"gltf/Blender_02_shared_mesh/02_shared_mesh.gltf", "--instances 4"},
        {"gltf/CesiumMilkTruck/CesiumMilkTruck.gltf", ""},
        {"gltf/BoxTextured/BoxTextured.gltf", "--order hierarchy"},
        {"gltf/Blender_01_alpha_blend/01_alpha_blend.gltf", ""},   /* blended, back to front */
        {"gltf/Blender_01_alpha_mask/01_alpha_mask.gltf", ""},     /* cut out */
        {"gltf/CesiumMan/CesiumMan.gltf", "--time 0.5"},           /* skinned */
        {"gltf/VertexColorTest/VertexColorTest.gltf", "--msaa 1"},
    };
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        const char *file = orrt_asset(samples[k].file);
        char b[512], s[512];
        snprintf(b, sizeof b, "--views 2 --strategy batched %s", samples[k].extra);
        snprintf(s, sizeof s, "--views 2 --strategy shell %s", samples[k].extra);
        image ib = render(file, b), is = render(file, s);
        if (drawn(ib) < 256 * 128 / 50) fail_msg("%s: (nearly) nothing drawn", samples[k].file);
        if (!same(ib, is)) fail_msg("%s: --strategy shell differs from batched", samples[k].file);
        stbi_image_free(ib.rgba), stbi_image_free(is.rgba);
    }
    /* one draw per record on the shell path */
    cJSON *j = stats(orrt_asset("gltf/Blender_02_shared_mesh/02_shared_mesh.gltf"), "--instances 9 --strategy shell");
    assert_true(num(j, "draws.calls") == num(j, "draws.surfaces"));
    cJSON_Delete(j);
}

void test_fur_through_the_tool(void **state)
{
    (void)state;
    const char *box = orrt_asset("gltf/BoxTextured/BoxTextured.gltf");
    /* one shell of fur is the surface itself, whatever the strategy */
    image plain = render(box, "--views 2");
    static const char *const strategies[] = {"batched", "shell", "indirect", "direct", "meshlet"};
    for (int k = 0; k < 5; k++) {
        char extra[256];
        snprintf(extra, sizeof extra, "--views 2 --fur 0.1,4 --shells 1 --strategy %s", strategies[k]);
        image one = render(box, extra);
        if (!same(plain, one)) fail_msg("--fur with one shell (%s) differs from the plain model", strategies[k]);
        stbi_image_free(one.rgba);
    }
    /* with shells: fur, larger than the box */
    image furry = render(box, "--views 2 --fur 0.1,4 --shells 24");
    assert_false(same(plain, furry));
    assert_true(drawn(furry) > drawn(plain));
    /* the meshlet strategy leaves fur to the fur adapter too: the bytes of indirect on the same meshes */
    image furry_i = render(box, "--views 2 --fur 0.1,4 --shells 24 --strategy indirect --meshlets");
    image furry_m = render(box, "--views 2 --fur 0.1,4 --shells 24 --strategy meshlet");
    if (!same(furry_i, furry_m)) fail_msg("fur under the meshlet strategy differs from indirect's");
    stbi_image_free(furry_i.rgba);
    stbi_image_free(furry_m.rgba);
    stbi_image_free(furry.rgba);
    stbi_image_free(plain.rgba);
    cJSON *j = stats(box, "--views 2 --fur 0.1,4 --shells 24 --strategy shell");
    assert_true(num(j, "draws.fur_draws") == 2); /* one fur surface, two views */
    assert_true(num(j, "draws.shells") == 2 * 24);
    assert_true(num(j, "draws.fur_fallbacks") == 0);
    cJSON_Delete(j);
    j = stats(box, "--views 2 --fur 0.1,4 --shells 24 --strategy meshlet");
    assert_true(num(j, "draws.fur_draws") == 2 && num(j, "draws.shells") == 2 * 24);
    cJSON *ml = cJSON_GetObjectItem(j, "meshlets");
    if (!ml) fail_msg("--stats of a meshlet view has no meshlets object");
    assert_true(num(ml, "sent") == 0 && num(ml, "triangles_indexed") == 0); /* all of it is fur */
    cJSON_Delete(j);
    j = stats(box, "--views 1 --fur 0.1");
    assert_true(num(j, "draws.shells") == 16); /* the material's count (orr_material_default's fur) */
    cJSON_Delete(j);
    /* fur on a skinned, animated model, on a GPU-culled view */
    j = stats(orrt_asset("gltf/CesiumMan/CesiumMan.gltf"), "--views 1 --fur 0.02,8 --time 0.5 --strategy indirect");
    assert_true(num(j, "draws.fur_draws") >= 1 && num(j, "views.gpu_culled") == 1);
    cJSON_Delete(j);
    /* the snapshot shows each instance's Fur entry */
    char args[4096];
    snprintf(args, sizeof args, "snapshot '%s' --fur 0.1 --json", box);
    assert_int_equal(run(args), 0);
    cJSON *snap = cJSON_Parse(out);
    assert_non_null(snap);
    cJSON *instances = cJSON_GetObjectItem(snap, "instances");
    assert_true(cJSON_GetArraySize(instances) >= 1);
    cJSON *in;
    cJSON_ArrayForEach(in, instances) {
        cJSON *fur = cJSON_GetObjectItem(in, "fur");
        if (!fur) fail_msg("an instance without its fur entry: %s", out);
        assert_true(num(fur, "set") == 0); /* the material's look */
    }
    cJSON_Delete(snap);
}
