"""A small safe arithmetic language for derived values; parsed with `ast`, evaluated by our own walker.

Only numbers, value names, `+ - * / // % **`, parentheses and a few functions are allowed, so a rule
file can compute "how much memory was missing" without ever reaching Python's `eval`.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from forensics.model import Value

Number = int | float

_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
}
_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_MAX_EXPONENT = 64  # keeps `10 ** 10 ** 10` from eating the machine


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
        try:
            tree = ast.parse(source.strip(), mode="eval").body
        except SyntaxError as err:
            raise ValueError(f"not an expression: {err.msg}") from err
        names: set[str] = set()
        _validate(tree, names)
        return cls(source=source, tree=tree, names=frozenset(names))

    def evaluate(self, values: Mapping[str, Value]) -> Number | None:
        """The result, or None when a needed value is missing or the arithmetic is undefined."""
        try:
            return _evaluate(self.tree, values)
        except (_MissingValueError, ZeroDivisionError, OverflowError, ValueError, TypeError):
            return None


def _validate(node: ast.expr, names: set[str]) -> None:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ValueError(f"only numbers are allowed as constants, not {node.value!r}")
    elif isinstance(node, ast.Name):
        names.add(node.id)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
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
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("not a number")
        return value
    if isinstance(node, ast.Name):
        value = values.get(node.id)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _MissingValueError(node.id)
        return value
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, values)
        right = _evaluate(node.right, values)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ValueError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        arguments = [_evaluate(argument, values) for argument in node.args]
        if node.func.id == "round" and len(arguments) == 2:
            return round(arguments[0], int(arguments[1]))
        return _FUNCTIONS[node.func.id](*arguments)
    raise ValueError("unexpected node")  # unreachable after _validate
