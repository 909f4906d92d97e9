"""The server's instructions: how a model uses the tools together (sent at initialisation)."""

INSTRUCTIONS = """\
agentmem is your team's long-term memory: what you planned, made, published, discussed, did and \
learned, shared with the other agents of your client (and no one else's).

How to use it:
1. At the start of a task: get_context (your patterns, the conversation so far, brand voice, \
relevant memories) or task_context (the plan, its constraints, lessons, related threads), and \
recall to see what you remembered and did on similar tasks.
2. While you work: remember facts worth keeping (give a `key` to update one later), \
search_memory to look something up, and in a conversation session_start, then session_put \
for each turn. For a tracked run: episode_start, episode_append_tool_calls, record_cycle.
3. At the end: session_end with a summary and the facts you extracted, episode_close with the \
outcome, learn_from_feedback when you hear how it went; link_records to say one record \
supports, contradicts or follows another.
4. Lineage: trace(variantId) answers where a published variant came from and why it was \
published; upstream(id) does the same for any record.

Every result is compact JSON with ids; tools whose results can grow take tokenBudget. An error \
result is {"error": {"code", "message", "field"?}}: VALIDATION names the argument to fix, \
NOT_FOUND an id that does not exist for you, CONFLICT a concurrent change (read and retry). \
Ids are UUIDs returned by earlier calls; never invent one. Records can also be read as \
resources: agentmem://memory/{id}, agentmem://session/{id}, agentmem://trace/{variantId}.
"""
