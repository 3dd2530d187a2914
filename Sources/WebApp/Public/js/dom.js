// Small helpers for the page's own elements, shared by every module.

/** The element with id `id`, or null. */
export const $ = (id) => document.getElementById(id);
