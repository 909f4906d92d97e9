"""Working-memory sessions over GraphQL (seed 003): timelines, flush, rehydrate, transcripts;
archive and unarchive (seed 004)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.SessionQueries",)
MUTATIONS = ("mutations.SessionMutations", "archive.ArchiveMutations", "learning.ProgressMutations")
