"""The ACP method tables, and the decoding of params and results by method name.

`decode_agent_request(method, params)` and its siblings decode what a side
handles: a method that side does not handle raises `MethodNotFound`
(JSON-RPC -32601), params that do not decode raise `InvalidParams` (-32602,
naming the JSON pointer), and a `_`-prefixed method is an extension, kept
undecoded. Generated: do not edit.
"""

from __future__ import annotations

import typing as _t

from . import _runtime as _rt

{%- for line in imports %}
{{ line }}
{%- endfor %}

RequestMethod = _rt.RequestMethod
NotificationMethod = _rt.NotificationMethod
{% for (constant, name) in constants %}
{{ constant }}: _t.Final = {{ name }}
{%- endfor %}

REQUESTS: dict[str, RequestMethod[_t.Any, _t.Any]] = {
{%- for item in requests %}
    {{ item.name }}: RequestMethod({{ item.name }}, {{ item.side }}, _m.{{ item.params }}, _m.{{ item.result }}, {{ item.optional }}),
{%- endfor %}
}
"""Every request by method name."""

NOTIFICATIONS: dict[str, NotificationMethod[_t.Any]] = {
{%- for item in notifications %}
    {{ item.name }}: NotificationMethod({{ item.name }}, {{ item.side }}, _m.{{ item.params }}, {{ item.optional }}),
{%- endfor %}
}
"""Every notification by method name."""
{% for side in sides %}
{{ side.union }}: _t.TypeAlias = {{ side.members }}
"""A {{ side.role }} the {{ side.side }} handles: its decoded params, or an extension {{ side.role }}."""

{{ side.table }}: dict[str, _t.Any] = {
{%- for (name, params) in side.entries %}
    {{ name }}: {{ params }},
{%- endfor %}
}
"""The params of each {{ side.role }} the {{ side.side }} handles, by method name."""


def {{ side.decode }}(method: str, params: _t.Any) -> {{ side.union }}:
    """Decodes the params of a {{ side.role }} the {{ side.side }} handles, by method name."""
    return _t.cast({{ side.union }}, _rt.decode_by_method({{ side.table }}, method, params, {{ side.extension }}))

{% endfor %}
{%- if !requests.is_empty() %}
{%- for item in requests %}
@_t.overload
def decode_result(method: _t.Literal[{{ item.name }}], result: _t.Any) -> _m.{{ item.result }}: ...
{% endfor %}
@_t.overload
def decode_result(method: str, result: _t.Any) -> _t.Any: ...

{% endif %}


def decode_result(method: str, result: _t.Any) -> _t.Any:
    """Decodes the result of the request `method` (a `DecodeError` when it does not decode)."""
    request = REQUESTS.get(method)
    if request is None:
        raise _rt.MethodNotFound(method)
    return request.decode_result(result)
