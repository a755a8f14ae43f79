"""Emitters: one per kind of generated file. Each takes model objects and returns
{relative path: text}; gen.py decides what gets written."""

from __future__ import annotations

import os

import jinja2

_ENV = None


def env() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = jinja2.Environment(
            loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(os.path.dirname(__file__)), "templates")),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
        )
        _ENV.filters["param"] = lambda p: p.name if p.default is None else f"{p.name}={p.default}"
        _ENV.filters["stub_param"] = lambda p: f"{p.name}: {p.hint}" + ("" if p.default is None else f" = {p.default}")
    return _ENV


def render(template: str, **kw) -> str:
    return env().get_template(template).render(**kw)
