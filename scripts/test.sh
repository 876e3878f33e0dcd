#!/usr/bin/env bash
# Set up .venv (if needed) and run the whole test suite, slow tests included (CI's command).
# pytest's "no tests ran" (exit 5) fails.
#
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh --fast          # skip tests marked slow (same as -m "not slow")
#   bash scripts/test.sh tests/memory    # other arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for a in "$@"; do
    if [ "$a" = "--fast" ]; then args+=(-m "not slow"); else args+=("$a"); fi
done
bash scripts/setup.sh
export PYTHONHASHSEED=0 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 MPLBACKEND=Agg
# lint and type-check first (rules in pyproject.toml's [tool.ruff.lint] and [tool.mypy]); either failing fails the run
echo "[test] ruff check"
.venv/bin/python -m ruff check --no-fix .
echo "[test] mypy vmb_gym"
.venv/bin/python -m mypy vmb_gym
echo "[test] mkdocs build --strict"
.venv/bin/python -m mkdocs build --strict --quiet --site-dir .cache/site
set +e
.venv/bin/python -m pytest -q ${args[@]+"${args[@]}"}
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    exit 1
fi
exit "$rc"
