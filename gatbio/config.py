"""Experiment configs: YAML files mapped onto dataclasses, with ``key=value`` overrides.

Configs are data (see STYLE.md): each experiment declares a dataclass schema, a YAML file in
``experiments/configs/`` fills it, command-line ``key=value`` pairs override it, and the resolved config is
saved next to every result. OmegaConf does the merging and type checking, so a misspelt key or a value of
the wrong type fails with the key's name instead of being silently ignored.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import math
import os
import re
import types
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from omegaconf import ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException, ValidationError

from gatbio._paths import remember_config_paths

T = TypeVar("T")

#: The config schema of each command that reads a ``--config`` file: ``"module:Class" -> (the command, how to
#: run it on a FILE)``. A config of one task given to another task's command is recognised by its keys and the
#: command that reads it is named (:func:`_refuse_other_task`), as ``gatbio foodweb summarize`` names another
#: task's results folder (:func:`gatbio.results.stored_task`); a new task with a config adds its line here. The
#: modules are imported only for that message (building the ``gatbio`` parser must not import torch).
TASK_SCHEMAS: dict[str, tuple[str, str]] = {
    "gatbio.tasks.protein:ProteinConfig": ("gatbio protein run", "gatbio protein run --config {file}"),
    "gatbio.tasks.protein_interactions:InteractionsConfig": ("gatbio protein interactions",
                                                             "gatbio protein interactions --config {file}"),
    "gatbio.tasks.foodweb:FoodWebConfig": ("gatbio foodweb benchmark", "gatbio foodweb benchmark --config {file}"),
    "gatbio.tasks.robustness:RobustnessConfig": ("gatbio robustness", "gatbio robustness --config {file}"),
    "gatbio.tasks.protein_ppi:PPIBenchConfig": ("python experiments/protein_function.py --ppi24",
                                                "python experiments/protein_function.py --ppi24 {file}"),
}


def load_config(schema: type[T], path: str | Path | Mapping[str, Any] | None = None,
                overrides: list[str] | None = None, *, name: str = "the built-in config") -> T:
    """Build a ``schema`` dataclass instance from defaults, then the YAML ``path``, then ``overrides``.

    Args:
        schema: a dataclass type whose fields (and their defaults) define the allowed keys.
        path: an optional YAML file, or a mapping with the same content (a config shipped inside the package);
            keys not in ``schema`` are an error that names the key and the file.
        overrides: optional ``["key=value", "nested.key=value"]`` strings (the command line's leftovers).
        name: what a mapping ``path`` is called in messages (a user's ``dict``: the argument that gave it).

    Raises:
        ValueError: with the file, the key and what is allowed, for unknown keys or wrong types; a value of the
            wrong shape (a single value for a section, a mapping for a list, ...) with its dotted key and line.
    """
    base = OmegaConf.structured(schema)
    where, text, from_file = "defaults", None, True
    try:
        if isinstance(path, Mapping):
            where = name
            _check_shapes(schema, path, where, None)
            base = OmegaConf.merge(base, OmegaConf.create(dict(path)))
        elif path is not None:
            where = str(path)
            text = _read_yaml_text(Path(path))
            doc = _parse_yaml(text, where)
            remember_config_paths(path, doc)  # its relative paths: named with the config's folder when missing
            _refuse_other_task(schema, doc, where)  # before any key-by-key message about another task's keys
            _check_shapes(schema, doc, where, text)
            base = OmegaConf.merge(base, OmegaConf.create(doc))
        if overrides:
            where, text = "command-line overrides " + " ".join(overrides), None  # no file line for an override
            from_file = False
            bad = [o for o in overrides if "=" not in o]
            if bad:
                raise ValueError(f"override {bad[0]!r} is not of the form key=value{_split_hint(overrides, bad[0])}")
            for o in overrides:  # one at a time, so that a value YAML cannot read is named with its override
                try:
                    one = OmegaConf.from_dotlist([o])
                except yaml.YAMLError as err:
                    what = str(getattr(err, "problem", None) or err).split("\n")[0]
                    raise ValueError(f"override {o!r}: its value is not valid YAML ({what}); e.g. seeds=[0,1], "
                                     "name=text, epochs=50 (quote the whole override in the shell)") from None
                _check_shapes(schema, OmegaConf.to_container(one), where, None)
                try:
                    base = OmegaConf.merge(base, one)
                except ValidationError as err:  # a value of the wrong type: named with its override, as typed
                    _refuse_override(schema, o, err)
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
        # a key of a section given at the top (robustness's epochs=5 for protein.epochs / foodweb.epochs)
        nested = _section_keys(cls, str(key)) if key and "." not in str(key) and "not in" in msg else []
        hint = f"; did you mean {' or '.join(nested)}?" if nested else ""
        raise ValueError(f"bad config in {where}: {msg}{hint} ({what}: {allowed})") from None
    _expand_home(obj)
    return obj  # type: ignore[return-value]


_HOME = re.compile(r"~[\w.-]*/")


def _expand_home(cfg: Any) -> None:
    """Expand a leading ``~/`` (or ``~user/``) in the text settings of ``cfg`` and its sections, list items
    included, as the shell does on the command line: ``out_dir: ~/results`` in a file is the home folder's
    ``results``, not a folder named ``~`` in the current one."""
    def expand(v: Any) -> Any:
        return os.path.expanduser(v) if isinstance(v, str) and _HOME.match(v) else v

    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _expand_home(value)
        elif isinstance(value, str):
            setattr(cfg, f.name, expand(value))
        elif isinstance(value, list):
            setattr(cfg, f.name, [expand(v) for v in value])


def _split_hint(overrides: list[str], bad: str) -> str:
    """For an override without ``=`` that is the rest of a list before it, split by the shell at a space
    (``seeds=[0, 1]`` typed without quotes gives ``seeds=[0,`` and ``1]``): how to write it whole; else ``""``."""
    def depth(text: str) -> int:
        return text.count("[") + text.count("{") - text.count("]") - text.count("}")

    start = overrides.index(bad)
    while start > 0 and "=" not in overrides[start - 1]:
        start -= 1
    value = overrides[start - 1].split("=", 1)[1] if start > 0 else ""
    if depth(value) <= 0:
        return ""  # not an open list: a key without a value
    open_, end = depth(value), start - 1
    while open_ > 0 and end + 1 < len(overrides) and "=" not in overrides[end + 1]:  # up to where the list closes
        end += 1
        open_ += depth(overrides[end])
    if overrides.index(bad) > end:
        return ""  # the list closed before this piece: a key without a value of its own
    whole = " ".join(overrides[start - 1:end + 1])
    return (f" (the shell split {whole!r} at its spaces: quote it, '{whole}', or write it without spaces, "
            f"{whole.replace(' ', '')})")


def _section_keys(cls: type, key: str) -> list[str]:
    """``section.key`` for each section (a nested config dataclass) of ``cls`` that has a setting ``key``."""
    found = []
    for f in dataclasses.fields(cls):
        tp = _unwrap_optional(_field_type(cls, f.name))
        if isinstance(tp, type) and dataclasses.is_dataclass(tp) and key in {g.name for g in dataclasses.fields(tp)}:
            found.append(f"{f.name}.{key}")
    return found


def _refuse_override(schema: type, override: str, err: ValidationError) -> None:
    """The message for ``key=value`` whose value OmegaConf cannot convert to the setting's type (``hidden=1e2``,
    ``epochs=``, ``seeds=[a]``): the override as typed, the key and what it takes. OmegaConf's own names neither
    the key nor the override among several (``Value '100.0' of type 'float' could not be converted to Integer``);
    other errors (a null for a required setting, a setting of another type) are re-raised for its message."""
    key, given = (x.strip() for x in override.split("=", 1))
    tp = _unwrap_optional(_field_type(schema, key))
    args = typing.get_args(tp) if _is_list_type(tp) else ()
    item = _unwrap_optional(args[0]) if args else None
    if args and not given.startswith("["):
        raise err  # seeds=3: "expected a list, e.g. seeds=[3]" (load_config's handler)
    if item in _SCALAR_WORDS:  # seeds=[a]: a list of typed items
        kind = _SCALAR_WORDS[item].removeprefix("a ")
        want = f"a list of {kind}s, e.g. {key}=[0,1]" if item in (int, float) else f"a list of {kind}"
    elif tp in _SCALAR_WORDS:
        want = _SCALAR_WORDS[tp]
    else:
        raise err
    if not given:
        raise ValueError(f"override {override!r}: no value given; give {want}, or leave the override out to keep "
                         "the config's") from None
    if _is_null(given):  # name=#x, device=~, epochs=null: YAML's "nothing", for a setting that needs a value
        why = ("# starts a YAML comment, so no value is left" if given.startswith("#")
               else f"{given} means no value{'' if given.lower() == 'null' else ' (null)'} in YAML")
        quote = f"; for the text {given}, quote it twice: '{key}=\"{given}\"'" if tp is str and "#" in given else ""
        raise ValueError(f"override {override!r}: {key} must be {want}, and {why}{quote}") from None
    raise ValueError(f"override {override!r}: {key} must be {want}, not {given!r}") from None


def _is_null(text: str) -> bool:
    """Whether YAML reads ``text`` as null (``null``, ``~``, a comment)."""
    try:
        return yaml.safe_load(text) is None
    except yaml.YAMLError:
        return False


def task_schemas() -> Iterator[tuple[type, str, str]]:
    """Each config schema of :data:`TASK_SCHEMAS` that can be imported here, with its command and its usage (a
    task that cannot be imported is left out): for the messages that name another task's command, and for
    telling which task a results folder's ``config.yaml`` belongs to."""
    for ref, (command, usage) in TASK_SCHEMAS.items():
        module, name = ref.split(":")
        try:
            yield getattr(importlib.import_module(module), name), command, usage
        except (ImportError, AttributeError):
            continue


def _refuse_other_task(schema: type, doc: Mapping, where: str) -> None:
    """Refuse a config file of another task, naming the command that reads it: its top-level keys that ``schema``
    lacks are mostly keys of another schema of :data:`TASK_SCHEMAS`, which holds more of the file's keys than
    ``schema`` does. OmegaConf would name the first such key alone (``Key 'splits' not in 'ProteinConfig'``, or a
    misleading ``Did you mean: 'heads'?`` for ``out_heads``), which reads as a typo to fix line by line.

    A single unknown key close to one of ``schema``'s (a typo such as ``epoch``) is left to OmegaConf's message and
    its "Did you mean"; so are files whose unknown keys belong to no other task.
    """
    own = {f.name for f in dataclasses.fields(schema)}
    unknown = [k for k in doc if k not in own]
    if not unknown or (len(unknown) == 1 and difflib.get_close_matches(str(unknown[0]), own, n=1, cutoff=0.6)):
        return
    best: tuple[int, int, list, str, str] | None = None  # (its unknown keys, its keys of the file, ...)
    for other, command, usage in task_schemas():
        if other is schema:
            continue
        keys = {f.name for f in dataclasses.fields(other)}
        theirs = [k for k in unknown if k in keys]
        fits = sum(k in keys for k in doc)
        if best is None or (len(theirs), fits) > best[:2]:
            best = (len(theirs), fits, theirs, command, usage)
    if best is None or 2 * best[0] <= len(unknown) or best[1] <= len(doc) - len(unknown):
        return  # not mostly another task's keys, or it fits this task's schema as well: key-by-key messages
    from gatbio.data.tables import first_few

    _, _, theirs, command, usage = best
    mine = TASK_SCHEMAS.get(f"{schema.__module__}:{schema.__qualname__}", (schema.__name__,))[0]
    keys = f"key {theirs[0]} is its setting" if len(theirs) == 1 else f"keys {first_few(theirs, 4)} are its settings"
    raise ValueError(f"bad config in {where}: this is a config of {command} ({keys}), not of {mine}: run "
                     f"{usage.format(file=where)}")


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
        if "'\\t'" in what:  # PyYAML: "found character '\t' that cannot start any token"
            what += " (YAML takes spaces, not tabs: replace the tab on that line with spaces)"
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
    """The line of the dotted ``key`` (``"foodweb.epochs"``, ``"seeds[1]"``) in the YAML ``text``, for messages.

    The path is followed through the YAML's nodes, so that ``foodweb.epochs`` is not reported at the line of
    ``protein.epochs``; as far as the path is found (a key that is not in the file: the line of its section). Text
    that PyYAML cannot compose falls back to the first line naming the key's last component.
    """
    if not key:
        return None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        node = None
    line = None
    for part in re.findall(r"\[\d+\]|[^.\[\]]+", str(key)):
        if isinstance(node, yaml.MappingNode):
            found = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part]
            if not found:
                break
            line, node = found[-1][0].start_mark.line + 1, found[-1][1]
        elif isinstance(node, yaml.SequenceNode) and part.startswith("[") and int(part[1:-1]) < len(node.value):
            node = node.value[int(part[1:-1])]
            line = node.start_mark.line + 1
        else:
            break
    if line is not None:
        return line
    last = re.sub(r"(\[\d+\])+$", "", str(key).split(".")[-1])  # seeds[0] (an element): the line of seeds
    for no, line in enumerate(text.split("\n"), start=1):
        if re.match(rf"\s*{re.escape(last)}\s*:", line):
            return no
    return None


#: What a single value of each type is called in messages (other types: "a single value").
_SCALAR_WORDS = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}


def _check_shapes(schema: type, doc: Mapping, where: str, text: str | None, prefix: str = "") -> None:
    """Refuse a value whose shape is not the one ``schema`` expects: a single value or a list for a section of
    settings (``protein: 3``), a mapping for a list or a single value (often a line indented by mistake), a list
    for a single value. OmegaConf would say "Merge error: int is not a subclass of ProteinSettings" without the
    key, or fail with a bare TypeError; this says which key, on which line, and what it should be.

    Args:
        schema: the dataclass that ``doc`` fills (a section's, when recursing).
        doc: the parsed YAML (or one override, or a built-in mapping).
        where: the file (or ``"command-line overrides ..."``) for the message; ``text`` (the file's YAML, or
            ``None``) gives the line.
        prefix: the dotted path of ``schema`` in the whole config (``"protein."``).

    Unknown keys, nulls (but for a section), interpolations and values of the right shape but the wrong type are
    left to OmegaConf, whose messages for them are handled in :func:`load_config`.
    """
    try:
        hints = typing.get_type_hints(schema)
    except Exception:  # an annotation that cannot be resolved: OmegaConf's message stands
        return
    for key, value in doc.items():
        tp = _unwrap_optional(hints.get(key)) if isinstance(key, str) else None
        section = isinstance(tp, type) and dataclasses.is_dataclass(tp)
        if (tp is None or (value is None and (not section or tp is not hints.get(key)))
                or (isinstance(value, str) and ("${" in value or value == "???"))):
            continue  # a null for an optional section or a single value: OmegaConf says whether it may be null
        dotted, shown = f"{prefix}{key}", _shown(value)
        if value is None:  # `protein:` with every line below it commented out
            shown = "nothing (null); delete the line to keep every default"
        is_map, is_list = isinstance(value, Mapping), isinstance(value, (list, tuple))
        problem = None
        if section:
            if is_map:
                _check_shapes(tp, value, where, text, f"{dotted}.")
                continue
            keys = f"keys of {dotted}: {', '.join(f.name for f in dataclasses.fields(tp))}"
            problem = ("expected a mapping of settings (indented 'key: value' lines under it; " + keys + ")"
                       if text is not None else
                       f"expected a mapping of settings, set one at a time as {dotted}.KEY=VALUE ({keys})")
        elif tp in (dict, Mapping) or typing.get_origin(tp) in (dict, Mapping):
            if not is_map:
                problem = "expected a mapping of 'name: value' entries"
        elif _is_list_type(tp):  # a single value for a list: OmegaConf's error, made plain in load_config
            if is_map:
                problem = ("expected a list ([a, b], or '- a' lines under it)" if text is not None
                           else f"expected a list, e.g. {dotted}=[0,1]")
            elif is_list:
                args = typing.get_args(tp)
                item = _unwrap_optional(args[0]) if args else None
                for i, v in enumerate(value):
                    if item in _SCALAR_WORDS and isinstance(v, (Mapping, list, tuple)):
                        _refuse(where, text, f"{dotted}[{i}]",
                                f"expected a single value ({_SCALAR_WORDS[item]}), got {_shown(v)}")
                    if item is str and isinstance(v, bool):
                        _refuse(where, text, f"{dotted}[{i}]",
                                _yaml_bool_for_text(v, f"{dotted}=[", text, f"{dotted}[{i}]"))
        elif tp is str and isinstance(value, bool):  # name: no -> 'False', without a word
            problem = _yaml_bool_for_text(value, f"{dotted}=", text, dotted)
            _refuse(where, text, dotted, problem)
        elif tp in _SCALAR_WORDS and (is_map or is_list):
            problem = f"expected a single value ({_SCALAR_WORDS[tp]})"
            if is_map and any(k in hints for k in value):  # `jobs:` with `  seeds: [1]` below it
                shown += " (is the line below it indented by mistake?)"
        if problem:
            _refuse(where, text, dotted, f"{problem}, got {shown}")


_YAML_BOOLS = {w: w.lower() in ("yes", "true", "on") for b in ("yes no true false on off".split())
               for w in (b, b.capitalize(), b.upper())}


def _yaml_bool_for_text(value: bool, override: str, text: str | None, key: str | None = None) -> str:
    """The problem of a text setting given an unquoted yes / no / on / off / true / false, which YAML reads as
    true or false (OmegaConf would keep the text ``True`` or ``False``); the word as written on the key's line of
    ``text`` where it can be found (``off`` is not told to write ``'no'``)."""
    word = "yes" if value else "no"
    line = _key_line(text, key) if text is not None and key else None
    if line is not None:
        written = text.split("\n")[line - 1].split(":", 1)[-1].split("#", 1)[0]
        word = next((w for w in re.findall(r"[A-Za-z]+", written) if _YAML_BOOLS.get(w) is value), word)
    close = "]" if override.endswith("[") else ""
    how = (f"put the word in quotes, e.g. '{word}'" if text is not None
           else f"quote it twice, e.g. '{override}\"{word}\"{close}' (the shell takes the outer quotes)")
    return (f"expected text, got {str(value).lower()} (YAML reads an unquoted yes, no, on, off, true or false as "
            f"true or false): {how}")


def _refuse(where: str, text: str | None, key: str, what: str) -> typing.NoReturn:
    """Raise the one-line message of :func:`load_config`: ``bad config in FILE:LINE: KEY: WHAT``."""
    line = _key_line(text, key) if text else None
    raise ValueError(f"bad config in {where}{f':{line}' if line else ''}: {key}: {what}")


def _unwrap_optional(tp: Any) -> Any:
    """``X | None`` -> ``X``; other unions -> ``None`` (no shape to check)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else None
    return tp


def _shown(value: Any) -> str:
    """A value as the user wrote it, for messages: ``3``, ``'fast'``, ``a list [1, 2]``, ``a mapping {a: 1}``."""
    if isinstance(value, (Mapping, list, tuple)):
        kind = "a mapping" if isinstance(value, Mapping) else "a list"
        flow = yaml.safe_dump(_plain(value), default_flow_style=True, width=10**6).strip()
        return f"{kind} {flow if len(flow) <= 60 else flow[:57] + '...'}"
    return repr(value)


def _plain(value: Any) -> Any:
    """Mappings and lists as plain dicts and lists (OmegaConf's containers and tuples included), for yaml.dump."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, (int, float, str, bool)) else str(value)


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
    if math.isinf(v):  # lr=inf trained to NaN (or, on the food webs, failed after minutes naming no key)
        return False, "a finite number"
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
