"""The filter language (``--where``, the Filter panel, ``sentspace.where``, the web
page): Python's expression syntax, walked over a whitelist of nodes and never run,
after checks that no input can exhaust the parser (length, nesting, numbers, text)."""

from __future__ import annotations

import ast
import io
import keyword
import math
import re
import tokenize
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from sentspace.app.analysis.columns import (
    TOP,
    Categories,
    Numbers,
)
from sentspace.app.analysis.filters.charts import Chart, number_text
from sentspace.app.base.errors import InputError

if TYPE_CHECKING:
    from sentspace.app.analysis.filters import FilterTable


_SQL_WORDS = {"AND": "and", "OR": "or", "NOT": "not", "IN": "in"}


def condition_of(tree: ast.Expression, source: str, table: FilterTable | PairRows) -> np.ndarray:
    result = _Evaluator(table, source).visit(tree.body)
    if not isinstance(result, np.ndarray) or result.dtype != bool:
        raise _error(
            source, tree.body, "this is a value, not a condition: compare it, as in words > 10"
        )
    return result


class PairRows:
    """A table's columns read at each end of each pair (the first sentences, then the
    second) and at each sentence in no pair: a pair column reads the pair's own
    value, any other the sentence's. An expression naming a pair column is read here."""

    def __init__(self, table: FilterTable) -> None:
        assert table.pair_ends is not None
        first, second = table.pair_ends
        count = len(first)
        ends = np.concatenate([first, second])
        unpaired = np.flatnonzero(np.bincount(ends, minlength=table.n) == 0)
        self.sentence = np.concatenate([ends, unpaired])
        #: Each row's pair (-1: a sentence in no pair).
        self.pair = np.concatenate([np.arange(count), np.arange(count), np.full(len(unpaired), -1)])
        self.names, self.n, self._table = table.names, len(self.sentence), table
        self.charts = RowCharts(self)


class RowCharts(dict):
    """The charts of a :class:`PairRows`, each made when the expression names it."""

    def __init__(self, rows: PairRows) -> None:
        super().__init__()
        self._rows = rows

    def __missing__(self, title: str) -> Chart:
        rows, chart = self._rows, self._rows._table.charts[title]
        at = rows.pair if chart.of_pairs else rows.sentence
        column = chart.column
        if isinstance(column, Categories):  # -1 (no pair) reads the appended none
            column = replace(column, codes=np.append(column.codes, -1)[at])
        else:
            column = replace(column, values=np.append(column.values, np.nan)[at])
        made = self[title] = Chart(column, np.empty(0, dtype=np.uint8), chart.labels)
        return made


def parse_expression(source: str) -> ast.Expression:
    """The expression's tree, or an InputError naming the column (1-based) and the
    problem: nothing reaches Python's parser that could exhaust it (its length, nesting
    and numbers are checked first), and nothing past it nests deeper than the evaluator
    goes."""
    _check_text(source)
    # Line breaks read as spaces (the same length): every column is one of one line.
    flat = source.replace("\r", " ").replace("\n", " ")
    tokens = _tokens(flat)
    _check_tokens(source, tokens)
    try:
        tree = ast.parse(_python_words(flat, tokens), mode="eval")
    except SyntaxError as error:
        at = error.offset or 0
        if not 0 < at <= len(source.rstrip()):  # Python puts an early end at 0
            raise InputError(
                f"filter expression, column {len(source.rstrip()) + 1}: it "
                "ends too early (a value or condition is missing)"
            ) from None
        hint = "; compare with ==" if re.search(r"(?<![=!<>])=(?!=)", source) else ""
        raise InputError(f"filter expression, column {at}: {error.msg}{hint}") from None
    nodes = [(tree.body, 1)]
    while nodes:
        node, depth = nodes.pop()
        if depth > MAX_DEPTH:
            raise _error(source, node, _TOO_DEEP)
        nodes += [(c, depth + 1) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
    return tree


#: The longest expression read, in characters.
MAX_LENGTH = 100_000


#: The deepest nesting read: brackets, not, - and &/| within one another.
MAX_DEPTH = 100


_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep; join conditions with and / or"


#: A NUL, or a lone surrogate: a byte that is not UTF-8 (Python's surrogateescape of a
#: command line), or half of a UTF-16 pair.
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


#: Tokens after which a condition starts afresh at its bracket's depth.
_SEPARATORS = {"and", "or", "AND", "OR", "in", "IN", ",", "==", "!=", "<", "<=", ">", ">="}


_VALUES = {tokenize.NAME, tokenize.NUMBER, tokenize.STRING}


def _check_text(source: str) -> None:
    if len(source) > MAX_LENGTH:
        raise InputError(
            f"filter expression, column {MAX_LENGTH + 1}: longer than {MAX_LENGTH:,} "
            f"characters ({len(source):,})"
        )
    found = _NOT_TEXT.search(source)
    if found is not None:
        char = found.group()
        if char == "\x00":
            what = "a NUL character, which is not text"
        elif "\udc80" <= char <= "\udcff":
            what = f"the byte 0x{ord(char) - 0xDC00:02x}, which is not UTF-8 text"
        else:
            what = f"a lone surrogate U+{ord(char):04X}, which is not text"
        raise InputError(f"filter expression, column {found.start() + 1}: {what}")


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    """``source``'s tokens up to the first that does not tokenize (the parser then
    says what is wrong there)."""
    tokens: list[tokenize.TokenInfo] = []
    try:
        tokens.extend(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        pass
    return tokens


def _check_tokens(source: str, tokens: list[tokenize.TokenInfo]) -> None:
    """Refuse a number beyond float64 and nesting deeper than :data:`MAX_DEPTH`, by the
    tokens: each bracket, operator and keyword (``not``, ``-``, ``&``, ``if``...) nests
    what follows in it, a separator (``and``, a comparison, a comma) starts again at its
    bracket's depth. What this lets through, the parser reads without exhausting its
    stack."""
    bases, depth = [0], 0
    previous: tokenize.TokenInfo | None = None
    for token in tokens:
        text, at = token.string, token.start[1]
        if token.type == tokenize.NUMBER and not _finite(text):
            shown = text if len(text) <= 24 else f"{text[:12]}…{text[-6:]}, {len(text):,} digits"
            raise InputError(
                f"filter expression, column {at + 1} ({shown}): a number beyond "
                "±1.8e308, the largest a column holds"
            )
        if token.type == tokenize.OP and text in "([{":
            # After a value (x[1], f(1)) it nests the value in one more level, kept
            # when it closes; a bracket of its own counts as its content.
            postfix = previous is not None and (
                previous.type in _VALUES or previous.string in ")]}"
            )
            bases.append(depth + 1 if postfix else depth)
            depth += 1
        elif token.type == tokenize.OP and text in ")]}":
            depth = bases.pop() if len(bases) > 1 else 0
        elif text in _SEPARATORS:
            depth = bases[-1]
        elif token.type == tokenize.OP or keyword.iskeyword(text) or text in _SQL_WORDS:
            depth += 1
        previous = token
        if depth > MAX_DEPTH:
            raise InputError(f"filter expression, column {at + 1}: {_TOO_DEEP}")


def _finite(number: str) -> bool:
    """Whether a number token is within float64 (a complex one is the evaluator's to
    refuse)."""
    digits = number.replace("_", "")
    try:
        return math.isfinite(float(digits))
    except ValueError:
        pass
    try:
        return math.isfinite(float(int(digits, 0)))  # 0x.., 0o.., 0b..
    except OverflowError:
        return False
    except ValueError:
        return True


def _python_words(source: str, tokens: list[tokenize.TokenInfo]) -> str:
    """SQL's AND, OR, NOT and IN as Python's (the same length: columns stay right)."""
    out = list(source)
    for token in tokens:
        if token.type == tokenize.NAME and token.string in _SQL_WORDS:
            start = token.start[1]
            out[start : start + len(token.string)] = _SQL_WORDS[token.string]
    return "".join(out)


def _error(source: str, node: ast.AST, problem: str) -> InputError:
    at = getattr(node, "col_offset", 0) + 1
    end = getattr(node, "end_col_offset", at)
    text = source[at - 1 : end]
    shown = repr(text) if len(text) <= 60 else f"{text[:40]!r}…"
    return InputError(f"filter expression, column {at} ({shown}): {problem}")


_COMPARE = {
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
    ast.Lt: np.less,
    ast.LtE: np.less_equal,
    ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
}


_FLIPPED = {
    ast.Lt: ast.Gt,
    ast.LtE: ast.GtE,
    ast.Gt: ast.Lt,
    ast.GtE: ast.LtE,
    ast.Eq: ast.Eq,
    ast.NotEq: ast.NotEq,
}


class _Evaluator:
    """Walks the whitelisted nodes; anything else is an error at its position."""

    def __init__(self, table: FilterTable | PairRows, source: str) -> None:
        self.table, self.source = table, source

    def visit(self, node: ast.AST) -> Any:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            raise _error(
                self.source,
                node,
                f"{_describe(node)} is not allowed; use "
                'comparisons, and, or, not, in [...], numbers, "text" and '
                "column names",
            )
        return method(node)

    def condition(self, node: ast.AST) -> np.ndarray:
        value = self.visit(node)
        if not (isinstance(value, np.ndarray) and value.dtype == bool):
            raise _error(
                self.source,
                node,
                "a value where a condition is needed: compare it, as in words > 10",
            )
        return value

    def visit_BoolOp(self, node: ast.BoolOp) -> np.ndarray:
        combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        result = self.condition(node.values[0])
        for value in node.values[1:]:
            result = combine(result, self.condition(value))
        return result

    def visit_BinOp(self, node: ast.BinOp) -> np.ndarray:
        # pandas's & and | (each side in brackets there, as here).
        if isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            combine = np.logical_and if isinstance(node.op, ast.BitAnd) else np.logical_or
            return combine(self.condition(node.left), self.condition(node.right))
        raise _error(self.source, node, "arithmetic is not allowed; compare a column with a value")

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        if isinstance(node.op, (ast.Not, ast.Invert)):
            return ~self.condition(node.operand)
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            value = self.visit(node.operand)
            if isinstance(value, float):
                return -value
        raise _error(self.source, node, "only a number may have a minus sign")

    def visit_Constant(self, node: ast.Constant) -> Any:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise _error(self.source, node, 'only numbers and "text" are values')
        return float(value) if isinstance(value, (int, float)) else value

    def visit_Name(self, node: ast.Name) -> Chart:
        title = self.table.names.get(node.id) or self.table.names.get(node.id.lower())
        if title is None:
            names = ", ".join(sorted(self.table.names))
            raise _error(self.source, node, f"no column is called {node.id}; the names are {names}")
        return self.table.charts[title]

    def visit_List(self, node: ast.List | ast.Tuple) -> list[Any]:
        values = [self.visit(item) for item in node.elts]
        if any(isinstance(v, (np.ndarray, Chart)) for v in values):
            raise _error(self.source, node, "a list holds values only")
        return values

    visit_Tuple = visit_List

    def visit_Compare(self, node: ast.Compare) -> np.ndarray:
        parts, left_node = [], node.left
        for op, right_node in zip(node.ops, node.comparators):
            parts.append(self.compare(left_node, op, right_node))
            left_node = right_node
        return np.logical_and.reduce(parts)

    def compare(self, left_node: ast.AST, op: ast.cmpop, right_node: ast.AST) -> np.ndarray:
        left, right = self.visit(left_node), self.visit(right_node)
        if isinstance(op, (ast.In, ast.NotIn)):
            if not isinstance(left, Chart) or not isinstance(right, list):
                raise _error(
                    self.source,
                    right_node,
                    "in needs a column on its left and a [list] on its right",
                )
            found = self.is_in(left, right, right_node)
            return ~found if isinstance(op, ast.NotIn) else found
        if isinstance(left, Chart) == isinstance(right, Chart):
            raise _error(self.source, right_node, "compare a column with a value")
        if isinstance(op, (ast.Is, ast.IsNot)):
            raise _error(self.source, right_node, "use == or != to compare")
        if not isinstance(left, Chart):
            left, right, op = right, left, _FLIPPED[type(op)]()
        column = left.column
        if isinstance(column, Categories):
            if isinstance(op, (ast.Eq, ast.NotEq)):
                equal = self.is_in(left, [right], right_node)
                return equal if isinstance(op, ast.Eq) else ~equal
            numbers = name_numbers(column)
            if numbers is None or isinstance(right, str):
                raise _error(
                    self.source,
                    right_node,
                    f"{left.title} has categories: compare it with == or !=",
                )
            values = numbers[column.codes]
        elif isinstance(right, str):
            raise _error(self.source, right_node, f"{left.title} holds numbers; {right!r} is text")
        else:
            values = column.values
        with np.errstate(invalid="ignore"):
            return _COMPARE[type(op)](values, right)

    def is_in(self, chart: Chart, values: list[Any], node: ast.AST) -> np.ndarray:
        """Whether each sentence's value is one of ``values``, in one pass however long
        the list."""
        column = chart.column
        if isinstance(column, Numbers):
            text = next((v for v in values if isinstance(v, str)), None)
            if text is not None:
                raise _error(self.source, node, f"{chart.title} holds numbers; {text!r} is text")
            return np.isin(column.values, np.asarray(values, dtype=np.float64))
        code_of = {name: code for code, name in enumerate(column.names)}
        chosen = np.zeros(len(column.names) + 1, dtype=bool)  # the last: no category
        for value in values:
            text = value if isinstance(value, str) else number_text(value)
            code = -1 if text == column.none else code_of.get(text)
            if code is None:
                shown = ", ".join(column.names[:TOP]) + (", …" if len(column.names) > TOP else "")
                raise _error(
                    self.source, node, f"{text!r} is not a value of {chart.title} ({shown})"
                )
            chosen[code] = True
        return chosen[column.codes]


def name_numbers(column: Categories) -> np.ndarray | None:
    """Each category's name as a number, NaN last for none (codes of -1 read it); None
    unless every name is one. Costra's seed groups "1" to "126" compare as numbers, as
    its file's "seed group" numbers, which the groups replace, did."""
    try:
        return np.array([*map(float, column.names), np.nan])
    except ValueError:
        return None


def _describe(node: ast.AST) -> str:
    return {
        "Call": "a function call",
        "Attribute": "an attribute",
        "Subscript": "indexing",
        "Lambda": "a lambda",
        "Dict": "a dictionary",
        "Set": "a set",
        "IfExp": "if/else",
    }.get(type(node).__name__, type(node).__name__)
