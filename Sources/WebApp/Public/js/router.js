// The address bar is the router: `#/map`, `#/list`, `#/login`… Scenes navigate with go(),
// and main.js decides what each address shows, so no scene has to import another.

let handler = () => {};

/** Starts routing: `route` runs now and on every change of the address. */
export function startRouting(route) {
  handler = route;
  window.addEventListener('hashchange', route);
  route();
}

/** Shows `path`; when it is already the address, shows it again (after a logout, say). */
export function go(path) {
  if (location.hash !== `#/${path}`) location.hash = `#/${path}`;
  else handler();
}
