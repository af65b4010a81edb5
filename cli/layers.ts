// `layers`: the map's layers as this computer keeps them, and the user's own files added as layers by path (the
// command line may name one; the app's page never does). `layers add FILE` copies the file into the app's folder
// (FURROW_HOME/layers/, backend/layer-files.ts), tells its format, and adds it on top of the layers, shown; `layers
// remove ID` removes a layer (its file with it). The app shows the list at its next start (or its next reading).
import { basename, resolve } from 'node:path';
import type { ClientOf } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import type { MapLayer } from '../core/api-layers.ts';
import { WORLD_LAYER_ID } from '../core/layers/layer-rules.ts';
import { UsageError } from './args.ts';
import { copyPrinter, type OutStream } from './output.ts';

const size = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${(n / 1024 ** 2).toFixed(1)} MB`);

/** Runs `layers [list | add FILE | remove ID]`; its exit code. */
export async function layersCommand(api: ClientOf<Api>, args: (string | undefined)[], io: { out: (x: unknown) => void; stderr: OutStream }): Promise<number> {
  const [sub = 'list', arg] = args;
  switch (sub) {
    case 'list': {
      const { layers } = await api.layers({});
      io.out(layers.map((l) => ({ id: l.id, name: l.name, kind: l.source.kind, ...(l.source.kind === 'file' ? { format: l.source.format } : {}), visible: l.visible, opacity: l.opacity })));
      return 0;
    }
    case 'add': {
      if (!arg) throw new UsageError('layers add needs the FILE to add');
      const path = resolve(arg);
      const printer = copyPrinter(io.stderr, basename(path));
      let info;
      try {
        info = await api.addLayerFilePath({ path }, { onProgress: (p) => printer.onProgress(p.done, p.total) });
      } finally {
        printer.done();
      }
      const { layers } = await api.layers({});
      const layer: MapLayer = {
        id: `file-${info.file}`, name: info.name, visible: true, opacity: 1, source: { kind: 'file', file: info.file, format: info.format },
        ...(info.attribution ? { attribution: info.attribution } : {}),
      };
      try {
        await api.saveLayers({ layers: [...layers, layer] });
      } catch (err) {
        await api.removeLayerFile({ file: info.file }).catch(() => undefined);
        throw err;
      }
      io.out(`Added layer "${info.name}" (${info.format}, ${size(info.bytes)}${info.features !== null ? `, ${info.features} features` : ''}) on top of the map's layers, as ${layer.id}.`);
      for (const n of info.notes) io.out(`  ${n}`);
      return 0;
    }
    case 'remove': {
      if (!arg) throw new UsageError('layers remove needs the ID of a layer (see npm run -s cli -- layers)');
      if (arg === WORLD_LAYER_ID) throw new UsageError('The world backdrop cannot be removed (the app can hide it)');
      const { layers } = await api.layers({});
      const gone = layers.find((l) => l.id === arg);
      if (!gone) throw new UsageError(`No layer ${arg} (see npm run -s cli -- layers)`);
      await api.saveLayers({ layers: layers.filter((l) => l !== gone) });
      io.out(`Removed layer "${gone.name}"${gone.source.kind === 'file' ? ' and its file' : ''}.`);
      return 0;
    }
    default: throw new UsageError(`Unknown layers command '${sub}': list, add FILE or remove ID`);
  }
}
