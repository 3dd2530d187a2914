// Every student location for the map, downloaded in parallel pages.
import { fetchLocations } from './api.js';
import { fetchSnapshot } from './snapshot.js';
import { noteAnswer } from './connection.js';
import { currentClass } from './currentClass.js';

/** The map wants every location: pages of 1,000, six at once (the most a browser opens to
 *  one HTTP/1.1 origin). */
const MAP_PAGE_SIZE = 1000;
const MAP_PARALLEL_PAGES = 6;
/** How many locations the last visit counted (per class), so this one can ask for all pages at once. */
const COUNT_HINT_STORAGE = 'onthemap.lastCount';

function countHintKey() {
  const slug = currentClass();
  return slug ? `${COUNT_HINT_STORAGE}.${slug}` : COUNT_HINT_STORAGE;
}

/** Every location for the map, in pages of 1,000 (the most the Parse API has always
 *  allowed), six requests at once. The first page brings the count; when the last visit
 *  saw more than one page, the next pages are asked for at the same time as the first. */
let lastSnapshotVersion = null;

/** The version of the snapshot the map last loaded (null when it paged instead). */
export function snapshotVersion() {
  return lastSnapshotVersion;
}

/** Every location of the class shown, as batches the map takes (`StudentMap.addBatch`): one
 *  snapshot request when the server has it (one answer, gzipped, usually served from
 *  memory, as columns), else the pages of the Parse list (arrays of locations). */
export async function fetchAllLocations(onPage = null) {
  let snapshot;
  try {
    snapshot = await fetchSnapshot({ classSlug: currentClass() });
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    lastSnapshotVersion = null;
    return fetchAllPages(onPage);
  }
  noteAnswer(snapshot.keptAt);
  lastSnapshotVersion = snapshot.version;
  performance.mark('onthemap:locations-loaded');
  if (onPage && snapshot.count) onPage(snapshot);
  return snapshot;
}

async function fetchAllPages(onPage) {
  const hint = Number(localStorage.getItem(countHintKey())) || 0;
  const pages = [];
  // A location that moved between pages while they downloaded comes twice: keep the first.
  const seen = new Set();
  const got = (index, results) => {
    const fresh = results.filter((item) => !item.objectId || (!seen.has(item.objectId) && seen.add(item.objectId)));
    pages[index] = fresh;
    if (onPage && fresh.length) onPage(fresh);
  };
  const fetchPage = (index) => fetchLocations({ limit: MAP_PAGE_SIZE, skip: index * MAP_PAGE_SIZE })
    .then((page) => got(index, page.results));
  const firstRequest = fetchLocations({ limit: MAP_PAGE_SIZE, count: true });
  const speculative = [];
  const guessedPages = Math.min(MAP_PARALLEL_PAGES - 1, Math.ceil(hint / MAP_PAGE_SIZE) - 1);
  for (let index = 1; index <= guessedPages; index++) speculative.push(fetchPage(index));
  let first;
  try {
    first = await firstRequest;
  } catch (error) {
    await Promise.allSettled(speculative);
    throw error;
  }
  got(0, first.results);
  const pageSize = first.results.length;
  if (first.count !== null) localStorage.setItem(countHintKey(), String(first.count));

  if (first.count !== null && first.count > pageSize && pageSize === MAP_PAGE_SIZE) {
    const total = Math.ceil(first.count / MAP_PAGE_SIZE);
    let next = speculative.length + 1;
    const worker = async (started) => {
      if (started) await started;
      while (next < total) await fetchPage(next++);
    };
    const workers = speculative.map(worker);
    while (workers.length < MAP_PARALLEL_PAGES - 1) workers.push(worker(null));
    await Promise.all(workers);
  } else {
    // Speculative pages only exist when the last visit saw more than one full page; here
    // the data shrank or the server pages differently, so their rows are not trusted.
    onPage = null;
    await Promise.allSettled(speculative);
    pages.length = 1;
    if (pageSize > 0 && first.count !== null && first.count > pageSize) {
      // The server allows smaller pages than we asked for: walk them in its size.
      for (let skip = pageSize; skip < first.count; skip += pageSize) {
        got(pages.length, (await fetchLocations({ limit: pageSize, skip })).results);
      }
    } else if (pageSize === MAP_PAGE_SIZE && first.count === null) {
      // No count: a full page means there may be more; a short one is the last.
      for (let skip = pageSize; ; skip += pageSize) {
        const page = (await fetchLocations({ limit: pageSize, skip })).results;
        got(pages.length, page);
        if (page.length < pageSize) break;
      }
    }
  }
  performance.mark('onthemap:locations-loaded');
  return pages.flatMap((page) => page || []);
}
