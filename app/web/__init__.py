"""The HTTP service: the Starlette app and its lifespan (app.py), the request edge middleware,
body limits, the API key check and its cache, /readyz and /metrics, and uvicorn with its bounded
HTTP protocol (serve.py, http_protocol.py). The GraphQL view itself is app/api/edge."""
