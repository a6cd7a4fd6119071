/* bench gltf FILE [--json] [--threads N]: loading a glTF file (orr_gltf_load into a fresh asset
 * library: read, parse, validate, decode, build meshes, materials, textures and the prefab) beside the
 * baseline of reading the same bytes from disk (the file and the external buffers and images it
 * names), at 1 decoding thread and at one per core (or at N), with the load's phases (orr_gltf_stats)
 * of its best run: read, JSON parse, buffer decode (meshopt, Draco), validate, image decode, build.
 * Each figure is the best of repeated runs; the goal is load >= 1/3 of the read speed for a .glb. */
#include "tool.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The files a load reads: the file itself and, for .gltf, the relative URIs of buffers and images. */
static int gather_files(const char *file, char ***out)
{
    char **list = calloc(1, sizeof *list);
    int n = 0;
    list[n++] = strdup(file);
    FILE *f = fopen(file, "rb");
    if (!f) {
        *out = list;
        return n;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    size_t got = buf ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    cJSON *j = (got == (size_t)len && len >= 4 && memcmp(buf, "glTF", 4) != 0) ? cJSON_ParseWithLength(buf, (size_t)len) : NULL;
    free(buf);
    const char *slash = strrchr(file, '/');
    int dirlen = slash ? (int)(slash - file) : 1;
    const char *dir = slash ? file : ".";
    const char *keys[] = {"buffers", "images"};
    for (int k = 0; k < 2 && j; k++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, keys[k]);
        for (const cJSON *e = arr ? arr->child : NULL; e; e = e->next) {
            const cJSON *uri = cJSON_GetObjectItemCaseSensitive(e, "uri");
            if (!cJSON_IsString(uri) || !strncmp(uri->valuestring, "data:", 5)) continue;
            char path[4096];
            snprintf(path, sizeof path, "%.*s/%s", dirlen, dir, uri->valuestring);
            list = realloc(list, (size_t)(n + 1) * sizeof *list);
            list[n++] = strdup(path);
        }
    }
    cJSON_Delete(j);
    *out = list;
    return n;
}

/* Reads every byte of the files, as a loader would have to; returns the byte count. */
static uint64_t read_all(char **files, int n, unsigned char **scratch, size_t *cap)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f) continue;
        struct stat st;
        if (fstat(fileno(f), &st) == 0 && (size_t)st.st_size > *cap) {
            *cap = (size_t)st.st_size;
            *scratch = realloc(*scratch, *cap);
        }
        size_t got = fread(*scratch, 1, *cap, f);
        fclose(f);
        total += got;
    }
    return total;
}

/* workers: NULL for a figure without threads (the read), else "none" (one thread), "started" (by the
 * load) or "kept" (by the caller) */
static void emit(bool json, const char *name, uint32_t threads, const char *workers, uint64_t bytes, double s)
{
    double ms = s * 1e3, mbs = s > 0 ? (double)bytes / s / 1e6 : 0;
    char tag[32] = "";
    if (json && workers) snprintf(tag, sizeof tag, "\"workers\": \"%s\", ", workers);
    if (json)
        printf("{\"name\": \"%s\", \"threads\": %u, %s\"bytes\": %llu, \"ms\": %.6f, \"mb_per_s\": %.3f, \"n\": %llu, "
               "\"ns_per_item\": %.6f}\n",
               name, threads, tag, (unsigned long long)bytes, ms, mbs, (unsigned long long)bytes,
               bytes ? s * 1e9 / (double)bytes : 0.0);
    else if (workers)
        printf("%-22s %3u thr%s %10llu bytes %10.4f ms %10.1f MB/s\n", name, threads, strcmp(workers, "kept") ? "     " : " kept",
               (unsigned long long)bytes, ms, mbs);
    else printf("%-22s              %10llu bytes %10.4f ms %10.1f MB/s\n", name, (unsigned long long)bytes, ms, mbs);
}

static const char usage[] = "usage: orrery bench gltf FILE [--json] [--seconds S (0.001..3600)] [--threads N (0..256)]\n"
                            "  N: decoding threads; 0 = the caller's thread alone; default: 1 and every core\n";

int orr_tool_bench_gltf(int argc, char **argv)
{
    const char *file = NULL;
    bool json = false;
    double budget = 1.0;
    long threads_arg = -1;
    bool ended = false;
    for (int i = 1; i < argc; i++) {
        int kind = tool_arg_kind(argv[i], &ended);
        if (kind == 1) continue;
        if (kind == 2 && !file) file = argv[i];
        else if (kind == 2) {
            return tool_usage_error("bench gltf", "unexpected argument '%s' (one FILE: '%s')", argv[i], file);
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--seconds")) {
            if (!tool_opt_number(argc, argv, &i, 0.001, 3600, &budget)) return 2;
        } else if (!strcmp(argv[i], "--threads")) {
            uint32_t t;
            if (!tool_opt_u32(argc, argv, &i, 0, 256, &t)) return 2;
            threads_arg = t;
        } else {
            return tool_unknown_option("bench gltf", argv[i]);
        }
    }
    if (!file) return tool_usage_error("bench gltf", "FILE is required");
    /* one load first: refuse early, and warm the page cache for both measurements */
    orr_assets *assets;
    orr_prefab_id prefab;
    orr_error err;
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK) return 1;
    /* progress on a terminal, between the timed loads */
    char what[4200];
    snprintf(what, sizeof what, "bench gltf %s", file);
    tool_progress progress;
    tool_progress_begin(&progress, what);
    tool_progress_update(&progress, "first load", 0, 0);
    if (orr_gltf_load(assets, file, NULL, &prefab, &err) != ORR_OK) {
        tool_progress_end(&progress);
        fprintf(stderr, "%s: %s\n", file, err.message);
        orr_assets_destroy(assets);
        return 1;
    }
    orr_assets_destroy(assets);

    char **files;
    int nfiles = gather_files(file, &files);
    unsigned char *scratch = NULL;
    size_t cap = 0;
    uint64_t bytes = read_all(files, nfiles, &scratch, &cap);

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* 1 thread, then every core twice: with threads the load starts and joins itself (the default), and
     * with workers kept by the caller across loads, as an engine keeps its job system
     * (orr_gltf_options.workers) */
    uint32_t counts[3] = {1, cores > 1 ? (uint32_t)cores : 1, cores > 1 ? (uint32_t)cores : 1};
    bool kept[3] = {false, false, true};
    int first = 0, nsettings = counts[1] > 1 ? 3 : 1;
    if (threads_arg >= 0) {
        counts[1] = counts[2] = threads_arg ? (uint32_t)threads_arg : 1;
        first = 1, nsettings = threads_arg > 1 ? 3 : 2;
    }
    double best_read = 1e300, image_ms[3] = {0, 0, 0};
    for (int k = first; k < nsettings; k++) {
        /* interleave loading and reading so that both see the same machine state; best of each */
        orr_gltf_stats st, best_st = {0};
        orr_workers *workers = NULL;
        if (kept[k] && orr_workers_create(&(orr_workers_desc){.threads = counts[k]}, &workers, NULL) != ORR_OK) continue;
        orr_gltf_options opt = {.threads = counts[k], .stats = &st, .workers = workers};
        double best_load = 1e300, t_end = now_s() + budget;
        int reps = 0;
        char step[64];
        snprintf(step, sizeof step, "load at %u thread%s%s, run", counts[k], counts[k] == 1 ? "" : "s", kept[k] ? " (kept)" : "");
        while (reps < 5 || (now_s() < t_end && reps < 100000)) {
            tool_progress_update(&progress, step, (uint64_t)reps + 1, 0);
            if (orr_assets_create(NULL, &assets, NULL) != ORR_OK) break;
            double t0 = now_s();
            orr_result r = orr_gltf_load(assets, file, &opt, &prefab, &err);
            double t1 = now_s();
            orr_assets_destroy(assets);
            if (r != ORR_OK) break;
            if (t1 - t0 < best_load) best_load = t1 - t0, best_st = st;
            t0 = now_s();
            read_all(files, nfiles, &scratch, &cap);
            t1 = now_s();
            if (t1 - t0 < best_read) best_read = t1 - t0;
            reps++;
        }
        orr_workers_destroy(workers);
        uint32_t th = counts[k];
        const char *how = th < 2 ? "none" : kept[k] ? "kept" : "started";
        tool_progress_end(&progress);
        emit(json, "load", th, how, bytes, best_load);
        /* the phases of the best load */
        const char *names[6] = {"load.read", "load.json_parse", "load.buffer_decode", "load.validate", "load.image_decode",
                                "load.build"};
        uint64_t ns[6] = {best_st.read_ns, best_st.json_ns, best_st.decode_ns, best_st.validate_ns, best_st.image_ns,
                          best_st.build_ns};
        for (int p = 0; p < 6; p++) emit(json, names[p], th, how, bytes, (double)ns[p] * 1e-9);
        image_ms[k] = (double)best_st.image_ns * 1e-6;
        emit(json, "baseline_read", 0, NULL, bytes, best_read);
        if (json)
            printf("{\"name\": \"load_vs_read\", \"threads\": %u, \"workers\": \"%s\", \"value\": %.4f, \"reps\": %d, "
                   "\"parses\": %u, \"deferred_views\": %u, \"split_views\": %u}\n", th, how, best_read / best_load, reps,
                   best_st.parses, best_st.deferred_views, best_st.split_views);
        else printf("load at %u thread%s%s runs at %.3f of the read speed (%d runs each%s%s)\n", th, th == 1 ? "" : "s",
                    kept[k] ? " kept by the caller" : "", best_read / best_load, reps,
                    best_st.deferred_views ? "; index views decoded beside the rest" : "",
                    best_st.split_views ? "; views decoded in pieces" : "");
    }
    if (first == 0 && nsettings > 1 && image_ms[1] > 0) {
        if (json) printf("{\"name\": \"image_decode_speedup\", \"threads\": %u, \"value\": %.4f}\n", counts[1], image_ms[0] / image_ms[1]);
        else printf("image decoding: %.2fx faster on %u threads than on 1\n", image_ms[0] / image_ms[1], counts[1]);
    }
    for (int i = 0; i < nfiles; i++) free(files[i]);
    free(files);
    free(scratch);
    return 0;
}
