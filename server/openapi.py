"""The OpenAPI schema as the server is configured, and ``Allow`` headers that list every method a path takes.

FastAPI builds the schema from the routes; this module corrects what it cannot know:
- ``POST /v1/sessions`` needs an API key only when the server has API keys, and takes the devices the
  server has workers for;
- the session a ``POST /v1/sessions`` answers is what every session route needs: its id in the path and
  its token as ``Authorization: Bearer``. OpenAPI links say so, so a client generator or a stateful
  fuzzer (schemathesis) can chain the calls;
- the statuses the middleware may answer on any route (413 for a body past the cap, 400 for an
  unreadable body) are documented where they can happen.
"""
from fastapi.openapi.utils import get_openapi
from starlette.routing import compile_path

SESSION_PREFIX = "/v1/sessions/{session_id}"
# An error body, for statuses FastAPI's generator does not know about.
_ERROR = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
_DESCRIPTIONS = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
                 410: "Gone", 413: "Content Too Large", 415: "Unsupported Media Type",
                 422: "Validation Error", 429: "Too Many Requests", 503: "Service Unavailable"}
_METHODS = ("get", "put", "post", "delete", "patch")


def install(app, settings):
    """Replaces ``app.openapi`` with the schema of this server as configured (built once)."""
    def openapi():
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            truthful(schema, settings, app.state.backend.devices())
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi


def _document(operation, status, description=None):
    responses = operation.setdefault("responses", {})
    key = str(status)
    if key not in responses:
        responses[key] = {"description": description or _DESCRIPTIONS.get(status, "Error"), "content": _ERROR}


def truthful(schema, settings, devices=None):
    paths = schema.get("paths", {})
    create_body = schema.get("components", {}).get("schemas", {}).get("CreateSession", {})
    device = create_body.get("properties", {}).get("device")
    if device is not None and devices:  # the devices this server has workers for
        device["enum"] = [d for d in device.get("enum", ()) if d in devices]
    create = paths.get("/v1/sessions", {}).get("post")
    if create is not None:
        if not settings.api_keys:
            create.pop("security", None)
            create.get("responses", {}).pop("401", None)
        links = {}
        for path, item in paths.items():
            if not path.startswith(SESSION_PREFIX):
                continue
            for method in _METHODS:
                operation = item.get(method)
                if operation is None or "operationId" not in operation:
                    continue
                links[operation["operationId"]] = {
                    "operationId": operation["operationId"],
                    "description": f"{method.upper()} {path} on the session just created, with its token",
                    "parameters": {"path.session_id": "$response.body#/id",
                                   "header.Authorization": "Bearer {$response.body#/token}"},
                }
        if links:
            create["responses"]["201"]["links"] = links
    for path, item in paths.items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            if "requestBody" in operation:
                _document(operation, 400, "The body could not be read as its content type")
                _document(operation, 413, "The body is larger than the server's cap")
                _document(operation, 422)
            if any(p.get("in") in ("path", "query") for p in operation.get("parameters", ())):
                _document(operation, 422)
            if path.startswith(SESSION_PREFIX):
                for status in (401, 404):
                    _document(operation, status)


def allowed_methods(app, path):
    """Every method the API takes at ``path``, read from its schema (Starlette's 405 names only the methods
    of the first route whose path matched, so ``OPTIONS /v1/sessions/{id}`` said ``Allow: GET``)."""
    patterns = getattr(app.state, "allow_patterns", None)
    if patterns is None:
        patterns = []
        for template, item in app.openapi().get("paths", {}).items():
            methods = {m.upper() for m in item if m in _METHODS}
            if "GET" in methods:
                methods.add("HEAD")
            patterns.append((compile_path(template)[0], methods))
        app.state.allow_patterns = patterns
    allowed = set()
    for regex, methods in patterns:
        if regex.match(path):
            allowed |= methods
    return sorted(allowed)
