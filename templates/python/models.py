"""The ACP types of {{ origin }}, as pydantic v2 models. Generated: do not edit."""

from __future__ import annotations

import typing as _t

import pydantic as _p

from . import _runtime as _rt
{% for item in enums %}

class {{ item.name }}({{ item.base }}):
    {{ item.doc }}
{%- for setting in item.settings %}

    {{ setting }}
{%- endfor %}
{%- for member in item.members %}

    {{ member.name }} = {{ member.value }}
{%- if let Some(doc) = member.doc %}
    {{ doc }}
{%- endif %}
{%- endfor %}
{% endfor %}
{%- for item in classes %}

class {{ item.name }}({{ item.base }}):
    {{ item.doc }}
{%- for setting in item.settings %}

    {{ setting }}
{%- endfor %}
{%- for field in item.fields %}

    {{ field.attr }}: {{ field.declared }}{{ field.default }}
{%- if let Some(doc) = field.doc %}
    {{ doc }}
{%- endif %}
{%- endfor %}
{%- if let Some(signature) = item.signature %}

    if _t.TYPE_CHECKING:

        def __init__({{ signature }}) -> None: ...
{%- endif %}
{%- for accessor in item.accessors %}

    def {{ accessor.name }}(self) -> {{ accessor.annotation }}:
        {{ accessor.doc }}
        value: {{ accessor.annotation }} = _rt.value_or_default(self, {{ accessor.attr }}, {{ accessor.default }})
        return value
{%- endfor %}
{% endfor %}
{%- for item in aliases %}

{{ item.name }}: _t.TypeAlias = {{ item.value }}
{{ item.doc }}
{%- endfor %}


TYPES: dict[str, _t.Any] = {
{%- for (name, value) in table %}
    {{ name }}: {{ value }},
{%- endfor %}
}
"""Every type by its schema name, for the by-name codec."""
{% for class in build_order %}
{{ class }}.model_rebuild()
{%- endfor %}
_rt.read_absent_as_default(globals())
_rt.describe_fields(__name__, globals())
