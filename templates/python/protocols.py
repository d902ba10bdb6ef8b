"""What each endpoint handles, as `typing.Protocol` classes, and the
dispatchers that route a request or notification to an implementation.

`protocol` and `both` methods are handled by every side and appear in each
protocol; `proxy` methods are in the method tables only. Generated: do not edit.
"""

from __future__ import annotations

import typing as _t

from . import _runtime as _rt

{%- for line in imports %}
{{ line }}
{%- endfor %}


def _overrides(handler: _t.Any, protocol: type, name: str) -> bool:
    """Whether `handler` has its own `name`: defined, and not the protocol's
    default (which answers method-not-found)."""
    member = getattr(handler, name, None)
    return callable(member) and getattr(member, "__func__", member) is not getattr(protocol, name, None)
{% for side in sides %}

class {{ side.name }}(_t.Protocol):
    {{ side.doc }}
{%- for handler in side.handlers %}

    async def {{ handler.name }}(self, params: _m.{{ handler.params }}) -> {% if let Some(result) = handler.result %}_m.{{ result }}{% else %}None{% endif %}:
        {{ handler.doc }}
        {{ handler.body }}
{%- endfor %}

    async def extension_request(self, method: str, params: _t.Any) -> _t.Any:
        """Handles a `_`-prefixed extension request: answers method-not-found unless overridden."""
        raise _rt.MethodNotFound(method)

    async def extension_notification(self, method: str, params: _t.Any) -> None:
        """Handles a `_`-prefixed extension notification: ignores it unless overridden."""
        return


async def {{ side.dispatch_request }}(handler: {{ side.name }}, method: str, params: _t.Any, checked: bool = False) -> _t.Any:
    """Decodes `params` by `method`, calls the handler and returns its result as JSON.

    Raises `MethodNotFound` (-32601) for a method the {{ side.label }} does not handle,
    `InvalidParams` (-32602) for params that do not decode, and whatever `RequestError`
    the handler raises. `checked`: `params` have passed `_runtime.check_wire`
    already (a connection checks the whole message first).
    """
{%- for handler in side.handlers %}
{%- if let Some(result) = handler.result %}
    if method == {{ handler.method }}:
        return _rt.encode(_m.{{ result }}, await handler.{{ handler.name }}(_rt.decode_params(method, _m.{{ handler.params }}, params, checked)))
{%- endif %}
{%- endfor %}
    if _rt.is_extension(method):
        return await handler.extension_request(method, params)
    raise _rt.MethodNotFound(method)


def {{ side.handles }}(handler: {{ side.name }}, method: str) -> bool:
    """Whether `handler` answers the request `method` itself, rather than with
    the method-not-found `{{ side.dispatch_request }}` gives a handler left to
    `{{ side.name }}`'s default: what a connection advertises from."""
{%- for handler in side.handlers %}
{%- if handler.result.is_some() %}
    if method == {{ handler.method }}:
        return _overrides(handler, {{ side.name }}, "{{ handler.name }}")
{%- endif %}
{%- endfor %}
    return False


{{ side.notification_handlers }}: dict[str, tuple[str, _t.Any]] = {
{%- for handler in side.handlers %}
{%- if handler.result.is_none() %}
    {{ handler.method }}: ("{{ handler.name }}", _m.{{ handler.params }}),
{%- endif %}
{%- endfor %}
}
"""The handler and the params' type of each notification the {{ side.label }} handles
(`_`-prefixed extensions aside), by method name: what `{{ side.dispatch_notification }}` calls."""


async def {{ side.dispatch_notification }}(handler: {{ side.name }}, method: str, params: _t.Any, checked: bool = False) -> None:
    """Decodes `params` by `method` and calls the handler; raises as `{{ side.dispatch_request }}` does."""
{%- for handler in side.handlers %}
{%- if handler.result.is_none() %}
    if method == {{ handler.method }}:
        return await handler.{{ handler.name }}(_rt.decode_params(method, _m.{{ handler.params }}, params, checked))
{%- endif %}
{%- endfor %}
    if _rt.is_extension(method):
        return await handler.extension_notification(method, params)
    raise _rt.MethodNotFound(method)
{% endfor %}
