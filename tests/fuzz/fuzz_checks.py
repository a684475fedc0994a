"""The fuzz stage's own check (bin/fuzz; loaded by ``hooks`` in tests/fuzz/*.toml).

schemathesis's ``positive_data_acceptance`` fails when a request the schema allows is refused
with a status that operation does not expect. Some operations must be allowed a 400 on such a
request: the tournament's registration must close before its start, a challenge names a player
who must exist, a password must be strong; no schema can say that. Listing "400" there would
also let every refusal the schema *could* express pass (a number the API bounds and the schema
does not), so this check looks at why: a request the schema allows, refused with 400, must name
only fields (``field``, and each key of ``errors``) or an error ``code`` listed for the operation,
each with its reason, in the toml::

    checks.positive_data_reasons.fields = ["registration_closes_at"]   # before the start
    checks.positive_data_reasons.codes = ["illegal_move"]               # the rules of the game

It looks only where the operation lets ``positive_data_acceptance`` pass a 400; elsewhere that
check refuses every 400 itself.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from schemathesis.core.transport import expand_status_codes

NAME = "positive_data_reasons"


def _named_fields(body: dict[str, Any]) -> set[str]:
    """The top-level inputs an error body blames (games.api.exception_handler): ``field`` and
    each key of ``errors``; ``cell.0`` is ``cell``, an error of no one field is ``body``."""
    names = set()
    if isinstance(body.get("field"), str):
        names.add(body["field"])
    if isinstance(body.get("errors"), dict):
        names.update(str(key) for key in body["errors"])
    return {"body" if name == "non_field_errors" else name.split(".")[0] for name in names}


@schemathesis.check
def positive_data_reasons(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    if 400 not in expand_status_codes(ctx.config.positive_data_acceptance.expected_statuses or []):
        return None  # positive_data_acceptance refuses it already
    reasons = ctx.config.custom_kwargs.get(NAME, {})
    fields, codes = set(reasons.get("fields", [])), set(reasons.get("codes", []))
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise AssertionError(f"A valid request was refused with 400 and no error body: {response.content[:200]!r}")
    if body.get("code") in codes:
        return None
    named = _named_fields(body)
    if named and named <= fields:
        return None
    raise AssertionError(
        f"A request the schema allows was refused for a reason the schema could state: {body.get('message')!r}\n"
        f"Refused: {', '.join(sorted(named)) or 'no field'} (code {body.get('code')!r}); refusals beyond the schema "
        f"listed for this operation: fields {sorted(fields) or 'none'}, codes {sorted(codes) or 'none'}"
    )
