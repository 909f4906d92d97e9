"""Lessons, client snapshots and the cross-agent traversals over GraphQL; MemoryLinks (link and
unlink any two records of a client, list a record's links, and its k-hop neighbourhood:
cypher/queries/neighbourhood.cypher)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.LessonQueries", "link_queries.LinkQueries")
MUTATIONS = ("mutations.LessonMutations", "link_mutations.LinkMutations")
