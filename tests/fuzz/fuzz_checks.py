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

``negative_data_verified`` replaces schemathesis's ``negative_data_rejection`` (bin/fuzz runs
``--exclude-checks negative_data_rejection``): it fails as that check does, except when the case's only negated part is its JSON
body and that body is valid for the operation's own schema after all. schemathesis's coverage
phase once labelled a valid tournament ("errors": {} beside every required field, an extra
property the schema allows) as missing a required property of a property the schema does not
have; it happened once in six runs and not again with the same seed (workers racing over its
caches, it seems). A body that really breaks the schema is still a failure when accepted.

``time_zones_sampled`` keeps the coverage phase of ``PATCH /api/me/`` to a sample of the time
zones: that phase sends one valid body for each value of an enum, and the time zone lists every
zone of the IANA database (599 here): some 600 of the stage's 5,900 requests. Every zone is accepted and
stored by tests/games/test_api_hardening.py (in-process, in a second); the fuzz stage sends each
zone whose name falls in the sample, the notable ones, and the fuzzing phase any zone it draws.
"""

from __future__ import annotations

import json
import zlib
import zoneinfo
from typing import Any

import schemathesis
from jsonschema import Draft4Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.core.parameters import ParameterLocation
from schemathesis.core.transport import expand_status_codes
from schemathesis.generation.meta import CoverageScenario, TestPhase
from schemathesis.specs.openapi.checks import negative_data_rejection

NAME = "positive_data_reasons"
API = "urn:powerboats:api"


def _named_fields(body: dict[str, Any]) -> set[str]:
    """The top-level inputs an error body blames (common.api.exception_handler): ``field`` and
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


def _anchored(node: Any) -> Any:
    """A schema whose local references ("#/components/…") point into the API's document."""
    if isinstance(node, dict):
        return {k: (API + v if k == "$ref" and isinstance(v, str) and v.startswith("#") else _anchored(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_anchored(v) for v in node]
    return node


def body_valid_after_all(case: Any) -> bool:
    """Whether a negative case negated only its JSON body, and that body is valid for the
    operation's request schema (OpenAPI 3.0's schema objects, read as JSON Schema draft 4:
    ``nullable`` is not known there, so a null is judged invalid — the safe side)."""
    meta = case.meta
    if meta is None:
        return False
    components = meta.components or {}
    body = components.get(ParameterLocation.BODY)
    if body is None or body.mode.is_positive:
        return False
    if any(not info.mode.is_positive for where, info in components.items() if where != ParameterLocation.BODY):
        return False
    raw = case.operation.schema.raw_schema
    try:
        operation = raw["paths"][case.operation.path][case.method.lower()]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
    except (KeyError, TypeError, AttributeError):
        return False
    registry = Registry().with_resource(API, Resource.from_contents(raw, default_specification=DRAFT4))
    return bool(Draft4Validator(_anchored(schema), registry=registry).is_valid(case.body))


@schemathesis.check
def negative_data_verified(ctx: Any, response: Any, case: Any) -> bool | None:
    try:
        return negative_data_rejection(ctx, response, case)  # type: ignore[no-any-return]
    except AcceptedNegativeData:
        if body_valid_after_all(case):
            return None  # labelled negative, but the body the schema allows
        raise


# offsets of a quarter or a half hour, the largest either way, the site's own languages, UTC
NOTABLE_ZONES = {"UTC", "Etc/GMT+12", "Pacific/Kiritimati", "Pacific/Chatham", "Asia/Kathmandu", "Asia/Kolkata",
                 "America/St_Johns", "Australia/Eucla", "Europe/Berlin", "Europe/Rome", "Europe/London"}
FIRST_ZONE = min(zoneinfo.available_timezones())  # the API's list is sorted (games/api.py TIME_ZONES)


@schemathesis.hook("filter_case").apply_to(method="PATCH", path="/api/me/")
def time_zones_sampled(ctx: Any, case: Any) -> bool:
    """In the coverage phase, a valid body with a time zone outside the sample is not sent (one
    zone name in 16, by a checksum of the name, and ``NOTABLE_ZONES``; the first zone, which
    the other valid bodies carry, is one of them)."""
    phase = case.meta.phase if case.meta is not None else None
    if phase is None or phase.name != TestPhase.COVERAGE or phase.data.scenario != CoverageScenario.VALID_OBJECT:
        return True
    zone = case.body.get("time_zone") if isinstance(case.body, dict) else None
    if not isinstance(zone, str) or zone in NOTABLE_ZONES or zone == FIRST_ZONE:
        return True
    return zlib.crc32(zone.encode()) % 16 == 0
