"""History tables whose rows are added, never changed or deleted: the move history of a game
(``Move``) is the truth that stored state is replayed from."""

from __future__ import annotations

from typing import Any


class AppendOnly(Exception):
    pass


class AppendOnlyRows:
    """Mixed into a history model before ``models.Model``: saving an existing row or deleting
    one raises ``AppendOnly`` (QuerySet.update and .delete are not used on these tables)."""

    history_name = "history"
    _state: Any

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnly(f"the {self.history_name} is append-only")
        super().save(*args, **kwargs)  # type: ignore[misc]

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise AppendOnly(f"the {self.history_name} is append-only")
