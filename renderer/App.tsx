// The app's window: toolbar, map with legend, farms and the parcel panel, status line. It follows the host's events:
// a change of the account reads what is shown again, a sync's progress moves the bar.
import { useEffect } from 'react';
import { preferredAccount, type Backend } from './backend.ts';
import { ApiContext } from './context.ts';
import { redo, undo } from './actions.ts';
import { refreshAccount } from './account.ts';
import { syncNow } from './features/status/sync-now.ts';
import { connectionOnProgress } from './features/status/status-words.ts';
import { chooseAccount, set, startDrawing, startPoint, stopDrawing, useApp } from './store.ts';
import { MapView } from './MapView.tsx';
import { Toolbar } from './Toolbar.tsx';
import { FarmsList } from './FarmsList.tsx';
import { ParcelPanel } from './ParcelPanel.tsx';
import { Legend } from './Legend.tsx';
import { StatusBar } from './StatusBar.tsx';
import { SettingsPanel } from './features/settings/SettingsPanel.tsx';
import { FirstRun } from './features/settings/FirstRun.tsx';
import { useSettings } from './features/settings/settings-store.ts';
import { SearchBox } from './features/search/SearchBox.tsx';
import { MetadataFilterForm } from './features/filter/MetadataFilterForm.tsx';
import { FilterBanner } from './features/filter/FilterBanner.tsx';
import { useZoomKey } from './features/zoom/useZoomKey.ts';
import { useAutoSync } from './features/status/useAutoSync.ts';
import { isField } from './keys.ts';
import { behindPanel, isShortcut } from './keymap.ts';
import { focusSoon } from './features/focus/focus-soon.ts';
import { parcelsDrawn } from './features/map/first-paint.ts';
import { FarmRotationTable } from './features/rotations/FarmRotationTable.tsx';
import { rotationFarm, setRotations, useRotations } from './features/rotations/rotation-store.ts';
import { HelpButton, HelpPanel, toggleHelp, useHelp } from './features/help/HelpPanel.tsx';
import { SyncCockpit, toggleCockpit, useCockpit } from './features/cockpit/SyncCockpit.tsx';
import { ImportDropZone } from './features/imports/ImportDropZone.tsx';
import { ImportDialog } from './features/imports/ImportDialog.tsx';
import { AccountsPanel } from './features/accounts/AccountsPanel.tsx';
import { useAccounts } from './features/accounts/accounts-store.ts';
import { useAnnounce } from './features/focus/announce.ts';
import { keepView, restoreView, startAccount } from './features/view/view-settings.ts';
import { usePositionEvents } from './features/position/usePositionEvents.ts';
import { MeasureButton, MeasurePanel } from './features/measure/MeasurePanel.tsx';
import { useToolKeys } from './features/measure/useToolKeys.ts';
import { GoToButton, GoToPanel } from './features/goto/GoToPanel.tsx';
import { useGoTo } from './features/goto/goto-store.ts';
import { ParcelTable, TableButton } from './features/table/ParcelTable.tsx';
import { toggleTable, useTable } from './features/table/table-store.ts';
import { PrintButton, PrintPanel } from './features/print/PrintPanel.tsx';
import { usePrint } from './features/print/print-store.ts';

/** A sync started elsewhere (the launcher, another tab) reports only progress: its bar goes once it has been quiet this long. */
const SYNC_QUIET_MS = 2000;
/** The longest the start's sync waits for the map's first parcels. */
const START_SYNC_WAIT_MS = 3000;

export function App({ backend }: { backend: Backend }) {
  const api = backend.api;
  const account = useApp((s) => s.account?.id);
  const settings = useSettings((s) => s.open);
  const firstRun = useSettings((s) => s.loaded) && !account;
  const rotationTable = useRotations((s) => s.table !== null);
  const help = useHelp((s) => s.open);
  const cockpit = useCockpit((s) => s.open);
  const accountsOpen = useAccounts((s) => s.open);
  const said = useAnnounce((s) => s.text);
  const measuring = useApp((s) => s.mode === 'measure');
  const goingTo = useGoTo((s) => s.open);
  const tableOpen = useTable((s) => s.open);
  const printing = usePrint((s) => s.open);
  useZoomKey(api);
  useToolKeys();
  useAutoSync(api);
  usePositionEvents(backend);

  useEffect(() => {
    let live = true;
    let stopKeeping = () => {};
    // The view's choices of the last start (features/view/): the account and farm shown, the colours, filter, plants.
    void Promise.all([api.accounts({}), api.viewSettings({}).catch(() => null)]).then(async ([accounts, view]) => {
      if (!live) return;
      const first = startAccount(accounts, view, preferredAccount());
      set({ accounts });
      chooseAccount(first);
      restoreView(view, first?.id ?? null);
      stopKeeping = keepView(api);
      useSettings.setState({ loaded: true }); // none: the app opens on the Connect form (features/settings/FirstRun.tsx)
      await refreshAccount(api, accounts);
      // The start's sync waits for the map's first parcels (at most a few seconds): its pull and the first view's
      // answer would share the backend. An account with nothing to draw syncs at once (a first start pulls the demo).
      if (useApp.getState().farms.some((f) => f.parcels > 0)) await parcelsDrawn(START_SYNC_WAIT_MS);
      await syncNow(api);
    });
    return () => { live = false; stopKeeping(); };
  }, [api]);

  useEffect(() => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    let refresh: ReturnType<typeof setTimeout> | undefined;
    const shown = (account: string) => account === useApp.getState().account?.id;
    const stops = [
      backend.on('changed', (e) => {
        if (!shown(e.account)) return;
        set((s) => ({ version: s.version + 1 }));
        // Farms' totals and the undo history follow, a burst of changes (a pull) read once.
        clearTimeout(refresh);
        refresh = setTimeout(() => void refreshAccount(api).catch(() => {}), 100);
      }),
      backend.on('sync', (progress) => {
        if (!shown(progress.account)) return;
        set((s) => ({ sync: progress, connection: connectionOnProgress(s.connection, progress) }));
        clearTimeout(quiet);
        quiet = setTimeout(() => { if (!useApp.getState().syncing) set({ sync: null }); }, SYNC_QUIET_MS);
      }),
      backend.on('accounts', () => void refreshAccount(api).catch(() => {})),
    ];
    return () => { for (const stop of stops) stop(); clearTimeout(quiet); clearTimeout(refresh); };
  }, [api, backend]);

  // The toolbar's shortcuts (keymap.ts: as the user mapped them); never while typing in a field, nor behind a panel.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // F1 even in a field (it types nothing); ? only outside one.
      if ((e.key === 'F1' && !behindPanel()) || isShortcut(e, 'help')) {
        e.preventDefault();
        toggleHelp();
        return;
      }
      if (isField(e.target) || behindPanel()) return;
      const { mode } = useApp.getState();
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'z' && mode === 'browse') {
        e.preventDefault();
        void (e.shiftKey ? redo(api) : undo(api));
      } else if (isShortcut(e, 'draw') && account) {
        e.preventDefault();
        if (mode === 'draw') stopDrawing();
        // From the keyboard: straight to the field its vertices are typed in.
        else { startDrawing(); focusSoon('.lonlat input'); }
      } else if (isShortcut(e, 'point') && account) {
        e.preventDefault();
        if (mode === 'point') stopDrawing();
        else { startPoint(); focusSoon('.lonlat input'); }
      } else if (isShortcut(e, 'sync') && account) {
        e.preventDefault();
        void syncNow(api);
      } else if (isShortcut(e, 'cockpit') && account) {
        e.preventDefault();
        toggleCockpit();
      } else if (isShortcut(e, 'table') && account) {
        e.preventDefault();
        toggleTable();
      } else if (isShortcut(e, 'rotation') && account && mode === 'browse') {
        // The rotation table of the selected parcel's farm, else of the chosen farm; R again closes it.
        e.preventDefault();
        if (useRotations.getState().table) setRotations({ table: null });
        else void rotationFarm(api).then((farm) => setRotations({ table: farm }));
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [api, account]);

  return (
    <ApiContext.Provider value={api}>
      <div className="app">
        {/* The first Tab stop: past the toolbar and the map, straight to the parcel's panel. */}
        <button type="button" className="skip-link" onClick={() => document.getElementById('side')?.focus()}>Skip to the side panel</button>
        <header className="top">
          <h1>Furrow</h1>
          <Toolbar />
          <SearchBox />
          <HelpButton />
        </header>
        {settings ? <SettingsPanel /> : null}
        {accountsOpen ? <AccountsPanel /> : null}
        <main className="body">
          {firstRun ? <FirstRun /> : null}
          <div className="map-wrap" role="region" aria-label="Map" hidden={firstRun}>
            <MapView />
            <Legend />
            <FilterBanner />
            {tableOpen && account ? <ParcelTable /> : null}
            {rotationTable ? <FarmRotationTable /> : null}
            {help ? <HelpPanel /> : null}
            {cockpit ? <SyncCockpit /> : null}
            <ImportDialog />
            <ImportDropZone />
            {/* The map's tools, above the cursor's read-out (the toolbar is full at 1280 px: the header stays one line). */}
            <div className="map-tool-buttons" role="group" aria-label="Map tools"><MeasureButton /><GoToButton /><TableButton /><PrintButton /></div>
            {measuring || goingTo || printing ? <div className="map-tools">{measuring ? <MeasurePanel /> : null}{goingTo ? <GoToPanel /> : null}{printing ? <PrintPanel /> : null}</div> : null}
          </div>
          {/* Nothing to list or edit before an account is connected: the Connect form has the room. */}
          <div className="side" id="side" tabIndex={-1} role="region" aria-label="Side panel" hidden={firstRun}>
            <ParcelPanel />
            <FarmsList />
            <MetadataFilterForm />
          </div>
        </main>
        <StatusBar />
        <p className="visually-hidden" role="status" aria-label="Selection">{said}</p>
      </div>
    </ApiContext.Provider>
  );
}
