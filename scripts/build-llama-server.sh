#!/usr/bin/env bash
# Compile llama.cpp's own `llama-server` (and `llama-quantize`, which re-encodes
# the shipped model, see sandbox/models/local.py) once per machine and cache them.
#
#   scripts/build-llama-server.sh CACHE_DIR VERSION PYTHON
#
# The source is the llama.cpp tree vendored in the pinned llama-cpp-python
# sdist, fetched with pip (only the package registry is used). Only the server
# and quantize targets are built: no tests, examples, other tools, web UI, shared libraries or
# HTTPS. The CPU flags are the Makefile's portable x86-64 set (AVX2/FMA/F16C,
# no -march=native: a native build brings AMX kernels that this project's
# virtual CPUs fault on). Leaves CACHE_DIR/bin/llama-server; does nothing when
# it is already there.
set -euo pipefail

cache=$1
version=$2
python=$3
binary="$cache/bin/llama-server"

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9  # two checkouts setting up at once build it once

if [ -x "$binary" ] && [ -x "$cache/bin/llama-quantize" ]; then
    exit 0
fi

work="$cache/work"
rm -rf "$work"
mkdir -p "$work"
echo "setup: compiling llama-server from llama-cpp-python $version's llama.cpp (once; ~15 CPU-minutes)"
"$python" -m pip download --quiet --disable-pip-version-check --no-deps \
    --no-binary :all: "llama-cpp-python==$version" -d "$work"
tar -xzf "$work/llama_cpp_python-$version.tar.gz" -C "$work" \
    "llama_cpp_python-$version/vendor/llama.cpp"
source_dir="$work/llama_cpp_python-$version/vendor/llama.cpp"

cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
    -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    >"$work/cmake.log" 2>&1 || { tail -20 "$work/cmake.log"; exit 1; }
cmake --build "$work/build" --target llama-server llama-quantize \
    --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }

mkdir -p "$cache/bin"
install -m 755 "$work/build/bin/llama-quantize" "$cache/bin/llama-quantize"
install -m 755 "$work/build/bin/llama-server" "$binary.tmp"
mv "$binary.tmp" "$binary"  # last: its presence means the build is complete
rm -rf "$work"
