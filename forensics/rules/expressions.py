"""A small safe arithmetic language for derived values; parsed by Python's parser, evaluated by our own walker.

Only numbers, value names, `+ - * / // % **`, parentheses and a few functions are allowed, so a rule
file can compute "how much memory was missing" without ever reaching Python's `eval`. Work is bounded: an
expression has at most MAX_SOURCE_CHARS characters and MAX_NODES steps, and no whole number in it may grow
past MAX_BITS bits (about 300 digits), so `((10**64)**64)**64` is undefined at once instead of running for
minutes (see docs/limits.md).

The tree's classes come from `_ast`, the C module `ast` re-exports, imported when an expression is first parsed:
importing `ast` (`_ast` creates its ~120 node classes; `ast` adds its unparser, visitors and an `IntEnum`) is
~15 M instructions, 5 % of a one-line `analyze`, which parses no expression (tests/test_fixed_cost.py).
`ast.parse` is `compile` with `PyCF_ONLY_AST`, as `_parse` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from forensics.model import Value

if TYPE_CHECKING:
    import _ast as ast

Number = int | float

_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
}
_BINARY: dict[str, Callable[[Number, Number], Number]] = {  # by the name of the operator's node class
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mult": lambda a, b: a * b,
    "Div": lambda a, b: a / b,
    "FloorDiv": lambda a, b: a // b,
    "Mod": lambda a, b: a % b,
    "Pow": lambda a, b: a**b,
}
_MAX_EXPONENT = 64  # keeps `10 ** 10 ** 10` from eating the machine
MAX_SOURCE_CHARS = 1000
MAX_NODES = 200  # constants, names, operators and calls: each is one evaluation step
MAX_DEPTH = 32  # nesting of the tree; the walkers recurse, so this also keeps them far from the stack limit
MAX_BITS = 1024  # the largest whole number any step may produce (a float tops out near 2**1024 as well)
_MAX_ROUND_DIGITS = 64


class _TooLargeError(ArithmeticError):
    """A step would produce a number past MAX_BITS: the value is undefined."""


class _MissingValueError(Exception):
    """A value the expression needs was not captured (or was not a number)."""


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed, validated arithmetic expression over named values."""

    source: str
    tree: ast.expr
    names: frozenset[str]

    @classmethod
    def parse(cls, source: str) -> Expression:
        """Parse and validate; raise ValueError naming the first construct that is not allowed."""
        if len(source) > MAX_SOURCE_CHARS:
            raise ValueError(
                f"longer than {MAX_SOURCE_CHARS} characters; split it into several derived values"
            )
        try:
            tree = _parse(source.strip())
        except SyntaxError as err:
            raise ValueError(f"not an expression: {err.msg}") from err
        except (RecursionError, MemoryError) as err:  # the parser's own nesting limit
            raise ValueError("nested too deeply") from err
        _check_size(tree)
        names: set[str] = set()
        _validate(tree, names)
        return cls(source=source, tree=tree, names=frozenset(names))

    def evaluate(self, values: Mapping[str, Value]) -> Number | None:
        """The result, or None when a needed value is missing or the arithmetic is undefined (or too large)."""
        try:
            return _evaluate(self.tree, values)
        except (
            _MissingValueError,
            ArithmeticError,  # ZeroDivisionError, OverflowError, _TooLargeError
            ValueError,
            TypeError,
            RecursionError,
        ):
            return None


def _check_size(tree: ast.expr) -> None:
    """At most MAX_NODES steps nested at most MAX_DEPTH deep, counted without recursion."""
    import _ast as ast

    nodes = 0
    frontier: list[tuple[ast.AST, int]] = [(tree, 1)]
    while frontier:
        node, depth = frontier.pop()
        if isinstance(node, ast.expr_context | ast.operator | ast.unaryop):
            continue
        nodes += 1
        if nodes > MAX_NODES:
            raise ValueError(f"more than {MAX_NODES} steps; split it into several derived values")
        if depth > MAX_DEPTH:
            raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
        frontier.extend((child, depth + 1) for child in _children(node))


def _parse(source: str) -> ast.expr:
    """`ast.parse(source, mode="eval").body`, without importing `ast`."""
    import _ast as ast

    return cast(ast.Expression, compile(source, "<unknown>", "eval", ast.PyCF_ONLY_AST)).body


def _children(node: ast.AST) -> Iterator[ast.AST]:
    """`ast.iter_child_nodes(node)`: the nodes among its fields, in order, without importing `ast`."""
    import _ast as ast

    for name in node._fields:
        field = getattr(node, name, None)
        if isinstance(field, ast.AST):
            yield field
        elif isinstance(field, list):
            yield from (item for item in field if isinstance(item, ast.AST))


def _bounded(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise _TooLargeError("number too large")
    return value


def _validate(node: ast.expr, names: set[str]) -> None:
    import _ast as ast

    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ValueError(f"only numbers are allowed as constants, not {node.value!r}")
        if isinstance(node.value, int) and node.value.bit_length() > MAX_BITS:
            raise ValueError(f"the number {str(node.value)[:20]}… is larger than 2**{MAX_BITS}")
    elif isinstance(node, ast.Name):
        names.add(node.id)
    elif isinstance(node, ast.BinOp):
        if type(node.op).__name__ not in _BINARY:
            raise ValueError(f"operator {type(node.op).__name__} is not allowed")
        _validate(node.left, names)
        _validate(node.right, names)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.USub | ast.UAdd):
            raise ValueError(f"operator {type(node.op).__name__} is not allowed")
        _validate(node.operand, names)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise ValueError(f"only the functions {', '.join(sorted(_FUNCTIONS))} may be called")
        if node.keywords or not node.args:
            raise ValueError(f"{node.func.id}() takes positional arguments only")
        for argument in node.args:
            _validate(argument, names)
    else:
        raise ValueError(f"{type(node).__name__} is not allowed in a derived value")


def _evaluate(node: ast.expr, values: Mapping[str, Value]) -> Number:
    import _ast as ast

    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("not a number")
        return _bounded(value)
    if isinstance(node, ast.Name):
        value = values.get(node.id)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _MissingValueError(node.id)
        return _bounded(value)
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, values)
        right = _evaluate(node.right, values)
        _refuse_large(node.op, left, right)
        return _bounded(_BINARY[type(node.op).__name__](left, right))
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        arguments = [_evaluate(argument, values) for argument in node.args]
        if node.func.id == "round" and len(arguments) == 2:
            digits = int(arguments[1])
            if abs(digits) > _MAX_ROUND_DIGITS:  # round(5, -10**9) would build 10**(10**9)
                raise ValueError("round() to too many digits")
            return _bounded(round(arguments[0], digits))
        return _bounded(_FUNCTIONS[node.func.id](*arguments))
    raise ValueError("unexpected node")  # unreachable after _validate


def _refuse_large(operator: ast.operator, left: Number, right: Number) -> None:
    """Before a step that could build a huge whole number: would its result pass MAX_BITS?"""
    import _ast as ast

    if isinstance(operator, ast.Pow):
        if abs(right) > _MAX_EXPONENT:
            raise ValueError("exponent too large")
        if isinstance(left, int) and isinstance(right, int) and left.bit_length() * right > MAX_BITS + right:
            raise _TooLargeError("power too large")
    elif (
        isinstance(operator, ast.Mult)
        and isinstance(left, int)
        and isinstance(right, int)
        and left.bit_length() + right.bit_length() > MAX_BITS + 1
    ):
        raise _TooLargeError("product too large")
