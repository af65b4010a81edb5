// A file the user chose, handed to the host as a layer file without ever naming a path (core/api-layer-files.ts).
// Browser mode: the page reads the File a chunk at a time (never whole: a 4 GB orthophoto) and sends each in base64,
// a few in flight, the host writing each at its place; Cancel (the signal) stops it and the host drops what it
// wrote. Electron: main shows its own dialog and the page gets a ticket, which the host redeems (the file copied on
// the host's side, with progress). Either way the answer is what the host found in the file.
import type { LayerFileInfo } from '../../../core/api-layer-files.ts';
import { LAYER_CHUNKS_IN_FLIGHT, uploadChunks } from '../../../core/layers/layer-files.ts';
import { RpcCode, RpcError } from '../../../core/rpc.ts';
import type { AppApi } from '../../backend.ts';

export type UploadApi = Pick<AppApi, 'addLayerFileBegin' | 'addLayerFileChunk' | 'addLayerFileEnd' | 'addLayerFileCancel'>;

export interface UploadOptions {
  /** Aborting it stops the upload: what the host wrote is removed. */
  signal?: AbortSignal;
  /** Bytes sent so far, of the file's. */
  onProgress?(done: number, total: number): void;
}

/** Bytes as base64, a slice at a time (String.fromCharCode takes only so many arguments). */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

const cancelled = () => new RpcError(RpcCode.cancelled, 'Cancelled');

/** Sends `file` to the host in chunks (browser mode) and answers what the host found in it. */
export async function uploadLayerFile(api: UploadApi, file: Blob & { name: string }, opts: UploadOptions = {}): Promise<LayerFileInfo> {
  if (opts.signal?.aborted) throw cancelled();
  const { upload, chunkBytes } = await api.addLayerFileBegin({ name: file.name, size: file.size });
  const chunks = uploadChunks(file.size, chunkBytes);
  let next = 0;
  let done = 0;
  const send = async () => {
    while (next < chunks.length) {
      if (opts.signal?.aborted) throw cancelled();
      const c = chunks[next++]!;
      const bytes = new Uint8Array(await file.slice(c.offset, c.offset + c.length).arrayBuffer());
      await api.addLayerFileChunk({ upload, offset: c.offset, data: toBase64(bytes) });
      done += c.length;
      opts.onProgress?.(done, file.size);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(LAYER_CHUNKS_IN_FLIGHT, chunks.length) }, send));
    if (opts.signal?.aborted) throw cancelled();
    return await api.addLayerFileEnd({ upload });
  } catch (err) {
    // Whatever stopped it (Cancel, a refused chunk, the connection): the host is told to drop what it has.
    await api.addLayerFileCancel({ upload }).catch(() => undefined);
    throw err;
  }
}

/** What electron/preload.ts exposes for main's open dialog (a ticket for the file chosen, or null). */
export interface LayerFileBridge {
  chooseLayerFile?(): Promise<string | null>;
}

/** Electron: main's dialog, then the host copies the file chosen; null when the user chose nothing. */
export async function chooseLayerFile(api: Pick<AppApi, 'addLayerFileChosen'>, bridge: LayerFileBridge, opts: UploadOptions = {}): Promise<LayerFileInfo | null> {
  if (!bridge.chooseLayerFile) throw new Error("This version of the app's window cannot open files as layers: update the app.");
  const ticket = await bridge.chooseLayerFile();
  if (!ticket) return null;
  return api.addLayerFileChosen({ ticket }, { signal: opts.signal, onProgress: (p) => opts.onProgress?.(p.done, p.total) });
}
