"""GET /viewer: a browser page that watches a session's runs and draws their graphs; GET /docs: the API,
drawn from /openapi.json by a page of its own (FastAPI's Swagger UI loads its script from a CDN: offline, or
under this CSP, it is a blank page)."""
from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from ..errors import ApiError

router = APIRouter(tags=["viewer"])
_STATIC = files("gradserve.server") / "static"
# The page loads only its own script and stylesheet and talks only to this server (its WebSocket included:
# CSP's 'self' covers ws:/wss: to the same host); it may not be framed.
_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_ASSETS = {"viewer.js": "text/javascript", "draw.js": "text/javascript", "viewer.css": "text/css",
           "docs.js": "text/javascript", "docs.css": "text/css"}
# the drawing code is the client's (RunResult._repr_html_ draws with it in notebooks); the page loads the same file
_PLACES = {"draw.js": files("gradserve.client") / "static"}


@router.get("/viewer", response_class=HTMLResponse)
async def viewer():
    """The graph viewer (open it with #session=<id>&token=<token>, or fill in the form)."""
    return HTMLResponse(_STATIC.joinpath("viewer.html").read_text(encoding="utf-8"), headers=_HEADERS)


@router.get("/docs", include_in_schema=False)
async def docs():
    """The API: every route of /openapi.json with its parameters, body, answers and a curl line."""
    return HTMLResponse(_STATIC.joinpath("docs.html").read_text(encoding="utf-8"), headers=_HEADERS)


@router.get("/viewer/{asset}", include_in_schema=False)
async def viewer_asset(asset: str):
    if asset not in _ASSETS:
        raise ApiError(404, "NotFound", f"the viewer has no file {asset[:80]!r}")
    return Response(_PLACES.get(asset, _STATIC).joinpath(asset).read_text(encoding="utf-8"), media_type=_ASSETS[asset],
                    headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})
