"""`pix3 editor` refusing what it must not reuse or cannot start (docs/editor.md, "The flow").

A Chrome that exits at once (exit 1, the owner's advice, no record); an older pix3's Chrome on an
open debugging port (refused, and it never sees the token); `--url` that does not answer (exit 1),
and one that does, taken without a project up to the Chrome step (no Chrome on PATH: exit 1).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.editor import hello_server, plain_devtools, write_dev_json
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.projects import make_project


def test_chrome_that_exits_at_once(tmp_path: Path, pix3_home: Path) -> None:
    fake = tmp_path / "chrome.sh"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    root = make_project(tmp_path / "game")
    with hello_server() as port:
        write_dev_json(root, port)
        done = run_pix3(
            "editor", "--headless", "--cdp-port", str(free_port()), cwd=root, env={"PIX3_CHROME": str(fake)}
        )
    assert done.returncode == 1, done.stdout
    assert "Chrome exited before it answered" in done.stderr
    assert "close it and run pix3 editor again" in done.stderr
    assert not (pix3_home / "chrome.json").exists()


def test_p1_chrome_is_refused_and_never_sees_the_token(tmp_path: Path, pix3_home: Path) -> None:
    root = make_project(tmp_path / "game")
    cdp = free_port()
    with hello_server() as port:
        editor_url = write_dev_json(root, port)["editorUrl"]
        with plain_devtools([editor_url], cdp) as seen:
            done = run_pix3("editor", "--cdp-port", str(cdp), cwd=root, env={"PIX3_CHROME": "/bin/false"})
    assert done.returncode == 1, done.stdout
    assert "open debugging port and no token" in done.stderr and "Close that Chrome" in done.stderr
    assert done.stderr.startswith(f"pix3 editor: port {cdp} is Chrome/155.0 started by an earlier pix3 editor")
    assert seen and not any("authorization" in headers for headers in seen)


def test_url_that_answers_needs_no_project_and_one_that_does_not(tmp_path: Path, pix3_home: Path) -> None:
    done = run_pix3("editor", "--url", f"http://127.0.0.1:{free_port()}/", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("pix3 editor: http://localhost:")  # the editor page's name (args.editor_url)
    assert "does not answer as a Pix3 editor" in done.stderr
    with hello_server() as port:
        done = run_pix3("editor", "--url", f"http://127.0.0.1:{port}", cwd=tmp_path, env={"PATH": ""})
    # asked at 127.0.0.1, the editor page is under localhost (where the dev server sends a browser)
    assert done.stdout == f"Editor:     http://localhost:{port}/__pix3/ (a dev server reached through a port forward)\n"
    assert done.returncode == 1 and "No Chrome found" in done.stderr


def test_a_pix3_chrome_that_cannot_start_is_named(tmp_path: Path, pix3_home: Path) -> None:
    """Issue 13: not "close the Chrome that runs the profile" but what is wrong with PIX3_CHROME."""
    root = make_project(tmp_path / "game")
    missing = tmp_path / "no-chrome"
    plain = tmp_path / "chrome.sh"
    plain.write_text("#!/bin/sh\nexit 0\n")
    plain.chmod(0o644)
    fix = "point PIX3_CHROME at the Chrome binary (or unset it to use the one on the PATH)."
    cases = [
        (str(missing), f"PIX3_CHROME names {missing}, which does not exist: {fix}"),
        (str(plain), f"PIX3_CHROME names {plain}, which is not executable: chmod +x it, or {fix}"),
        (str(tmp_path), f"PIX3_CHROME names {tmp_path}, which is a folder: {fix}"),
    ]
    with hello_server() as port:
        write_dev_json(root, port)
        for chrome, message in cases:
            done = run_pix3(
                "editor", "--headless", "--cdp-port", str(free_port()), cwd=root, env={"PIX3_CHROME": chrome}
            )
            assert (done.returncode, done.stderr) == (1, f"pix3 editor: {message}\n"), done.stdout
    assert not (pix3_home / "chrome.json").exists() and not (pix3_home / "chrome-owner.log").exists()
