"""The fuzz stage's check positive_data_reasons (tests/fuzz/fuzz_checks.py) and the
configuration that lists, per operation, the refusals no schema can state."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fuzz_checks import NAME, positive_data_reasons
from schemathesis.config import SchemathesisConfig

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIGS = sorted(HERE.glob("*.toml"))


def _run(body: Any, *, status: int = 400, positive: bool = True, expected: tuple[str, ...] = ("2xx", "400"),
         fields: tuple[str, ...] = (), codes: tuple[str, ...] = ()) -> bool | None:
    ctx = SimpleNamespace(config=SimpleNamespace(
        positive_data_acceptance=SimpleNamespace(expected_statuses=list(expected)),
        custom_kwargs={NAME: {"fields": list(fields), "codes": list(codes)}}))
    case = SimpleNamespace(meta=SimpleNamespace(generation=SimpleNamespace(mode=SimpleNamespace(is_positive=positive))))
    response = SimpleNamespace(status_code=status, content=json.dumps(body).encode())
    return positive_data_reasons(ctx, response, case)  # type: ignore[no-any-return]


def test_a_refusal_of_a_listed_field_or_code_passes():
    assert _run({"code": "invalid", "field": "opponent", "errors": {"opponent": ["no such player"]}},
                fields=("opponent",)) is None
    assert _run({"code": "illegal_move", "field": "cell", "rule": "R5"}, codes=("illegal_move",)) is None
    assert _run({"code": "invalid", "field": "body", "errors": {"non_field_errors": ["wrong password"]}},
                fields=("body",)) is None
    assert _run({"code": "invalid", "field": "cell.0", "errors": {"cell": {"0": ["too big"]}}}, fields=("cell",)) is None


@pytest.mark.parametrize("body", [
    {"code": "invalid", "field": "rounds", "message": "rounds must be 1 to 30"},  # a bound the schema could state
    {"code": "invalid", "field": "name", "errors": {"name": ["…"], "rounds": ["…"]}},  # one listed, one not
    {"code": "invalid", "message": "no field named"},
    ["not", "an", "error", "body"],
])
def test_any_other_refusal_of_a_valid_request_fails(body):
    with pytest.raises(AssertionError, match="refused"):
        _run(body, fields=("name",), codes=("illegal_move",))


def test_it_judges_only_valid_requests_refused_with_an_expected_400():
    refused = {"code": "invalid", "field": "rounds"}
    assert _run(refused, positive=False) is None  # an invalid request: negative_data_rejection's business
    assert _run(refused, status=409) is None
    assert _run(refused, expected=("2xx", "404")) is None  # positive_data_acceptance fails it already


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_operation_allowed_a_400_on_valid_data_says_why(path):
    """A "400" among an operation's expected statuses comes with the fields or codes it may name,
    each with a comment saying why no schema can state it."""
    data = tomllib.loads(path.read_text())
    assert (ROOT / data["hooks"]).is_file()
    for operation in data["operations"]:
        checks = operation.get("checks", {})
        if "400" in checks.get("positive_data_acceptance", {}).get("expected-statuses", []):
            reasons = checks.get(NAME, {})
            assert reasons.get("fields") or reasons.get("codes"), operation


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_schemathesis_reads_the_configuration(path):
    data = tomllib.loads(path.read_text())
    del data["hooks"]  # the check is registered here already (importing it twice is refused)
    SchemathesisConfig.from_dict(data)


# --- negative_data_verified --------------------------------------------------------------------

API_DOC = {
    "openapi": "3.0.3",
    "paths": {"/api/tournaments/": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/TournamentInRequest"}}}}}}},
    "components": {"schemas": {"TournamentInRequest": {
        "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string", "minLength": 1}, "rounds": {"type": "integer", "maximum": 30}}}}},
}


def _negative(body: Any, *, query_negated: bool = False) -> Any:
    from schemathesis.core.parameters import ParameterLocation

    mode = SimpleNamespace
    components = {ParameterLocation.BODY: mode(mode=mode(is_positive=False)),
                  ParameterLocation.QUERY: mode(mode=mode(is_positive=not query_negated))}
    operation = SimpleNamespace(path="/api/tournaments/", schema=SimpleNamespace(raw_schema=API_DOC))
    return SimpleNamespace(meta=SimpleNamespace(components=components), operation=operation, method="POST", body=body)


def _verified(case: Any, monkeypatch: Any) -> bool | None:
    """negative_data_verified where schemathesis's own check fails the case (it was accepted)."""
    import fuzz_checks
    from schemathesis.core.failures import AcceptedNegativeData

    def accepted(ctx: Any, response: Any, case: Any) -> None:
        raise AcceptedNegativeData(operation="POST /api/tournaments/", message="accepted", status_code=201,
                                   expected_statuses=["400"])

    monkeypatch.setattr(fuzz_checks, "negative_data_rejection", accepted)
    return fuzz_checks.negative_data_verified(None, None, case)  # type: ignore[no-any-return]


def test_a_negative_whose_body_the_schema_allows_after_all_is_not_a_failure(monkeypatch):
    # the case CI met: every required field there, and an extra property the schema does not forbid
    assert _verified(_negative({"name": "0", "rounds": 1, "errors": {}}), monkeypatch) is None


@pytest.mark.parametrize("body", [{"rounds": 1}, {"name": ""}, {"name": "x", "rounds": 31}, {"name": 5}, ["name"]])
def test_an_accepted_body_that_breaks_the_schema_is_still_a_failure(body, monkeypatch):
    from schemathesis.core.failures import AcceptedNegativeData

    with pytest.raises(AcceptedNegativeData):
        _verified(_negative(body), monkeypatch)


def test_a_negated_query_is_judged_by_schemathesis_alone(monkeypatch):
    from schemathesis.core.failures import AcceptedNegativeData

    with pytest.raises(AcceptedNegativeData):
        _verified(_negative({"name": "ok"}, query_negated=True), monkeypatch)
