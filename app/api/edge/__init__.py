"""GraphQL over HTTP, up to execution: the view (http_view.py) and what it reads of a request
(view_request.py, request_body.py), JSON answers (asgi.py), query limits (limits.py), input text
checks (text_input.py, literal_rule.py), cached and rate-limited introspection
(introspection.py, rate_limit.py), and the locally served GraphiQL assets."""
