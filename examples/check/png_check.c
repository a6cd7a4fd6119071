/* The examples' checks read their PNGs with this: the image's size, and for each dominant colour
 * (red, green, blue: the channel that is at least 48 and 1.6 times each other one) how many pixels
 * have it and where their centroid lies. The rest (background, grey, mixed) counts as `other`.
 *
 *   png_check FILE...      one JSON object per file, one per line:
 *   {"file": "a.png", "width": 320, "height": 180, "red": {"count": 812, "x100": 16025, "y100": 6050}, ...}
 *
 * The centroid is in hundredths of a pixel, as integers (CMake, which reads them, has integer math
 * only); a class with no pixels has count 0 and x100, y100 of -100. Exit 1 when a file cannot be read as a PNG.
 * Built beside the examples (it needs stb_image, not Orrery); it is a test tool, not an example. */
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#include <stb_image.h>

#include <stdio.h>

enum { RED, GREEN, BLUE, CLASSES };
static const char *const class_names[CLASSES] = {"red", "green", "blue"};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: png_check FILE...\n");
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        int w, h, n;
        unsigned char *px = stbi_load(argv[a], &w, &h, &n, 4);
        if (!px) {
            fprintf(stderr, "png_check: %s: %s\n", argv[a], stbi_failure_reason());
            return 1;
        }
        double sx[CLASSES] = {0}, sy[CLASSES] = {0};
        unsigned long count[CLASSES] = {0}, other = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const unsigned char *p = px + ((size_t)y * (size_t)w + (size_t)x) * 4;
                int c = -1;
                for (int k = 0; k < CLASSES; k++) {
                    int o1 = p[(k + 1) % 3], o2 = p[(k + 2) % 3];
                    if (p[k] >= 48 && p[k] * 10 >= o1 * 16 && p[k] * 10 >= o2 * 16) c = k;
                }
                if (c < 0) {
                    other++;
                    continue;
                }
                count[c]++;
                sx[c] += x + 0.5;
                sy[c] += y + 0.5;
            }
        printf("{\"file\": \"%s\", \"width\": %d, \"height\": %d", argv[a], w, h);
        for (int k = 0; k < CLASSES; k++)
            printf(", \"%s\": {\"count\": %lu, \"x100\": %ld, \"y100\": %ld}", class_names[k], count[k],
                   count[k] ? (long)(sx[k] * 100.0 / (double)count[k] + 0.5) : -100L,
                   count[k] ? (long)(sy[k] * 100.0 / (double)count[k] + 0.5) : -100L);
        printf(", \"other\": %lu}\n", other);
        stbi_image_free(px);
    }
    return 0;
}
