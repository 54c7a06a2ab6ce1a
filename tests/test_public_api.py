"""``__all__`` of the modules without one before: every public name the module defines is listed, and nothing
else (a function added later and left out would be missing from ``from gatbio.metrics import *`` and the docs)."""

from __future__ import annotations

import importlib
import inspect

import pytest


@pytest.mark.parametrize("name", ["gatbio.metrics", "gatbio.results"])
def test_all_lists_exactly_the_public_names_the_module_defines(name):
    module = importlib.import_module(name)
    defined = {k for k, v in vars(module).items() if not k.startswith("_")
               and (getattr(v, "__module__", None) == name if inspect.isfunction(v) or inspect.isclass(v)
                    else k.isupper())}
    assert len(module.__all__) == len(set(module.__all__))
    assert set(module.__all__) == defined
