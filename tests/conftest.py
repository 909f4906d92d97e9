import os

# Tests never reach a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
