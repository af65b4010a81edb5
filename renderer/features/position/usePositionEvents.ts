// The page's side of the host's position (issue 31): the state and the walk read at start (a walk under way survives
// a reload and the host's restart: the host keeps it), then kept up to date by the host's `position` and `trackPoint`
// events. And, while the source is the system's location, the page reads it (navigator.geolocation, which only this
// page may use: the page policy grants it to the app's own page) and reports each fix to the host, which then tells
// every page as it does a receiver's.
import { useEffect } from 'react';
import type { Backend } from '../../backend.ts';
import type { Fix } from '../../../core/api.ts';
import { setPosition, takeState, takeTrackPoint, usePosition } from './position-store.ts';

/** A Geolocation fix as the contract's Fix. */
export function systemFix(p: GeolocationPosition, now = Date.now()): Fix {
  const c = p.coords;
  const finite = (x: number | null) => (x !== null && Number.isFinite(x) ? x : null);
  const heading = finite(c.heading);
  return {
    lon: c.longitude, lat: c.latitude, altitude: finite(c.altitude), quality: 'system', satellites: null, hdop: null,
    accuracy: finite(c.accuracy) !== null && c.accuracy >= 0 ? c.accuracy : null,
    heading: heading !== null && heading >= 0 && heading <= 360 ? heading : null,
    speed: finite(c.speed) !== null && c.speed! >= 0 ? c.speed : null,
    time: new Date(p.timestamp).toISOString(), received: now,
  };
}

export function usePositionEvents(backend: Backend): void {
  const api = backend.api;
  const system = usePosition((s) => s.state?.source?.kind === 'system' && s.state.status !== 'off' && s.state.status !== 'failed');

  useEffect(() => {
    let live = true;
    const readTrack = () => void api.trackCurrent({}).then((track) => { if (live) setPosition({ track }); }, () => {});
    void api.positionState({}).then((state) => { if (live) takeState(state); }, () => {});
    readTrack();
    const stops = [
      backend.on('position', (state) => takeState(state)),
      backend.on('trackPoint', (p) => { if (!takeTrackPoint(p)) readTrack(); }),
    ];
    return () => { live = false; for (const stop of stops) stop(); };
  }, [api, backend]);

  useEffect(() => {
    if (!system || !('geolocation' in navigator)) return;
    const watch = navigator.geolocation.watchPosition(
      (p) => void api.positionReport({ fix: systemFix(p) }).catch(() => {}),
      (err) => setPosition((s) => ({ state: s.state ? { ...s.state, message: `The system's location is not available: ${err.message || 'permission refused'}` } : s.state })),
      { enableHighAccuracy: true, maximumAge: 0 },
    );
    return () => navigator.geolocation.clearWatch(watch);
  }, [api, system]);
}
