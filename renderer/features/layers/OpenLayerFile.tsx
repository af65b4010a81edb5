// "Open a file as a layer…": the user's MBTiles, PMTiles, GeoTIFF or vector overlay, of any size, handed to the host
// (upload-file.ts) — in browser mode its bytes in chunks, with a progress bar and Cancel; in Electron through main's
// own open dialog, the host copying the file. What the host found in it goes to `onAdded` (the layers panel adds the
// layer: layerOfFile); a file the map cannot show is said in words, the host's own.
import { useRef, useState } from 'react';
import type { LayerFileInfo } from '../../../core/api-layer-files.ts';
import type { MapLayer } from '../../../core/api-layers.ts';
import { LAYER_FILE_ACCEPT, LAYER_FILE_MAX_BYTES } from '../../../core/layers/layer-files.ts';
import { RpcCode, RpcError } from '../../../core/rpc.ts';
import { useApi } from '../../context.ts';
import { electronBridge } from '../../electron-port.ts';
import { chooseLayerFile, uploadLayerFile } from './upload-file.ts';
import './open-layer-file.css';

/** A new layer, shown on top, of a file the host kept. */
export function layerOfFile(info: LayerFileInfo): MapLayer {
  return {
    id: `file-${info.file}`, name: info.name, visible: true, opacity: 1, source: { kind: 'file', file: info.file, format: info.format },
    ...(info.attribution ? { attribution: info.attribution } : {}),
  };
}

/** How much of a file has gone, in words. */
const amount = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${Math.round(n / 1024 ** 2)} MB`);

export function OpenLayerFile({ onAdded, disabled = false }: { onAdded(info: LayerFileInfo): void; disabled?: boolean }) {
  const api = useApi();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState<{ name: string; done: number; total: number; stop: AbortController } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (name: string, go: (opts: { signal: AbortSignal; onProgress(done: number, total: number): void }) => Promise<LayerFileInfo | null>) => {
    const stop = new AbortController();
    setError(null);
    setBusy({ name, done: 0, total: 0, stop });
    try {
      const info = await go({ signal: stop.signal, onProgress: (done, total) => setBusy((b) => (b && { ...b, done, total })) });
      if (info) onAdded(info);
    } catch (err) {
      if (!(err instanceof RpcError && err.code === RpcCode.cancelled)) setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(null);
    }
  };

  const open = () => {
    const bridge = electronBridge();
    // Electron: main's dialog (the page never sees a path). Browser mode: the page's own file input.
    if (bridge) void run('the file', (opts) => chooseLayerFile(api, bridge, opts));
    else input.current?.click();
  };

  const pct = busy && busy.total > 0 ? Math.floor((busy.done / busy.total) * 100) : 0;
  return (
    <div className="open-layer-file">
      <button type="button" onClick={open} disabled={disabled || busy !== null}
        title="An MBTiles, PMTiles or GeoTIFF file, or a vector overlay (GeoJSON, KML/KMZ, zipped Shapefile, GeoPackage): the app keeps its own copy">
        Open a file as a layer…
      </button>
      <input ref={input} type="file" hidden accept={LAYER_FILE_ACCEPT.join(',')} aria-label="File to open as a layer"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = ''; // the same file chosen again is a new choice
          if (!file) return;
          if (file.size === 0) return setError(`${file.name} is empty.`);
          if (file.size > LAYER_FILE_MAX_BYTES) return setError(`${file.name} is ${amount(file.size)}: the app keeps layer files of up to ${amount(LAYER_FILE_MAX_BYTES)}.`);
          void run(file.name, (opts) => uploadLayerFile(api, file, opts));
        }} />
      {busy ? (
        <div className="open-layer-file-progress" role="status" aria-label="Opening a layer file">
          <span>{busy.total > 0 && busy.done < busy.total ? `Sending ${busy.name}: ${amount(busy.done)} of ${amount(busy.total)}` : `Reading ${busy.name}…`}</span>
          <progress max={100} value={busy.total > 0 && busy.done < busy.total ? pct : undefined} aria-label="Sent" />
          <button type="button" onClick={() => busy.stop.abort()}>Cancel</button>
        </div>
      ) : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
    </div>
  );
}
