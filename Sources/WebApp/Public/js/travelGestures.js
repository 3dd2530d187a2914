// Dropping and moving Travel pins by hand: press and hold (or long-click) the map to drop a
// pin that follows the pointer until released; hold a pin to pick it up and move it; Enter
// on the focused map drops one at its centre. What a drop or move means for the server is
// the TravelTab's (travel.js) savePin and movePin.
import { el } from './ui.js';

const L = window.L;

/** How long a press must last to drop a pin, and how far it may wander meanwhile. */
export const HOLD_MS = 500;
const HOLD_TOLERANCE_PX = 8;

export function travelIcon(extraClass = '') {
  return L.divIcon({
    className: `student-pin travel-pin ${extraClass}`.trim(),
    html: '<span class="pin-head"></span>',
    iconSize: [28, 36],
    iconAnchor: [14, 36],
  });
}

export class PinGestures {
  /** `tab`: the TravelTab, whose map, container, markers, savePin and movePin are used. */
  constructor(tab) {
    this.tab = tab;
    /** A press that may become a hold: `{ pinId, pointerId, x, y, ring, timer }`. */
    this.hold = null;
    /** A pin following the pointer: `{ pointerId, marker, pinId, from, offset }`. */
    this.drag = null;
  }

  listen(map) {
    const container = this.tab.container;
    container.addEventListener('pointerdown', (event) => this.onPointerDown(event), true);
    // The keyboard's press and hold: Enter (or Space) on the map drops a pin at its centre.
    container.addEventListener('keydown', (event) => {
      if (event.target !== container || (event.key !== 'Enter' && event.key !== ' ')) return;
      event.preventDefault();
      this.dropAtCentre();
    });
    container.addEventListener('contextmenu', (event) => {
      // A long touch opens the browser's menu; here it drops a pin instead.
      if (this.hold || this.drag || event.pointerType === 'touch') event.preventDefault();
    });
    // A pan or zoom means the press was not a hold.
    map.on('dragstart zoomstart movestart', () => { if (this.hold) this.cancelHold(); });
    // While a new pin is dragged, the map must not see the pointer moving (it would pan).
    const swallow = (event) => {
      if (!this.drag) return;
      if (event.type === 'pointermove') this.onDragMove(event);
      if (event.cancelable && event.type === 'touchmove') event.preventDefault();
      event.stopPropagation();
    };
    for (const type of ['pointermove', 'mousemove', 'touchmove']) {
      window.addEventListener(type, swallow, { capture: true, passive: false });
    }
    window.addEventListener('pointermove', (event) => this.onHoldMove(event), true);
    window.addEventListener('pointerup', (event) => this.onPointerUp(event), true);
    window.addEventListener('pointercancel', (event) => this.onPointerUp(event, true), true);
  }

  onPointerDown(event) {
    if (this.hold) {
      // A second finger: pinching, not holding.
      this.cancelHold();
      return;
    }
    if (this.drag || !event.isPrimary || event.button !== 0 || !this.tab.map) return;
    // Holding a pin picks it up to move it; controls keep their own meaning.
    const icon = event.target.closest('.leaflet-marker-icon');
    const pinId = icon && icon.dataset.pinId;
    if (icon && !(pinId && this.tab.markers.has(pinId))) return;
    if (event.target.closest('.leaflet-control-container, .leaflet-popup')) return;
    const rect = this.tab.container.getBoundingClientRect();
    const point = [event.clientX - rect.left, event.clientY - rect.top];
    const ring = el('span', { class: 'hold-ring', 'aria-hidden': 'true' });
    ring.style.left = `${point[0]}px`;
    ring.style.top = `${point[1]}px`;
    this.tab.container.append(ring);
    this.hold = {
      pinId: pinId || null,
      pointerId: event.pointerId,
      x: event.clientX,
      y: event.clientY,
      ring,
      timer: setTimeout(() => this.startDrop(event.clientX, event.clientY), HOLD_MS),
    };
  }

  onHoldMove(event) {
    const hold = this.hold;
    if (!hold || event.pointerId !== hold.pointerId) return;
    if (Math.hypot(event.clientX - hold.x, event.clientY - hold.y) > HOLD_TOLERANCE_PX) this.cancelHold();
  }

  cancelHold() {
    const hold = this.hold;
    if (!hold) return;
    clearTimeout(hold.timer);
    hold.ring.remove();
    this.hold = null;
  }

  /** Where the pin's tip goes for a pointer at client x, y (minus the grab offset). */
  latLngAt(clientX, clientY, offset = [0, 0]) {
    const rect = this.tab.container.getBoundingClientRect();
    return this.tab.map.containerPointToLatLng([clientX - rect.left - offset[0], clientY - rect.top - offset[1]]);
  }

  startDrop(clientX, clientY) {
    const hold = this.hold;
    if (!hold || !this.tab.map) return;
    hold.ring.remove();
    this.hold = null;
    if (hold.pinId) {
      // Picks up an existing pin, keeping the spot where the pointer holds it.
      const marker = this.tab.markers.get(hold.pinId);
      if (!marker) return;
      const rect = this.tab.container.getBoundingClientRect();
      const tip = this.tab.map.latLngToContainerPoint(marker.getLatLng());
      const offset = [clientX - rect.left - tip.x, clientY - rect.top - tip.y];
      this.drag = { pointerId: hold.pointerId, marker, pinId: hold.pinId, from: marker.getLatLng(), offset, moved: false };
      const element = marker.getElement();
      if (element) element.classList.add('dragging');
      this.tab.container.classList.add('dropping');
      return;
    }
    const latlng = this.latLngAt(clientX, clientY);
    const marker = L.marker(latlng, { icon: travelIcon('dragging'), keyboard: false, interactive: false, zIndexOffset: 2000 });
    marker.addTo(this.tab.map);
    this.drag = { pointerId: hold.pointerId, marker, pinId: null, offset: [0, 0] };
    this.tab.container.classList.add('dropping');
    if (navigator.vibrate) {
      try { navigator.vibrate(15); } catch { /* not allowed without a gesture: fine */ }
    }
  }

  onDragMove(event) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointerId) return;
    drag.marker.setLatLng(this.latLngAt(event.clientX, event.clientY, drag.offset));
  }

  onPointerUp(event, cancelled = false) {
    if (this.hold && event.pointerId === this.hold.pointerId) {
      this.cancelHold();
      return;
    }
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!cancelled) drag.marker.setLatLng(this.latLngAt(event.clientX, event.clientY, drag.offset));
    // The click that follows the release must not reach the map or a marker.
    const swallowClick = (click) => { click.stopPropagation(); click.preventDefault(); };
    window.addEventListener('click', swallowClick, { capture: true, once: true });
    setTimeout(() => window.removeEventListener('click', swallowClick, { capture: true }), 0);
    this.drag = null;
    this.tab.container.classList.remove('dropping');
    if (drag.pinId) this.tab.movePin(drag, cancelled);
    else this.tab.savePin(drag.marker);
  }

  dropAtCentre() {
    if (!this.tab.map || this.drag || this.hold) return;
    const marker = L.marker(this.tab.map.getCenter(), { icon: travelIcon(), keyboard: false, interactive: false, zIndexOffset: 2000 });
    marker.addTo(this.tab.map);
    this.tab.savePin(marker);
  }
}
