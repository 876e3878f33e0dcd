"""Fixtures shared by the constrained-decoding tests: the sharpened tiny LM (seed 5) and its token index.

Module-scoped, so each test module builds its own, as when the modules imported them from
test_constrained_decoding; a module that defines its own ``tiny`` (test_kv_decode: seed 3) overrides this one.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tiny(sharp_tiny_lm):
    return sharp_tiny_lm(5)


@pytest.fixture(scope="module")
def index(tiny):
    from vmb_agents.llm.constrained import TokenIndex

    return TokenIndex(tiny[1])
