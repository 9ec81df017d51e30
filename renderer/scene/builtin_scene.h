// The built-in default scene (scenes/ring.yaml, embedded at build time).
#pragma once

namespace caustica {

const char* BuiltinDefaultSceneYaml();

}  // namespace caustica
