// The fragment shader of every mesh pipeline: glTF 2.0 metallic-roughness (the BRDF of the
// specification's appendix B) under the view's punctual lights and a two-colour ambient sky, then
// exposure and tone mapping. Included by mesh.frag (a descriptor set per material) and
// mesh_array.frag (one texture array, ORR_TEXTURE_ARRAY), which differ only in how a slot's texture
// is found. The pipeline's state is in specialization constants: the alpha mode (opaque draws have no
// discard), whether the material is double-sided, and whether it draws fur shells (FUR: a fragment of
// shell height h is kept where the noise at its coordinates is at least thinning x h, orr_gpu_shell;
// it is then lit as any other).
// A lean variant (variant.glsl) declares only the inputs of its features; what it lacks is what the
// full shader would have found for such a draw (white textures, no normal map, white vertex colour), so that it
// shades the same bytes.
#include "scene.glsl"
#include "variant.glsl"

layout(constant_id = 0) const uint ALPHA_MODE = ORR_GPU_ALPHA_OPAQUE;
layout(constant_id = 1) const bool DOUBLE_SIDED = false;
#if ORR_SHELLS
layout(constant_id = 3) const bool FUR = false;
layout(push_constant) uniform ShellBlock { orr_gpu_shell u_shell; };
#else
const bool FUR = false;
#endif

#if ORR_HAS_COLORS
layout(location = 0) in vec3 in_world_rel;
layout(location = 3) in vec4 in_color;
#else // w: the full shaders' white vertex colour as the rasteriser interpolated it (mesh_vert.glsl)
layout(location = 0) in vec4 in_world_rel_one;
#define in_world_rel (in_world_rel_one.xyz)
#define in_color vec4(in_world_rel_one.w)
#endif
layout(location = 1) in vec3 in_normal;
#if ORR_HAS_TANGENTS
layout(location = 2) in vec4 in_tangent;
#endif
#if ORR_HAS_TEXCOORDS
layout(location = 4) in vec4 in_uv_a;
layout(location = 5) in vec4 in_uv_b;
layout(location = 6) in vec2 in_uv_c;
#endif
layout(location = 7) flat in uint in_material;
layout(location = 8) flat in uint in_mirrored;
#if ORR_SHELLS
layout(location = 9) in vec3 in_fur;
#endif

layout(location = 0) out vec4 out_color;

// The shadow map (gpu_shadow.c): a layer per shadow view of the frame; reversed depth, 1 nearest the
// light. A light that casts in this view names its records (orr_gpu_shadow, ORR_GPU_SHADOW_ROWS rows
// each: the matrix's four columns, then depth_end, texel, layer) in the shadow buffer. Read by gathers
// of four comparisons (the sampler's filter plays no part), so that every device filters the same way,
// whether or not its depth format filters linearly.
layout(set = 0, binding = 9) uniform sampler2DArrayShadow u_shadow_map;
layout(set = 0, binding = 10, std430) readonly buffer ShadowBuffer { vec4 shadow_rows[]; };

// The last fifth of a cascade's depth range, where its shadow blends into the next one's (the last
// cascade's into lit), so that no boundary between two maps of different texel sizes shows as a step.
const float SHADOW_BLEND = 0.2;

// The weight of texel i (0..taps) along one axis of taps bilinear taps one texel apart, the first
// at fraction f past texel 0: the edge texels partly, those between whole.
float shadow_tap_weight(int i, int taps, float f)
{
    return i == 0 ? 1.0 - f : i < taps ? 1.0 : i == taps ? f : 0.0;
}

// The shadow map's filter at clip-space point s (before the divide) of layer `layer`: taps x taps
// bilinear comparisons one texel apart (percentage-closer filtering), summed over the (taps + 1)^2
// texels they read with each texel's weight, four at a time by gathers.
float shadow_filter(vec4 s, uint layer)
{
    if (s.w <= 0.0) return 1.0;
    vec3 ndc = s.xyz / s.w;
    vec2 uv = ndc.xy * 0.5 + 0.5;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) return 1.0;
    int taps = int(u_view.shadow_params.w);
    float texel = u_view.shadow_params.z, ref = clamp(ndc.z, 0.0, 1.0);
    vec2 st = uv / texel - 0.5 * float(taps - 1) - 0.5; // the first tap, in texels from texel centres
    vec2 base = floor(st), f = st - base;
    int blocks = taps / 2 + 1; // 2 x 2 texels each
    float sum = 0.0;
    for (int b = 0; b < blocks; b++) {
        float v0 = shadow_tap_weight(2 * b, taps, f.y), v1 = shadow_tap_weight(2 * b + 1, taps, f.y);
        for (int a = 0; a < blocks; a++) {
            float u0 = shadow_tap_weight(2 * a, taps, f.x), u1 = shadow_tap_weight(2 * a + 1, taps, f.x);
            // at the corner the four texels share: x (u0, v1), y (u1, v1), z (u1, v0), w (u0, v0)
            vec4 g = textureGather(u_shadow_map, vec3((base + vec2(2 * a + 1, 2 * b + 1)) * texel, float(layer)), ref);
            sum += dot(g, vec4(u0 * v1, u1 * v1, u1 * v0, u0 * v0));
        }
    }
    return sum / float(taps * taps);
}

// Record `row`'s matrix.
mat4 shadow_matrix(uint row)
{
    return mat4(shadow_rows[row], shadow_rows[row + 1u], shadow_rows[row + 2u], shadow_rows[row + 3u]);
}

// The receiver's offsets in texels: x the depth bias, y the normal offset times the filter's reach from
// the point (its taps' half span and the texel each reads beyond: 2 for 3 x 3). A surface at angle a to
// the light, its point moved k texels along its normal, is k / cos(a) texels in front of the surface
// along the light, which the surface's depth under a tap r texels across reaches only at r tan(a): k at
// least the reach r keeps every tap in front however the surface slopes (acne otherwise, at grazing
// light), the depth bias adds a margin for the map's own rounding.
vec2 shadow_offsets()
{
    return vec2(u_view.shadow_params.x, u_view.shadow_params.y * (0.5 * (u_view.shadow_params.w - 1.0) + 1.0));
}

// The cascade at record `row`: its clip-space point for p (normal n), moved along n (normal offset) and
// towards the light (depth bias), both in texels of the cascade; false where its filter would read past
// the map's edge.
bool shadow_cascade_point(uint row, vec3 p, vec3 n, vec3 to_light, out vec4 s)
{
    float texel = shadow_rows[row + 4u].y;
    vec2 bias = shadow_offsets(); // depth bias, normal offset
    vec3 q = p + n * (bias.y * texel) + to_light * (bias.x * texel);
    s = shadow_matrix(row) * vec4(q, 1.0);
    vec2 uv = s.xy / s.w * 0.5 + 0.5;
    float margin = (0.5 * (u_view.shadow_params.w - 1.0) + 1.0) * u_view.shadow_params.z;
    return all(greaterThanEqual(uv, vec2(margin))) && all(lessThanEqual(uv, vec2(1.0 - margin)));
}

// How much of light `light` (which casts in this view) reaches point p (relative to the view origin,
// normal n): a directional light's first cascade whose depth range holds the point's camera depth and
// whose map holds the filter's reach round it, blended over its range's last fifth into the next
// cascade (the last one's into lit); a spot light's one map; the face of a point light's cube along
// the largest component of the direction from the light, or the one map of a point light far from the
// view (gpu_shadow.c: fit_point_focus). The point is moved along n (normal offset)
// and towards the light (depth bias), in texels of the map there. Past the last cascade, or outside a
// map: lit.
float shadow_light(orr_gpu_light light, vec3 p, vec3 n, vec3 to_light)
{
    uint row = light.shadow - 1u;
    vec2 bias = shadow_offsets(); // depth bias, normal offset
    if (light.type == ORR_GPU_LIGHT_DIRECTIONAL) {
        float depth = -(u_view.view * vec4(p, 1.0)).z, near = 0.0;
        vec4 s;
        for (uint c = 0u; c < light.shadow_count; c++, row += ORR_GPU_SHADOW_ROWS) {
            float far = shadow_rows[row + 4u].x;
            if (depth > far || !shadow_cascade_point(row, p, n, to_light, s)) {
                near = far;
                continue;
            }
            float lit = shadow_filter(s, floatBitsToUint(shadow_rows[row + 4u].z));
            float band = SHADOW_BLEND * (far - near);
            float t = band > 0.0 ? clamp((depth - (far - band)) / band, 0.0, 1.0) : 0.0;
            if (t > 0.0) {
                float next = 1.0;
                uint after = row + ORR_GPU_SHADOW_ROWS;
                if (c + 1u < light.shadow_count)
                    next = shadow_cascade_point(after, p, n, to_light, s)
                               ? shadow_filter(s, floatBitsToUint(shadow_rows[after + 4u].z))
                               : lit;
                lit = mix(lit, next, t);
            }
            return lit;
        }
        return 1.0;
    }
    if (light.type == ORR_GPU_LIGHT_POINT && light.shadow_count == 6u) { // a cube (else one map fitted to the view)
        vec3 d = p - vec3(light.position[0], light.position[1], light.position[2]), a = abs(d);
        uint face = a.x >= a.y && a.x >= a.z ? (d.x >= 0.0 ? 0u : 1u)
                    : a.y >= a.z           ? (d.y >= 0.0 ? 2u : 3u)
                                           : (d.z >= 0.0 ? 4u : 5u);
        row += face * ORR_GPU_SHADOW_ROWS;
    }
    mat4 m = shadow_matrix(row);
    vec4 info = shadow_rows[row + 4u];
    float texel = max((m * vec4(p, 1.0)).w, 0.0) * info.y; // per metre along the map's axis
    vec3 q = p + n * (bias.y * texel) + to_light * (bias.x * texel);
    return shadow_filter(m * vec4(q, 1.0), floatBitsToUint(info.z));
}

#ifdef ORR_TEXTURE_ARRAY
layout(constant_id = 2) const uint TEXTURE_SLOTS = 1u;
// Element 0 is white; the index is uniform per draw (one material per batch, one batch per draw).
layout(set = 1, binding = 0) uniform sampler2D textures[TEXTURE_SLOTS];
#define SAMPLE(slot, uv) texture(textures[min(mat.texture[slot], TEXTURE_SLOTS - 1u)], uv)
#define SAMPLE_LEVEL0(slot, uv) textureLod(textures[min(mat.texture[slot], TEXTURE_SLOTS - 1u)], uv, 0.0)
#else
// The material's own set: slot k at element k, white where it has no texture.
layout(set = 1, binding = 0) uniform sampler2D material_textures[ORR_GPU_TEXTURE_SLOTS];
#define SAMPLE(slot, uv) texture(material_textures[slot], uv)
#define SAMPLE_LEVEL0(slot, uv) textureLod(material_textures[slot], uv, 0.0)
#endif

const float PI = 3.14159265358979;
const float FUR_ROOT = 0.3; // the light a fur root reflects, of what a tip does (strands' self-shadow)

// GGX normal distribution (Trowbridge-Reitz), alpha = roughness^2.
float d_ggx(float n_dot_h, float a2)
{
    float f = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * f * f);
}

// Smith's joint masking-shadowing over 4 |N.L| |N.V| (appendix B's V).
float v_ggx(float n_dot_l, float n_dot_v, float a2)
{
    float gl = n_dot_l + sqrt(a2 + (1.0 - a2) * n_dot_l * n_dot_l);
    float gv = n_dot_v + sqrt(a2 + (1.0 - a2) * n_dot_v * n_dot_v);
    return 1.0 / (gl * gv);
}

// Khronos PBR Neutral: the base colour of a material lit by white light of 1 stays itself up to 0.76,
// brighter values roll off to 1 and desaturate towards white.
vec3 pbr_neutral(vec3 color)
{
    const float start = 0.8 - 0.04;
    const float desaturation = 0.15;
    float x = min(color.r, min(color.g, color.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    color -= offset;
    float peak = max(color.r, max(color.g, color.b));
    if (peak < start) return color;
    const float d = 1.0 - start;
    float new_peak = 1.0 - d * d / (peak + d - start);
    color *= new_peak / peak;
    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(color, vec3(new_peak), g);
}

// The ambient sky as radiance seen along `dir`: sky above, ground below, mixed across the horizon.
vec3 sky_along(vec3 dir) { return mix(u_view.ground.rgb, u_view.sky.rgb, clamp(0.5 + 0.5 * dir.y, 0.0, 1.0)); }

void main()
{
    orr_gpu_material mat = materials[in_material];
    // Every texture sampled first, in uniform control flow (before any discard): implicit derivatives
    // of interpolated coordinates, so the hardware picks each pixel's mip level, edges included.
#if ORR_HAS_TEXCOORDS
    vec4 t_base = SAMPLE(ORR_GPU_TEXTURE_BASE_COLOR, in_uv_a.xy);
    vec4 t_mr = SAMPLE(ORR_GPU_TEXTURE_METALLIC_ROUGHNESS, in_uv_a.zw);
    vec4 t_normal = SAMPLE(ORR_GPU_TEXTURE_NORMAL, in_uv_b.xy);
    vec4 t_occlusion = SAMPLE(ORR_GPU_TEXTURE_OCCLUSION, in_uv_b.zw);
    vec4 t_emissive = SAMPLE(ORR_GPU_TEXTURE_EMISSIVE, in_uv_c);
#else // no texture resident: every slot would sample the white one
    const vec4 t_base = vec4(1.0), t_mr = vec4(1.0), t_occlusion = vec4(1.0), t_emissive = vec4(1.0);
#endif
    // FUR is a constant of the pipeline. The noise is read at its full resolution: a mip level would
    // average strands away where they are small or oblique (the silhouette) and turn thinning into a
    // hard cut at one height; level 0 keeps the kept fraction 1 - thinning x h at any distance.
#if ORR_SHELLS
    float noise = FUR ? SAMPLE_LEVEL0(ORR_GPU_TEXTURE_FUR_NOISE, in_fur.xy).r : 1.0;
    if (FUR && noise < u_shell.thinning * in_fur.z) discard;
#endif

    vec4 base = vec4(mat.base_color[0], mat.base_color[1], mat.base_color[2], mat.base_color[3]) * in_color * t_base;
    if (ALPHA_MODE == ORR_GPU_ALPHA_MASK) {
        if (base.a < mat.alpha_cutoff) discard;
        base.a = 1.0;
    } else if (ALPHA_MODE == ORR_GPU_ALPHA_OPAQUE) {
        base.a = 1.0;
    }
    if ((mat.flags & ORR_GPU_MATERIAL_UNLIT) != 0u) { // KHR_materials_unlit: the base colour as it is
        out_color = base;
        return;
    }

    // The surface frame. The face turned away (mirrors included; single-sided materials never get here
    // with one: the rasteriser culls back faces, front faces of mirrored instances) shades as its own
    // front: normal and tangent frame turned over.
    vec3 n = in_normal;
    float len = length(n);
    n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
#if ORR_HAS_TANGENTS
    vec3 t = in_tangent.xyz - n * dot(n, in_tangent.xyz);
    float tlen = length(t);
    t = tlen > 1e-20 ? t / tlen : vec3(0.0);
    vec3 b = cross(n, t) * (in_tangent.w < 0.0 ? -1.0 : 1.0);
    if (DOUBLE_SIDED && gl_FrontFacing == (in_mirrored != 0u)) {
        n = -n;
        t = -t;
        b = -b;
    }
    if ((mat.textures & (1u << ORR_GPU_TEXTURE_NORMAL)) != 0u && tlen > 1e-20) {
        vec3 tn = t_normal.xyz * 2.0 - 1.0;
        tn.xy *= mat.normal_scale;
        vec3 mapped = mat3(t, b, n) * tn;
        float ml = length(mapped);
        if (ml > 0.0) n = mapped / ml;
    }
#else // no normal texture resident: the frame only turns over
    if (DOUBLE_SIDED && gl_FrontFacing == (in_mirrored != 0u)) n = -n;
#endif

    float metallic = clamp(mat.metallic * t_mr.b, 0.0, 1.0);
    float roughness = clamp(mat.roughness * t_mr.g, 0.03, 1.0); // a perfect mirror has no highlight to show
    float a2 = roughness * roughness * roughness * roughness;
    vec3 c_diff = mix(base.rgb, vec3(0.0), metallic);
    vec3 f0 = mix(vec3(0.04), base.rgb, metallic);

    vec3 v = normalize(-in_world_rel); // the camera is at the view origin
    float n_dot_v = abs(dot(n, v)) + 1e-5;
    vec3 color = vec3(0.0);
    uint first = u_view.params.y, count = u_view.params.z;
    for (uint i = 0u; i < count; i++) {
        orr_gpu_light light = lights[first + i];
        vec3 l;
        vec3 radiance = vec3(light.color[0], light.color[1], light.color[2]) * light.intensity;
        vec3 dir = vec3(light.direction[0], light.direction[1], light.direction[2]);
        if (light.type == ORR_GPU_LIGHT_DIRECTIONAL) {
            l = -dir; // lux: the illuminance on a surface facing the light
        } else {
            vec3 to_light = vec3(light.position[0], light.position[1], light.position[2]) - in_world_rel;
            float d2 = max(dot(to_light, to_light), 1e-12);
            float d = sqrt(d2);
            l = to_light / d;
            // candela: inverse-square falloff, inside KHR_lights_punctual's range window
            float window = light.range > 0.0 ? clamp(1.0 - pow(d / light.range, 4.0), 0.0, 1.0) : 1.0;
            float falloff = window / d2;
            if (light.type == ORR_GPU_LIGHT_SPOT) {
                float scale = 1.0 / max(light.cos_inner - light.cos_outer, 1e-4);
                float a = clamp((dot(dir, -l) - light.cos_outer) * scale, 0.0, 1.0);
                falloff *= a * a;
            }
            radiance *= falloff;
        }
        float n_dot_l = dot(n, l);
        if (n_dot_l <= 0.0) continue;
        if (light.shadow != 0u) radiance *= shadow_light(light, in_world_rel, n, l);
        vec3 h = normalize(l + v);
        float n_dot_h = max(dot(n, h), 0.0), v_dot_h = max(dot(v, h), 0.0);
        vec3 f = f0 + (1.0 - f0) * pow(1.0 - v_dot_h, 5.0);
        vec3 diffuse = (1.0 - f) * (1.0 / PI) * c_diff;
        vec3 specular = f * d_ggx(n_dot_h, a2) * v_ggx(n_dot_l, n_dot_v, a2);
        color += (diffuse + specular) * radiance * n_dot_l;
    }

    // Ambient: the sky's irradiance (exact for a two-colour hemisphere: linear in n.y, spherical
    // harmonics of order 1) for the diffuse part; for the specular part the sky along the reflection,
    // blurred towards its mean with roughness, weighted by an analytic fit of the split-sum BRDF
    // (Karis, "Physically based shading on mobile"). Occlusion darkens only this indirect light.
    float occlusion = 1.0 + mat.occlusion_strength * (t_occlusion.r - 1.0);
    vec3 r = reflect(-v, n);
    vec3 env = mix(sky_along(r), 0.5 * (u_view.sky.rgb + u_view.ground.rgb), roughness);
    const vec4 c0 = vec4(-1.0, -0.0275, -0.572, 0.022), c1 = vec4(1.0, 0.0425, 1.04, -0.04);
    vec4 k = roughness * c0 + c1;
    float a004 = min(k.x * k.x, exp2(-9.28 * n_dot_v)) * k.x + k.y;
    vec2 ab = vec2(-1.04, 1.04) * a004 + k.zw;
    vec3 ambient = c_diff * sky_along(n) * (1.0 - (f0 * ab.x + ab.y)) + env * (f0 * ab.x + ab.y);
    color += ambient * occlusion;
    // Fur of more than one shell: the strands shade each other, light reaching the root least (the
    // reflected light scaled from FUR_ROOT at h = 0 to 1 at the tips). One shell is the plain surface.
#if ORR_SHELLS
    if (FUR && u_shell.shell_count > 1u) color *= mix(FUR_ROOT, 1.0, in_fur.z);
#endif
    color += vec3(mat.emissive[0], mat.emissive[1], mat.emissive[2]) * t_emissive.rgb;

    color *= u_view.sky.w; // exposure
    if (u_view.params.w == ORR_GPU_TONE_PBR_NEUTRAL) color = pbr_neutral(color);
    out_color = vec4(color, base.a);
}
