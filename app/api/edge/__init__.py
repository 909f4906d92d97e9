"""GraphQL over HTTP, the checks before execution: the request body (request_body.py), JSON
answers (asgi.py), query limits (limits.py), input text checks (text_input.py, literal_rule.py),
cached and rate-limited introspection (introspection.py), rate limits per key and per address
(rate_limit.py), and the locally served GraphiQL assets. The view that executes requests is
app/api/read/http_view.py."""
