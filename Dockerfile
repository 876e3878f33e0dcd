# vmb_gym's env server (`vmb serve`, an OpenEnv environment) in a container.
#
#   docker build -t vmb-serve .
#   docker run --rm -p 127.0.0.1:8000:8000 -e VMB_SERVE_TOKEN=change-me vmb-serve
#
# Inside the container the server binds 0.0.0.0 (the only way a published port reaches it);
# publish it on the host's loopback as above unless the network should see it, and set a token.
# Options go through VMB_SERVE_* variables (vmb_gym/server/asgi.py): VMB_SERVE_DATA,
# VMB_SERVE_MEMORY, VMB_SERVE_MAX_SESSIONS, VMB_SERVE_SESSION_TIMEOUT, VMB_SERVE_MAX_REQUEST_BYTES.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PYTHONHASHSEED=0 \
    HF_HUB_OFFLINE=1 VMB_BENCHMARK_DIR=/app/benchmark VMB_SERVE_DATA=default VMB_SERVE_MEMORY=bm25

WORKDIR /app
# torch first, pinned to the CPU build (as scripts/setup.sh does), so no later requirement pulls CUDA.
RUN pip install "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY vmb_gym ./vmb_gym
COPY agents ./agents
COPY benchmark ./benchmark
RUN pip install ".[server]" "torch==2.13.0" \
    && python -c "import torch; assert not torch.version.cuda, 'a CUDA build of torch slipped in'"

RUN useradd --create-home --uid 10001 vmb
USER vmb
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s \
    CMD python -c "import os, urllib.request; t = os.environ.get('VMB_SERVE_TOKEN'); urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:8000/health', headers={'Authorization': 'Bearer ' + t} if t else {}), timeout=4)"
# --ws-max-size: 4x the default 1 MiB request cap (larger frames are refused by the protocol layer).
CMD ["uvicorn", "vmb_gym.server.asgi:app", "--host", "0.0.0.0", "--port", "8000", "--ws-max-size", "4194304", "--log-level", "warning"]
