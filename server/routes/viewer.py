"""GET /viewer: a browser page that watches a session's runs and draws their graphs."""
from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

router = APIRouter(tags=["viewer"])
_STATIC = files("gradserve.server") / "static"


@router.get("/viewer", response_class=HTMLResponse)
async def viewer():
    """The graph viewer (open it with #session=<id>&token=<token>, or fill in the form)."""
    return HTMLResponse(_STATIC.joinpath("viewer.html").read_text(encoding="utf-8"))


@router.get("/viewer/viewer.js", include_in_schema=False)
async def viewer_script():
    return Response(_STATIC.joinpath("viewer.js").read_text(encoding="utf-8"), media_type="text/javascript")
