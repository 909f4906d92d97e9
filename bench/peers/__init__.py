"""Other memory systems measured side by side with ours, each in an environment of its own
(never a product dependency)."""
