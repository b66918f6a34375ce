"""cloud_extraction: the Python client of the Cloud Extraction Service API.

``Client`` (synchronous) and ``AsyncClient`` (asyncio) retry what is safe to retry honouring
Retry-After, page lists, wait for Runs with the API's long-poll, stream downloads (following the object
store's redirect without credentials), raise one ``ApiError`` and verify webhook signatures.
"""

from ._async import AsyncClient
from ._errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    UnprocessableEntityError,
)
from ._policy import TERMINAL_STATUSES
from ._sync import Client
from ._version import __version__
from .models import ErrorCode
from .run_status import RunStatus
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "AsyncClient",
    "Client",
    "ApiError",
    "ApiConnectionError",
    "ApiTimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "ErrorCode",
    "RunStatus",
    "TERMINAL_STATUSES",
    "WebhookVerificationError",
    "verify_webhook",
    "__version__",
]
