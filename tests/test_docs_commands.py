"""The commands and names quoted in README.md, DEVELOPERS.md and experiments/README.md are true of the code.

A reader copies these lines: a flag renamed, a config key gone, a path moved or a Python name dropped would make a
documented command fail. These tests read the documents themselves (every fenced ``bash`` line and every inline code
span that runs ``gatbio`` or a script) and check each against the code, without running anything long:

- every ``--flag`` exists on the command that is given it (``gatbio``'s own parser; a script's source);
- every ``--config`` file exists, and with its ``key=value`` overrides it loads as the task's config;
- every path into the repository exists, every ``gatbio.*`` name imports, every quoted commit exists;
- an override holding brackets is quoted (``zsh``, macOS's shell, refuses ``seeds=[0]`` unquoted);
- install commands install the checkout (gatbio is not on PyPI);
- the README's layer example prints what its comment says.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from conftest import REPO

DOCS = ("README.md", "DEVELOPERS.md", "experiments/README.md")

#: A thin runner in experiments/ that hands its options to a ``gatbio`` command's parser.
SCRIPT_COMMANDS = {"food_web_inference": ("foodweb", "benchmark")}
#: The commands whose ``--config`` / ``key=value`` arguments are a task config, and its schema.
SCHEMAS = {
    ("protein", "run"): "gatbio.tasks.protein:ProteinConfig",
    ("protein", "interactions"): "gatbio.tasks.protein_interactions:InteractionsConfig",
    ("foodweb", "benchmark"): "gatbio.tasks.foodweb:FoodWebConfig",
    ("robustness",): "gatbio.tasks.robustness:RobustnessConfig",
    "protein_function": "gatbio.tasks.protein:ProteinConfig",
    "protein_interactions": "gatbio.tasks.protein_interactions:InteractionsConfig",
    "food_web_inference": "gatbio.tasks.foodweb:FoodWebConfig",
    "hub_robustness": "gatbio.tasks.robustness:RobustnessConfig",
}
PROGRAM = re.compile(r"(^|[\s;(])(gatbio\s|python3?\s|\S*experiments/\w+\.py)")


def _text(doc: str) -> str:
    return (REPO / doc).read_text(encoding="utf-8")


def commands() -> Iterator[tuple[str, int, str]]:
    """``(doc, line, command)`` for each shell command quoted in the documents: the lines of fenced ``bash``
    blocks (continuations joined, comments dropped) and the inline code spans that run a program."""
    for doc in DOCS:
        text = _text(doc)
        lines = text.split("\n")
        fence, start, buf = None, 0, ""
        for i, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                fence = None if fence is not None else line.strip().strip("`")
                continue
            if fence is not None:
                if fence not in ("bash", "sh", "") or line.lstrip().startswith("#"):
                    continue
                code = re.split(r"\s+#\s", " " + line)[0].strip()
                start = start or i
                if code.endswith("\\"):
                    buf += code[:-1] + " "
                    continue
                if (buf + code).strip():
                    yield doc, start, buf + code
                buf, start = "", 0
        prose = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        for i, line in enumerate(prose.split("\n"), 1):  # an indented code block
            if re.match(r"    (torchrun|python3?|gatbio) ", line):
                yield doc, i, re.split(r"\s+#\s", line)[0].strip()
        for m in re.finditer(r"`([^`]+)`", prose):
            span = " ".join(m.group(1).split())
            if PROGRAM.search(span):
                yield doc, prose.count("\n", 0, m.start()) + 1, span


def _tokens(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # a span quoting half a command
        return command.split()


@pytest.fixture(scope="module")
def gatbio_parsers() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    from gatbio.cli import build_parser

    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        found[path] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*path, name))

    walk(build_parser(), ())
    return found


def program(tokens: list[str], parsers) -> tuple[object, int] | None:
    """The program a command runs (a ``gatbio`` command path, or a script / module name) and where its own
    arguments start; None for a command of another program (make, pip, git, ...)."""
    for i, tok in enumerate(tokens):
        if tok == "gatbio" or (tok == "-m" and i + 1 < len(tokens) and tokens[i + 1] in ("gatbio", "gatbio.cli")):
            j = i + 1 if tok == "gatbio" else i + 2
            path: tuple[str, ...] = ()
            while j < len(tokens) and (*path, tokens[j]) in parsers:
                path, j = (*path, tokens[j]), j + 1
            return path, j
        if tok == "-m" and i + 1 < len(tokens) and tokens[i + 1].startswith("gatbio."):
            return tokens[i + 1], i + 2
        m = re.fullmatch(r"(?:\S*/)?experiments/(\w+)\.py", tok)
        if m:
            return m.group(1), i + 1
    return None


def _flags(tokens: list[str]) -> list[str]:
    out = []
    for tok in tokens:
        if tok in ("|", "&&", ";", ">"):
            break
        tok = tok.strip("[]")
        if re.fullmatch(r"--[a-z][\w-]*(=.*)?", tok):
            out.append(tok.split("=")[0])
    return out


def _source_options(name: str) -> str:
    """The source text where a script's or a ``python -m gatbio.X`` module's options are defined."""
    if name.startswith("gatbio."):
        return (REPO / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    return "".join((REPO / "experiments" / f) .read_text(encoding="utf-8")
                   for f in (f"{name}.py", "_runner_args.py", "_shs27k_common.py"))


def test_the_documents_quote_commands():
    found = list(commands())
    assert len(found) > 100
    assert any("gatbio protein run --config experiments/configs/protein_full.yaml" in c for _, _, c in found)


def test_every_flag_of_a_documented_command_exists(gatbio_parsers):
    bad = []
    for doc, line, command in commands():
        tokens = _tokens(command)
        found = program(tokens, gatbio_parsers)
        if found is None:
            continue
        prog, start = found
        prog = SCRIPT_COMMANDS.get(prog, prog)
        flags = _flags(tokens[start:])
        if isinstance(prog, tuple):
            known = {s for a in gatbio_parsers[prog]._actions for s in a.option_strings}
            missing = [f for f in flags if f not in known]
        else:
            source = _source_options(prog)
            missing = [f for f in flags if f'"{f}"' not in source and f"'{f}'" not in source
                       and f not in ("--restart", "--resume-anyway")]
        bad += [f"{doc}:{line}: {' '.join(('gatbio', *prog)) if isinstance(prog, tuple) else prog} has no {f}"
                for f in missing]
    assert not bad, "\n".join(bad)


def test_every_documented_config_and_override_loads(gatbio_parsers):
    from gatbio.config import load_config

    checked, bad = 0, []
    for doc, line, command in commands():
        tokens = _tokens(command)
        found = program(tokens, gatbio_parsers)
        if found is None or found[0] not in SCHEMAS:
            continue
        prog, start = found
        args = [t.strip("[]") if t.startswith("[") else t for t in tokens[start:]]
        config = next((b for a, b in zip(args, args[1:], strict=False) if a in ("--config", "--ppi24")), None)
        if config is None and args and args[0].startswith("experiments/configs/"):  # the runners' [--config] FILE
            config = args[0]
        overrides = [a for a in args if re.match(r"[a-z_][\w.]*=", a) and "..." not in a and "<" not in a]
        if config is not None and not config.startswith("experiments/"):
            continue  # a user's own file, e.g. my_sweep.yaml
        if config is None and not overrides:
            continue
        module, name = ("gatbio.tasks.protein_ppi:PPIBenchConfig" if "--ppi24" in args else SCHEMAS[prog]).split(":")
        schema = getattr(importlib.import_module(module), name)
        try:
            load_config(schema, REPO / config if config else None, overrides)
        except (ValueError, FileNotFoundError) as err:
            bad.append(f"{doc}:{line}: {command}\n    {err}")
        checked += 1
    assert checked > 40
    assert not bad, "\n".join(bad)


def test_every_repository_path_in_the_documents_exists():
    bad = []
    for doc in DOCS:
        for i, line in enumerate(_text(doc).split("\n"), 1):
            for p in re.findall(r"(?<![\w/.$-])((?:experiments|tests|notebooks|gatbio|datasets|\.ci)/[\w./-]*[\w/])",
                                line):
                if not (REPO / p).exists():
                    bad.append(f"{doc}:{i}: {p}")
    assert not bad, "\n".join(bad)


def test_every_gatbio_name_in_the_documents_imports():
    bad = []
    for doc in DOCS:
        for i, line in enumerate(_text(doc).split("\n"), 1):
            for name in re.findall(r"(?<![\w/.])(gatbio(?:\.\w+)+)", line):
                parts = name.split(".")
                for k in range(len(parts), 0, -1):
                    try:
                        obj = importlib.import_module(".".join(parts[:k]))
                        break
                    except ImportError:
                        continue
                try:
                    for attr in parts[k:]:
                        obj = getattr(obj, attr)
                except AttributeError:
                    bad.append(f"{doc}:{i}: {name}")
    assert not bad, "\n".join(bad)


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def test_every_commit_the_documents_quote_exists():
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone lacks the older commits")
    hashes = {h for doc in DOCS for h in re.findall(r"\b[0-9a-f]{7,40}\b", _text(doc))
              if re.search("[a-f]", h) and re.search("[0-9]", h)}
    assert len(hashes) > 20
    missing = sorted(h for h in hashes if _git("cat-file", "-e", f"{h}^{{commit}}").returncode != 0)
    assert not missing, missing


def test_overrides_with_brackets_are_quoted_for_the_shell(gatbio_parsers):
    """``seeds=[0]`` unquoted is a glob pattern: zsh (macOS's default shell) stops with "no matches found"."""
    bad = []
    for doc, line, command in commands():
        if program(_tokens(command), gatbio_parsers) is None:
            continue
        for m in re.finditer(r"(^|\s)([a-z_][\w.]*=\[)", command):
            bad.append(f"{doc}:{line}: {m.group(2)}...] (quote it: '{m.group(2)}...]')")
    assert not bad, "\n".join(bad)


def test_install_commands_install_the_checkout():
    """gatbio is installed from its checkout (``pip install -e '.[extra]'``): ``pip install gatbio[extra]`` asks
    PyPI for a package that is not there."""
    bad = [f"{doc}:{i}: {line.strip()}" for doc in DOCS for i, line in enumerate(_text(doc).split("\n"), 1)
           if re.search(r"pip install [^`\n]*(?<![\w.-])['\"]?gatbio\[", line)]
    assert not bad, "\n".join(bad)


def test_the_readme_layer_example_prints_what_it_says():
    block = re.search(r"```python\n(.*?)```", _text("README.md"), flags=re.S).group(1)
    said = re.search(r"print\(.*\)\s+#\s*(.*?):", block).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().strip() == said
