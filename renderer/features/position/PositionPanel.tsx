// The position panel (issue 31), L: where positions come from — a serial port among those the host lists (never a
// path typed), TCP or UDP, gpsd, or the system's location — with the connection in words (connecting, connected,
// reconnecting and why, failed); the vertex threshold and averaging; and walking a boundary: start in a farm, pause,
// resume, close into a parcel. Not modal: the map stays usable; it takes the focus when it opens, Esc closes it.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { BAUD_RATES } from '../../../core/api-position.ts';
import type { SerialPortInfo } from '../../../core/api.ts';
import { walkHectares } from '../../../core/gnss/walk.ts';
import { useApi } from '../../context.ts';
import { behindPanel, isShortcut, keyHint, matchesShortcut, useKeyName, useKeymap } from '../../keymap.ts';
import { say, useApp } from '../../store.ts';
import { hectares } from '../../states.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { closeWalkIntoDraft, discardWalk, pauseWalk, startVertex, startWalk } from './position-actions.ts';
import { setPosition, setPrefs, takeState, usePosition } from './position-store.ts';
import { sourceFromForm } from './source-form.ts';
import { statusWords } from './position-words.ts';
import { PositionReadout } from './PositionReadout.tsx';
import './position.css';

const setOpen = (open: boolean) => setPosition({ open });
const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

function ConnectForm() {
  const api = useApi();
  const prefs = usePosition((s) => s.prefs);
  const state = usePosition((s) => s.state);
  const [ports, setPorts] = useState<SerialPortInfo[] | null>(null);
  const [serial, setSerial] = useState('');
  const [error, setError] = useState<string | null>(null);
  const f = prefs.form;
  const edit = (patch: Partial<typeof f>) => { setPrefs({ form: { ...f, ...patch } }); setError(null); };
  const look = () => void api.positionPorts({}).then((p) => { setPorts(p); setSerial((s) => (p.some((x) => x.id === s) ? s : p[0]?.id ?? '')); }, (err) => setError(why(err)));
  useEffect(() => { if (f.kind === 'serial' && ports === null) look(); }, [f.kind]);
  const connect = async (e: FormEvent) => {
    e.preventDefault();
    const source = sourceFromForm({ ...f, serial });
    if ('error' in source) { setError(source.error); return; }
    try { takeState(await api.positionConnect({ source })); } catch (err) { setError(why(err)); }
  };
  const connected = state && state.status !== 'off';
  return (
    <form aria-label="Connect a receiver" onSubmit={(e) => void connect(e)}>
      <label>Source
        <select value={f.kind} onChange={(e) => edit({ kind: e.target.value })}>
          <option value="tcp">Receiver on the network (TCP)</option>
          <option value="udp">Receiver sending UDP datagrams</option>
          <option value="gpsd">gpsd</option>
          <option value="serial">Serial or USB port</option>
          <option value="system">This computer&apos;s location</option>
        </select>
      </label>
      {f.kind === 'tcp' ? (<>
        <label>Host <input value={f.host} onChange={(e) => edit({ host: e.target.value })} autoComplete="off" spellCheck={false} /></label>
        <label>Port <input value={f.port} inputMode="numeric" onChange={(e) => edit({ port: e.target.value })} /></label>
      </>) : null}
      {f.kind === 'udp' ? (<>
        <label>Port to listen on <input value={f.udpPort} inputMode="numeric" onChange={(e) => edit({ udpPort: e.target.value })} /></label>
        {/* A receiver sending datagrams is on the network: the app listens on every interface, so says who can send. */}
        <p className="muted">The app listens on every network of this computer: any device that can reach this port can send it positions. Use it on a network you trust.</p>
      </>) : null}
      {f.kind === 'gpsd' ? (<>
        <label>Host <input value={f.gpsdHost} onChange={(e) => edit({ gpsdHost: e.target.value })} autoComplete="off" spellCheck={false} /></label>
        <label>Port <input value={f.gpsdPort} inputMode="numeric" onChange={(e) => edit({ gpsdPort: e.target.value })} /></label>
      </>) : null}
      {f.kind === 'serial' ? (<>
        <label>Port
          <select value={serial} onChange={(e) => setSerial(e.target.value)} disabled={!ports?.length}>
            {ports?.length ? ports.map((p) => <option key={p.id} value={p.id}>{p.label}</option>) : <option value="">{ports ? 'No serial port found' : 'Looking…'}</option>}
          </select>
        </label>
        <button type="button" onClick={look}>Look for ports again</button>
        <label>Baud
          <select value={f.baud} onChange={(e) => edit({ baud: e.target.value })}>{BAUD_RATES.map((b) => <option key={b} value={b}>{b}</option>)}</select>
        </label>
      </>) : null}
      {f.kind === 'system' ? <p className="muted">The browser asks once whether the app may use this computer&apos;s location.</p> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      <div className="buttons">
        <button type="submit">Connect</button>
        <button type="button" disabled={!connected} onClick={() => void api.positionDisconnect({}).then(takeState, (err) => setError(why(err)))}>Disconnect</button>
      </div>
    </form>
  );
}

function Settings() {
  const prefs = usePosition((s) => s.prefs);
  const n = (text: string, min: number, max: number): number | null => { const v = Number(text.replace(',', '.')); return text.trim() !== '' && Number.isFinite(v) && v >= min && v <= max ? v : null; };
  return (
    <fieldset>
      <legend>Vertices and walks</legend>
      <label>Accuracy threshold, metres (empty: any)
        <input defaultValue={prefs.threshold ?? ''} inputMode="decimal" onChange={(e) => { const v = n(e.target.value, 0.001, 1000); if (v !== null || e.target.value.trim() === '') setPrefs({ threshold: v }); }} />
      </label>
      <label>Average each vertex over
        <span className="buttons">
          <input aria-label="Averaging count" defaultValue={prefs.averageN} inputMode="numeric" size={4} onChange={(e) => { const v = n(e.target.value, 1, 600); if (v !== null) setPrefs({ averageN: Math.round(v) }); }} />
          <select aria-label="Averaging unit" value={prefs.averageBy} onChange={(e) => setPrefs({ averageBy: e.target.value === 'seconds' ? 'seconds' : 'fixes' })}>
            <option value="fixes">fixes</option><option value="seconds">seconds</option>
          </select>
        </span>
      </label>
      <label>Walk: a point every … metres
        <input defaultValue={prefs.minDistance} inputMode="decimal" onChange={(e) => { const v = n(e.target.value, 0, 1000); if (v !== null) setPrefs({ minDistance: v }); }} />
      </label>
      <label>Walk: and/or every … seconds
        <input defaultValue={prefs.minInterval} inputMode="decimal" onChange={(e) => { const v = n(e.target.value, 0, 3600); if (v !== null) setPrefs({ minInterval: v }); }} />
      </label>
      <label>Closing a walk may change its area by at most … %
        <input defaultValue={prefs.tolerance} inputMode="decimal" onChange={(e) => { const v = n(e.target.value, 0, 10); if (v !== null) setPrefs({ tolerance: v }); }} />
      </label>
    </fieldset>
  );
}

function Walk() {
  const api = useApi();
  const track = usePosition((s) => s.track);
  const farms = useApp((s) => s.farms);
  const farmId = useApp((s) => s.farmId);
  const [farm, setFarm] = useState(farmId ?? '');
  useEffect(() => { if (!farm && farmId) setFarm(farmId); }, [farm, farmId]);
  if (!track) {
    return (
      <>
        <h3>Walk a boundary</h3>
        <label>Farm
          <select value={farm} onChange={(e) => setFarm(e.target.value)}>{farms.map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}</select>
        </label>
        <div className="buttons"><button type="button" disabled={!farm} onClick={() => void startWalk(api, farm)}>Start walking</button></div>
      </>
    );
  }
  const ha = walkHectares(track.points, track.settings.maxAccuracy);
  return (
    <>
      <h3>Walking a boundary</h3>
      <p role="status" aria-label="Walk">
        {track.state === 'paused' ? 'Paused' : 'Recording'} in {farms.find((x) => x.id === track.farm)?.name ?? 'a farm'}: <output data-field="walk-points">{track.points.length}</output> points
        {track.dropped ? `, ${track.dropped} left out for their accuracy` : ''}; area <output data-field="walk-hectares">{hectares(ha)}</output>
      </p>
      <div className="buttons">
        <button type="button" onClick={() => void pauseWalk(api, track.state === 'recording')}>{track.state === 'recording' ? 'Pause' : 'Resume'}</button>
        <button type="button" disabled={track.points.length < 3} onClick={() => void closeWalkIntoDraft(api)}>Close into a parcel</button>
        <button type="button" onClick={() => void discardWalk(api)}>Discard the walk</button>
      </div>
    </>
  );
}

/**
 * V (as mapped) for a vertex at my position: also in the vertex field drawing puts the focus in, which takes no letter
 * but those of degrees, minutes and seconds (N S E W, d m s): there V typed a "v" and added nothing.
 */
function hereKey(e: KeyboardEvent): boolean {
  if (isShortcut(e, 'here')) return true;
  const inCoordinates = e.target instanceof HTMLElement && e.target.closest('form.lonlat') !== null;
  return inCoordinates && !/^[nsewdm]$/i.test(e.key) && matchesShortcut(e, 'here', useKeymap.getState(), behindPanel());
}

export function PositionPanel() {
  const open = usePosition((s) => s.open);
  const state = usePosition((s) => s.state);
  const account = useApp((s) => s.account !== null);
  const panelId = useId();
  const key = useKeyName('position');
  const panel = useDialogFocus(() => setOpen(false), { modal: false, opener: '.position-control > button', open });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isShortcut(e, 'position')) { e.preventDefault(); setOpen(!usePosition.getState().open); }
      else if (hereKey(e) && (useApp.getState().mode === 'draw' || useApp.getState().mode === 'modify')) { e.preventDefault(); startVertex(); }
      else if (isShortcut(e, 'follow')) {
        e.preventDefault();
        const follow = !usePosition.getState().follow;
        setPosition({ follow });
        say(follow ? 'Following your position.' : 'Stopped following your position.');
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const status = state?.status ?? 'off';
  return (
    <div className="position-control">
      <button type="button" aria-expanded={open} aria-controls={panelId} aria-keyshortcuts={key ?? undefined} title={`Position: connect a receiver, walk a boundary${keyHint(key)}`}
        onClick={() => setOpen(!open)}>Position{status === 'connected' ? ' ●' : ''}</button>
      <PositionReadout />
      {open ? (
        <section id={panelId} ref={panel} className="position-panel" role="dialog" aria-labelledby={`${panelId}-title`} tabIndex={-1}
          onKeyDown={(e) => { if (e.key !== 'Escape') e.nativeEvent.stopPropagation(); }}>
          <div className="position-head">
            <h2 id={`${panelId}-title`}>Position</h2>
            <button type="button" aria-label="Close the position panel" title="Close (Esc)" onClick={() => setOpen(false)}>✕</button>
          </div>
          <p role="status" aria-label="Connection" className={`position-status ${status}`}>{state ? statusWords(state) : 'Not connected.'}</p>
          <ConnectForm />
          <Settings />
          {account ? <Walk /> : null}
        </section>
      ) : null}
    </div>
  );
}
