"""Pages of the API's lists: ``?page=N`` with N a whole number from 1; anything else is refused
(400 naming the parameter) rather than quietly read as the first page."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from common.errors import ServiceError
from common.text import digits


class Pages(PageNumberPagination):
    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        values = request.query_params.getlist(self.page_query_param)
        if values and (len(values) > 1 or not digits(values[0]) or not 1 <= int(values[0]) <= 10**9):
            raise ServiceError("page must be one whole number from 1", self.page_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return super().get_paginated_response_schema(schema)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        params: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for param in params:
            if param["name"] == self.page_query_param:
                param["schema"] = {"type": "integer", "minimum": 1, "maximum": 10**9}
        return params
