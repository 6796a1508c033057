"""Report text in authui's templates that a person reads but that does not go through
``_()`` / ``ngettext()``, so that no catalogue can translate it.

``tests/i18n/test_literal_text.py`` runs it on the shipped packs.

Every template (``**/*.html``, ``**/*.txt``) is parsed with Jinja's parser. Its
``TemplateData`` nodes, in document order, with one placeholder character for each
``{{ … }}``, make a *skeleton* of what it writes (a macro's body gets a skeleton of its
own). From a skeleton are removed: HTML comments, the doctype, ``<script>``/``<style>``
elements, tags (their readable attributes kept aside), ``name="value"`` fragments (a
macro writing attributes into its caller's tag) and entities. A block that a layout opens
inside a tag (``class="authui-page-{% block page_name %}"``) is a placeholder too.

Checks:

1. text: no letters may remain in the skeleton, but for the words in ALLOWED;
2. attributes people read or hear (READABLE; ``value`` only of a button or a
   submit/button/reset input) hold no literal letters;
3. an expression written as text or into a readable attribute writes no string constant
   as it is (``{{ "Hi" }}``, ``{{ a or "Hi" }}``, ``{{ {"k": "Hi"}[key] }}``): only
   ``_("Hi")``;
4. ``_()``/``gettext()`` take one literal message or one variable (an ``N_``-marked
   text; never an expression mixing literals, which extraction cannot see);
   ``ngettext()`` two literal messages. A message's ``{placeholders}`` are the keyword
   arguments given (``{n}`` is ngettext's count); ``{n}`` in ``_()`` is a count that wants
   ``ngettext``;
5. no message built with ``~`` from translated fragments;
6. no string constant with letters given to a macro parameter the macro writes as text or
   into a readable attribute (``button("Sign in")``), nor as a readable attribute in a
   dict (``attributes={"placeholder": "…"}``).

"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, nodes

READABLE = re.compile(
    r"(placeholder|title|alt|aria-label|aria-description|aria-roledescription"
    r"|aria-valuetext|data-label|data-authui-message-[\w-]+|hx-confirm|hx-prompt)"
)
"""Attributes whose value a person reads or hears (and ``value`` of buttons, below)."""

BUTTON_INPUTS = frozenset({"submit", "button", "reset"})
ALLOWED: frozenset[str] = frozenset()
"""Words allowed outside ``_()`` (brand names would go here); none needed."""

TRANSLATE = frozenset({"_", "gettext"})
PLURAL = frozenset({"ngettext"})
MESSAGES = TRANSLATE | PLURAL
LETTERS = re.compile(r"[^\W\d_]+")
EXPRESSION = 0xE000  # private use: chr(EXPRESSION + i) stands for the i-th {{ … }}
BLOCK = 0xF000  # chr(BLOCK + i) marks where the i-th {% block %} opens

TAG = re.compile(r"""<(/?)([a-zA-Z][\w:-]*)((?:[^<>"']|"[^"]*"|'[^']*')*)>""")
ATTRIBUTE = re.compile(r"""([^\s"'=<>/]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""")
ATTRIBUTE_FRAGMENT = re.compile(r"""([\w:.-]+)\s*=\s*("[^"]*"|'[^']*')""")
REMOVED = (
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"<!doctype[^>]*>", re.I),
    re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I),
)
ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|\w+);")


@dataclass
class Skeleton:
    """What a template (or one macro of it) writes: its data, a character per output."""

    chunks: list[str] = field(default_factory=list)
    starts: list[tuple[int, int]] = field(default_factory=list)  # (offset, line) per chunk
    expressions: list[nodes.Expr] = field(default_factory=list)
    size: int = 0

    def add(self, data: str, line: int) -> None:
        self.starts.append((self.size, line))
        self.chunks.append(data)
        self.size += len(data)

    def placeholder(self, expression: nodes.Expr) -> None:
        self.add(chr(EXPRESSION + len(self.expressions)), expression.lineno)
        self.expressions.append(expression)

    def line_at(self, offset: int) -> int:
        """The template line of the skeleton's character at ``offset``."""
        index = bisect_right([start for start, _ in self.starts], offset) - 1
        start, line = self.starts[index]
        return line + "".join(self.chunks)[start:offset].count("\n")

    def expressions_in(self, text: str) -> list[nodes.Expr]:
        marks = (ord(c) - EXPRESSION for c in text)
        return [self.expressions[i] for i in marks if 0 <= i < len(self.expressions)]


@dataclass
class Builder:
    """Builds skeletons; a block named in ``in_tag`` is a placeholder; with ``blocks``,
    a block's opening is marked (to find the blocks opened inside a tag)."""

    in_tag: frozenset[str] = frozenset()
    blocks: list[str] | None = None
    macros: dict[str, tuple[nodes.Macro, Skeleton]] = field(default_factory=dict)

    def build(self, node: nodes.Node, skeleton: Skeleton) -> None:
        if isinstance(node, nodes.Macro):
            own = Skeleton()
            self.macros[node.name] = (node, own)
            for child in node.body:
                self.build(child, own)
            return
        if isinstance(node, nodes.Block):
            if node.name in self.in_tag:
                skeleton.placeholder(nodes.Name(node.name, "load", lineno=node.lineno))
                return
            if self.blocks is not None:
                skeleton.add(chr(BLOCK + len(self.blocks)), node.lineno)
                self.blocks.append(node.name)
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    skeleton.add(child.data, child.lineno)
                else:
                    skeleton.placeholder(child)
            return
        for child in node.iter_child_nodes():
            self.build(child, skeleton)


@dataclass(frozen=True)
class Read:
    """A skeleton's readable parts: its text (removed parts blanked, offsets kept) and its
    readable attributes ``(name, value, offset)``."""

    text: str
    attributes: list[tuple[str, str, int]]
    tags: list[tuple[int, int]]

    @property
    def shown(self) -> str:
        """The text and the readable attributes' values: where an expression is read."""
        return self.text + "".join(value for _, value, _ in self.attributes)


def blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def read(skeleton: Skeleton) -> Read:
    raw = "".join(skeleton.chunks)
    for pattern in REMOVED:
        raw = pattern.sub(blank, raw)
    attributes: list[tuple[str, str, int]] = []
    tags: list[tuple[int, int]] = []
    for tag in TAG.finditer(raw):
        tags.append(tag.span())
        element = tag.group(2).lower()
        pairs = [
            (m.group(1).lower(), m.group(2).strip("\"'"), m.start())
            for m in ATTRIBUTE.finditer(tag.group(3))
        ]
        kind = dict((name, value) for name, value, _ in pairs).get("type", "").lower()
        button = element == "button" or (element == "input" and kind in BUTTON_INPUTS)
        for name, value, start in pairs:
            if READABLE.fullmatch(name) or (name == "value" and button):
                attributes.append((name, value, tag.start() + start))
    text = TAG.sub(blank, raw)
    for m in ATTRIBUTE_FRAGMENT.finditer(text):  # what a macro writes into a caller's tag
        if READABLE.fullmatch(m.group(1).lower()):
            attributes.append((m.group(1).lower(), m.group(2).strip("\"'"), m.start()))
    text = ENTITY.sub(blank, ATTRIBUTE_FRAGMENT.sub(blank, text))
    return Read(text, attributes, tags)


def literal(node: nodes.Node) -> str | None:
    """A string constant's value, if ``node`` is one with letters in it."""
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and words(node.value):
        return node.value
    return None


def words(text: str) -> list[str]:
    return [w for w in LETTERS.findall(text) if w not in ALLOWED]


def callee(call: nodes.Call) -> str | None:
    """The called function's or macro's name (``button``, also ``forms.button``)."""
    if isinstance(call.node, nodes.Name):
        return call.node.name
    if isinstance(call.node, nodes.Getattr):
        return call.node.attr
    return None


def written(expression: nodes.Node) -> Iterator[nodes.Node]:
    """The parts of an expression whose value is written as it is: through ``a if c else
    b``, ``a or b``, ``a ~ b``, a filter, ``{…}[key]`` and a message of ``_(…)``."""
    yield expression
    parts: list[nodes.Node] = []
    if isinstance(expression, nodes.CondExpr):
        parts = [expression.expr1, *([expression.expr2] if expression.expr2 else [])]
    elif isinstance(expression, (nodes.Or, nodes.And)):
        parts = [expression.left, expression.right]
    elif isinstance(expression, nodes.Concat):
        parts = list(expression.nodes)
    elif isinstance(expression, (nodes.Filter, nodes.Getitem)) and expression.node is not None:
        parts = [expression.node]
    elif isinstance(expression, nodes.Dict):
        parts = [pair.value for pair in expression.items]
    elif isinstance(expression, (nodes.List, nodes.Tuple)):
        parts = list(expression.items)
    elif isinstance(expression, nodes.Call) and callee(expression) in MESSAGES:
        parts = list(expression.args[:2])
    for part in parts:
        yield from written(part)


def is_message(expression: nodes.Node, const: nodes.Node) -> bool:
    """Whether ``const`` is the message of a ``_()``/``ngettext()`` call in ``expression``."""
    calls = [expression] if isinstance(expression, nodes.Call) else []
    calls += list(expression.find_all(nodes.Call))
    return any(
        callee(call) in MESSAGES and any(a is const for a in call.args[:2]) for call in calls
    )


@dataclass
class Report:
    problems: set[tuple[str, int, str]] = field(default_factory=set)

    def add(self, path: Path, line: int, what: str) -> None:
        self.problems.add((str(path), line, what))


def check_message(path: Path, call: nodes.Call, name: str, report: Report) -> None:
    """Check 4 on one ``_()``/``gettext()``/``ngettext()`` call."""
    count = 2 if name in PLURAL else 1
    if len(call.args) < count + (1 if name in PLURAL else 0):
        report.add(path, call.lineno, f"{name}() without its arguments")
        return
    given = {k.key for k in call.kwargs} | ({"n"} if name in PLURAL else set())
    for message in call.args[:count]:
        if name in TRANSLATE and isinstance(message, (nodes.Name, nodes.Getattr, nodes.Getitem)):
            continue  # a variable holding an N_-marked (or app-given) text
        if not (isinstance(message, nodes.Const) and isinstance(message.value, str)):
            report.add(path, call.lineno, f"{name}() of an expression: extraction cannot see it")
            continue
        try:
            wanted = {f for _, f, _, _ in string.Formatter().parse(message.value) if f is not None}
        except ValueError:
            report.add(path, call.lineno, f"bad braces in {message.value!r}")
            continue
        if wanted != given and (call.kwargs or name in PLURAL or wanted):
            report.add(
                path,
                call.lineno,
                f"placeholders {sorted(wanted)}, arguments {sorted(given)}: {message.value!r}",
            )
        if name in TRANSLATE and "n" in wanted:
            report.add(path, call.lineno, f"a count in _(), use ngettext: {message.value!r}")


def check_expressions(
    path: Path, tree: nodes.Template, shown: dict[str, set[str | int]], report: Report
) -> None:
    """Checks 4 to 6 on every expression of a template."""
    for concat in tree.find_all(nodes.Concat):
        if any(isinstance(p, nodes.Call) and callee(p) in MESSAGES for p in concat.nodes):
            report.add(path, concat.lineno, "a message built with ~ from translated fragments")
    for pair in tree.find_all(nodes.Pair):
        attribute, value = pair.key, literal(pair.value)
        if (
            isinstance(attribute, nodes.Const)
            and isinstance(attribute.value, str)
            and READABLE.fullmatch(attribute.value)
            and value
        ):
            report.add(path, pair.lineno, f"literal {attribute.value}: {value!r}")
    for call in tree.find_all(nodes.Call):
        name = callee(call)
        if name in MESSAGES:
            check_message(path, call, name, report)
        elif name in shown:
            arguments: list[tuple[str | int, nodes.Expr]] = list(enumerate(call.args))
            arguments += [(k.key, k.value) for k in call.kwargs]
            for key, argument in arguments:
                given = literal(argument)
                if key in shown[name] and given:
                    report.add(path, call.lineno, f"literal text given to {name}(): {given!r}")


def check_skeleton(path: Path, skeleton: Skeleton, report: Report) -> None:
    """Checks 1 to 3 on one skeleton."""
    found = read(skeleton)
    for m in LETTERS.finditer(found.text):
        if m.group(0) not in ALLOWED:
            report.add(path, skeleton.line_at(m.start()), f"literal text: {m.group(0)!r}")
    for name, value, offset in found.attributes:
        if words("".join(c for c in value if ord(c) < EXPRESSION)):
            report.add(path, skeleton.line_at(offset), f"literal {name}: {value!r}")
    for expression in skeleton.expressions_in(found.shown):
        for part in written(expression):
            text = literal(part)
            if text and not is_message(expression, part):
                report.add(path, part.lineno, f"literal text written out: {text!r}")


def shown_parameters(macros: list[tuple[nodes.Macro, Skeleton]]) -> dict[str, set[str | int]]:
    """For each macro name, its parameters (by name and position) written as text or into
    a readable attribute."""
    shown: dict[str, set[str | int]] = defaultdict(set)
    for macro, skeleton in macros:
        parameters = [a.name for a in macro.args]
        for expression in skeleton.expressions_in(read(skeleton).shown):
            for part in written(expression):
                if isinstance(part, nodes.Name) and part.name in parameters:
                    shown[macro.name] |= {part.name, parameters.index(part.name)}
    return shown


def blocks_in_tags(trees: dict[Path, nodes.Template]) -> frozenset[str]:
    """The blocks some template opens inside a tag (``class="…-{% block name %}"``)."""
    found: set[str] = set()
    for tree in trees.values():
        builder, skeleton = Builder(blocks=[]), Skeleton()
        builder.build(tree, skeleton)
        names = builder.blocks or []
        raw = "".join(skeleton.chunks)
        for start, end in read(skeleton).tags:
            found |= {
                names[ord(c) - BLOCK]
                for c in raw[start:end]
                if BLOCK <= ord(c) < BLOCK + len(names)
            }
    return frozenset(found)


def problems(themes: Path) -> list[str]:
    """Every problem in the templates under ``themes``, as ``file:line: what``."""
    environment = Environment(autoescape=True)  # only parsed, never rendered
    paths = sorted(p for p in themes.rglob("*") if p.suffix in {".html", ".txt"})
    trees = {p: environment.parse(p.read_text(encoding="utf-8"), str(p), str(p)) for p in paths}
    in_tag = blocks_in_tags(trees)
    report = Report()
    builders: dict[Path, tuple[Builder, Skeleton]] = {}
    for path, tree in trees.items():
        builder, skeleton = Builder(in_tag=in_tag), Skeleton()
        builder.build(tree, skeleton)
        builders[path] = (builder, skeleton)
    shown = shown_parameters([m for b, _ in builders.values() for m in b.macros.values()])
    for path, (builder, skeleton) in builders.items():
        for own in (skeleton, *(s for _, s in builder.macros.values())):
            check_skeleton(path.relative_to(themes.parent), own, report)
        check_expressions(path.relative_to(themes.parent), trees[path], shown, report)
    return [f"{file}:{line}: {what}" for file, line, what in sorted(report.problems)]
