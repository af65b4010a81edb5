// The app's backend contract, where the user stands (issue 31): the host owns the connection to a GNSS receiver —
// NMEA 0183 over a serial/USB port, TCP or UDP, or gpsd's JSON — parses what it sends and tells every page the
// position as events; the page only chooses a source (a serial port among those the host lists by an opaque id, never
// a path it types; a receiver on the network by host and port) and draws. The system's location (the browser's
// Geolocation, where the shell grants it to the app's own page) is read by the page and reported to the host, so every
// source reaches the map, and a walk being recorded, the same way.
//
// Walking a boundary is recorded by the host (fixes taken as they arrive, by distance and/or time, those worse than
// the threshold dropped), kept in FURROW_HOME so that a walk survives the app's restart and a laptop's sleep; the page
// closes it into a draft parcel and saves it through the ordinary create, then discards the track. Part of API
// (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_AND_CLI, PAGE_ONLY, type Contract, type EventContract } from './rpc.ts';
import { AccountId, Id, Lat, Lon, Nullable, Obj } from './api-schemas.ts';

/** What a fix rests on: GGA's quality indicator in words, or the system's location. */
export const FixQuality = Type.Union([
  Type.Literal('none'), Type.Literal('gps'), Type.Literal('dgps'), Type.Literal('pps'),
  Type.Literal('rtk-fixed'), Type.Literal('rtk-float'), Type.Literal('estimated'), Type.Literal('manual'),
  Type.Literal('simulation'), Type.Literal('system'),
]);
export type FixQuality = Static<typeof FixQuality>;

const Metres = Type.Number({ minimum: 0 });

/** One position, as the receiver (or the system) gave it. */
export const Fix = Obj({
  lon: Lon, lat: Lat,
  /** Metres above mean sea level (GGA); null when not sent. */
  altitude: Nullable(Type.Number()),
  quality: FixQuality,
  /** Satellites used in the fix (GGA); null when not sent. */
  satellites: Nullable(Type.Integer({ minimum: 0 })),
  hdop: Nullable(Metres),
  /** Horizontal accuracy in metres, one sigma (GST's latitude and longitude errors combined, or the system's); null unknown. */
  accuracy: Nullable(Metres),
  /** Course over ground, degrees clockwise from true north (RMC); null when not moving or not sent. */
  heading: Nullable(Type.Number({ minimum: 0, maximum: 360 })),
  /** Speed over ground, m/s; null when not sent. */
  speed: Nullable(Metres),
  /** When the receiver took the fix (UTC, ISO 8601). */
  time: Type.String({ maxLength: 40 }),
  /** When the host received it (ms since the epoch, the host's clock): a fix's age is measured from this. */
  received: Type.Integer({ minimum: 0 }),
});
export type Fix = Static<typeof Fix>;

/** A serial port the host found, named by an id the host made up (never its path). */
export const SerialPortId = Type.String({ pattern: '^[0-9a-f]{16,64}$' });
export const SerialPortInfo = Obj({ id: SerialPortId, label: Type.String({ maxLength: 300 }) });
export type SerialPortInfo = Static<typeof SerialPortInfo>;

const Host = Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:\\[\\]-]+$', description: 'a host name or IP address' });
const PortNumber = Type.Integer({ minimum: 1, maximum: 65535 });
export const BAUD_RATES = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600] as const;
export const GPSD_PORT = 2947;

/** Where positions come from. */
export const PositionSource = Type.Union([
  Obj({ kind: Type.Literal('serial'), port: SerialPortId, baud: Type.Union(BAUD_RATES.map((b) => Type.Literal(b))) }),
  /** A receiver (or a phone app) sharing NMEA over TCP: the host connects to it. */
  Obj({ kind: Type.Literal('tcp'), host: Host, port: PortNumber }),
  /** A receiver sending NMEA datagrams: the host listens on this port. */
  Obj({ kind: Type.Literal('udp'), port: PortNumber }),
  Obj({ kind: Type.Literal('gpsd'), host: Host, port: PortNumber }),
  /** The system's location, read by the page and reported with positionReport. */
  Obj({ kind: Type.Literal('system') }),
]);
export type PositionSource = Static<typeof PositionSource>;

export const PositionStatus = Type.Union([
  Type.Literal('off'), Type.Literal('connecting'), Type.Literal('connected'), Type.Literal('reconnecting'), Type.Literal('failed'),
]);
export type PositionStatus = Static<typeof PositionStatus>;

/** The connection and the last fix: what the page shows. */
export const PositionState = Obj({
  source: Nullable(PositionSource),
  status: PositionStatus,
  /** Why it is reconnecting or failed, in words ("The receiver stopped answering: trying again in 4 s"); null otherwise. */
  message: Nullable(Type.String()),
  /**
   * The last fix. When the receiver says it has none, the last position with quality 'none' (received: when it said
   * so; no accuracy, satellites, HDOP, heading or speed); null before any position.
   */
  fix: Nullable(Fix),
  /** Satellites in view (GSV); null when not sent. */
  inView: Nullable(Type.Integer({ minimum: 0 })),
});
export type PositionState = Static<typeof PositionState>;

/** How a walk takes fixes: a point when it is `minDistance` metres from the last one and/or `minInterval` seconds after it. */
export const TrackSettings = Obj({
  minDistance: Type.Number({ minimum: 0, maximum: 1000 }),
  minInterval: Type.Number({ minimum: 0, maximum: 3600 }),
  /** Fixes with a worse (or unknown) accuracy are dropped and counted; null takes every fix. */
  maxAccuracy: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
});
export type TrackSettings = Static<typeof TrackSettings>;

export const Track = Obj({
  id: Id,
  account: AccountId,
  farm: Id,
  state: Type.Union([Type.Literal('recording'), Type.Literal('paused')]),
  settings: TrackSettings,
  points: Type.Array(Fix),
  /** Fixes left out for their accuracy. */
  dropped: Type.Integer({ minimum: 0 }),
  /** When the walk began (ISO 8601). */
  started: Type.String(),
});
export type Track = Static<typeof Track>;

/** A point added to the walk under way (the page appends it; trackCurrent gives the whole walk). */
export const TrackPoint = Obj({ track: Id, index: Type.Integer({ minimum: 0 }), point: Fix, dropped: Type.Integer({ minimum: 0 }) });
export type TrackPoint = Static<typeof TrackPoint>;

export const POSITION_API = {
  positionPorts: {
    callers: PAGE_AND_CLI, description: 'The serial and USB ports of this computer a receiver may be on, each by an id and a label (its name and maker)',
    args: Obj({}), result: Type.Array(SerialPortInfo),
  },
  positionConnect: {
    callers: PAGE_AND_CLI,
    description: 'Connects to a source of position (replacing any other), remembered on this computer and connected again at start; reconnects by itself when the receiver drops; not_found for a port no longer listed',
    args: Obj({ source: PositionSource }), result: PositionState,
  },
  positionConnectPath: {
    callers: CLI_ONLY,
    description: "Connects to a serial device by its path, for one the port list does not show (a Bluetooth /dev/rfcomm0, a pseudo-terminal): the command line's only, since a page never names a path. The state's source names it by the id the host gives that path",
    args: Obj({ path: Type.String({ minLength: 1, maxLength: 4096 }), baud: Type.Union(BAUD_RATES.map((b) => Type.Literal(b))) }), result: PositionState,
  },
  positionDisconnect: {
    callers: PAGE_AND_CLI, description: 'Closes the source of position and forgets it on this computer',
    args: Obj({}), result: PositionState,
  },
  positionState: {
    callers: PAGE_AND_CLI, description: 'The source of position, its connection and the last fix',
    args: Obj({}), result: PositionState,
  },
  positionReport: {
    callers: PAGE_ONLY, description: "A fix of the system's location, read by the page; refused (conflict) unless the source is 'system'",
    args: Obj({ fix: Fix }), result: Type.Null(),
  },
  trackStart: {
    callers: PAGE_AND_CLI, description: "Begins recording a walk in a farm from the source's fixes; conflict while another walk is kept",
    args: Obj({ account: AccountId, farm: Id, settings: TrackSettings }), result: Track,
  },
  trackPause: { callers: PAGE_AND_CLI, description: 'Stops taking fixes into the walk (it stays kept)', args: Obj({}), result: Track },
  trackResume: { callers: PAGE_AND_CLI, description: 'Takes fixes into the walk again', args: Obj({}), result: Track },
  trackCurrent: { callers: PAGE_AND_CLI, description: 'The walk kept, recording or paused; null when none', args: Obj({}), result: Nullable(Track) },
  trackDiscard: { callers: PAGE_AND_CLI, description: 'Forgets the walk kept (after it was saved as a parcel, or to start again)', args: Obj({}), result: Type.Null() },
} satisfies Contract;

export const POSITION_EVENTS = {
  position: {
    callers: PAGE_AND_CLI, payload: PositionState,
    description: 'The connection changed or a fix came: at most 20 a second (a faster receiver is thinned to the latest fix)',
  },
  trackPoint: { callers: PAGE_AND_CLI, payload: TrackPoint, description: 'A point was added to the walk under way' },
} satisfies EventContract;
