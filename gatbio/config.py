"""Experiment configs: YAML files mapped onto dataclasses, with ``key=value`` overrides.

Configs are data (see STYLE.md): each experiment declares a dataclass schema, a YAML file in
``experiments/configs/`` fills it, command-line ``key=value`` pairs override it, and the resolved config is
saved next to every result. OmegaConf does the merging and type checking, so a misspelt key or a value of
the wrong type fails with the key's name instead of being silently ignored.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from omegaconf import ListConfig, OmegaConf
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
    where, text, from_file = "defaults", None, True
    try:
        if isinstance(path, Mapping):
            where = "the built-in config"
            base = OmegaConf.merge(base, OmegaConf.create(dict(path)))
        elif path is not None:
            where = str(path)
            text = _read_yaml_text(Path(path))
            base = OmegaConf.merge(base, OmegaConf.create(_parse_yaml(text, where)))
        if overrides:
            where, text = "command-line overrides " + " ".join(overrides), None  # no file line for an override
            from_file = False
            bad = [o for o in overrides if "=" not in o]
            if bad:
                raise ValueError(f"override {bad[0]!r} is not of the form key=value")
            for o in overrides:  # one at a time, so that a value YAML cannot read is named with its override
                try:
                    base = OmegaConf.merge(base, OmegaConf.from_dotlist([o]))
                except yaml.YAMLError as err:
                    what = str(getattr(err, "problem", None) or err).split("\n")[0]
                    raise ValueError(f"override {o!r}: its value is not valid YAML ({what}); e.g. seeds=[0,1], "
                                     "name=text, epochs=50 (quote the whole override in the shell)") from None
        obj = OmegaConf.to_object(base)
    except OmegaConfBaseException as err:
        key = getattr(err, "full_key", None) or getattr(err, "key", None)
        line = _key_line(text, key) if text else None
        where = f"{where}{f':{line}' if line else ''}"
        expected = _field_type(schema, str(key)) if key else None
        value = getattr(err, "value", None)
        if (_is_list_type(expected) and not isinstance(value, (list, tuple, ListConfig))
                and "not Optional" not in str(err)):  # null for a list: OmegaConf's "is not Optional" says it
            # OmegaConf: "Invalid value assigned: AnyNode is not a ListConfig, TupleConfig, list, or tuple."
            example = f"{key}=[{value}]" if not from_file else f"{str(key).split('.')[-1]}: [{value}]"
            raise ValueError(f"bad config in {where}: {key}: expected a list, e.g. {example}") from None
        msg = str(err).split("\n")[0]
        section, cls = _section(schema, str(key)) if key else ("", schema)
        allowed = ", ".join(f.name for f in dataclasses.fields(cls))
        what = f"allowed keys of {section}" if section else "allowed top-level keys"
        raise ValueError(f"bad config in {where}: {msg} ({what}: {allowed})") from None
    return obj  # type: ignore[return-value]


def _section(schema: type, key: str) -> tuple[str, type]:
    """The nested dataclass that holds ``key`` (``"protein.foo"`` -> ``("protein", ProteinSettings)``), as deep
    as the schema goes; ``("", schema)`` for a top-level key."""
    parts, cls, path = key.split("."), schema, []
    for part in parts[:-1]:
        sub = _field_type(cls, part)
        if not (isinstance(sub, type) and dataclasses.is_dataclass(sub)):
            break
        cls = sub
        path.append(part)
    return ".".join(path), cls


def _field_type(schema: type, key: str) -> Any:
    """The annotated type of the dotted ``key`` in the dataclass ``schema`` (``None`` when it has none)."""
    cls: Any = schema
    for part in key.split("."):
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            return None
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation that cannot be resolved: no friendlier message, OmegaConf's stands
            return None
        cls = hints.get(part)
    return cls


def _is_list_type(tp: Any) -> bool:
    """``list[...]`` / ``tuple[...]`` (optionally ``| None``)."""
    if tp is None:
        return False
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(_is_list_type(a) for a in typing.get_args(tp) if a is not type(None))
    return tp in (list, tuple) or typing.get_origin(tp) in (list, tuple)


def _read_yaml_text(path: Path) -> str:
    if path.is_dir():
        raise IsADirectoryError(f"config file {path} is a folder; give a YAML file")
    if not path.is_file():
        raise FileNotFoundError(f"config file {path} does not exist")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"config file {path} is not UTF-8 text; give a YAML file") from None


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key given twice in one mapping is an error (YAML requires unique keys;
    PyYAML would silently keep the last value)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice (first on line {seen[key]})", key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _parse_yaml(text: str, where: str) -> dict:
    """The YAML text as a dict: malformed YAML (a key given twice included) names ``file:line``, a top level that
    is not a mapping is refused."""
    try:
        doc = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        what = getattr(err, "problem", None) or str(err).split("\n")[0]
        raise ValueError(f"{where}{line}: malformed YAML: {what}") from None
    if doc is None:
        from gatbio.data.tables import note

        note(f"{where} is empty (or only comments): every setting takes its default")
        return {}
    if not isinstance(doc, dict):
        raise ValueError(f"{where}: the top level must be a mapping of 'key: value' lines, found a "
                         f"{type(doc).__name__} ({str(doc)[:40]!r})")
    return doc


def _key_line(text: str, key: str | None) -> int | None:
    """The line of ``key`` (its last component) in the YAML ``text``, for messages."""
    if not key:
        return None
    last = re.sub(r"(\[\d+\])+$", "", str(key).split(".")[-1])  # seeds[0] (an element): the line of seeds
    for no, line in enumerate(text.split("\n"), start=1):
        if re.match(rf"\s*{re.escape(last)}\s*:", line):
            return no
    return None


#: Constraint words of :func:`check_settings`.
_INTERVAL = re.compile(r"^([\[(])\s*(-?[\d.]+|-inf)\s*,\s*(-?[\d.]+|inf)\s*([\])])$")


def check_settings(cfg: Any, rules: Mapping[str, str], where: str = "config") -> None:
    """Reject settings that make no sense, before any work (the CLI and the Python API both call this).

    Args:
        cfg: a config dataclass (nested ones reached with dotted keys, e.g. ``"gat.epochs"``).
        rules: ``key -> constraint``: ``">0"``, ``">=0"``, an interval ``"(0, 1)"`` / ``"[0, 1)"`` / ``"[0, inf)"``,
            ``"nonempty"`` (a list), ``"unique"`` (a list naming each value once: a seed or model given twice
            would run twice and count twice in a mean ± std), or several separated by ``;``. A list value is
            checked element by element;
            ``None`` (an optional setting left unset) passes.

    Raises:
        ValueError: ``config epochs=0: must be > 0`` (the key, the value and the constraint).
    """
    for key, rule in rules.items():
        value: Any = cfg
        for part in key.split("."):
            value = getattr(value, part)
        for r in (x.strip() for x in rule.split(";")):
            if r == "nonempty":
                if value is not None and len(value) == 0:
                    raise ValueError(f"{where} {key}={list(value)}: is empty; give at least one value")
                continue
            if r == "unique":
                twice = [v for k, v in enumerate(value or []) if v in list(value)[:k]]
                if twice:
                    raise ValueError(f"{where} {key}={list(value)}: {twice[0]!r} is listed twice; give each value once")
                continue
            for v in (value if isinstance(value, (list, tuple)) else [value]):
                if v is None:
                    continue
                ok, desc = _satisfies(v, r)
                if not ok:
                    shown = f"{key}={value!r}" if not isinstance(value, (list, tuple)) else f"{key}: {v!r}"
                    raise ValueError(f"{where} {shown}: must be {desc}")


def _satisfies(v: Any, rule: str) -> tuple[bool, str]:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False, f"a number ({rule})"
    if math.isnan(v):
        return False, "a number, not nan"
    if rule in (">0", ">=0"):
        return (v > 0 if rule == ">0" else v >= 0), {">0": "> 0", ">=0": ">= 0"}[rule]
    m = _INTERVAL.match(rule)
    if not m:
        raise ValueError(f"unknown constraint {rule!r}")
    lo, hi = float(m.group(2)), float(m.group(3))
    ok = (v > lo if m.group(1) == "(" else v >= lo) and (v < hi if m.group(4) == ")" else v <= hi)
    return ok, f"in {m.group(1)}{m.group(2)}, {m.group(3)}{m.group(4)}"


def config_to_dict(cfg: Any) -> dict:
    """A plain dict of a config dataclass (what gets saved next to results)."""
    return dataclasses.asdict(cfg)


def save_config(cfg: Any, path: str | Path) -> None:
    """Write the resolved config as YAML, atomically."""
    from gatbio.results import atomic_write_text

    atomic_write_text(path, OmegaConf.to_yaml(OmegaConf.structured(cfg)))
