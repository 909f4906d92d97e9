"""MemoryLinks over GraphQL: link and unlink any two records of a client, list a record's links,
and its k-hop neighbourhood (cypher/queries/neighbourhood.cypher)."""
