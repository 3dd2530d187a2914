"""Raw-socket Server-Sent Events viewers for the live map benchmarks (standard library only,
so thousands of viewers cost the client little)."""
import asyncio
import time


async def open_viewer(host, port, since, prefix="", session=None):
    """Opens `<prefix>/api/locations/changes?since=` (`prefix` `/c/<slug>` for a class other
    than the default one; `session` a session token, sent as the session cookie) and returns
    once the answer's head is read. Anything but 200 is an error."""
    reader, writer = await asyncio.open_connection(host, int(port))
    cookie = f"Cookie: onthemap_session={session}\r\n" if session else ""
    writer.write(f"GET {prefix}/api/locations/changes?since={since} HTTP/1.1\r\nHost: {host}\r\n"
                 f"Accept: text/event-stream\r\n{cookie}\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        writer.close()
        raise RuntimeError("the changes stream answered " + head.split(b"\r\n", 1)[0].decode())
    return reader, writer


async def wait_for(reader, marker):
    """The `perf_counter` time at which `marker` arrived on the stream."""
    buffer = b""
    while marker not in buffer:
        chunk = await reader.read(65536)
        if not chunk:
            raise RuntimeError("stream ended")
        buffer = buffer[-len(marker):] + chunk
    return time.perf_counter()
