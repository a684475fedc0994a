"""A bare Django + DRF app: the yardstick of bench/http.py (see its docstring)."""
