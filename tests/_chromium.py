"""Open local HTML in a real headless Chromium (Debian's ``chromium`` package), offline.

``.ci/run`` installs it. Without it the tests skip with the reason, except in CI (``CI``
set), where a missing browser is a failure. The network is cut inside the browser
(``--host-resolver-rules`` maps every host to nothing), so a page that needs a CDN fails.

:func:`evaluate` runs a small script in a copy of the page (written beside it, so that
relative links resolve) once the page and its scripts have loaded, and returns what the
script put into the DOM: the DOM dump of ``--dump-dom`` is the only channel out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-dev-shm-usage", "--allow-file-access-from-files",
          "--host-resolver-rules=MAP * ~NOTFOUND")
# minutes, not seconds: a browser start on a loaded laptop is slow; a hang still ends
_TIMEOUT = 900


def browser() -> str:
    """The Chromium executable, or skip (fail in CI) when there is none."""
    for name in _NAMES:
        path = shutil.which(name)
        if path:
            return path
    message = ("headless Chromium is not installed (apt-get install chromium); "
               ".ci/run installs it")
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {message}")
    pytest.skip(message)


def _run(args: list[str]) -> str:
    with tempfile.TemporaryDirectory(prefix="aucopt-chromium-") as profile:
        proc = subprocess.run([browser(), *_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=_TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


_PROBE = """
<script>
window.addEventListener("load", async function () {
  const probe = async function () { %s };
  let result;
  try { result = await probe(); } catch (e) { result = {error: String(e)}; }
  const out = document.createElement("pre");
  out.id = "aucopt-probe";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>
"""


def evaluate(page: Path, script: str, *, budget_ms: int = 20000):
    """Load ``page`` and return the JSON value that ``script`` (an async function body) returns."""
    page = Path(page)
    probe = page.with_name(f"_probe_{page.name}")
    text = page.read_text(encoding="utf-8")
    probe.write_text(text.replace("</body>", _PROBE % script + "</body>"), encoding="utf-8")
    try:
        dom = _run([f"--virtual-time-budget={budget_ms}", "--dump-dom", probe.as_uri()])
    finally:
        probe.unlink()
    match = re.search(r'<pre id="aucopt-probe"[^>]*>(.*?)</pre>', dom, re.S)
    assert match, "the page's load event never came: " + dom[-2000:]
    import html

    return json.loads(html.unescape(match.group(1)))


def screenshot(page: Path, png: Path, *, size=(1200, 1600), budget_ms: int = 20000) -> Path:
    """Render ``page`` into ``png`` (headless, offline)."""
    _run([f"--virtual-time-budget={budget_ms}", f"--window-size={size[0]},{size[1]}",
          "--hide-scrollbars", f"--screenshot={png}", Path(page).as_uri()])
    assert png.exists() and png.stat().st_size > 0
    return png


def distinct_colours(png: Path) -> int:
    """How many colours the screenshot has (a blank page has one or two)."""
    from PIL import Image

    image = Image.open(png).convert("RGB")
    return len(image.getcolors(maxcolors=1 << 24) or [])
