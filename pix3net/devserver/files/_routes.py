"""The file API routes under `<base>__pix3/api/` (docs/devserver-files.md).

The guard (Host, peer, `X-Pix3`, Origin, `.pix3` filter) runs before these in the app's
`before_request`, and what a route raises is answered by the app's one error handler
(`devserver.http.answer_errors`); here: body limits, parsing, exact statuses, bodies and headers.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import unquote_to_bytes

import quart
import trio
from quart import Response, request

from pix3net.devserver.http import (
    NOT_FOUND,
    ApiError,
    BodyChunks,
    content_type,
    drain,
    error_response,
    json_response,
    read_json,
)

from ._changeset import fingerprint, parse_changeset
from ._errors import (
    FileClosed,
    FileConflict,
    FileError,
    FileForbidden,
    FileInvalid,
    FileMissing,
    FileStale,
    FileTooLarge,
)
from ._filecore import FileRead
from ._paths import parse_wire_path
from ._store import FileStore

CHANGESET_LIMIT = 256 * 1024 * 1024  # docs/devserver-files.md, "Limits"
MAX_HASH_PATHS = 20_000
STREAM_CHUNK = 256 * 1024
ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
_logger = logging.getLogger("pix3.devserver.files")

View = Callable[[], Awaitable[Response]]

# The HTTP status that answers each of the file core's refusals (docs/devserver-files.md): the
# one place the file API's kinds of refusal meet HTTP.
STATUS: dict[type[FileError], int] = {
    FileInvalid: 400,
    FileForbidden: 403,
    FileMissing: 404,
    FileConflict: 409,
    FileStale: 412,
    FileTooLarge: 413,
    FileClosed: 503,
}


def http_error(exc: FileError) -> ApiError:
    """The answer to a refusal of the file core: its status from :data:`STATUS`, its code,
    message and fields as the core said them."""
    return ApiError(STATUS[type(exc)], exc.code, exc.message, **exc.extra)


def header(name: str) -> str | None:
    values = request.headers.getlist(name)
    return ", ".join(values) if values else None


def query_value(name: str, code: str = "bad_path") -> str | None:
    """The first ``name`` parameter of the query, `+` as space and percent-decoded once, as UTF-8.
    Bytes that are not UTF-8 are refused: kept escaped (as Quart would), two spellings would name
    one file."""
    key = name.encode()
    for pair in request.query_string.split(b"&"):
        raw_key, _eq, raw_value = pair.partition(b"=")
        if unquote_to_bytes(raw_key.replace(b"+", b" ")) != key:
            continue
        try:
            return unquote_to_bytes(raw_value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, code, f"`{name}` is not valid UTF-8 once percent-decoded.", field=name) from None
    return None


def query_path(name: str = "path") -> str:
    return parse_wire_path(query_value(name), name)


# A project file answered as a page (an HTML or SVG file framed, or opened in a popup) runs with no
# origin and no script: the file API answers under the editor page's name too, and a game's file
# run there as a page would reach the editor page (docs/devserver-files.md). A fetch or an <img> of the
# file is not affected.
FILE_POLICY = "sandbox"


def base_file_headers(sha: str) -> dict[str, str]:
    return {
        "ETag": f'"{sha}"',
        "Accept-Ranges": "bytes",
        "Cache-Control": "private, no-cache",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": FILE_POLICY,
    }


def parse_range(raw: str | None, size: int) -> tuple[int, int] | None:
    """(start, end) inclusive; None = whole file; raises 416 for an unsatisfiable range."""
    if raw is None:
        return None
    match = _RANGE.match(raw.strip())
    if match is None:
        return None
    first, last = match.groups()
    if first == "" and last == "":
        return None
    if first == "":
        count = int(last)
        if count == 0:
            raise ApiError(416, "range", "Range not satisfiable.")
        return max(0, size - count), size - 1
    start = int(first)
    end = size - 1 if last == "" else min(int(last), size - 1)
    if start >= size or (last != "" and int(last) < start):
        raise ApiError(416, "range", "Range not satisfiable.")
    return start, end


async def _stream(fd: int, start: int, length: int) -> AsyncIterator[bytes]:
    try:
        offset = start
        remaining = length
        while remaining > 0:
            chunk = await trio.to_thread.run_sync(os.pread, fd, min(STREAM_CHUNK, remaining), offset)
            if not chunk:
                break
            offset += len(chunk)
            remaining -= len(chunk)
            yield chunk
    finally:
        os.close(fd)


def file_response(read: FileRead, *, head: bool) -> Response:
    headers = base_file_headers(read.sha256)
    tags = request.headers.get("If-None-Match")
    if tags is not None:
        wanted = {t.strip().removeprefix("W/").strip('"').lower() for t in tags.split(",")}
        if "*" in wanted or read.sha256 in wanted:
            read.close()
            response = Response(b"", status=304)
            response.headers.update(headers)
            return response
    headers["Content-Type"] = read.content_type
    try:
        span = parse_range(request.headers.get("Range"), read.size)
    except ApiError:
        read.close()
        response = Response(b"", status=416)
        response.headers.update(headers)
        response.headers["Content-Range"] = f"bytes */{read.size}"
        return response
    status = 200
    start, end = 0, read.size - 1
    if span is not None:
        status = 206
        start, end = span
        headers["Content-Range"] = f"bytes {start}-{end}/{read.size}"
    length = max(0, end - start + 1)
    if head:
        read.close()
        body: Any = b""
    elif read.data is not None:
        body = read.data[start : end + 1]
    else:
        assert read.fd is not None
        fd, read.fd = read.fd, None
        body = _stream(fd, start, length)
    response = Response(body, status=status)
    response.headers.update(headers)
    response.headers["Content-Length"] = str(length)
    return response


def register_file_routes(app: quart.Quart, store: FileStore, *, base: str = "/") -> None:
    """Mount the file API at `<base>__pix3/api/...` (base normalised to end in `/`)."""
    if not base.endswith("/"):
        base += "/"
    prefix = f"{base}__pix3/api"

    @app.errorhandler(FileError)
    async def _refused(exc: FileError) -> Response:
        # Also what the workbench's routes meet when they name a file (``parse_wire_path``).
        return error_response(http_error(exc))

    def route(path: str, methods: tuple[str, ...]) -> Callable[[View], View]:
        def decorate(view: View) -> View:
            async def endpoint() -> Response:
                # Every method reaches the route: one the route does not take is 404, as the
                # reference answers it (not Quart's 405, nor a HEAD answered from a GET).
                if request.method not in methods:
                    raise NOT_FOUND.error()
                return await view()

            app.add_url_rule(
                f"{prefix}/{path}",
                endpoint=f"pix3_files:{base}:{path}",
                view_func=endpoint,
                methods=ALL_METHODS,
                provide_automatic_options=False,
            )
            return view

        return decorate

    def writer() -> str | None:
        return header("X-Pix3-Writer")

    async def mutate(fp: str, op: Callable[[], Awaitable[dict[str, Any]]], *, drain_body: bool = False) -> Response:
        async def answered() -> dict[str, Any]:
            # A refusal becomes its HTTP answer here, so the store keeps it as the outcome that a
            # retry with the same X-Mutation-Id replays.
            try:
                return await op()
            except FileError as exc:
                raise http_error(exc) from None

        status, body, replayed = await store.mutation(header("X-Mutation-Id"), fp, answered)
        if replayed and drain_body:
            await drain()
        extra = {"X-Mutation-Replayed": "true"} if replayed else {}
        if status == 413:
            extra["Connection"] = "close"
        return json_response(status, body, extra)

    @route("file", ("GET", "HEAD", "PUT"))
    async def file() -> Response:
        wire = query_path()
        if request.method == "PUT":
            if_match, if_none = header("If-Match"), header("If-None-Match")
            fp = "\n".join(["put", wire, str(if_match), str(if_none)])

            async def op() -> dict[str, Any]:
                return await store.put(
                    wire,
                    BodyChunks(2**62),
                    content_length=request.content_length,
                    if_match=if_match,
                    if_none_match=if_none,
                    writer=writer(),
                )

            return await mutate(fp, op, drain_body=True)
        return file_response(await store.read(wire), head=request.method == "HEAD")

    @route("manifest", ("GET",))
    async def manifest() -> Response:
        return json_response(200, await store.manifest())

    @route("hash", ("POST",))
    async def hash_paths() -> Response:
        body = await read_json()
        paths = body.get("paths")
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise ApiError(400, "bad_request", "`paths` must be an array of strings.")
        if len(paths) > MAX_HASH_PATHS:
            raise ApiError(413, "too_many_paths", f"At most {MAX_HASH_PATHS} paths.")
        wires = [parse_wire_path(p, f"paths[{i}]") for i, p in enumerate(paths)]
        return json_response(200, await store.hashes(wires))

    @route("mkdir", ("POST",))
    async def mkdir() -> Response:
        body = await read_json()
        wire = parse_wire_path(body.get("path"), "path")
        return await mutate(f"mkdir\n{wire}", lambda: store.mkdir(wire, writer()))

    @route("delete", ("POST",))
    async def delete() -> Response:
        body = await read_json()
        wire = parse_wire_path(body.get("path"), "path")
        recursive = body.get("recursive") is True
        return await mutate(f"delete\n{wire}\n{recursive}", lambda: store.delete(wire, recursive, writer()))

    @route("move", ("POST",))
    async def move() -> Response:
        body = await read_json()
        src = parse_wire_path(body.get("from"), "from")
        dst = parse_wire_path(body.get("to"), "to")
        overwrite = body.get("overwrite") is True
        return await mutate(f"move\n{src}\n{dst}\n{overwrite}", lambda: store.move(src, dst, overwrite, writer()))

    @route("changeset", ("POST",))
    async def changeset() -> Response:
        body = await read_json(CHANGESET_LIMIT)
        entries = parse_changeset(body)
        who = writer()
        return await mutate(fingerprint(entries), lambda: store.changeset(entries, who))

    @route("history", ("GET",))
    async def history() -> Response:
        return json_response(200, await store.history(query_path()))

    @route("history/version", ("GET", "HEAD"))
    async def history_version() -> Response:
        wire = query_path()
        version_id = query_value("id", "bad_request") or ""
        data, sha = await store.history_version(wire, version_id)
        response = Response(b"" if request.method == "HEAD" else data, status=200)
        response.headers.update(base_file_headers(sha))
        del response.headers["Accept-Ranges"]
        response.headers["Content-Type"] = content_type(wire)
        response.headers["Content-Length"] = str(len(data))
        return response

    @route("history/record", ("POST",))
    async def history_record() -> Response:
        body = await read_json()
        wire = parse_wire_path(body.get("path"), "path")
        return json_response(200, await store.record(wire, body.get("text"), body.get("author"), body.get("note")))

    @route("history/restore", ("POST",))
    async def history_restore() -> Response:
        body = await read_json()
        wire = parse_wire_path(body.get("path"), "path")
        version_id = body.get("id")
        if_match = header("If-Match")
        fp = "\n".join(["restore", wire, str(version_id), str(if_match)])
        return await mutate(fp, lambda: store.restore(wire, version_id, if_match, writer()))
