"""A progress bar driven by a program's ``log(step=..., total=..., **metrics)`` events.

tqdm is optional: without it, progress is a line per ``log`` event on stderr.
"""
from __future__ import annotations

import sys
from typing import Any

from .events import Log

try:
    from tqdm.auto import tqdm as _tqdm
except ImportError:  # pragma: no cover - exercised only where tqdm is missing
    _tqdm = None


def _short(value: Any) -> Any:
    return f"{value:.4g}" if isinstance(value, float) else value


class ProgressBar:
    """Follows ``Log`` events: ``step`` moves the bar, ``total`` sizes it, a string ``desc`` (a program's
    ``tqdm(desc=...)``) titles it, the rest is a postfix."""

    def __init__(self, description: str | None = None, file=None):
        self._description = description
        self._file = file if file is not None else sys.stderr
        self._bar = None

    def update(self, event: Log) -> None:
        metrics = dict(event.metrics)
        step, total = metrics.pop("step", None), metrics.pop("total", None)
        desc = metrics.pop("desc") if isinstance(metrics.get("desc"), str) else None
        postfix = {k: _short(v) for k, v in metrics.items()}
        if _tqdm is None:
            where = f"{step}/{total}" if total is not None else f"{step}"
            rest = " ".join(f"{k}={v}" for k, v in postfix.items())
            print(f"{desc + ' ' if desc else ''}[{where}] {rest}".rstrip(), file=self._file, flush=True)
            return
        if self._bar is None:
            self._bar = _tqdm(total=total, desc=desc or self._description, file=self._file,
                              dynamic_ncols=True, leave=True)
        elif desc is not None and desc != self._bar.desc:
            self._bar.set_description_str(desc, refresh=False)
        if total is not None and self._bar.total != total:
            self._bar.total = total
        if isinstance(step, (int, float)):
            self._bar.n = step
        if postfix:
            self._bar.set_postfix(postfix, refresh=False)
        self._bar.refresh()

    def write(self, text: str, file=None) -> None:
        """Print program output (to ``file``, default the bar's) without breaking the bar."""
        file = file if file is not None else self._file
        if self._bar is not None:
            self._bar.clear()
            file.write(text)
            file.flush()
            self._bar.refresh()
        else:
            file.write(text)
            file.flush()

    def close(self, finished: bool) -> None:
        """Fill the bar when the run finished (``step`` may be 0-based), then release it."""
        if self._bar is None:
            return
        if finished and self._bar.total:
            self._bar.n = self._bar.total   # (close draws it once more: a refresh here drew the full bar twice)
        self._bar.close()
        self._bar = None
