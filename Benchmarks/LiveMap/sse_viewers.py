"""Raw-socket Server-Sent Events viewers for the live map benchmarks (standard library only,
so thousands of viewers cost the client little)."""
import asyncio
import time


async def open_viewer(host, port, since):
    """Opens `/api/locations/changes?since=` and returns once the answer's head is read."""
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET /api/locations/changes?since={since} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
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
