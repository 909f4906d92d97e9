"""The expiry defaults of the running service, for the resolvers that create sessions and
threads."""

from __future__ import annotations

from app.api.context import Info
from app.domain.expiry import Lifetimes


def lifetimes(info: Info) -> Lifetimes:
    return Lifetimes.from_settings(info.context.services.settings)
