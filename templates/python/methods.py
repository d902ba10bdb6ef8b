"""The ACP method tables. Generated: do not edit."""

from __future__ import annotations

import dataclasses as _dataclasses
import typing as _t

{%- for line in imports %}

{{ line }}
{%- endfor %}


@_dataclasses.dataclass(frozen=True)
class RequestMethod:
    """A request: `params` from the caller, `result` back from `side`."""

    name: str
    side: str
    params: _t.Any
    result: _t.Any


@_dataclasses.dataclass(frozen=True)
class NotificationMethod:
    """A notification handled by `side`."""

    name: str
    side: str
    params: _t.Any
{% for (constant, name) in constants %}
{{ constant }} = {{ name }}
{%- endfor %}

REQUESTS: dict[str, RequestMethod] = {
{%- for item in requests %}
    {{ item.name }}: RequestMethod({{ item.name }}, {{ item.side }}, _m.{{ item.params }}, _m.{{ item.result }}),
{%- endfor %}
}
"""Every request by method name."""

NOTIFICATIONS: dict[str, NotificationMethod] = {
{%- for item in notifications %}
    {{ item.name }}: NotificationMethod({{ item.name }}, {{ item.side }}, _m.{{ item.params }}),
{%- endfor %}
}
"""Every notification by method name."""
