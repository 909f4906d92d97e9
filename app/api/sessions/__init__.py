"""Working-memory sessions over GraphQL (seed 003): timelines, flush, rehydrate, transcripts."""
