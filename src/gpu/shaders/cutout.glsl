// The cut of alpha-masked materials outside the mesh pipelines (the id pass, pick.glsl; the shadow
// views' cut-out casters, shadow_mask.glsl): the alpha that shade.glsl compares with the material's
// cutoff (base colour factor x vertex colour x base colour texture), read from the base colour texture
// of the material's slot in the texture array (ORR_TEXTURE_ARRAY) or of the material's own set.
// Included after scene.glsl.
#ifdef ORR_TEXTURE_ARRAY
layout(constant_id = 2) const uint TEXTURE_SLOTS = 1u;
layout(set = 1, binding = 0) uniform sampler2D textures[TEXTURE_SLOTS];
#define ORR_SAMPLE_BASE(mat, uv) texture(textures[min(mat.texture[ORR_GPU_TEXTURE_BASE_COLOR], TEXTURE_SLOTS - 1u)], uv)
#else
layout(set = 1, binding = 0) uniform sampler2D material_textures[ORR_GPU_TEXTURE_SLOTS];
#define ORR_SAMPLE_BASE(mat, uv) texture(material_textures[ORR_GPU_TEXTURE_BASE_COLOR], uv)
#endif

// Whether material `mat` cuts its surface away at a point of vertex colour `color` and base colour
// texture coordinates `uv` (only an alpha-masked material cuts). Called in uniform control flow, as
// shade.glsl samples its textures: implicit derivatives pick the texture's mip level.
bool orr_cut(orr_gpu_material mat, vec4 color, vec2 uv)
{
    vec4 t_base = ORR_SAMPLE_BASE(mat, uv);
    vec4 base = vec4(mat.base_color[0], mat.base_color[1], mat.base_color[2], mat.base_color[3]) * color * t_base;
    return mat.alpha_mode == ORR_GPU_ALPHA_MASK && base.a < mat.alpha_cutoff;
}
