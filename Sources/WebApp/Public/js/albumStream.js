// An album's live changes: the Server-Sent Events of GET /api/pins/:id/events, parsed and
// handed to the AlbumPanel. The server ends the stream after `done`.
import * as api from './api.js';

/** Listens to the pin's album events; returns `{ close() }`. `handlers`: open(),
 *  album(body), photo(photo), photoRemoved(id), done(body), pinDeleted(), lost() (the
 *  stream was refused or closed for good), reconnecting(). */
export function listenToAlbum(pinId, handlers) {
  const source = new EventSource(api.albumEventsURL(pinId));
  let closed = false;
  const close = () => {
    closed = true;
    source.close();
  };
  const on = (type, handle) => source.addEventListener(type, (event) => {
    if (closed) return;
    let body = null;
    try { body = JSON.parse(event.data); } catch { body = null; }
    handle(body);
  });
  source.addEventListener('open', () => { if (!closed) handlers.open(); });
  on('album', (body) => { if (body) handlers.album(body); });
  on('photo', (photo) => { if (photo) handlers.photo(photo); });
  on('photo-removed', (body) => { if (body && body.id) handlers.photoRemoved(body.id); });
  on('done', (body) => {
    // Closed here, or EventSource would reconnect.
    close();
    handlers.done(body);
  });
  on('pin-deleted', () => {
    close();
    handlers.pinDeleted();
  });
  source.addEventListener('error', () => {
    if (closed) return;
    if (source.readyState === EventSource.CLOSED) {
      close();
      handlers.lost();
    } else {
      handlers.reconnecting();
    }
  });
  return { close };
}
