/* glTF 2.0 parse: the JSON walk. Each helper reads one member of a cJSON object, checks its type (and
 * range or reference), and on a mismatch fails the pass with a message naming the JSON path. */
#include "scene/gltf_parse_internal.h"

#include <math.h>
#include <string.h>

/* ---- JSON helpers: each checks the type and names the path in its message ---------------------- */

const char *orri_gltf_jtype(const cJSON *j)
{
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    return "invalid";
}

/* Top-level or member array; absent = NULL with ok. */
bool orri_gltf_jarray(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, const cJSON **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!j) return true;
    if (!cJSON_IsArray(j)) return PARSE_ERR(c, "%s%s%s: expected an array, found %s", path, DOT(path), key, orri_gltf_jtype(j));
    *out = j;
    return true;
}

bool orri_gltf_jobject(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, const cJSON **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!j) return true;
    if (!cJSON_IsObject(j)) return PARSE_ERR(c, "%s%s%s: expected an object, found %s", path, DOT(path), key, orri_gltf_jtype(j));
    *out = j;
    return true;
}

bool orri_gltf_jbool(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, bool def, bool *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!j) return true;
    if (!cJSON_IsBool(j)) return PARSE_ERR(c, "%s%s%s: expected a boolean, found %s", path, DOT(path), key, orri_gltf_jtype(j));
    *out = cJSON_IsTrue(j);
    return true;
}

bool orri_gltf_jnumber_value(orri_gltf_pctx *c, const cJSON *j, const char *path, const char *key, double *out)
{
    if (!cJSON_IsNumber(j)) return PARSE_ERR(c, "%s%s%s: expected a number, found %s", path, key && *path ? "." : "", key ? key : "", orri_gltf_jtype(j));
    if (!isfinite(j->valuedouble)) return PARSE_ERR(c, "%s%s%s: number is not finite", path, key && *path ? "." : "", key ? key : "");
    *out = j->valuedouble;
    return true;
}

bool orri_gltf_jnum(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, double def, double *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!j) return true;
    return orri_gltf_jnumber_value(c, j, path, key, out);
}

bool orri_gltf_jrequired(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key)) return true;
    return PARSE_ERR(c, "%s: required property '%s' is missing", path, key);
}

/* An integer in [lo, hi]; absent = def (return true). */
bool orri_gltf_jint(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, int64_t def, int64_t lo, int64_t hi,
                    int64_t *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!j) return true;
    if (!cJSON_IsNumber(j)) return PARSE_ERR(c, "%s%s%s: expected an integer, found %s", path, DOT(path), key, orri_gltf_jtype(j));
    double v = j->valuedouble;
    if (!isfinite(v) || v != floor(v)) return PARSE_ERR(c, "%s%s%s: %g is not an integer", path, DOT(path), key, v);
    if (v < (double)lo || v > (double)hi)
        return PARSE_ERR(c, "%s%s%s: %.17g is out of range [%lld, %lld]", path, DOT(path), key, v, (long long)lo,
                         (long long)hi);
    *out = (int64_t)v;
    return true;
}

/* A reference to element of a top-level array of `count` (named `what`); absent = -1. */
bool orri_gltf_jref_value(orri_gltf_pctx *c, const cJSON *j, const char *path, uint32_t count, const char *what, int32_t *out)
{
    if (!cJSON_IsNumber(j)) return PARSE_ERR(c, "%s: expected an index, found %s", path, orri_gltf_jtype(j));
    double v = j->valuedouble;
    if (!isfinite(v) || v != floor(v)) return PARSE_ERR(c, "%s: %g is not an index", path, v);
    if (v < 0 || v >= (double)count)
        return PARSE_ERR(c, "%s: %.17g is out of range, %u %s", path, v, count, what);
    *out = (int32_t)v;
    return true;
}

bool orri_gltf_jref(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, uint32_t count, const char *what,
                    int32_t *out)
{
    *out = -1;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) return true;
    char p[300];
    PATHF(c, p, sizeof p, "%s%s%s", path, DOT(path), key);
    return orri_gltf_jref_value(c, j, p, count, what, out);
}

bool orri_gltf_jstring(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, const char **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!j) return true;
    if (!cJSON_IsString(j)) return PARSE_ERR(c, "%s.%s: expected a string, found %s", path, key, orri_gltf_jtype(j));
    *out = j->valuestring;
    return true;
}

/* A fixed-length number array (translation, color, ...). */
bool orri_gltf_jnums(orri_gltf_pctx *c, const cJSON *obj, const char *key, const char *path, uint32_t n, double *out, bool *present)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present) *present = false;
    if (!j) return true;
    if (!cJSON_IsArray(j)) return PARSE_ERR(c, "%s.%s: expected an array of %u numbers, found %s", path, key, n, orri_gltf_jtype(j));
    if ((uint32_t)cJSON_GetArraySize(j) != n)
        return PARSE_ERR(c, "%s.%s: expected %u numbers, found %d", path, key, n, cJSON_GetArraySize(j));
    uint32_t i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        char p[300];
        PATHF(c, p, sizeof p, "%s.%s[%u]", path, key, i);
        if (!orri_gltf_jnumber_value(c, e, p, NULL, &out[i])) return false;
    }
    if (present) *present = true;
    return true;
}

/* Warns once per object about properties the loader does not know (untidy, not invalid). */
void orri_gltf_check_keys(orri_gltf_pctx *c, const cJSON *obj, const char *path, const char *const *known)
{
    for (const cJSON *e = obj->child; e; e = e->next) {
        if (!e->string) continue;
        bool ok = strcmp(e->string, "extensions") == 0 || strcmp(e->string, "extras") == 0 ||
                  strcmp(e->string, "name") == 0;
        for (const char *const *k = known; !ok && *k; k++) ok = (*k)[0] == e->string[0] && strcmp(*k, e->string) == 0;
        if (!ok) orri_gltf_warn(c, "%s%s%s: unknown property, ignored", path, *path ? "." : "", e->string);
    }
}

/* Iterates a top-level array of objects; each element must be an object. */
bool orri_gltf_top_array(orri_gltf_pctx *c, const char *key, const cJSON **arr, uint32_t *count)
{
    if (!orri_gltf_jarray(c, c->doc->json, key, "", arr)) return false;
    *count = *arr ? (uint32_t)cJSON_GetArraySize(*arr) : 0;
    if (*arr && !*count) orri_gltf_violation(c, "%s: empty array, ignored", key); /* the spec wants it left out */
    if (*arr) {
        uint32_t i = 0;
        for (const cJSON *e = (*arr)->child; e; e = e->next, i++) {
            if (!cJSON_IsObject(e)) return PARSE_ERR(c, "%s[%u]: expected an object, found %s", key, i, orri_gltf_jtype(e));
        }
    }
    return true;
}
