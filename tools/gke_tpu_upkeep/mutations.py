"""Single-token mutations of a module's lines of logic, for the mutation pass (`mutants.py`): a
comparison turned to its neighbour, `and` and `or` swapped, a `not` dropped, `True` and `False`
swapped, an arithmetic operator turned to its opposite, an integer constant one up or one down,
a literal key or default misspelt (`"enabled"` to `"enabledX"`), a returned value dropped
(`return x` to `return None`). Docstrings, annotations, `Literal[...]` types, decorators,
f-strings and `if TYPE_CHECKING:` blocks are not logic and are left alone; a mutant that would
not compile is left out."""

from __future__ import annotations

import ast
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from io import StringIO

_COMPARE = {
    ast.Lt: "<=",
    ast.LtE: "<",
    ast.Gt: ">=",
    ast.GtE: ">",
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.In: "not in",
    ast.NotIn: "in",
    ast.Is: "is not",
    ast.IsNot: "is",
}
_COMPARE_TEXT = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
#: Calls whose string argument is a key: `d.get("k")`, `getattr(o, "k")`, `s.startswith("k")`.
_KEY_METHODS = frozenset(
    {"get", "pop", "setdefault", "startswith", "endswith", "removeprefix", "removesuffix"}
)
_KEY_FUNCTIONS = frozenset({"getattr", "hasattr"})
#: Keyword arguments whose string value is a key or a default: `Field(alias="k", default="d")`.
_KEY_KEYWORDS = frozenset({"alias", "default", "validation_alias", "serialization_alias"})
_ARITHMETIC = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "*"),
    ast.Mod: ("%", "//"),
}


@dataclass(frozen=True)
class Mutant:
    """One single-token change: `path` relative to the root, 1-based `line`, character columns."""

    path: str
    line: int
    start: int
    end: int
    original: str
    replacement: str
    source_line: str
    #: Which of the identical changes of the same line this is (0 for the first).
    nth: int = 0

    def key(self) -> str:
        """How `equivalent_mutants.txt` names it: by the line's text, not its number, so that
        the entry outlives edits elsewhere in the file."""
        return "\t".join(
            (self.path, self.source_line.strip(), self.original, self.replacement, str(self.nth))
        )

    def describe(self) -> str:
        """`path:line:column: the line   [original -> replacement]`, column counted from 1."""
        where = f"{self.path}:{self.line}:{self.start + 1}"
        return f"{where}: {self.source_line.strip()}   [{self.original} -> {self.replacement}]"

    def apply(self, source: str) -> str:
        lines = source.splitlines(keepends=True)
        text = lines[self.line - 1]
        lines[self.line - 1] = text[: self.start] + self.replacement + text[self.end :]
        return "".join(lines)


def _char_col(line: str, byte_col: int) -> int:
    """ast's columns count UTF-8 bytes; tokenize's and str's count characters."""
    return len(line.encode()[:byte_col].decode(errors="ignore"))


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """Nodes whose insides are not logic: annotations, docstrings, f-strings, TYPE_CHECKING."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign | ast.arg):
            skip(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skip(node.returns)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            # `@dataclass(frozen=True)` and the like say how a class is built, not what it decides.
            for decorator in node.decorator_list:
                skip(decorator)
        elif isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            skip(node)
        elif isinstance(node, ast.Subscript) and _names_literal(node.value):
            # A type alias (`Kind = Literal["a", "b"]`) is a type, as an annotation is.
            skip(node)
    return skipped


def _names_literal(node: ast.expr) -> bool:
    """`Literal` or `typing.Literal`."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name == "Literal"


class _Finder:
    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.lines = source.splitlines(keepends=True)
        self.tokens = [
            t
            for t in tokenize.generate_tokens(StringIO(source).readline)
            if t.type in (tokenize.OP, tokenize.NAME)
        ]
        self.found: list[Mutant] = []

    def pos(self, line: int, byte_col: int) -> tuple[int, int]:
        return line, _char_col(self.lines[line - 1], byte_col)

    def after(self, node: ast.expr) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.pos(node.end_lineno, node.end_col_offset)

    def before(self, node: ast.expr) -> tuple[int, int]:
        return self.pos(node.lineno, node.col_offset)

    def add(self, start: tuple[int, int], end: tuple[int, int], replacement: str) -> None:
        if start[0] != end[0]:
            return
        line = self.lines[start[0] - 1]
        original = line[start[1] : end[1]]
        self.found.append(
            Mutant(self.path, start[0], start[1], end[1], original, replacement, line)
        )

    def token_span(
        self, low: tuple[int, int], high: tuple[int, int], text: str
    ) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Where the operator `text` (one or two words) lies between two operands."""
        words = text.split()
        between = [t for t in self.tokens if low <= t.start and t.end <= high]
        for i, token in enumerate(between):
            if [t.string for t in between[i : i + len(words)]] == words:
                return token.start, between[i + len(words) - 1].end
        return None

    def visit(self, tree: ast.AST) -> None:
        skipped = _skipped_nodes(tree)
        keys = {id(k): k for k in _literal_keys(tree)}
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if id(node) in keys:
                self.literal_key(keys[id(node)])
            if isinstance(node, ast.Return) and _returns_a_value(node):
                assert node.value is not None
                self.add(self.before(node.value), self.after(node.value), "None")
            elif isinstance(node, ast.Compare):
                self.compare(node)
            elif isinstance(node, ast.BoolOp):
                self.boolean(node)
            elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _ARITHMETIC:
                self.arithmetic(node)
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                self.add(self.before(node), self.before(node.operand), "")
            elif isinstance(node, ast.Constant):
                self.constant(node)

    def literal_key(self, node: ast.Constant) -> None:
        self.add(self.before(node), self.after(node), repr(f"{node.value}X"))

    def compare(self, node: ast.Compare) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            span = self.token_span(self.after(left), self.before(right), _COMPARE_TEXT[type(op)])
            if span:
                self.add(*span, _COMPARE[type(op)])
            left = right

    def boolean(self, node: ast.BoolOp) -> None:
        word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for left, right in zip(node.values, node.values[1:], strict=False):
            span = self.token_span(self.after(left), self.before(right), word)
            if span:
                self.add(*span, other)

    def arithmetic(self, node: ast.BinOp | ast.AugAssign) -> None:
        text, other = _ARITHMETIC[type(node.op)]
        if isinstance(node, ast.BinOp):
            low, high = self.after(node.left), self.before(node.right)
        else:
            low, high = self.after(node.target), self.before(node.value)
            text, other = text + "=", other + "="
        span = self.token_span(low, high, text)
        if span:
            self.add(*span, other)

    def constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, bool):
            self.add(self.before(node), self.after(node), str(not node.value))
        elif type(node.value) is int:
            for value in (node.value + 1, node.value - 1):
                if value >= 0:
                    self.add(self.before(node), self.after(node), str(value))


def _returns_a_value(node: ast.Return) -> bool:
    """`return x` where x is not a constant (constants have mutants of their own)."""
    return node.value is not None and not isinstance(node.value, ast.Constant)


def _strings(nodes: Iterable[ast.expr | None]) -> Iterator[ast.Constant]:
    """String constants among the nodes, and inside the tuples, lists and sets among them."""
    for node in nodes:
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            yield from _strings(node.elts)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node


def _literal_keys(tree: ast.AST) -> Iterator[ast.Constant]:
    """String constants that name a key or give a default: dict keys, subscripts, what a value
    is compared with, the key of `.get()` and its kin, parameter and field defaults, and the
    `alias=` and `default=` of a field."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            yield from _strings(node.keys)
        elif isinstance(node, ast.Subscript):
            yield from _strings([node.slice])
        elif isinstance(node, ast.Compare):
            yield from _strings([node.left, *node.comparators])
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _KEY_METHODS:
                yield from _strings(node.args[:1])
            elif isinstance(func, ast.Name) and func.id in _KEY_FUNCTIONS:
                yield from _strings(node.args[1:2])
            yield from _strings(k.value for k in node.keywords if k.arg in _KEY_KEYWORDS)
        elif isinstance(node, ast.arguments):
            yield from _strings([*node.defaults, *node.kw_defaults])
        elif isinstance(node, ast.ClassDef):
            yield from _strings(
                s.value for s in node.body if isinstance(s, ast.AnnAssign | ast.Assign)
            )


def find_mutants(path: str, source: str) -> list[Mutant]:
    """Every single-token mutant of a module's logic, in the order of the source; mutants that
    would not compile are left out."""
    finder = _Finder(path, source)
    finder.visit(ast.parse(source))
    seen: dict[tuple[str, str, str], int] = {}
    mutants: list[Mutant] = []
    for mutant in sorted(finder.found, key=lambda m: (m.line, m.start, m.replacement)):
        which = (mutant.source_line.strip(), mutant.original, mutant.replacement)
        nth = seen.get(which, 0)
        seen[which] = nth + 1
        numbered = Mutant(**{**mutant.__dict__, "nth": nth})
        try:
            ast.parse(numbered.apply(source))
        except SyntaxError:
            continue
        mutants.append(numbered)
    return mutants
