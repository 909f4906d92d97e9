"""Conversation memory over GraphQL: threads, events, summaries (seed 000, 5)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.ConversationQueries",)
MUTATIONS = ("mutations.ConversationMutations",)
