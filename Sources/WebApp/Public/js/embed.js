// The embed page (`/embed/<slug>`, embed.html): a public class's map, read-only and live, in
// another site's frame. The server answers this page only for a public class; everything on it
// is read with no session (js/present.js), so it shows what anyone may read without signing in.
import { ready } from './i18n.js';
import { PresentView } from './present.js';
import { isSlug } from './currentClass.js';

const slug = decodeURIComponent(location.pathname.replace(/^\/embed\//, ''));
const root = document.getElementById('embed-scene');
if (root && isSlug(slug)) {
  ready.then(() => new PresentView(root, { slug, embed: true }).start()).catch(() => {});
}
