// Reading the cookies scripts may see (the session cookie itself is HttpOnly).

/** The value of cookie `name`, or null when the browser holds none. */
export function readCookie(name) {
  const prefix = name + '=';
  for (const part of document.cookie.split(';')) {
    const item = part.trim();
    if (item.startsWith(prefix)) return decodeURIComponent(item.slice(prefix.length));
  }
  return null;
}
