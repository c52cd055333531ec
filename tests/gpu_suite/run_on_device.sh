#!/usr/bin/env bash
# Run the GPU suite on a GPU machine and pack what it produced (see README.md).
#   run_on_device.sh OUTPUT_FOLDER [pytest arguments…]
# Writes OUTPUT_FOLDER/allure-results.tar.gz (the allure-results folder, as produced), versions.txt and
# pytest.log. Wheels in $WHEELS (allure-pytest, allure-python-commons) are installed first when set.
set -uo pipefail
suite=$(cd "$(dirname "$0")" && pwd)
output=$(mkdir -p "$1" && cd "$1" && pwd)
shift
if [ -n "${WHEELS:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$WHEELS"/*.whl || exit 1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kernel: $(uname -r)"
    echo "gpu, driver: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
    python3 - <<'PY'
import importlib.metadata as metadata
import platform

import torch

print(f"python: {platform.python_version()}")
print(f"torch: {torch.__version__} (CUDA {torch.version.cuda}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))})")
for name in ("triton", "transformers", "huggingface_hub", "hf-xet", "tokenizers", "safetensors", "cupy-cuda13x",
             "grpcio", "requests", "pytest", "pytest-xdist", "allure-pytest", "allure-python-commons"):
    try:
        print(f"{name}: {metadata.version(name)}")
    except metadata.PackageNotFoundError:
        print(f"{name}: not installed")
PY
    echo "nvcc: $( (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -2 | head -1)"
} >"$output/versions.txt" 2>&1
cat "$output/versions.txt"
work=$(mktemp -d)
cd "$suite" || exit 1
python3 -m pytest -c pytest.ini . --alluredir "$work/allure-results" -rA "$@" 2>&1 | tee "$output/pytest.log"
tar -czf "$output/allure-results.tar.gz" -C "$work" allure-results
echo "packed $(ls "$work/allure-results" | wc -l) files into $output/allure-results.tar.gz"
