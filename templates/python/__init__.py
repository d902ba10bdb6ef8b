"""ACP bindings: pydantic v2 models, method tables, side protocols and the by-name codec.

Every name is importable from here. Generated: do not edit.
"""
{% for (module, names) in imports %}
from {{ module }} import (
{%- for name in names %}
    {{ name }},
{%- endfor %}
)
{%- endfor %}

__all__ = [
{%- for name in all %}
    "{{ name }}",
{%- endfor %}
]
