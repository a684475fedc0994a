"""Swiss tournaments (see issue 7)."""
