// What a camera ray meets first (FirstHit, eye_state.h), by the material of the surface it hits,
// for bench quality's errors by material; the photon-mapping frame's bounce pass and the path
// tracer both record it (an area light met first is FirstHit::Light, which each checks itself).
#pragma once

#include "core/hd.h"
#include "kdtree/triangle/ray.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

CA_HD CA_INLINE FirstHit FirstHitOf(const SceneView& scene, const Hit& hit) {
    if (!hit.Valid()) return FirstHit::Background;
    switch (scene.materials[scene.shading[hit.triangle].material].type) {
        case SurfaceType::Glass: return FirstHit::Glass;
        case SurfaceType::Mirror: return FirstHit::Metal;
        case SurfaceType::Diffuse: break;
    }
    return FirstHit::Diffuse;
}

}  // namespace caustica
