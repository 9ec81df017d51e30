# Sourced by the GPU machine scripts (gpu-check.sh, gpu-profile.sh) with their output folder in
# $out: makes it absolute, moves to the project root, and sets up the dependency folder, nvcc, the
# real meshes, the commit the benchmarks report, and the Release CUDA build for sm_90
# (gpu_configure, into $gpu_build).
#
# .deps, for a GPU machine without the Debian packages, is made on a development machine with
#   ../shared/device/fetch-deps.sh libyaml-cpp-dev libyaml-cpp0.7 libtinyobjloader-dev \
#     libtinyobjloader2rc10 libstb-dev libstb0 libgtest-dev libgmock-dev libtbb-dev libtbb12 \
#     libtbbmalloc2 libtbbbind-2-5 libhwloc15 libbenchmark-dev libbenchmark1debian \
#     libnanoflann-dev libopenexr-dev libopenexr-3-1-30 libimath-dev libimath-3-1-29 zlib1g-dev \
#     zlib1g libtinygltf-dev libtinygltf2d
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -d .deps ]; then
  export CMAKE_PREFIX_PATH=$PWD/.deps/usr LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export PATH=/usr/local/cuda/bin:$PATH
# Real meshes: ../shared/models, or a copy carried to the GPU machine in .models (never committed).
if [ -z "${CAUSTICA_MODELS_DIR:-}" ] && [ -d .models ]; then export CAUSTICA_MODELS_DIR=$PWD/.models; fi
models=${CAUSTICA_MODELS_DIR:-../shared/models}
# A copy of the tree whose .git is missing or stale (as on a lent GPU machine) names its commit in
# CAUSTICA_COMMIT; the build and the benchmarks report it.
export CAUSTICA_COMMIT=${CAUSTICA_COMMIT:-$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)}
gpu_build=build-gpu
gpu_configure() {
  cmake -S . -B "$gpu_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCAUSTICA_CUDA=ON -DCAUSTICA_WINDOW=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90
}
