#!/usr/bin/env bash
# Installs Caustica's build and test dependencies from Debian 12's packages: the libraries (glTF
# through tinygltf; the viewer's window through SDL2, Dear ImGui and OpenGL, which Mesa provides
# without a GPU), and Xvfb, xdotool and python3 for the viewer test in a real window. The CUDA
# backend also needs the CUDA toolkit at /usr/local/cuda (optional: without it everything runs on
# the CPU).
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ pkg-config git \
  libyaml-cpp-dev libtinyobjloader-dev libtinygltf-dev libstb-dev libtbb-dev libgtest-dev libnanoflann-dev \
  libopenexr-dev zlib1g-dev libsdl2-dev libimgui-dev libgl-dev libgl1-mesa-dri \
  xvfb xdotool python3 python3-venv \
  >/dev/null
echo "dependencies installed"
