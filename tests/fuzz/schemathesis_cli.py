"""schemathesis's command line, with one workaround: on CPython 3.11.7, ``ast.parse`` of a large
module under a deep stack can raise ``SystemError: AST constructor recursion depth mismatch``
(a CPython bug). hypothesis parses source only to describe a lambda in messages, and already
falls back when parsing fails with a SyntaxError; this turns that SystemError into one."""

from __future__ import annotations

import ast
import sys
import types
from typing import Any

from hypothesis.internal import lambda_sources


def _parse(*args: Any, **kwargs: Any) -> ast.AST:
    try:
        return ast.parse(*args, **kwargs)
    except SystemError as exc:
        raise SyntaxError(str(exc)) from exc


_shim = types.SimpleNamespace(**{name: getattr(ast, name) for name in dir(ast) if not name.startswith("__")})
_shim.parse = _parse
lambda_sources.ast = _shim  # type: ignore[assignment]

if __name__ == "__main__":
    from schemathesis.cli import schemathesis

    sys.exit(schemathesis())
