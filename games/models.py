"""Games in the database (see issue 3)."""
