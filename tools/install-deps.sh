#!/usr/bin/env bash
# Installs Caustica's build and test dependencies from Debian 12's packages (Xvfb and xdotool run
# the viewer test in a real window). The CUDA backend also
# needs the CUDA toolkit at /usr/local/cuda (optional: without it everything runs on the CPU).
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ pkg-config git \
  libyaml-cpp-dev libtinyobjloader-dev libstb-dev libsdl2-dev libtbb-dev libgtest-dev libnanoflann-dev \
  libopenexr-dev python3-venv \
  xvfb xdotool \
  >/dev/null
echo "dependencies installed"
