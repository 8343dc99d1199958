"""The docstrings of a class's attributes: the string literal right under an annotated
attribute, as PEP 257 calls it an attribute docstring (and as pydantic's
`use_attribute_docstrings` reads it). They are the reference of the config keys and of the
components' inputs: the generated docs, Args and package schema take their descriptions here."""

import ast
import inspect
import itertools
import textwrap


def attribute_docstrings(cls: type) -> dict[str, str]:
    """Each attribute the class itself annotates and documents, by its name; none when its
    source cannot be read."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    body = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)).body
    found: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        doc = after.value if isinstance(after, ast.Expr) else None
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(doc, ast.Constant)
            and isinstance(doc.value, str)
        ):
            found[node.target.id] = inspect.cleandoc(doc.value)
    return found
