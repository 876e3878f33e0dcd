"""The wheel vmb_gym builds: its top-level names, its packages, its shipped data, and openai-agents beside it.

The wheel is built offline from a copy of the working tree (``pip wheel --no-deps
--no-build-isolation --no-index``), so a stale ``build/`` folder cannot hide a missing file and
nothing is written into the checkout. The OpenAI Agents SDK's wheel (downloaded by
scripts/setup.sh, never installed into the venv: it would upgrade ``openai``) is installed with
ours into one temporary folder, where its ``agents`` and our ``vmb_agents`` both import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Where scripts/setup.sh downloads the OpenAI Agents SDK's wheel (read, never installed).
SDK_WHEELS = ROOT / ".venv" / "wheels"
#: Repository folder -> the import package it installs as.
PACKAGE_FOLDERS = {"vmb_gym": "vmb_gym", "agents": "vmb_agents"}
#: Repository folder of shipped data -> where the wheel holds it; every file in it must ship.
DATA_FOLDERS = {
    "agents/llm/adapters": "vmb_agents/llm/adapters",  # hf:smollm2-vmb and the reader adapter
    "agents/sb3/checkpoints": "vmb_agents/sb3/checkpoints",  # sb3:slots
    "agents/stream/shipped": "vmb_agents/stream/shipped",  # --writer sb3:stream
    "vmb_gym/evaluation/dashboard/static": "vmb_gym/evaluation/dashboard/static",  # vmb dashboard
    "vmb_gym/generator/data": "vmb_gym/generator/data",  # the generator's banks
    "vmb_gym/memory/static_model": "vmb_gym/memory/static_model",  # encoder="static"
    "benchmark": "vmb_gym/benchmark",  # --data default
}
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def wheel_files(wheel: Path) -> list[str]:
    """The paths a wheel installs, from its ``*.dist-info/RECORD``."""
    with zipfile.ZipFile(wheel) as zf:
        record = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        lines = zf.read(record).decode("utf-8").splitlines()
    return [line.rsplit(",", 2)[0] for line in lines if line.strip()]


def top_level(paths: Iterable[str]) -> set[str]:
    """Top-level import names of a wheel's files (``pkg/...`` -> ``pkg``, ``mod.py`` -> ``mod``; metadata left out)."""
    names = set()
    for path in paths:
        head, _, rest = path.partition("/")
        if head.endswith((".dist-info", ".data")):
            continue
        names.add(head if rest else head.split(".", 1)[0])
    return names


def _source_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the working tree."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in (*PACKAGE_FOLDERS, "benchmark"):
        shutil.copytree(ROOT / folder, src / folder, ignore=_SKIP)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation",
                           "--no-index", "-q", "-w", str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("vmb_gym-*.whl")
    return wheel


@pytest.fixture(scope="module")
def files(built: Path) -> set[str]:
    return set(wheel_files(built))


def test_top_level_names_are_vmb_gym_and_vmb_agents(files: set[str]) -> None:
    assert top_level(files) == {"vmb_gym", "vmb_agents"}


def test_every_package_folder_ships_with_all_its_modules(files: set[str]) -> None:
    missing = []
    for folder, package in PACKAGE_FOLDERS.items():
        modules = [p for p in _source_files(ROOT / folder) if p.suffix == ".py"]
        assert modules, folder
        for path in modules:
            rel = path.relative_to(ROOT / folder)
            # a folder of modules without __init__.py would not ship: setuptools lists packages explicitly
            assert (path.parent / "__init__.py").is_file(), f"{path.parent} holds modules but no __init__.py"
            if f"{package}/{rel.as_posix()}" not in files:
                missing.append(f"{folder}/{rel.as_posix()}")
    assert missing == [], "modules missing from the wheel (add their package to pyproject.toml's packages):\n" + (
        "\n".join(missing))


def test_shipped_data_is_in_the_wheel(files: set[str]) -> None:
    missing = []
    for folder, place in DATA_FOLDERS.items():
        shipped = _source_files(ROOT / folder)
        assert shipped, f"{folder} holds no files"
        missing += [f"{folder}/{p.relative_to(ROOT / folder).as_posix()}" for p in shipped
                    if f"{place}/{p.relative_to(ROOT / folder).as_posix()}" not in files]
    assert missing == [], "data missing from the wheel (see package-data in pyproject.toml):\n" + "\n".join(missing)


def _sdk_wheel() -> Path:
    found = sorted(SDK_WHEELS.glob("openai_agents-*.whl"))
    if not found:
        pytest.skip(f"no openai-agents wheel in {SDK_WHEELS} (scripts/setup.sh downloads it)")
    return found[-1]


def test_openai_agents_and_vmb_gym_share_no_top_level_name(files: set[str]) -> None:
    theirs = top_level(wheel_files(_sdk_wheel()))
    assert "agents" in theirs  # the name the repository's agents/ folder must not install as
    assert theirs.isdisjoint(top_level(files))


@pytest.mark.slow
def test_openai_agents_imports_beside_vmb_agents(built: Path, tmp_path: Path) -> None:
    sdk = _sdk_wheel()
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target",
                           str(target), str(sdk), str(built)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # run outside the checkout, whose agents/ folder would otherwise be found first
    code = ("import importlib, vmb_agents, vmb_agents.factory\n"
            "sdk = importlib.import_module('agents')\n"
            "print(sdk.__file__, vmb_agents.__file__, hasattr(sdk, 'Agent') and hasattr(sdk, 'Runner'))\n")
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    sdk_file, ours, has_api = done.stdout.split()
    assert Path(sdk_file) == target / "agents" / "__init__.py" and has_api == "True"
    assert Path(ours) == target / "vmb_agents" / "__init__.py"


@pytest.mark.slow
def test_the_installed_wheel_runs_the_rules_baseline_on_the_default_set(built: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target",
                           str(target), str(built)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    code = ("import sys, vmb_gym, vmb_agents\n"
            "from vmb_gym.data.embedded import embedded_benchmark_dir\n"
            "from vmb_gym.generator import verify_manifest\n"
            "root = embedded_benchmark_dir()\n"
            "print(vmb_gym.__file__, vmb_agents.__file__, root, verify_manifest(root))\n"
            "from vmb_gym.cli import main\n"
            "sys.exit(main(['eval', '--policy', 'rules', '--memory', 'bm25', '--data', 'default', '--limit', '2',"
            " '--out', 'run']))\n")
    env = {**os.environ, "PYTHONPATH": str(target), "MPLBACKEND": "Agg", "VMB_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("VMB_BENCHMARK_DIR", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0].split(" ", 3)
    assert [Path(p).is_relative_to(target) for p in first[:3]] == [True, True, True], first
    assert first[3] == "[]"  # every shipped benchmark file matches its manifest
    assert (tmp_path / "run" / "metric.json").is_file()
