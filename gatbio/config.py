"""Experiment configs: YAML files mapped onto dataclasses, with ``key=value`` overrides.

Configs are data (see STYLE.md): each experiment declares a dataclass schema, a YAML file in
``experiments/configs/`` fills it, command-line ``key=value`` pairs override it, and the resolved config is
saved next to every result. OmegaConf does the merging and type checking, so a misspelt key or a value of
the wrong type fails with the key's name instead of being silently ignored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

T = TypeVar("T")


def load_config(schema: type[T], path: str | Path | Mapping[str, Any] | None = None,
                overrides: list[str] | None = None) -> T:
    """Build a ``schema`` dataclass instance from defaults, then the YAML ``path``, then ``overrides``.

    Args:
        schema: a dataclass type whose fields (and their defaults) define the allowed keys.
        path: an optional YAML file, or a mapping with the same content (a config shipped inside the package);
            keys not in ``schema`` are an error that names the key and the file.
        overrides: optional ``["key=value", "nested.key=value"]`` strings (the command line's leftovers).

    Raises:
        ValueError: with the file, the key and what is allowed, for unknown keys or wrong types.
    """
    base = OmegaConf.structured(schema)
    where = "defaults"
    try:
        if isinstance(path, Mapping):
            where = "the built-in config"
            base = OmegaConf.merge(base, OmegaConf.create(dict(path)))
        elif path is not None:
            where = str(path)
            if not Path(path).is_file():
                raise FileNotFoundError(f"config file {path} does not exist")
            base = OmegaConf.merge(base, OmegaConf.load(path))
        if overrides:
            where = "command-line overrides " + " ".join(overrides)
            bad = [o for o in overrides if "=" not in o]
            if bad:
                raise ValueError(f"override {bad[0]!r} is not of the form key=value")
            base = OmegaConf.merge(base, OmegaConf.from_dotlist(list(overrides)))
        obj = OmegaConf.to_object(base)
    except OmegaConfBaseException as err:
        msg = str(err).split("\n")[0]
        allowed = ", ".join(f.name for f in dataclasses.fields(schema))
        raise ValueError(f"bad config in {where}: {msg} (allowed top-level keys: {allowed})") from None
    return obj  # type: ignore[return-value]


def config_to_dict(cfg: Any) -> dict:
    """A plain dict of a config dataclass (what gets saved next to results)."""
    return dataclasses.asdict(cfg)


def save_config(cfg: Any, path: str | Path) -> None:
    """Write the resolved config as YAML, atomically."""
    from gatbio.results import atomic_write_text

    atomic_write_text(path, OmegaConf.to_yaml(OmegaConf.structured(cfg)))
