"""Expiry over GraphQL (seed 002's conversation TTL and caps): cap a conversation, give a
thread or a session a new time to live. The per-call TTLs of new sessions, entries and threads
are fields of their own inputs; the sweeper's counts are MemorySweep.expired."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
MUTATIONS = ("mutations.ExpiryMutations",)
