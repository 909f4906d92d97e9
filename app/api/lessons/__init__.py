"""Lessons, client snapshots and the cross-agent traversals over GraphQL; MemoryLinks (link and
unlink any two records of a client, list a record's links, and its k-hop neighbourhood:
cypher/queries/neighbourhood.cypher)."""
