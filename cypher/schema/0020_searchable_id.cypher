// Search looks up found records by id (MMR vectors, graph distance to an anchor).
CREATE INDEX searchable_id IF NOT EXISTS FOR (n:Searchable) ON (n.id);
