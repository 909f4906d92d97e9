FROM python:3.11-slim
WORKDIR /srv
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY app ./app
COPY cypher ./cypher
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["agentmem", "serve"]
