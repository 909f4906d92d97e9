"""The minio SDK client: bounded connects and reads, no retry storms, and what counts as the
server being out (rather than the request's fault)."""

from __future__ import annotations

import urllib3
from minio import Minio
from minio.error import MinioException, S3Error
from urllib3.exceptions import HTTPError, ProtocolError

from app.settings import Settings


class RetryStaleConnection(urllib3.Retry):
    """Retries once, and only a request whose pooled connection the server had closed (a
    restarted S3). The SDK's default (5 retries with backoff, 5xx included, 300 s timeouts)
    turned an outage into a slow INTERNAL; a refusal or a timeout is answered at once."""

    def _is_read_error(self, err: Exception) -> bool:
        return isinstance(err, ProtocolError)


def http_client(timeout_s: float) -> urllib3.PoolManager:
    return urllib3.PoolManager(
        timeout=urllib3.Timeout(connect=timeout_s, read=timeout_s),
        maxsize=10,  # the SDK's own pool size (urllib3's default is 1)
        retries=RetryStaleConnection(total=1, connect=0, read=1, redirect=0, status=0, other=0),
    )


def make_client(settings: Settings, *, timeout_s: float | None = None) -> Minio:
    """A client whose connects and reads give up after `timeout_s` (default: the dependency
    timeout)."""
    return client_over(settings, http_client(timeout_s or settings.dependency_timeout_s))


def client_over(settings: Settings, http: urllib3.PoolManager | None) -> Minio:
    """A client of the settings' S3 endpoint with their credentials, over `http` (None: the
    SDK's own pool)."""
    return Minio(
        settings.s3_endpoint,
        access_key=settings.s3_access_key,
        secret_key=settings.s3_secret_key.get_secret_value(),
        secure=settings.s3_secure,
        region=settings.s3_region,
        http_client=http,
    )


def is_outage(error: BaseException) -> bool:
    """The server is down, unreachable, too slow or failing (5xx, or an answer that is not S3's
    at all): not the request's fault."""
    if isinstance(error, S3Error):
        return error.response.status >= 500
    return isinstance(error, HTTPError | OSError | MinioException)
