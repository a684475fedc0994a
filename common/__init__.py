"""What every app of the site uses and nothing of theirs: the refusals and the API's answer to them
(errors, api), JSON read to the letter (strict), the schema's shapes (schema), the lists' pages
(pagination), the database layer of the hot paths (db) and the migration step of a model that
moves between apps (contenttypes). It imports no app: it is the bottom layer (docs/architecture.md)."""
