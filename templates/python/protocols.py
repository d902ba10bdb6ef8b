"""What each side of a connection handles, as `typing.Protocol` stubs.

`protocol` and `both` methods are handled by every side and appear in each
protocol; `proxy` methods are in the method tables only. Generated: do not edit.
"""

from __future__ import annotations

import typing as _t

{%- for line in imports %}

{{ line }}
{%- endfor %}
{% for side in sides %}

class {{ side.name }}(_t.Protocol):
    {{ side.doc }}
{%- for method in side.methods %}

    async def {{ method.name }}(self, params: _m.{{ method.params }}) -> {{ method.result }}:
        {{ method.doc }}
        ...
{%- endfor %}
{% endfor %}
