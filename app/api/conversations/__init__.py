"""Conversation memory over GraphQL: threads, events, summaries (seed 000, 5)."""
